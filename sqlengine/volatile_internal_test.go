package sqlengine

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestRandInWhereEvaluatedPerRow: RAND() in a filter is drawn for every
// row (MySQL's sampling idiom `WHERE RAND() < 0.5`), not once when the
// statement is planned, which kept all rows or none; also inside an
// expression over a column and in a subquery's filter.
func TestRandInWhereEvaluatedPerRow(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	var vals []string
	for i := 1; i <= 1000; i++ {
		vals = append(vals, fmt.Sprintf("(%d, %d)", i, i%7))
	}
	env.must("INSERT INTO t VALUES " + strings.Join(vals, ","))
	for _, q := range []string{
		"SELECT COUNT(*) FROM t WHERE RAND() < 0.5",
		"SELECT COUNT(*) FROM t WHERE RAND() <= 0.5 + v * 0",
		"SELECT COUNT(*) FROM t WHERE id IN (SELECT id FROM t WHERE RAND() < 0.5)",
		"SELECT COUNT(*) FROM t WHERE v >= 0 AND (RAND() < 0.5 OR id < 0)",
	} {
		out := env.must(q)
		n, err := strconv.Atoi(strings.Trim(out, "[]"))
		if err != nil {
			t.Fatalf("%s: %s", q, out)
		}
		// Of 1000 rows each kept with probability 1/2, all or none
		// comes out once in 2^999 runs.
		if n == 0 || n == 1000 {
			t.Errorf("%s: %d of 1000 rows: RAND() was drawn once", q, n)
		}
	}
}
