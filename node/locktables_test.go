package node_test

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// lockConn is one dedicated connection of db, closed at the test's end.
func lockConn(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// connErrno runs q on c and returns its MySQL error number (0: none).
func connErrno(t *testing.T, c *sql.Conn, q string) uint16 {
	t.Helper()
	rows, err := c.QueryContext(context.Background(), q)
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	return errnoOf(t, q, err)
}

// TestLockTablesHolder: a session holding table locks may use only the
// tables it locked, under the names it locked them (1100), and write only
// those it WRITE-locked (1099); routine DDL is refused (1192); UNLOCK
// TABLES ends it all.
func TestLockTablesHolder(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE lt", "CREATE TABLE lt.t1 (id INT PRIMARY KEY, v INT)", "CREATE TABLE lt.t2 (id INT PRIMARY KEY)",
		"CREATE TABLE lt.t3 (id INT PRIMARY KEY)", "CREATE TABLE lt.t4 (id INT PRIMARY KEY)", "INSERT INTO lt.t1 VALUES (1, 10)",
		"CREATE TABLE lt.t5 (id INT PRIMARY KEY)", "CREATE VIEW lt.v1 AS SELECT id FROM lt.t5")
	a := lockConn(t, open("lt"))
	mustExecConn(t, a, "LOCK TABLES t1 READ, t2 WRITE, t3 AS a READ, v1 READ")
	for _, c := range []struct {
		q    string
		want uint16
	}{
		{"SELECT v FROM t1 WHERE id = 1", 0},
		{"SELECT * FROM t2", 0},
		{"INSERT INTO t2 VALUES (1)", 0},
		{"SELECT * FROM a", 1100},
		{"SELECT * FROM nosuch", 1100},
		{"TRUNCATE TABLE nosuch", 1100},
		{"DROP TABLE nosuch", 1051},
		{"SELECT * FROM t3 AS a", 0},
		{"SELECT * FROM t3", 1100},
		{"SELECT * FROM t1 AS x", 1100},
		{"SELECT * FROM t4", 1100},
		{"SELECT * FROM v1", 0},
		{"INSERT INTO t5 VALUES (1)", 1099},
		{"SELECT * FROM t2 WHERE id IN (SELECT id FROM t4)", 1100},
		{"INSERT INTO t1 VALUES (2, 20)", 1099},
		{"UPDATE t1 SET v = 11 WHERE id = 1", 1099},
		{"DELETE a FROM t3 AS a", 1099},
		{"UPDATE t2 SET id = 5 WHERE id IN (SELECT id FROM t1)", 0},
		{"INSERT INTO t2 SELECT id + 100 FROM t1", 0},
		{"CREATE PROCEDURE p() BEGIN END", 1192},
		{"CREATE DATABASE lt2", 1192},
		{"FLUSH TABLES WITH READ LOCK", 1192},
		{"FLUSH TABLE t1", 1099},
		{"FLUSH TABLE t2", 0},
		{"FLUSH TABLE t4", 1100},
		{"ALTER TABLE t1 ADD COLUMN w INT", 1099},
		{"TRUNCATE TABLE t4", 1100},
		{"RENAME TABLE t1 TO t9", 1099},
		{"RENAME TABLE t4 TO t9", 1100},
	} {
		if got := connErrno(t, a, c.q); got != c.want {
			t.Errorf("%s: error %d, want %d", c.q, got, c.want)
		}
	}
	// A temporary table needs no lock.
	mustExecConn(t, a, "CREATE TEMPORARY TABLE tmp (id INT)", "INSERT INTO tmp VALUES (1)")
	// DROP TABLE of a WRITE-locked table releases its lock.
	mustExecConn(t, a, "DROP TABLE t2")
	if got := connErrno(t, a, "SELECT * FROM t4"); got != 1100 {
		t.Errorf("after DROP TABLE: error %d, want 1100", got)
	}
	mustExecConn(t, a, "UNLOCK TABLES")
	if got := connInt(t, a, "SELECT COUNT(*) FROM t4"); got != 0 {
		t.Errorf("after UNLOCK TABLES: %d rows", got)
	}
	if got := connInt(t, a, "SELECT v FROM t1 WHERE id = 1"); got != 10 {
		t.Errorf("t1.v = %d, want 10 (the refused UPDATE changed it)", got)
	}
	// Dropping the last locked table ends locked-tables mode.
	mustExecConn(t, a, "LOCK TABLES t4 WRITE", "DROP TABLE t4", "CREATE TABLE t4 (id INT)")
	if got := connInt(t, a, "SELECT COUNT(*) FROM t1"); got != 1 {
		t.Errorf("after dropping the last locked table: %d rows in t1", got)
	}
	// A view needs its own lock, its tables' are not enough.
	mustExecConn(t, a, "LOCK TABLES t5 READ, t1 READ")
	for _, q := range []string{"SELECT * FROM v1", "SELECT * FROM t1 WHERE id IN (SELECT id FROM v1)"} {
		if got := connErrno(t, a, q); got != 1100 {
			t.Errorf("%s with only the view's table locked: error %d, want 1100", q, got)
		}
	}
	// TRUNCATE of a view, even a locked one, is 1100 under LOCK TABLES.
	mustExecConn(t, a, "LOCK TABLES v1 WRITE")
	if got := connErrno(t, a, "TRUNCATE v1"); got != 1100 {
		t.Errorf("TRUNCATE of a locked view: error %d, want 1100", got)
	}
}

