package node_test

import (
	"fmt"
	"testing"
)

// A placeholder alone in ORDER BY is read at EXECUTE, as in MySQL 8
// and MariaDB: an integer is a column position (1054 at 0), a string a
// constant. SQL PREPARE refused it with 1210 (mtr's include/ps_query.inc,
// used by ps_2myisam, ps_3innodb, ps_4heap and ps_5merge).
func TestPrepareOrderByPlaceholder(t *testing.T) {
	ctx, c := testDBConn(t)
	mustExecConn(t, c, "CREATE TABLE t1 (a INT, b VARCHAR(10))",
		"INSERT INTO t1 VALUES (1,'one'),(2,'two'),(3,'three'),(4,'four')",
		"PREPARE stmt1 FROM ' select a,b from t1 order by ? '")
	for _, tc := range []struct{ arg, want string }{
		{"2", "[[4 four] [1 one] [3 three] [2 two]]"},
		{"1", "[[1 one] [2 two] [3 three] [4 four]]"},
		{"'b'", "[[1 one] [2 two] [3 three] [4 four]]"},
	} {
		mustExecConn(t, c, "SET @arg00 = "+tc.arg)
		if got := fmt.Sprint(connRows(t, c, "EXECUTE stmt1 USING @arg00")); got != tc.want {
			t.Errorf("order by ? with %s: %s, want %s", tc.arg, got, tc.want)
		}
	}
	mustExecConn(t, c, "SET @arg00 = 0")
	_, err := c.ExecContext(ctx, "EXECUTE stmt1 USING @arg00")
	if n := errno(t, err); n != 1054 {
		t.Errorf("order by ? with 0: errno %d (%v), want 1054", n, err)
	}
	// In a UNION's ORDER BY and beside another key too.
	mustExecConn(t, c, "PREPARE s2 FROM 'SELECT a FROM t1 WHERE a < 3 UNION SELECT a FROM t1 WHERE a > 2 ORDER BY a DESC, ?'", "SET @arg00 = 1")
	if got := fmt.Sprint(connRows(t, c, "EXECUTE s2 USING @arg00")); got != "[[4] [3] [2] [1]]" {
		t.Errorf("union order by a DESC, ?: %s", got)
	}
}
