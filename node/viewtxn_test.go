package node_test

import (
	"context"
	"testing"
)

// TestViewReadInTransaction: reading a view inside a transaction does
// not commit it (GMS marked any statement that resolved a view as DDL,
// and DDL commits: a ROLLBACK after SELECT * FROM v kept the rows
// written before it), while DDL still commits implicitly, as in MySQL.
func TestViewReadInTransaction(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE vt", "CREATE TABLE vt.t (a INT PRIMARY KEY)", "CREATE VIEW vt.v AS SELECT a FROM vt.t",
		"CREATE TABLE vt.log (a INT PRIMARY KEY)",
		"CREATE PROCEDURE vt.p(OUT n INT) BEGIN SET n = (SELECT COUNT(*) FROM vt.v); END")
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A view named with its database reads with no current database
	// (GMS refused it with 1046), and leaves none.
	mustExecConn(t, conn, "INSERT INTO vt.t VALUES (9)")
	if got := callSets(t, conn, "SELECT a FROM vt.v"); len(got) != 1 || len(got[0]) != 2 || got[0][1][0] != "9" {
		t.Errorf("SELECT a FROM vt.v without a database: %v", got)
	}
	if got := callSets(t, conn, "SELECT DATABASE() IS NULL")[0][1][0]; got != "1" {
		t.Errorf("a database is current after reading vt.v: DATABASE() IS NULL = %s", got)
	}
	mustExecConn(t, conn, "DELETE FROM vt.t", "USE vt")
	count := func() string {
		t.Helper()
		return callSets(t, conn, "SELECT COUNT(*) FROM vt.t")[0][1][0]
	}
	for _, stmts := range [][]string{
		{"SELECT * FROM vt.v"},
		{"SELECT COUNT(*) FROM vt.v WHERE a > 0"},
		{"INSERT INTO vt.log SELECT a + 100 FROM vt.v"},
		{"UPDATE vt.log SET a = a + 1 WHERE a IN (SELECT a FROM vt.v)"},
		{"CALL vt.p(@n)"},
	} {
		mustExecConn(t, conn, "START TRANSACTION", "INSERT INTO vt.t VALUES (1), (2)")
		mustExecConn(t, conn, stmts...)
		mustExecConn(t, conn, "ROLLBACK")
		if got := count(); got != "0" {
			t.Errorf("%v inside a transaction: %s rows after ROLLBACK, want 0 (it committed)", stmts, got)
			mustExecConn(t, conn, "DELETE FROM vt.t")
		}
	}
	if got := callSets(t, conn, "SELECT COUNT(*) FROM vt.log")[0][1][0]; got != "0" {
		t.Errorf("vt.log: %s rows after the rollbacks, want 0", got)
	}
	// DDL commits the transaction before it, as in MySQL.
	mustExecConn(t, conn, "START TRANSACTION", "INSERT INTO vt.t VALUES (5)", "CREATE VIEW vt.v2 AS SELECT * FROM vt.v", "ROLLBACK")
	if got := count(); got != "1" {
		t.Errorf("CREATE VIEW inside a transaction: %s rows after ROLLBACK, want 1 (implicit commit)", got)
	}
	mustExecConn(t, conn, "START TRANSACTION", "INSERT INTO vt.t VALUES (6)", "CREATE TABLE vt.snap AS SELECT * FROM vt.v", "ROLLBACK")
	if got := count(); got != "2" {
		t.Errorf("CREATE TABLE ... SELECT inside a transaction: %s rows after ROLLBACK, want 2 (implicit commit)", got)
	}
}
