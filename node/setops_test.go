package node_test

import (
	"fmt"
	"testing"
)

// A UNION of lookups by a whole unique key returns every branch's row:
// GMS marked the statement as one row and failed at the second with
// 1105 "result max1Row iterator returned more than one row" (mtr's
// include/ps_query.inc, its union tests).
func TestUnionOfKeyLookupsIsNotOneRow(t *testing.T) {
	_, c := testDBConn(t)
	mustExecConn(t, c, "CREATE TABLE t1 (a INT PRIMARY KEY, b VARCHAR(10))", "INSERT INTO t1 VALUES (1,'one'),(2,'two')",
		"PREPARE s FROM 'SELECT a FROM t1 WHERE a=1 UNION ALL SELECT a FROM t1 WHERE a=1'")
	for q, want := range map[string]string{
		"SELECT a FROM t1 WHERE a=1 UNION ALL SELECT a FROM t1 WHERE a=1": "[[1] [1]]",
		"SELECT b FROM t1 WHERE a=1 UNION SELECT b FROM t1 WHERE a=2":     "[[one] [two]]",
		"EXECUTE s":                  "[[1] [1]]",
		"SELECT b FROM t1 WHERE a=2": "[[two]]",
	} {
		if got := fmt.Sprint(connRows(t, c, q)); got != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
}

// Set operations whose SELECTs differ in their number of columns are
// MySQL's 1222, prepared or not (GMS: 1105).
func TestUnionColumnCountMismatch(t *testing.T) {
	ctx, c := testDBConn(t)
	mustExecConn(t, c, "CREATE TABLE t1 (a INT, b INT)")
	for _, q := range []string{
		"SELECT 1, 2 UNION SELECT 1",
		"PREPARE s FROM ' SELECT 1 union SELECT 1, 2 '",
		"PREPARE s FROM 'SELECT * FROM t1 UNION SELECT 1'",
		"SELECT a FROM t1 UNION ALL SELECT a, b FROM t1",
	} {
		_, err := c.ExecContext(ctx, q)
		if n := errno(t, err); n != 1222 {
			t.Errorf("%s: errno %d (%v), want 1222", q, n, err)
		}
	}
}
