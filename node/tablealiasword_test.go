package node_test

import (
	"fmt"
	"testing"
)

// MySQL 8's non-reserved FIRST, NEXT, COMMENT, FORMAT and VIEW are
// table aliases like any name; vitess refused them with 1064 (mtr's
// include/ps_query.inc: FROM t1 first, t1 second). Their own syntax
// keeps its meaning.
func TestKeywordTableAliases(t *testing.T) {
	_, c := testDBConn(t)
	mustExecConn(t, c, "CREATE TABLE t1 (a INT, b VARCHAR(10))", "INSERT INTO t1 VALUES (1,'one'),(2,'two')")
	for q, want := range map[string]string{
		"select first.a as a1, second.a as a2 from t1 first, t1 second where first.a = second.a order by a1": "[[1 1] [2 2]]",
		"SELECT view.a, next.b FROM t1 AS view JOIN t1 next ON view.a = next.a + 1":                          "[[2 one]]",
		"SELECT format.x FROM (SELECT a + 10 AS x FROM t1) format ORDER BY 1":                                "[[11] [12]]",
	} {
		if got := fmt.Sprint(connRows(t, c, q)); got != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
	mustExecConn(t, c, "UPDATE t1 comment SET comment.b = 'x' WHERE comment.a = 1",
		"ALTER TABLE t1 ADD c INT FIRST")
	if got := fmt.Sprint(connRows(t, c, "SELECT * FROM t1 ORDER BY a")); got != "[[NULL 1 x] [NULL 2 two]]" {
		t.Errorf("after UPDATE and ADD ... FIRST: %s", got)
	}
}
