package sqlengine

import (
	"context"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// TestGroupByDeterminedColumns: TPC-H Q10's GROUP BY of a key and the
// columns it determines hashes the key alone (groupfd.go), and answers
// as the grouping written so that nothing is left out (the key plus
// zero): strings equal under the collation but not in bytes, NULLs of
// an outer join's missing side, a NOT NULL unique key; a nullable unique
// key and a derived table determine nothing.
func TestGroupByDeterminedColumns(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE cu (ck INT PRIMARY KEY, name VARCHAR(20), code INT NOT NULL, alt INT, UNIQUE KEY (code), UNIQUE KEY (alt))")
	env.must("CREATE TABLE od (ok INT PRIMARY KEY, ck INT, v DECIMAL(10,2))")
	env.must("INSERT INTO cu VALUES (1, 'a', 10, 100), (2, 'A', 20, NULL), (3, 'b', 30, NULL), (4, NULL, 40, 400), (5, 'B ', 50, 500)")
	env.must("INSERT INTO od VALUES (1, 1, 1.50), (2, 1, 2.25), (3, 2, 3.00), (4, 3, 0.75), (5, 3, 1.25), (6, 4, 9.99), (7, 9, 5.00)")
	for _, c := range []struct {
		q, ref string
		keys   int // grouping expressions left
	}{
		{"SELECT cu.ck, cu.name, cu.alt, SUM(od.v) FROM cu JOIN od ON od.ck = cu.ck GROUP BY cu.ck, cu.name, cu.alt ORDER BY 1",
			"SELECT cu.ck, cu.name, cu.alt, SUM(od.v) FROM cu JOIN od ON od.ck = cu.ck GROUP BY cu.ck + 0, cu.name, cu.alt ORDER BY 1", 1},
		{"SELECT od.ck, cu.ck, cu.name, COUNT(*) FROM od LEFT JOIN cu ON od.ck = cu.ck GROUP BY od.ck, cu.ck, cu.name ORDER BY 1",
			"SELECT od.ck, cu.ck, cu.name, COUNT(*) FROM od LEFT JOIN cu ON od.ck = cu.ck GROUP BY od.ck + 0, cu.ck + 0, cu.name ORDER BY 1", 2},
		{"SELECT cu.code, cu.name, SUM(od.v) FROM cu JOIN od ON od.ck = cu.ck GROUP BY cu.name, cu.code ORDER BY 1",
			"SELECT cu.code, cu.name, SUM(od.v) FROM cu JOIN od ON od.ck = cu.ck GROUP BY cu.name, cu.code + 0 ORDER BY 1", 1},
		{"SELECT cu.alt, cu.name, COUNT(*) FROM cu GROUP BY cu.alt, cu.name ORDER BY 1, 2",
			"SELECT cu.alt + 0, cu.name, COUNT(*) FROM cu GROUP BY cu.alt + 0, cu.name ORDER BY 1, 2", 2},
		{"SELECT x.ck, x.name, COUNT(*) FROM (SELECT ck, name FROM cu) x GROUP BY x.ck, x.name ORDER BY 1",
			"SELECT x.ck, x.name, COUNT(*) FROM (SELECT ck, name FROM cu) x GROUP BY x.ck + 0, x.name ORDER BY 1", 2},
	} {
		got, want := env.must(c.q), env.must(c.ref)
		if got != want || got == "[]" {
			t.Errorf("%s: %s, the reference %s", c.q, got, want)
		}
		ctx := env.e.NewContext(context.Background(), env.s).WithQuery(c.q)
		n, err := env.e.GMS().AnalyzeQuery(ctx, c.q)
		if err != nil {
			t.Fatal(err)
		}
		keys := -1
		transform.Inspect(n, func(x sql.Node) bool {
			if gb, ok := x.(*plan.GroupBy); ok {
				keys = len(gb.GroupByExprs)
			}
			return true
		})
		if keys != c.keys {
			t.Errorf("%s: %d grouping expressions, want %d; plan:\n%s", c.q, keys, c.keys, sql.DebugString(n))
		}
	}
}

// TestOrderByNumbersExactly: ORDER BY a SUM of DECIMAL products (a DOUBLE by
// GMS's type, decimals by value) orders sums that differ beyond a
// double's precision, as MySQL orders DECIMAL; integers and doubles
// order as before, NULLs first ascending.
func TestOrderByNumbersExactly(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE big (id INT PRIMARY KEY, k INT, v DECIMAL(20,2), f DOUBLE, dd DECIMAL(5,2) DEFAULT 0)")
	env.must("INSERT INTO big (id, k, v, f) VALUES (1, 1, 1000000000000000.01, 1.5), (2, 2, 1000000000000000.03, -2), " +
		"(3, 3, 1000000000000000.02, 0.25), (4, 4, NULL, NULL), (5, 1, 0.00, 1)")
	for q, want := range map[string]string{
		"SELECT k FROM big GROUP BY k ORDER BY SUM(v * (1 - dd)) DESC":                 "[[2] [3] [1] [4]]",
		"SELECT k FROM big GROUP BY k ORDER BY SUM(v * (1 - dd))":                      "[[4] [1] [3] [2]]",
		"SELECT k FROM big GROUP BY k ORDER BY SUM(v * (1 - dd)) DESC LIMIT 2":         "[[2] [3]]",
		"SELECT k, SUM(v * (1 - dd)) AS r FROM big GROUP BY k ORDER BY r DESC LIMIT 3": "[[2 1000000000000000.03] [3 1000000000000000.02] [1 1000000000000000.01]]",
		"SELECT id FROM big ORDER BY f, id":                                            "[[4] [2] [3] [5] [1]]",
		"SELECT id FROM big ORDER BY k * 2 DESC, id":                                   "[[4] [3] [2] [1] [5]]",
	} {
		if got := env.must(q); got != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
}
