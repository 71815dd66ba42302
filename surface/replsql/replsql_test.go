package replsql_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"testing"
	"time"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/repl/replica"
	"petrel/repl/source"
	"petrel/sqlengine"
	"petrel/sqlengine/sqltest"
	"petrel/storage"
	"petrel/surface/replsql"
)

// TestReplicationSQLSurface drives replsql's statements, variables and
// status through a real listener and go-sql-driver, over a real replica
// and source (storage, binary log): CHANGE REPLICATION SOURCE and SHOW
// REPLICA STATUS under both spellings, START/STOP/RESET REPLICA, the
// parallel applier's variables (both spellings; refused while the
// applier runs), the connection's error in Last_IO_Errno, SHOW REPLICAS,
// and MySQL's error numbers for what is refused.
func TestReplicationSQLSurface(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := t.TempDir()
	st, err := storage.Open(storage.Options{Dir: dir + "/data", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
	sid, _ := base.ParseSID(uuid)
	blog, err := binlog.Open(binlog.Options{Dir: dir + "/binlog", ServerID: 5, ServerUUID: sid, Logger: quiet, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	defer blog.Close()
	st.SetSink(blog)
	g := sqlengine.NewGlobals()
	vars := replsql.Variables(g)
	e, err := sqlengine.New(sqlengine.Options{Store: st, ServerID: 5, ServerUUID: uuid, Logger: quiet, Globals: g})
	if err != nil {
		t.Fatal(err)
	}
	r, err := replica.New(replica.Options{
		Datadir: dir, ServerID: 5, ServerUUID: uuid, Store: st, Log: blog, Logger: quiet,
		Clock: base.RealClock{}, Settings: vars.Settings().Replica,
		ExecDDL: func(context.Context, binlog.QueryInfo, storage.Origin) error { return errors.New("no DDL here") },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	vars.Attach(r)
	vars.Push(func(s replsql.Settings) { r.Configure(s.Replica) })
	src := source.New(source.Options{Log: blog, ServerID: 5, ServerUUID: sid, Logger: quiet})
	replsql.Register(e, r, src, 5)
	c := sqltest.Client(t, e, 90*time.Second)
	db, ctx := c.DB, c.Ctx()
	exec, errno, one := c.Exec, c.Errno, c.One
	// petrel_replica_durable_apply: OFF by default, pushed to the
	// replica, whose applier reads it when it starts.
	if v := one("SELECT @@GLOBAL.petrel_replica_durable_apply"); v != "0" || r.Settings().DurableApply {
		t.Fatalf("petrel_replica_durable_apply = %q (DurableApply %v), want OFF", v, r.Settings().DurableApply)
	}
	exec("SET GLOBAL petrel_replica_durable_apply = ON")
	if !r.Settings().DurableApply {
		t.Fatal("SET GLOBAL petrel_replica_durable_apply = ON: DurableApply still false")
	}
	exec("SET GLOBAL petrel_replica_durable_apply = OFF")
	if r.Settings().DurableApply {
		t.Fatal("SET GLOBAL petrel_replica_durable_apply = OFF: DurableApply still true")
	}
	// status reads SHOW REPLICA STATUS (or SLAVE) as column -> value; nil
	// when it returns no row.
	status := func(q string) map[string]string {
		t.Helper()
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		if !rows.Next() {
			return nil
		}
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for i, c := range cols {
			out[c] = vals[i].String
		}
		return out
	}

	if s := status("SHOW REPLICA STATUS"); s != nil {
		t.Fatalf("an unconfigured replica shows a status row: %v", s)
	}
	// START REPLICA before CHANGE REPLICATION SOURCE: MySQL's 1200
	// (ER_REPLICA_CONFIGURATION).
	if n := errno("START REPLICA"); n != 1200 {
		t.Fatalf("START REPLICA unconfigured: error %d, want 1200", n)
	}
	// A port nothing listens on: the receiver cannot connect.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadPort := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	exec("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=" + strconv.Itoa(deadPort) + ", SOURCE_USER='repl', SOURCE_PASSWORD='secret', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=2")
	s := status("SHOW REPLICA STATUS")
	if s["Source_Host"] != "127.0.0.1" || s["Source_Port"] != strconv.Itoa(deadPort) || s["Source_User"] != "repl" || s["Auto_Position"] != "1" ||
		s["Replica_IO_Running"] != "No" || s["Replica_SQL_Running"] != "No" || s["Connect_Retry"] != "1" || s["Source_Retry_Count"] != "2" {
		t.Fatalf("SHOW REPLICA STATUS after CHANGE: %v", s)
	}
	if l := status("SHOW SLAVE STATUS"); l["Master_Host"] != "127.0.0.1" || l["Slave_IO_Running"] != "No" || l["Master_Port"] != strconv.Itoa(deadPort) {
		t.Fatalf("SHOW SLAVE STATUS uses MySQL 5.7's column names: %v", l)
	}
	// Unparseable options are a syntax error; a conflicting one MySQL's 1777.
	if n := errno("CHANGE REPLICATION SOURCE TO SOURCE_HOST="); n != 1064 {
		t.Fatalf("CHANGE with a missing value: error %d, want 1064", n)
	}
	if n := errno("CHANGE REPLICATION SOURCE TO SOURCE_LOG_FILE='binlog.000001', SOURCE_LOG_POS=4"); n != 1776 {
		t.Fatalf("a file position with SOURCE_AUTO_POSITION=1: error %d, want 1776", n)
	}
	// A delay Petrel would not honour is refused (ER_NOT_SUPPORTED_YET),
	// and leaves the configuration as it was.
	if n := errno("CHANGE REPLICATION SOURCE TO SOURCE_DELAY=3600"); n != 1235 {
		t.Fatalf("SOURCE_DELAY=3600: error %d, want 1235", n)
	}
	if s := status("SHOW REPLICA STATUS"); s["SQL_Delay"] != "0" || s["Source_Host"] != "127.0.0.1" {
		t.Fatalf("after a refused SOURCE_DELAY: %v", s)
	}

	// The parallel applier's variables, both spellings, read when the
	// applier starts.
	exec("SET GLOBAL replica_parallel_workers = 8")
	exec("SET GLOBAL slave_parallel_type = 'DATABASE'")
	if v := one("SELECT @@GLOBAL.slave_parallel_workers"); v != "8" {
		t.Fatalf("slave_parallel_workers = %s after setting replica_parallel_workers", v)
	}
	if p := r.Settings().Parallel; p.Workers != 8 || p.Type != replica.ParallelDatabase || !p.PreserveOrder {
		t.Fatalf("Parallel() = %+v", p)
	}
	if n := errno("SET GLOBAL replica_parallel_type = 'ROUND_ROBIN'"); n != 1231 {
		t.Fatalf("an unknown replica_parallel_type: error %d, want 1231", n)
	}

	// START REPLICA: the applier runs with 8 workers; the receiver fails
	// to connect and says so with MySQL's 2003 after its retries.
	exec("START REPLICA")
	deadline := time.Now().Add(30 * time.Second)
	for {
		s = status("SHOW REPLICA STATUS")
		if s["Last_IO_Errno"] == "2003" && s["Replica_SQL_Running"] == "Yes" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection error after START REPLICA to a dead port: %v", s)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The applier sets its worker count as it starts, a moment after
	// Replica_SQL_Running says Yes.
	var name, v string
	for {
		err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Petrel_replica_parallel_workers'").Scan(&name, &v)
		if err == nil && v == "8" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Petrel_replica_parallel_workers = %q (%v), want 8 while the applier runs", v, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// While the applier runs: its type cannot change, nor the source.
	if n := errno("SET GLOBAL replica_parallel_type = 'LOGICAL_CLOCK'"); n != 3081 {
		t.Fatalf("SET GLOBAL replica_parallel_type while the applier runs: error %d, want 3081", n)
	}
	if n := errno("CHANGE REPLICATION SOURCE TO SOURCE_PORT=1"); n != 1198 {
		t.Fatalf("CHANGE while replicating: error %d, want 1198", n)
	}
	exec("STOP REPLICA")
	if s = status("SHOW REPLICA STATUS"); s["Replica_IO_Running"] != "No" || s["Replica_SQL_Running"] != "No" {
		t.Fatalf("after STOP REPLICA: %v", s)
	}
	exec("SET GLOBAL replica_parallel_type = 'LOGICAL_CLOCK'")
	if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Replica_running'").Scan(&name, &v); err != nil || v != "OFF" {
		t.Fatalf("Replica_running = %q (%v) after STOP", v, err)
	}

	// RESET REPLICA keeps the connection settings; RESET REPLICA ALL
	// forgets them.
	exec("RESET REPLICA")
	if s = status("SHOW REPLICA STATUS"); s["Source_Host"] != "127.0.0.1" {
		t.Fatalf("RESET REPLICA forgot the source: %v", s)
	}
	exec("RESET REPLICA ALL")
	if s = status("SHOW REPLICA STATUS"); s != nil {
		t.Fatalf("RESET REPLICA ALL left a status row: %v", s)
	}

	// SHOW REPLICAS lists what the source registered.
	src.Register(source.Replica{ConnID: 42, ServerID: 9, Host: "r9", Port: 3306, ReplicaUUID: "aaaaaaaa-0000-0000-0000-000000000009"})
	rows, err := db.QueryContext(ctx, "SHOW REPLICAS")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id, host, port, srcID, ru string
		if err := rows.Scan(&id, &host, &port, &srcID, &ru); err != nil {
			t.Fatal(err)
		}
		got = append(got, id+" "+host+" "+port+" "+srcID+" "+ru)
	}
	rows.Close()
	if len(got) != 1 || got[0] != "9 r9 3306 5 aaaaaaaa-0000-0000-0000-000000000009" {
		t.Fatalf("SHOW REPLICAS: %q", got)
	}
	if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Replicas_connected'").Scan(&name, &v); err != nil || v != "1" {
		t.Fatalf("Replicas_connected = %q (%v)", v, err)
	}
}
