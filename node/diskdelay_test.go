package node_test

import (
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
)

// TestStorageSyncDelay: petrel_storage_sync_delay from the config file is
// the delay storage opens with and the one every binlog group fsync
// waits for (a commit counts one delayed sync at least); the server
// reports it and refuses to change it at run time (1238); values that
// are not durations between 0 and 1s are refused at start.
func TestStorageSyncDelay(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	n, err := node.Open(node.Options{Datadir: t.TempDir() + "/d", RootPassword: "pw", Logger: quiet, Out: io.Discard,
		Variables: map[string]string{"petrel_storage_sync_delay": "3ms"}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if got := n.Store().SyncDelay(); got != 3*time.Millisecond {
		t.Errorf("storage opened with a sync delay of %v, want 3ms", got)
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", n.Addr()
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRow("SELECT @@GLOBAL.petrel_storage_sync_delay").Scan(&v); err != nil || v != "3ms" {
		t.Errorf("@@petrel_storage_sync_delay = %q (%v), want 3ms", v, err)
	}
	var me *mysql.MySQLError
	if _, err := db.Exec("SET GLOBAL petrel_storage_sync_delay = '0'"); !errors.As(err, &me) || me.Number != 1238 {
		t.Errorf("SET GLOBAL petrel_storage_sync_delay: %v, want error 1238", err)
	}
	for _, q := range []string{"CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	before := n.Store().Stats().DelayedSyncs
	const commits = 5
	start := time.Now()
	for i := range commits {
		if _, err := db.Exec("INSERT INTO d.t VALUES (?)", i); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < commits*3*time.Millisecond {
		t.Errorf("%d sequential commits took %v with a 3ms sync delay", commits, d)
	}
	if got := n.Store().Stats().DelayedSyncs - before; got < commits {
		t.Errorf("%d sequential commits waited for %d delayed syncs, want one each at least", commits, got)
	}
	var name string
	var shown uint64
	if err := db.QueryRow("SHOW GLOBAL STATUS LIKE 'Petrel_storage_delayed_syncs'").Scan(&name, &shown); err != nil || shown != n.Store().Stats().DelayedSyncs {
		t.Errorf("Petrel_storage_delayed_syncs = %d (%v), storage counted %d", shown, err, n.Store().Stats().DelayedSyncs)
	}
	for _, bad := range []string{"fast", "2s", "-1ms"} {
		if _, err := node.Open(node.Options{Datadir: t.TempDir() + "/d", Variables: map[string]string{"petrel_storage_sync_delay": bad}, Logger: quiet, Out: io.Discard}); err == nil {
			t.Errorf("petrel_storage_sync_delay=%s accepted", bad)
		}
	}
	// The setting belongs to the server started with it: the next one
	// (in this process) starts without a delay.
	m, err := node.Open(node.Options{Datadir: t.TempDir() + "/d", RootPassword: "pw", Logger: quiet, Out: io.Discard})
	if err != nil {
		t.Fatalf("a server started after a bad petrel_storage_sync_delay: %v", err)
	}
	defer m.Close()
	if got := m.Store().SyncDelay(); got != 0 {
		t.Errorf("the next server's storage has a sync delay of %v, want none", got)
	}
}
