package e2e

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	"petrel/lab"
)

// Error codes of the isolation tests, by MySQL name.
const (
	erUnknownSystemVariable       = 1193 // ER_UNKNOWN_SYSTEM_VARIABLE
	erNotSupportedYet             = 1235 // ER_NOT_SUPPORTED_YET
	erTableDefChanged             = 1412 // ER_TABLE_DEF_CHANGED
	erCantChangeTxCharacteristics = 1568 // ER_CANT_CHANGE_TX_CHARACTERISTICS
)

// TestIsolation checks InnoDB's isolation levels over two go-sql-driver
// connections: A reads, B commits a change, A reads again. Every read is
// made three ways: a text-protocol SELECT (the planner), a prepared point
// SELECT and a prepared range SUM (the fast paths).
func TestIsolation(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	mustExec(t, ctx, rootDB(t, p, ""), "CREATE DATABASE iso")
	db := rootDB(t, p, "iso")
	mustExec(t, ctx, db,
		"CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL, KEY (v))",
		"INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)")
	// newConn is a new session (a pooled connection would keep the
	// session settings an earlier subtest made).
	newConn := func(t *testing.T) *sql.Conn { return conn(t, ctx, rootDB(t, p, "iso")) }
	reset := func(t *testing.T) {
		mustExec(t, ctx, db, "DELETE FROM t WHERE id > 3", "UPDATE t SET v = 0")
	}
	// read returns v of row 1 as the planner, the point fast path and the
	// range fast path see it, and the row count, checking they agree.
	read := func(t *testing.T, c querier, what string) (v1, rows int64) {
		t.Helper()
		v1 = queryInt(t, ctx, c, "SELECT v FROM t WHERE id = 1")
		if p := queryInt(t, ctx, c, "SELECT v FROM t WHERE id = ?", 1); p != v1 {
			t.Errorf("%s: the prepared point SELECT reads v = %d, the planner %d", what, p, v1)
		}
		if s := queryInt(t, ctx, c, "SELECT SUM(v) FROM t WHERE id BETWEEN ? AND ?", 1, 1); s != v1 {
			t.Errorf("%s: the prepared range SUM reads %d, the planner %d", what, s, v1)
		}
		rows = queryInt(t, ctx, c, "SELECT COUNT(*) FROM t")
		if ix := queryInt(t, ctx, c, "SELECT COUNT(*) FROM t FORCE INDEX (v) WHERE v >= -1000000"); ix != rows {
			t.Errorf("%s: %d rows through the secondary index, %d through the primary key", what, ix, rows)
		}
		return v1, rows
	}
	// bCommits changes row 1 and adds row 10 from another connection.
	bCommits := func(t *testing.T, v int) {
		t.Helper()
		mustExec(t, ctx, db, fmt.Sprintf("UPDATE t SET v = %d WHERE id = 1", v), "INSERT INTO t VALUES (10, 5)")
	}

	t.Run("repeatable read", func(t *testing.T) {
		reset(t)
		a := newConn(t)
		if lvl := queryString(t, ctx, a, "SELECT @@transaction_isolation"); lvl != "REPEATABLE-READ" {
			t.Fatalf("@@transaction_isolation = %q, want REPEATABLE-READ", lvl)
		}
		mustExec(t, ctx, a, "BEGIN")
		if v, n := read(t, a, "first read"); v != 0 || n != 3 {
			t.Fatalf("first read: v=%d, %d rows; want 0, 3", v, n)
		}
		bCommits(t, 7)
		if v, n := read(t, a, "second read"); v != 0 || n != 3 {
			t.Errorf("second read after B's commit: v=%d, %d rows; want 0, 3 (the snapshot of the first read)", v, n)
		}
		// Locking reads and UPDATE read the latest committed version.
		if v := queryInt(t, ctx, a, "SELECT v FROM t WHERE id = 1 FOR UPDATE"); v != 7 {
			t.Errorf("SELECT ... FOR UPDATE: v = %d, want 7 (the latest commit)", v)
		}
		if v := queryInt(t, ctx, a, "SELECT v FROM t WHERE id = 1 LOCK IN SHARE MODE"); v != 7 {
			t.Errorf("SELECT ... LOCK IN SHARE MODE: v = %d, want 7", v)
		}
		if n := queryInt(t, ctx, a, "SELECT COUNT(*) FROM t FOR UPDATE"); n != 4 {
			t.Errorf("SELECT COUNT(*) ... FOR UPDATE: %d rows, want 4", n)
		}
		mustExec(t, ctx, a, "UPDATE t SET v = v + 100 WHERE id = 1")
		if v, n := read(t, a, "read after A's UPDATE"); v != 107 || n != 3 {
			t.Errorf("after A's UPDATE v = v + 100: v=%d, %d rows; want 107 (its own write over B's 7), 3 (B's row 10 still invisible)", v, n)
		}
		mustExec(t, ctx, a, "COMMIT")
		if v, n := read(t, a, "after COMMIT"); v != 107 || n != 4 {
			t.Errorf("after COMMIT: v=%d, %d rows; want 107, 4", v, n)
		}
	})

	t.Run("autocommit off", func(t *testing.T) {
		reset(t)
		a := newConn(t)
		mustExec(t, ctx, a, "SET autocommit = 0")
		if v, _ := read(t, a, "first read"); v != 0 {
			t.Fatalf("first read: v=%d, want 0", v)
		}
		bCommits(t, 3)
		if v, n := read(t, a, "second read"); v != 0 || n != 3 {
			t.Errorf("second read under autocommit=0: v=%d, %d rows; want 0, 3", v, n)
		}
		mustExec(t, ctx, a, "COMMIT")
		if v, n := read(t, a, "after COMMIT"); v != 3 || n != 4 {
			t.Errorf("after COMMIT: v=%d, %d rows; want 3, 4", v, n)
		}
		mustExec(t, ctx, a, "COMMIT", "SET autocommit = 1")
	})

	t.Run("read committed session", func(t *testing.T) {
		reset(t)
		a := newConn(t)
		mustExec(t, ctx, a, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
		if lvl := queryString(t, ctx, a, "SELECT @@transaction_isolation"); lvl != "READ-COMMITTED" {
			t.Fatalf("@@transaction_isolation = %q, want READ-COMMITTED", lvl)
		}
		mustExec(t, ctx, a, "BEGIN")
		if v, _ := read(t, a, "first read"); v != 0 {
			t.Fatalf("first read: v=%d, want 0", v)
		}
		bCommits(t, 4)
		if v, n := read(t, a, "second read"); v != 4 || n != 4 {
			t.Errorf("second read under READ COMMITTED: v=%d, %d rows; want 4, 4 (B's commit)", v, n)
		}
		mustExec(t, ctx, a, "COMMIT")
	})

	t.Run("session level set inside a transaction", func(t *testing.T) {
		reset(t)
		a := newConn(t)
		// As in MySQL, SET SESSION inside a transaction applies from the
		// next one: START TRANSACTION fixed this one's level.
		mustExec(t, ctx, a, "BEGIN", "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
		read(t, a, "first read")
		bCommits(t, 4)
		if v, _ := read(t, a, "second read"); v != 0 {
			t.Errorf("BEGIN, SET SESSION ... READ COMMITTED, read, B's commit, read: v=%d, want 0 (the transaction began REPEATABLE READ)", v)
		}
		mustExec(t, ctx, a, "COMMIT", "BEGIN")
		read(t, a, "next transaction, first read")
		mustExec(t, ctx, db, "UPDATE t SET v = 5 WHERE id = 1")
		if v, _ := read(t, a, "next transaction, second read"); v != 5 {
			t.Errorf("the next transaction: v=%d, want 5 (READ COMMITTED)", v)
		}
		mustExec(t, ctx, a, "COMMIT")
		// Under autocommit=0 a transaction starts at its first read or
		// write: a level set after COMMIT applies to the next one.
		reset(t)
		mustExec(t, ctx, a, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ", "SET autocommit = 0", "COMMIT",
			"SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
		read(t, a, "autocommit=0, first read")
		mustExec(t, ctx, db, "UPDATE t SET v = 6 WHERE id = 1")
		if v, _ := read(t, a, "autocommit=0, second read"); v != 6 {
			t.Errorf("autocommit=0, SET SESSION ... READ COMMITTED between transactions: v=%d, want 6", v)
		}
		mustExec(t, ctx, a, "COMMIT", "SET autocommit = 1")
	})

	t.Run("read uncommitted reads committed rows", func(t *testing.T) {
		reset(t)
		a, b := newConn(t), newConn(t)
		mustExec(t, ctx, a, "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED", "BEGIN")
		read(t, a, "first read")
		mustExec(t, ctx, b, "BEGIN", "UPDATE t SET v = 9 WHERE id = 1")
		if v, _ := read(t, a, "read during B's transaction"); v != 0 {
			t.Errorf("READ UNCOMMITTED read B's uncommitted v=9: got %d, want 0 (Petrel never shows uncommitted rows)", v)
		}
		mustExec(t, ctx, b, "COMMIT")
		if v, _ := read(t, a, "read after B's commit"); v != 9 {
			t.Errorf("READ UNCOMMITTED after B's commit: v=%d, want 9", v)
		}
		mustExec(t, ctx, a, "COMMIT")
	})

	t.Run("read committed global", func(t *testing.T) {
		reset(t)
		mustExec(t, ctx, db, "SET GLOBAL transaction_isolation = 'READ-COMMITTED'")
		t.Cleanup(func() { mustExec(t, ctx, db, "SET GLOBAL transaction_isolation = 'REPEATABLE-READ'") })
		a := newConn(t) // a new session takes the global level
		if lvl := queryString(t, ctx, a, "SELECT @@transaction_isolation"); lvl != "READ-COMMITTED" {
			t.Fatalf("new session after SET GLOBAL: @@transaction_isolation = %q, want READ-COMMITTED", lvl)
		}
		mustExec(t, ctx, a, "BEGIN")
		read(t, a, "first read")
		bCommits(t, 6)
		if v, _ := read(t, a, "second read"); v != 6 {
			t.Errorf("second read under the global READ COMMITTED: v=%d, want 6", v)
		}
		mustExec(t, ctx, a, "COMMIT")
	})

	t.Run("consistent snapshot", func(t *testing.T) {
		for _, begin := range []string{"START TRANSACTION WITH CONSISTENT SNAPSHOT", "START TRANSACTION /*!40100 WITH CONSISTENT SNAPSHOT */"} {
			reset(t)
			a := newConn(t)
			mustExec(t, ctx, a, begin)
			bCommits(t, 8)
			if v, n := read(t, a, begin); v != 0 || n != 3 {
				t.Errorf("%s, then B's commit, then the first read: v=%d, %d rows; want 0, 3 (the snapshot of START TRANSACTION)", begin, v, n)
			}
			mustExec(t, ctx, a, "COMMIT")
		}
		// Without the clause the snapshot is the first read's.
		reset(t)
		a := newConn(t)
		mustExec(t, ctx, a, "START TRANSACTION")
		bCommits(t, 8)
		if v, n := read(t, a, "plain START TRANSACTION"); v != 8 || n != 4 {
			t.Errorf("START TRANSACTION, then B's commit, then the first read: v=%d, %d rows; want 8, 4", v, n)
		}
		mustExec(t, ctx, a, "COMMIT")
		// Under READ COMMITTED the clause is ignored, with MySQL's warning.
		mustExec(t, ctx, a, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", "START TRANSACTION WITH CONSISTENT SNAPSHOT")
		var level, msg string
		var code int
		if err := a.QueryRowContext(ctx, "SHOW WARNINGS").Scan(&level, &code, &msg); err != nil || code != 138 {
			t.Errorf("SHOW WARNINGS after WITH CONSISTENT SNAPSHOT under READ COMMITTED: %d %q (%v); want warning 138", code, msg, err)
		}
		mustExec(t, ctx, a, "COMMIT", "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
	})

	t.Run("next transaction only", func(t *testing.T) {
		reset(t)
		a := newConn(t)
		// go-sql-driver's BeginTx(ReadCommitted) sends exactly this pair.
		mustExec(t, ctx, a, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED", "START TRANSACTION")
		read(t, a, "first read")
		bCommits(t, 2)
		if v, _ := read(t, a, "second read"); v != 2 {
			t.Errorf("transaction after SET TRANSACTION ISOLATION LEVEL READ COMMITTED: v=%d, want 2", v)
		}
		_, err := a.ExecContext(ctx, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
		wantErrNo(t, "SET TRANSACTION inside a transaction", err, erCantChangeTxCharacteristics)
		mustExec(t, ctx, a, "COMMIT")
		// The next transaction is back at the session's REPEATABLE READ.
		mustExec(t, ctx, a, "START TRANSACTION")
		read(t, a, "next transaction, first read")
		mustExec(t, ctx, db, "UPDATE t SET v = 5 WHERE id = 1")
		if v, _ := read(t, a, "next transaction, second read"); v != 2 {
			t.Errorf("the transaction after the one-shot level: v=%d, want 2 (REPEATABLE READ again)", v)
		}
		mustExec(t, ctx, a, "COMMIT")
		if lvl := queryString(t, ctx, a, "SELECT @@transaction_isolation"); lvl != "REPEATABLE-READ" {
			t.Errorf("session level after a one-shot SET TRANSACTION: %q, want REPEATABLE-READ", lvl)
		}
	})

	t.Run("serializable refused", func(t *testing.T) {
		a := newConn(t)
		for _, q := range []string{
			"SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE",
			"SET GLOBAL TRANSACTION ISOLATION LEVEL SERIALIZABLE",
			"SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
			"SET @@transaction_isolation = 'SERIALIZABLE'",
			"SET SESSION transaction_isolation = 'SERIALIZABLE'",
			"SET GLOBAL transaction_isolation = 'SERIALIZABLE'",
		} {
			_, err := a.ExecContext(ctx, q)
			wantErrNo(t, q, err, erNotSupportedYet)
		}
		if lvl := queryString(t, ctx, a, "SELECT @@transaction_isolation"); lvl != "REPEATABLE-READ" {
			t.Errorf("session level after the refused SETs: %q", lvl)
		}
		if lvl := queryString(t, ctx, a, "SELECT @@GLOBAL.transaction_isolation"); lvl != "REPEATABLE-READ" {
			t.Errorf("global level after the refused SETs: %q", lvl)
		}
		// MySQL 8.0 has no tx_isolation; a server accepting it would
		// report a level it does not use.
		_, err := a.ExecContext(ctx, "SELECT @@tx_isolation")
		wantErrNo(t, "SELECT @@tx_isolation", err, erUnknownSystemVariable)
		_, err = a.ExecContext(ctx, "SET SESSION tx_isolation = 'READ-COMMITTED'")
		wantErrNo(t, "SET SESSION tx_isolation", err, erUnknownSystemVariable)
	})

	t.Run("insert select reads the latest rows", func(t *testing.T) {
		reset(t)
		mustExec(t, ctx, db, "CREATE TABLE IF NOT EXISTS t_copy (id INT PRIMARY KEY, v INT NOT NULL)", "DELETE FROM t_copy")
		a := newConn(t)
		mustExec(t, ctx, a, "BEGIN")
		read(t, a, "first read")
		bCommits(t, 1)
		mustExec(t, ctx, a, "INSERT INTO t_copy SELECT * FROM t")
		if n := queryInt(t, ctx, a, "SELECT COUNT(*) FROM t_copy"); n != 4 {
			t.Errorf("INSERT ... SELECT in a snapshot transaction copied %d rows; want 4 (InnoDB reads the latest rows there)", n)
		}
		mustExec(t, ctx, db, "INSERT INTO t VALUES (11, 6)")
		mustExec(t, ctx, a, "REPLACE INTO t_copy SELECT * FROM t")
		if n := queryInt(t, ctx, a, "SELECT COUNT(*) FROM t_copy"); n != 5 {
			t.Errorf("REPLACE ... SELECT in a snapshot transaction: %d rows in t_copy; want 5", n)
		}
		if n := queryInt(t, ctx, a, "SELECT COUNT(*) FROM t"); n != 3 {
			t.Errorf("plain read of t after INSERT ... SELECT: %d rows, want 3 (the snapshot)", n)
		}
		mustExec(t, ctx, a, "COMMIT")
	})

	t.Run("table changed after the snapshot", func(t *testing.T) {
		reset(t)
		mustExec(t, ctx, db, "DROP TABLE IF EXISTS t2", "CREATE TABLE t2 (id INT PRIMARY KEY, v INT)", "INSERT INTO t2 VALUES (1, 1)")
		a := newConn(t)
		mustExec(t, ctx, a, "START TRANSACTION WITH CONSISTENT SNAPSHOT")
		mustExec(t, ctx, db, "ALTER TABLE t2 ADD COLUMN w INT")
		_, err := a.ExecContext(ctx, "SELECT * FROM t2")
		wantErrNo(t, "SELECT of a table altered after the snapshot", err, erTableDefChanged)
		if v, _ := read(t, a, "read of an unchanged table"); v != 0 {
			t.Errorf("read of t after ALTER of t2: v=%d, want 0", v)
		}
		mustExec(t, ctx, a, "COMMIT")
		if n := queryInt(t, ctx, a, "SELECT COUNT(*) FROM t2"); n != 1 {
			t.Errorf("t2 after COMMIT: %d rows, want 1", n)
		}
		// An index added after the snapshot holds no entries in it.
		mustExec(t, ctx, a, "START TRANSACTION WITH CONSISTENT SNAPSHOT")
		mustExec(t, ctx, db, "ALTER TABLE t2 ADD INDEX (v)")
		_, err = a.ExecContext(ctx, "SELECT id FROM t2 WHERE v = 1")
		wantErrNo(t, "SELECT through an index added after the snapshot", err, erTableDefChanged)
		mustExec(t, ctx, a, "COMMIT")
		// TRUNCATE keeps the table's definition: the snapshot still
		// shows the rows (InnoDB, whose TRUNCATE recreates the table,
		// answers 1412).
		mustExec(t, ctx, a, "START TRANSACTION WITH CONSISTENT SNAPSHOT")
		mustExec(t, ctx, db, "TRUNCATE TABLE t2")
		if n := queryInt(t, ctx, a, "SELECT COUNT(*) FROM t2"); n != 1 {
			t.Errorf("snapshot read after another session's TRUNCATE: %d rows, want 1", n)
		}
		mustExec(t, ctx, a, "COMMIT")
		if n := queryInt(t, ctx, a, "SELECT COUNT(*) FROM t2"); n != 0 {
			t.Errorf("after COMMIT, the truncated table: %d rows, want 0", n)
		}
		// A table created after the snapshot.
		mustExec(t, ctx, a, "START TRANSACTION WITH CONSISTENT SNAPSHOT")
		mustExec(t, ctx, db, "CREATE TABLE t3 (id INT PRIMARY KEY)", "INSERT INTO t3 VALUES (1)")
		_, err = a.ExecContext(ctx, "SELECT * FROM t3")
		wantErrNo(t, "SELECT of a table created after the snapshot", err, erTableDefChanged)
		mustExec(t, ctx, a, "COMMIT")
	})
}
