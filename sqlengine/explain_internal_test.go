package sqlengine

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"petrel/sqlengine/rewrite"

	"github.com/dolthub/go-mysql-server/sql"
)

// TestIsExplain: a statement is an EXPLAIN by its first token, whatever
// comments come first or literals and comments hold.
func TestIsExplain(t *testing.T) {
	for q, want := range map[string]bool{
		"EXPLAIN FORMAT=TREE SELECT 1":              true,
		"explain select * from t where a = 1":       true,
		"  \n DESCRIBE SELECT 1":                    true,
		"DESC SELECT 1":                             true,
		"/* hint */ EXPLAIN SELECT 1":               true,
		"-- line\nEXPLAIN UPDATE t SET a = 1":       true,
		"SELECT 'EXPLAIN'":                          false,
		"/* EXPLAIN */ SELECT 1":                    false,
		"SELECT * FROM t WHERE a = 1 /* EXPLAIN */": false,
		"UPDATE t SET explain = 1":                  false,
		"":                                          false,
	} {
		if got := rewrite.IsExplain(q); got != want {
			t.Errorf("isExplain(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestCompositeStatisticsSurviveRestart: an analysed composite key's
// statistic names every key column, before and after a restart (the
// persisted histogram keeps its first column only), so lookups by the
// whole key or a prefix with a range use every column given.
func TestCompositeStatisticsSurviveRestart(t *testing.T) {
	setAutoRecalc(t, false)
	defer setAutoRecalc(t, true)
	dir := t.TempDir()
	env := openStatsEnv(t, dir)
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE stock (s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity INT, PRIMARY KEY (s_w_id, s_i_id), KEY kq (s_quantity, s_i_id))")
	var vals []string
	for w := 1; w <= 3; w++ {
		for i := 1; i <= 400; i++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, %d)", i, w, i%13))
		}
	}
	env.must("INSERT INTO stock VALUES " + strings.Join(vals, ","))
	env.must("ANALYZE TABLE stock")
	check := func(when string) {
		t.Helper()
		for q, want := range map[string]string{
			"SELECT s_quantity FROM stock WHERE s_w_id = 2 AND s_i_id = 5":             "{[2, 2], [5, 5]}",
			"SELECT s_quantity FROM stock WHERE s_w_id = 2 AND s_i_id BETWEEN 5 AND 9": "{[2, 2], [5, 9]}",
			"SELECT s_w_id FROM stock WHERE s_quantity = 4 AND s_i_id < 30":            "{[4, 4], (NULL, 30)}",
		} {
			plan := env.must("EXPLAIN FORMAT=TREE " + q)
			if !strings.Contains(plan, "filters: ["+want+"]") || strings.Contains(plan, "Filter") {
				t.Errorf("%s: %s: %s, want ranges [%s] and no filter", when, q, plan, want)
			}
		}
		tb := newTable(env.e.prov.wrap(env.st.Catalog().Database("d")), env.st.Catalog().Table("d", "stock"))
		st, err := env.e.stats.GetTableStats(sql.NewEmptyContext(), "d", tb)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for _, s := range st {
			cols = append(cols, fmt.Sprintf("%s %v %v", s.Qualifier().Index(), s.Columns(), len(s.Histogram()) > 0))
		}
		sort.Strings(cols) // the provider's order is a map's
		if got := strings.Join(cols, " "); got != "kq [s_quantity s_i_id] true primary [s_w_id s_i_id] true" {
			t.Errorf("%s: statistics %s", when, got)
		}
	}
	check("analysed")
	env.close()
	env = openStatsEnv(t, dir)
	env.s.SetCurrentDatabase("d")
	check("after a restart")
	env.close()
}

// TestExplainAnalyzeCountsRows: EXPLAIN ANALYZE runs the statement and
// shows each operator's actual rows and loops: the scan of a reads its
// 100 rows once, the filter keeps 30, the join gives the 300 rows the
// query counts, and the aggregate one; a correlated subquery's plan is
// printed under its operator.
func TestExplainAnalyzeCountsRows(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE a (id INT PRIMARY KEY, v INT)")
	env.must("CREATE TABLE b (id INT PRIMARY KEY, ak INT, KEY kak (ak))")
	var av, bv []string
	for i := 0; i < 100; i++ {
		av = append(av, fmt.Sprintf("(%d, %d)", i, i))
		for j := 0; j < 10; j++ {
			bv = append(bv, fmt.Sprintf("(%d, %d)", i*10+j, i))
		}
	}
	env.must("INSERT INTO a VALUES " + strings.Join(av, ","))
	env.must("INSERT INTO b VALUES " + strings.Join(bv, ","))
	const q = "SELECT COUNT(*) FROM a JOIN b ON b.ak = a.id WHERE a.v + 0 < 30"
	if got := env.must(q); got != "[[300]]" {
		t.Fatalf("%s: %s", q, got)
	}
	out := env.must("EXPLAIN ANALYZE " + q)
	lines := strings.Split(strings.Trim(out, "[]"), "] [")
	find := func(what, want string) {
		t.Helper()
		for _, l := range lines {
			if strings.Contains(l, what) {
				if !strings.Contains(l, want) {
					t.Errorf("%q: %s, want %s", what, l, want)
				}
				return
			}
		}
		t.Errorf("no line with %q in:\n%s", what, strings.Join(lines, "\n"))
	}
	find(" on a", "rows=100 loops=1)")
	find("Filter: ((a.v + 0) < 30)", "rows=30 loops=1)")
	find("Join", "rows=300 loops=1)")
	find("Aggregate: COUNT(1)", "rows=1 loops=1)")
	for _, l := range lines {
		if strings.Contains(l, "actual time=") && !strings.Contains(l, "..") {
			t.Errorf("no times: %s", l)
		}
	}
	out = env.must("EXPLAIN ANALYZE SELECT id, (SELECT COUNT(*) FROM b WHERE b.ak = a.id) FROM a WHERE id < 3")
	if !strings.Contains(out, "-> Subquery: select COUNT(*) from b where b.ak = a.id") || !strings.Contains(out, "rows=3 loops=1)") {
		t.Errorf("subquery plan or figures missing:\n%s", out)
	}
}
