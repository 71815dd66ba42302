package node_test

import (
	"fmt"
	"testing"
)

// PREPARE of CREATE PROCEDURE/FUNCTION/TRIGGER/EVENT or ALTER
// PROCEDURE/FUNCTION/EVENT is MySQL 8's 1295 ER_UNSUPPORTED_PS, at the
// top level and in a procedure (mtr's sp-dynamic); GMS prepared some and
// their EXECUTE failed on a recovered panic (1105).
func TestPrepareRoutineDDLUnsupported(t *testing.T) {
	ctx, c := testDBConn(t)
	mustExecConn(t, c, "CREATE TABLE t1 (a INT)", "CREATE PROCEDURE p0() SELECT 1",
		"SET @q = 'create procedure p2() begin select 1; end'")
	for _, q := range []string{
		"PREPARE s FROM 'CREATE PROCEDURE p2() BEGIN SELECT 1; END'",
		"PREPARE s FROM 'create definer = root@localhost function f1() returns int return 1'",
		"PREPARE s FROM 'CREATE TRIGGER tr BEFORE INSERT ON t1 FOR EACH ROW SET NEW.a = 1'",
		"PREPARE s FROM 'CREATE EVENT e1 ON SCHEDULE EVERY 1 DAY DO SELECT 1'",
		"PREPARE s FROM 'ALTER PROCEDURE p0 COMMENT \"x\"'",
		"PREPARE s FROM @q",
		"CALL p1()",
	} {
		if q == "CALL p1()" {
			mustExecConn(t, c, "CREATE PROCEDURE p1() BEGIN PREPARE s FROM 'CREATE PROCEDURE p2() BEGIN SELECT 1; END'; EXECUTE s; END")
		}
		_, err := c.ExecContext(ctx, q)
		if n := errno(t, err); n != 1295 {
			t.Errorf("%s: errno %d (%v), want 1295", q, n, err)
		}
	}
	// Preparable DDL still prepares and runs.
	mustExecConn(t, c, "PREPARE s FROM 'CREATE VIEW v1 AS SELECT 7 AS x'", "EXECUTE s",
		"PREPARE s FROM 'DROP PROCEDURE IF EXISTS p9'", "EXECUTE s")
	if got := fmt.Sprint(connRows(t, c, "SELECT x FROM v1")); got != "[[7]]" {
		t.Errorf("v1: %s", got)
	}
	if got := fmt.Sprint(connRows(t, c, "SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'test'")); got != "[[2]]" {
		t.Errorf("routines: %s, want p0 and p1 only", got)
	}
}
