package semisyncsql_test

import (
	"database/sql"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"petrel/internal/base"
	"petrel/semisync"
	"petrel/sqlengine"
	"petrel/sqlengine/sqltest"
	"petrel/storage"
	"petrel/surface/semisyncsql"
)

// TestSemiSyncSQLSurface drives the semi-sync SQL surface through a real
// listener and go-sql-driver: both spellings of each variable set the
// Tracker's settings, the status variables read the Tracker (clients,
// yes_tx, waits) under both spellings, the replica's status follows its
// switch, and the built-in plugins answer INSTALL/UNINSTALL/SHOW PLUGINS
// with MySQL's error numbers.
func TestSemiSyncSQLSurface(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g := sqlengine.NewGlobals()
	vars := semisyncsql.Variables(g)
	e, err := sqlengine.New(sqlengine.Options{Store: st, ServerUUID: "3e11fa47-71ca-11e1-9e33-c80aa9429562", Logger: quiet, Globals: g})
	if err != nil {
		t.Fatal(err)
	}
	end := semisync.Pos{File: "binlog.000001", Off: 1000}
	tracker := semisync.New(vars.Source(), func() semisync.Pos { return end }, base.RealClock{})
	vars.Push(func(s semisyncsql.Settings) { tracker.Configure(s.Source) })
	var replicaOn atomic.Bool
	semisyncsql.Register(e, tracker, replicaOn.Load)
	c := sqltest.Client(t, e, 60*time.Second)
	db, ctx := c.DB, c.Ctx()
	exec, one, errno := c.Exec, c.One, c.Errno
	status := func(name string) string {
		t.Helper()
		var n, v string
		if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
			t.Fatalf("status %s: %v", name, err)
		}
		return v
	}

	// Defaults, as MySQL's plugin has them.
	if s := vars.Source(); s.Enabled || s.Timeout != 10*time.Second || s.WaitPoint != semisync.AfterSync || s.WaitForCount != 1 || !s.WaitNoReplica || s.Strict {
		t.Fatalf("default settings %+v", s)
	}
	// The master spelling sets the source's variable and the Tracker's settings.
	exec("SET GLOBAL rpl_semi_sync_master_enabled = ON")
	exec("SET GLOBAL rpl_semi_sync_source_timeout = 250")
	exec("SET GLOBAL rpl_semi_sync_master_wait_point = 'AFTER_COMMIT'")
	exec("SET GLOBAL rpl_semi_sync_master_wait_for_slave_count = 2")
	if v := one("SELECT @@GLOBAL.rpl_semi_sync_source_enabled"); v != "1" {
		t.Fatalf("rpl_semi_sync_source_enabled = %s after setting the master spelling", v)
	}
	if v := one("SELECT @@GLOBAL.rpl_semi_sync_master_timeout"); v != "250" {
		t.Fatalf("rpl_semi_sync_master_timeout = %s", v)
	}
	if s := vars.Source(); !s.Enabled || s.Timeout != 250*time.Millisecond || s.WaitPoint != semisync.AfterCommit || s.WaitForCount != 2 {
		t.Fatalf("settings after SET GLOBAL: %+v", s)
	}
	// ... and each SET GLOBAL pushed them to the tracker, which reads no
	// variable on its own.
	if got, want := tracker.Settings(), vars.Source(); got != want {
		t.Fatalf("tracker settings %+v, want %+v", got, want)
	}
	// Values outside the variable's type are refused (ER_WRONG_VALUE_FOR_VAR).
	if n := errno("SET GLOBAL rpl_semi_sync_source_wait_point = 'AFTER_NOTHING'"); n != 1231 {
		t.Fatalf("bad wait point: error %d, want 1231", n)
	}
	exec("SET GLOBAL rpl_semi_sync_source_wait_point = 'AFTER_SYNC'")
	exec("SET GLOBAL rpl_semi_sync_source_wait_for_replica_count = 1")

	// Status variables read the Tracker, under both spellings.
	tracker.AddReplica(7, 2)
	if c, m := status("Rpl_semi_sync_source_clients"), status("Rpl_semi_sync_master_clients"); c != "1" || m != "1" {
		t.Fatalf("clients: source %s master %s, want 1", c, m)
	}
	if v := status("Rpl_semi_sync_source_status"); v != "ON" {
		t.Fatalf("Rpl_semi_sync_source_status = %s with one replica and semi-sync enabled", v)
	}
	p := semisync.Pos{File: "binlog.000001", Off: 900}
	tracker.Sent(7, p)
	waited := make(chan error, 1)
	go func() { waited <- tracker.Wait(ctx, p) }()
	deadline := time.Now().Add(10 * time.Second)
	for status("Rpl_semi_sync_source_wait_sessions") != "1" {
		if time.Now().After(deadline) {
			t.Fatal("the commit never showed as waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := tracker.Ack(7, p); err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatalf("wait: %v", err)
	}
	if y, m, w := status("Rpl_semi_sync_source_yes_tx"), status("Rpl_semi_sync_master_yes_tx"), status("Rpl_semi_sync_source_tx_waits"); y != "1" || m != "1" || w != "1" {
		t.Fatalf("after one acknowledged commit: yes_tx %s / %s, tx_waits %s", y, m, w)
	}
	if n := status("Rpl_semi_sync_source_no_tx"); n != "0" {
		t.Fatalf("no_tx = %s", n)
	}
	tracker.RemoveReplica(7)
	if c := status("Rpl_semi_sync_master_clients"); c != "0" {
		t.Fatalf("clients after the replica left: %s", c)
	}

	// The replica's status follows its switch.
	if a, b := status("Rpl_semi_sync_replica_status"), status("Rpl_semi_sync_slave_status"); a != "OFF" || b != "OFF" {
		t.Fatalf("replica status %s / %s, want OFF", a, b)
	}
	replicaOn.Store(true)
	if a, b := status("Rpl_semi_sync_replica_status"), status("Rpl_semi_sync_slave_status"); a != "ON" || b != "ON" {
		t.Fatalf("replica status %s / %s, want ON", a, b)
	}
	exec("SET GLOBAL rpl_semi_sync_slave_enabled = 1")
	if !vars.ReplicaEnabled() {
		t.Fatal("rpl_semi_sync_slave_enabled = 1 did not enable the replica side")
	}

	// The plugins are built in.
	exec("INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'")
	exec("INSTALL PLUGIN rpl_semi_sync_slave SONAME 'semisync_slave.so'")
	if n := errno("INSTALL PLUGIN no_such_plugin SONAME 'no_such.so'"); n != 1126 {
		t.Fatalf("INSTALL PLUGIN of an unknown plugin: error %d, want 1126", n)
	}
	if n := errno("UNINSTALL PLUGIN no_such_plugin"); n != 1305 {
		t.Fatalf("UNINSTALL PLUGIN of an unknown plugin: error %d, want 1305", n)
	}
	rows, err := db.QueryContext(ctx, "SHOW PLUGINS")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for rows.Next() {
		var name, status, typ, license string
		var lib sql.NullString
		if err := rows.Scan(&name, &status, &typ, &lib, &license); err != nil {
			t.Fatal(err)
		}
		found[name] = status + " " + typ + " " + lib.String
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"rpl_semi_sync_source":  "ACTIVE REPLICATION semisync_source.so",
		"rpl_semi_sync_replica": "ACTIVE REPLICATION semisync_replica.so",
		"rpl_semi_sync_master":  "ACTIVE REPLICATION semisync_master.so",
		"rpl_semi_sync_slave":   "ACTIVE REPLICATION semisync_slave.so",
	} {
		if found[name] != want {
			t.Errorf("SHOW PLUGINS %s: %q, want %q", name, found[name], want)
		}
	}
}
