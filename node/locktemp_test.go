package node_test

import (
	"testing"
)

// LOCK TABLES of a temporary table puts the session in locked-tables
// mode, which dropping that table does not end (it holds no lock): the
// base table it shadowed is then not locked (1100), as in MySQL (mtr's
// read_only_innodb). BEGIN ends locked-tables mode, the text BEGIN the
// fast path answers included.
func TestLockTablesTemporaryDropAndBegin(t *testing.T) {
	ctx, c := testDBConn(t)
	mustExecConn(t, c, "CREATE TABLE t1 (a INT)", "INSERT INTO t1 VALUES (5)", "CREATE TABLE t2 (a INT)",
		"CREATE TEMPORARY TABLE t1 (a INT)", "LOCK TABLES t1 WRITE", "DROP TABLE t1")
	if _, err := c.ExecContext(ctx, "SELECT * FROM t1"); errno(t, err) != 1100 {
		t.Errorf("base t1 after dropping the locked temporary t1: %v, want 1100", err)
	}
	mustExecConn(t, c, "BEGIN")
	if n := connRowCount(t, c, "SELECT * FROM t2"); n != 0 {
		t.Errorf("t2 after BEGIN: %d rows", n)
	}
	mustExecConn(t, c, "COMMIT", "LOCK TABLES t2 READ", "BEGIN")
	if n := connRowCount(t, c, "SELECT * FROM t1"); n != 1 {
		t.Errorf("t1 after BEGIN: %d rows, want 1", n)
	}
	mustExecConn(t, c, "COMMIT")
}
