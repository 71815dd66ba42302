package node_test

import (
	"fmt"
	"strings"
	"testing"
)

// DO in a trigger's or routine's body evaluates its expressions and
// does nothing else, as in MySQL; vitess refused it there (1064; mtr's
// trigger_no_defaults-11698, a trigger whose body is a CASE with `ELSE
// DO 1`).
func TestDoInRoutineBodies(t *testing.T) {
	_, c := testDBConn(t)
	mustExecConn(t, c, "CREATE TABLE t1 (a INT NOT NULL, b INT)",
		"CREATE TRIGGER trgi BEFORE INSERT ON t1 FOR EACH ROW\n  CASE new.b\n  WHEN 10 THEN\n    SET new.a = new.b;\n  ELSE\n    DO 1;\n  END CASE",
		"INSERT INTO t1 (b) VALUES (10)", "INSERT INTO t1 VALUES (7, 20)",
		"CREATE PROCEDURE p1() BEGIN DO GET_LOCK('petrel_do_test', 0), 2; SELECT IS_USED_LOCK('petrel_do_test') IS NOT NULL; END")
	if got := fmt.Sprint(connRows(t, c, "SELECT a, b FROM t1 ORDER BY b")); got != "[[10 10] [7 20]]" {
		t.Errorf("t1: %s", got)
	}
	if got := fmt.Sprint(connRows(t, c, "CALL p1()")); got != "[[1]]" {
		t.Errorf("CALL p1: %s, want the lock its DO took held", got)
	}
	if got := fmt.Sprint(connRows(t, c, "SHOW CREATE TRIGGER trgi")); !strings.Contains(got, "DO 1;") {
		t.Errorf("the trigger's text: %s, want it as written", got)
	}
}