// TestLockTablesOtherSessions: another session's write of a READ-locked
// table and its read of a WRITE-locked one wait until UNLOCK TABLES, or
// lock_wait_timeout (1205); KILL QUERY ends the wait (1317); the holder's
// disconnect releases its locks. Point reads and writes wait too (the
// fast paths step aside while locks are held).
func TestLockTablesOtherSessions(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE lt", "CREATE TABLE lt.t1 (id INT PRIMARY KEY, v INT)", "INSERT INTO lt.t1 VALUES (1, 10)")
	adb := open("lt")
	a, b := lockConn(t, adb), lockConn(t, open("lt"))
	mustExecConn(t, b, "SET SESSION lock_wait_timeout = 1")
	mustExecConn(t, a, "LOCK TABLES t1 READ")
	if got := connInt(t, b, "SELECT v FROM t1 WHERE id = 1"); got != 10 {
		t.Errorf("read under another's READ lock: %d", got)
	}
	start := time.Now()
	if got := connErrno(t, b, "INSERT INTO t1 VALUES (2, 20)"); got != 1205 {
		t.Errorf("write under another's READ lock: error %d, want 1205", got)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("1205 after %v, before lock_wait_timeout", d)
	}
	if got := connErrno(t, b, "UPDATE t1 SET v = 11 WHERE id = 1"); got != 1205 {
		t.Errorf("point UPDATE under another's READ lock: error %d, want 1205", got)
	}
	mustExecConn(t, a, "LOCK TABLES t1 WRITE")
	if got := connErrno(t, b, "SELECT v FROM t1 WHERE id = 1"); got != 1205 {
		t.Errorf("point read under another's WRITE lock: error %d, want 1205", got)
	}
	if got := connErrno(t, b, "RENAME TABLE t1 TO t9"); got != 1205 {
		t.Errorf("RENAME TABLE under another's WRITE lock: error %d, want 1205", got)
	}
	if got := connErrno(t, b, "LOCK TABLES t1 READ"); got != 1205 {
		t.Errorf("LOCK TABLES READ under another's WRITE lock: error %d, want 1205", got)
	}

	// A waiting write goes on once the holder unlocks.
	mustExecConn(t, b, "SET SESSION lock_wait_timeout = 30")
	done := make(chan error, 1)
	go func() {
		_, err := b.ExecContext(context.Background(), "INSERT INTO t1 VALUES (3, 30)")
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("INSERT did not wait for the WRITE lock: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	mustExecConn(t, a, "UNLOCK TABLES")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("INSERT after UNLOCK TABLES: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("INSERT still waits after UNLOCK TABLES")
	}

	// KILL QUERY ends a wait.
	mustExecConn(t, a, "LOCK TABLES t1 READ")
	bid := connInt(t, b, "SELECT CONNECTION_ID()")
	go func() {
		_, err := b.ExecContext(context.Background(), "INSERT INTO t1 VALUES (4, 40)")
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	k := lockConn(t, db)
	if got := connInt(t, k, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = "+itoa(int(bid))+" AND STATE = 'Waiting for table metadata lock' AND INFO = 'INSERT INTO t1 VALUES (4, 40)'"); got != 1 {
		t.Errorf("PROCESSLIST shows %d waiting statements, want 1", got)
	}
	mustExecConn(t, k, "KILL QUERY "+itoa(int(bid)))
	select {
	case err := <-done:
		if got := errnoOf(t, "INSERT", err); got != 1317 {
			t.Errorf("killed wait: error %d, want 1317", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("KILL QUERY did not end the wait")
	}

	// The holder's disconnect releases its locks.
	a.Close()
	adb.Close()
	mustExecConn(t, b, "SET SESSION lock_wait_timeout = 5")
	mustExecConn(t, b, "INSERT INTO t1 VALUES (5, 50)")
	if got := connInt(t, b, "SELECT COUNT(*) FROM t1"); got != 3 {
		t.Errorf("t1 has %d rows, want 3", got)
	}
}

// TestFlushTablesWithReadLock: the global read lock makes other sessions'
// writes wait (1205 at lock_wait_timeout) and refuses the holder's own
// (1223) until UNLOCK TABLES; FLUSH TABLES t WITH READ LOCK READ-locks t
// in locked-tables mode.
func TestFlushTablesWithReadLock(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE lt", "CREATE TABLE lt.t1 (id INT PRIMARY KEY)", "CREATE TABLE lt.t2 (id INT PRIMARY KEY)")
	a, b := lockConn(t, open("lt")), lockConn(t, open("lt"))
	mustExecConn(t, b, "SET SESSION lock_wait_timeout = 1")
	mustExecConn(t, a, "FLUSH TABLES WITH READ LOCK")
	for _, c := range []struct {
		c    *sql.Conn
		q    string
		want uint16
	}{
		{a, "INSERT INTO t1 VALUES (1)", 1223},
		{a, "CREATE TABLE t3 (id INT)", 1223},
		{a, "SELECT * FROM t2", 0},
		{b, "SELECT * FROM t1", 0},
		{b, "INSERT INTO t1 VALUES (2)", 1205},
		{b, "CREATE TABLE t4 (id INT)", 1205},
	} {
		if got := connErrno(t, c.c, c.q); got != c.want {
			t.Errorf("%s: error %d, want %d", c.q, got, c.want)
		}
	}
	mustExecConn(t, a, "UNLOCK TABLES")
	mustExecConn(t, b, "INSERT INTO t1 VALUES (2)")
	mustExecConn(t, a, "FLUSH TABLES t1 WITH READ LOCK")
	for _, c := range []struct {
		c    *sql.Conn
		q    string
		want uint16
	}{
		{a, "SELECT * FROM t1", 0},
		{a, "INSERT INTO t1 VALUES (3)", 1099},
		{a, "SELECT * FROM t2", 1100},
		{b, "INSERT INTO t1 VALUES (4)", 1205},
		{b, "INSERT INTO t2 VALUES (4)", 0},
	} {
		if got := connErrno(t, c.c, c.q); got != c.want {
			t.Errorf("%s: error %d, want %d", c.q, got, c.want)
		}
	}
	mustExecConn(t, a, "UNLOCK TABLES")
	mustExecConn(t, b, "INSERT INTO t1 VALUES (5)")
	if got := connInt(t, b, "SELECT COUNT(*) FROM t1"); got != 2 {
		t.Errorf("t1 has %d rows, want 2", got)
	}
}

// TestLockTablesRoutinesAndReadOnly: under LOCK TABLES, ALTER PROCEDURE
// and SET GLOBAL read_only = 1 are refused (1192), as is the latter in an
// explicit transaction; from another session SET GLOBAL read_only = 1
// waits for WRITE locks. A locked table's trigger may use the tables its
// body names (MySQL prelocks them).
func TestLockTablesRoutinesAndReadOnly(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE lt", "CREATE TABLE lt.t1 (c1 INT)", "CREATE TABLE lt.t2 (c2 INT)", "INSERT INTO lt.t2 VALUES (2)",
		"CREATE TRIGGER lt.t1_ai AFTER INSERT ON lt.t1 FOR EACH ROW UPDATE lt.t2 SET c2 = c2 + 1",
		"CREATE PROCEDURE lt.p1() BEGIN END")
	a, b := lockConn(t, open("lt")), lockConn(t, open("lt"))
	mustExecConn(t, a, "LOCK TABLES t1 WRITE", "INSERT INTO t1 VALUES (3)")
	for _, q := range []string{"ALTER PROCEDURE p1 COMMENT 'c'", "DROP PROCEDURE p1", "SET GLOBAL read_only = 1"} {
		if got := connErrno(t, a, q); got != 1192 {
			t.Errorf("%s under LOCK TABLES: error %d, want 1192", q, got)
		}
	}
	mustExecConn(t, b, "SET SESSION lock_wait_timeout = 1")
	if got := connErrno(t, b, "SET GLOBAL read_only = 1"); got != 1205 {
		t.Errorf("SET GLOBAL read_only = 1 under another's WRITE lock: error %d, want 1205", got)
	}
	mustExecConn(t, a, "UNLOCK TABLES", "BEGIN")
	if got := connErrno(t, a, "SET GLOBAL read_only = 1"); got != 1192 {
		t.Errorf("SET GLOBAL read_only = 1 in a transaction: error %d, want 1192", got)
	}
	mustExecConn(t, a, "ROLLBACK")
	mustExecConn(t, b, "SET GLOBAL read_only = 1", "SET GLOBAL read_only = 0")
	if got := connInt(t, b, "SELECT c2 FROM t2"); got != 3 {
		t.Errorf("t2.c2 = %d, want 3 (the trigger ran under LOCK TABLES)", got)
	}
}

// TestLockTablesPendingFlushGoesFirst: a FLUSH TABLES t (or DDL) waiting
// for another session's lock makes new reads of t wait behind it, as
// MySQL's pending exclusive metadata lock does; PROCESSLIST shows it
// waiting, with its text.
func TestLockTablesPendingFlushGoesFirst(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE lt", "CREATE TABLE lt.t1 (id INT PRIMARY KEY)", "INSERT INTO lt.t1 VALUES (1)")
	a, b, c := lockConn(t, open("lt")), lockConn(t, open("lt")), lockConn(t, open("lt"))
	mustExecConn(t, a, "LOCK TABLES t1 READ")
	mustExecConn(t, c, "SET SESSION lock_wait_timeout = 1")
	for _, q := range []string{"FLUSH TABLES t1", "ALTER TABLE t1 ADD COLUMN j INT"} {
		done := make(chan error, 1)
		go func() {
			_, err := b.ExecContext(context.Background(), q)
			done <- err
		}()
		time.Sleep(300 * time.Millisecond)
		if got := connInt(t, c, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE = 'Waiting for table metadata lock' AND INFO = '"+q+"'"); got != 1 {
			t.Errorf("%s: PROCESSLIST shows %d waiting, want 1", q, got)
		}
		if got := connErrno(t, c, "SELECT * FROM t1"); got != 1205 {
			t.Errorf("read behind a waiting %s: error %d, want 1205", q, got)
		}
		if got := connInt(t, a, "SELECT COUNT(*) FROM t1"); got != 1 {
			t.Errorf("the READ lock's holder reads %d rows", got)
		}
		mustExecConn(t, a, "UNLOCK TABLES")
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s after UNLOCK TABLES: %v", q, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s still waits after UNLOCK TABLES", q)
		}
		if got := connInt(t, c, "SELECT COUNT(*) FROM t1"); got != 1 {
			t.Errorf("after %s: %d rows", q, got)
		}
		mustExecConn(t, a, "LOCK TABLES t1 READ")
	}
}
