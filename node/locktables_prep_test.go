package node_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// TestLockTablesPrepared: prepared statements are checked against table
// locks at each execution: one prepared before LOCK TABLES and executed
// under it gets 1100/1099, and another session's prepared write waits
// (1205).
func TestLockTablesPrepared(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE lt", "CREATE TABLE lt.t1 (id INT PRIMARY KEY, v INT)", "CREATE TABLE lt.t2 (id INT PRIMARY KEY)",
		"INSERT INTO lt.t1 VALUES (1, 10)")
	a, b := lockConn(t, open("lt")), lockConn(t, open("lt"))
	ctx := context.Background()
	ins, err := a.PrepareContext(ctx, "INSERT INTO t1 VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	sel, err := a.PrepareContext(ctx, "SELECT id FROM t2 WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer sel.Close()
	mustExecConn(t, a, "LOCK TABLES t1 READ")
	if _, err := ins.ExecContext(ctx, 2, 20); errnoOf(t, "prepared INSERT", err) != 1099 {
		t.Errorf("prepared INSERT into a READ-locked table: %v, want 1099", err)
	}
	rows, err := sel.QueryContext(ctx, 1)
	if err == nil {
		rows.Close()
	}
	if errnoOf(t, "prepared SELECT", err) != 1100 {
		t.Errorf("prepared SELECT of a table not locked: %v, want 1100", err)
	}
	mustExecConn(t, b, "SET SESSION lock_wait_timeout = 1")
	if _, err := b.ExecContext(ctx, "UPDATE t1 SET v = ? WHERE id = ?", 11, 1); errnoOf(t, "prepared UPDATE", err) != 1205 {
		t.Errorf("another session's prepared UPDATE: %v, want 1205", err)
	}
	mustExecConn(t, a, "UNLOCK TABLES")
	if _, err := ins.ExecContext(ctx, 2, 20); err != nil {
		t.Fatalf("prepared INSERT after UNLOCK TABLES: %v", err)
	}
}

// TestLockTablesNotLogged: LOCK TABLES, UNLOCK TABLES and FLUSH TABLES
// WITH READ LOCK are not written to the binary log (MySQL does not);
// writes under LOCK TABLES are ordinary autocommitted transactions, each
// logged (and visible to others) once the lock is released.
func TestLockTablesNotLogged(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE lt", "CREATE TABLE lt.t1 (id INT PRIMARY KEY)")
	a := lockConn(t, open("lt"))
	mustExecConn(t, a, "LOCK TABLES t1 WRITE", "INSERT INTO t1 VALUES (1)", "INSERT INTO t1 VALUES (2)", "UNLOCK TABLES",
		"FLUSH TABLES WITH READ LOCK", "UNLOCK TABLES")
	for _, q := range binlogStatements(t, db) {
		if strings.Contains(strings.ToUpper(q), "LOCK") {
			t.Errorf("logged: %s", q)
		}
	}
	xids := 0
	for _, r := range queryRows(t, db, "SHOW BINLOG EVENTS") {
		if r[2] == "Xid" {
			xids++
		}
	}
	if xids != 2 {
		t.Errorf("%d transactions logged, want 2 (one per INSERT)", xids)
	}
	if got := queryRows(t, db, "SELECT COUNT(*) FROM lt.t1"); got[0][0] != "2" {
		t.Errorf("t1 has %s rows, want 2", got[0][0])
	}
}

// TestMetadataLocksTable: performance_schema.metadata_locks lists LOCK
// TABLES' locks (SHARED_READ_ONLY for READ, SHARED_NO_READ_WRITE for
// WRITE) and the global read lock, with their owner's thread.
func TestMetadataLocksTable(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE lt", "CREATE TABLE lt.t1 (id INT)", "CREATE TABLE lt.t2 (id INT)")
	a, b := lockConn(t, open("lt")), lockConn(t, open("lt"))
	mustExecConn(t, b, "FLUSH TABLES WITH READ LOCK")
	mustExecConn(t, a, "LOCK TABLES t1 READ, t1 AS x READ")
	q := `SELECT m.OBJECT_TYPE, COALESCE(m.OBJECT_SCHEMA, ''), COALESCE(m.OBJECT_NAME, ''), m.LOCK_TYPE, m.LOCK_DURATION, m.LOCK_STATUS, t.PROCESSLIST_ID = CONNECTION_ID()
		FROM performance_schema.metadata_locks m JOIN performance_schema.threads t ON t.THREAD_ID = m.OWNER_THREAD_ID ORDER BY 1 DESC, 3`
	for _, want := range []string{
		"[[TABLE lt t1 SHARED_READ_ONLY EXPLICIT GRANTED 1] [GLOBAL   SHARED EXPLICIT GRANTED 0]]",
		"[[TABLE lt t2 SHARED_NO_READ_WRITE EXPLICIT GRANTED 1]]",
	} {
		if got := fmt.Sprint(lockConnRows(t, a, q)); got != want {
			t.Errorf("metadata_locks:\n got %s\nwant %s", got, want)
		}
		mustExecConn(t, b, "UNLOCK TABLES")
		mustExecConn(t, a, "LOCK TABLES t2 WRITE")
	}
	mustExecConn(t, a, "UNLOCK TABLES")
	if n := connInt(t, a, "SELECT COUNT(*) FROM performance_schema.metadata_locks"); n != 0 {
		t.Errorf("%d metadata locks after UNLOCK TABLES", n)
	}
}

// lockConnRows runs q on c and returns its rows as strings.
func lockConnRows(t *testing.T, c *sql.Conn, q string) [][]string {
	t.Helper()
	rows, err := c.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	return scanRows(t, rows)
}
