package sqlengine

import (
	"context"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"petrel/sqlengine/collate"
)

// TestOrderByStringsUseSortKeys: a plan's ORDER BY of a string column
// uses the ASCII string sort key (collate.StringSortKey), with rows in
// the order GMS gives.
func TestOrderByStringsUseSortKeys(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE s (id INT PRIMARY KEY, v VARCHAR(20))")
	env.must("INSERT INTO s VALUES (1, 'b'), (2, 'A'), (3, 'a'), (4, 'ab'), (5, 'B'), (6, NULL), (7, 'a-'), (8, '_z')")
	const q = "SELECT id FROM s ORDER BY v, id"
	if got := env.must(q); got != "[[6] [8] [2] [3] [7] [4] [1] [5]]" {
		t.Errorf("%s: %s", q, got)
	}
	n, err := env.e.GMS().AnalyzeQuery(env.e.NewContext(context.Background(), env.s).WithQuery(q), q)
	if err != nil {
		t.Fatal(err)
	}
	keys := 0
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		if _, ok := e.(*collate.StringSortKey); ok {
			keys++
		}
		return true
	})
	if keys != 1 {
		t.Errorf("%d string sort keys in the plan:\n%s", keys, sql.DebugString(n))
	}
}
