package e2e

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"petrel/lab"
)

// erReadOnlyTxn is ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION.
const erReadOnlyTxn = 1792

// TestReadOnlyTransactions checks READ ONLY as MySQL has it: START
// TRANSACTION READ ONLY, SET SESSION TRANSACTION READ ONLY, SET
// TRANSACTION READ ONLY (the next transaction only, alone or with an
// isolation level), @@transaction_read_only and @@tx_read_only (session
// and global) refuse INSERT, UPDATE, DELETE and REPLACE with error 1792
// (SQLSTATE 25006), through the text protocol and prepared statements
// (the fast write path), without dropping the connection; a read-only
// session refuses DDL too; reads work, and READ WRITE overrides the
// session's mode.
func TestReadOnlyTransactions(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	mustExec(t, ctx, rootDB(t, p, ""), "CREATE DATABASE ro")
	db := rootDB(t, p, "ro")
	mustExec(t, ctx, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)")
	count := func() int64 { return queryInt(t, ctx, db, "SELECT COUNT(*) FROM t") }
	writes := []string{
		"INSERT INTO t VALUES (100, 1)",
		"UPDATE t SET v = v + 1",
		"DELETE FROM t WHERE id = 1",
		"REPLACE INTO t VALUES (1, 5)",
		"INSERT INTO t SELECT id + 200, v FROM t",
	}
	refused := func(t *testing.T, c *sql.Conn, what string) {
		t.Helper()
		for _, w := range writes {
			_, err := c.ExecContext(ctx, w)
			wantErrNo(t, what+": "+w, err, erReadOnlyTxn)
		}
		// A prepared INSERT takes the fast write path when it can.
		_, err := c.ExecContext(ctx, "INSERT INTO t VALUES (?, ?)", 101, 1)
		wantErrNo(t, what+": prepared INSERT", err, erReadOnlyTxn)
		if n := queryInt(t, ctx, c, "SELECT COUNT(*) FROM t WHERE id = 1 AND v = 1"); n != 1 {
			t.Errorf("%s: the connection reads row 1 unchanged %d times, want 1", what, n)
		}
	}

	t.Run("START TRANSACTION READ ONLY", func(t *testing.T) {
		c := conn(t, ctx, db)
		mustExec(t, ctx, c, "START TRANSACTION READ ONLY")
		refused(t, c, "START TRANSACTION READ ONLY")
		mustExec(t, ctx, c, "COMMIT", "INSERT INTO t VALUES (2, 1)", "DELETE FROM t WHERE id = 2")
		// DDL commits the read-only transaction, then runs.
		mustExec(t, ctx, c, "START TRANSACTION READ ONLY", "CREATE TABLE t3 (id INT PRIMARY KEY)", "DROP TABLE t3")
	})

	t.Run("SESSION", func(t *testing.T) {
		c := conn(t, ctx, db)
		mustExec(t, ctx, c, "SET SESSION TRANSACTION READ ONLY")
		if v := queryInt(t, ctx, c, "SELECT @@transaction_read_only + 10 * @@tx_read_only"); v != 11 {
			t.Errorf("@@transaction_read_only + 10 * @@tx_read_only = %d, want 11", v)
		}
		refused(t, c, "SESSION READ ONLY, autocommit")
		// DDL too, in a read-only session (not in a read-only
		// transaction, which DDL commits first).
		for _, ddl := range []string{"DROP TABLE t", "CREATE TABLE t2 (id INT PRIMARY KEY)", "ALTER TABLE t ADD COLUMN w INT"} {
			_, err := c.ExecContext(ctx, ddl)
			wantErrNo(t, "SESSION READ ONLY: "+ddl, err, erReadOnlyTxn)
		}
		mustExec(t, ctx, c, "BEGIN")
		refused(t, c, "SESSION READ ONLY, BEGIN")
		mustExec(t, ctx, c, "ROLLBACK", "SET autocommit = 0")
		refused(t, c, "SESSION READ ONLY, autocommit=0")
		mustExec(t, ctx, c, "ROLLBACK", "SET autocommit = 1")
		// READ WRITE overrides the session's mode for its transaction.
		mustExec(t, ctx, c, "START TRANSACTION READ WRITE", "INSERT INTO t VALUES (3, 1)", "COMMIT")
		mustExec(t, ctx, c, "SET @@tx_read_only = 0", "INSERT INTO t VALUES (4, 1)")
		if v := queryInt(t, ctx, c, "SELECT @@transaction_read_only"); v != 0 {
			t.Errorf("after SET @@tx_read_only = 0: @@transaction_read_only = %d, want 0", v)
		}
		mustExec(t, ctx, c, "DELETE FROM t WHERE id IN (3, 4)")
	})

	t.Run("next transaction", func(t *testing.T) {
		c := conn(t, ctx, db)
		mustExec(t, ctx, c, "SET TRANSACTION READ ONLY")
		_, err := c.ExecContext(ctx, "INSERT INTO t VALUES (5, 1)")
		wantErrNo(t, "the transaction after SET TRANSACTION READ ONLY", err, erReadOnlyTxn)
		mustExec(t, ctx, c, "INSERT INTO t VALUES (5, 1)") // the one after: read-write
		mustExec(t, ctx, c, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY", "START TRANSACTION")
		if s := queryString(t, ctx, c, "SELECT @@transaction_isolation"); s != "REPEATABLE-READ" {
			t.Errorf("the session's level after a one-shot SET TRANSACTION: %s, want REPEATABLE-READ", s)
		}
		_, err = c.ExecContext(ctx, "DELETE FROM t WHERE id = 5")
		wantErrNo(t, "START TRANSACTION after SET TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY", err, erReadOnlyTxn)
		mustExec(t, ctx, c, "COMMIT", "START TRANSACTION")
		mustExec(t, ctx, c, "DELETE FROM t WHERE id = 5", "COMMIT")
		// Refused inside a transaction that has read, as in MySQL.
		mustExec(t, ctx, c, "BEGIN")
		queryInt(t, ctx, c, "SELECT COUNT(*) FROM t")
		_, err = c.ExecContext(ctx, "SET TRANSACTION READ ONLY")
		wantErrNo(t, "SET TRANSACTION READ ONLY inside a transaction", err, 1568)
		mustExec(t, ctx, c, "COMMIT")
	})

	t.Run("GLOBAL", func(t *testing.T) {
		mustExec(t, ctx, db, "SET GLOBAL transaction_read_only = ON")
		defer mustExec(t, context.Background(), db, "SET GLOBAL transaction_read_only = OFF")
		c := conn(t, ctx, openConfig(t, clientConfig(t, p, "root", rootPassword, "ro")))
		if v := queryInt(t, ctx, c, "SELECT @@global.tx_read_only"); v != 1 {
			t.Errorf("@@global.tx_read_only = %d, want 1", v)
		}
		refused(t, c, "GLOBAL READ ONLY, new session")
	})

	if n := count(); n != 1 {
		t.Errorf("rows at the end: %d, want 1", n)
	}
}
