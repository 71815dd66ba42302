package sqlengine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// TestSampledSelectivity: after ANALYZE, conditions on columns no index
// describes are estimated from the table's sample within a factor of
// two of the truth (an equality keeping 2%, a range keeping 30%, a LIKE,
// their AND), conditions on another table or with a subquery are not
// estimated, and a TPC-H Q2-shaped join starts from the filtered part
// table (its partsupp read by key, not whole).
func TestSampledSelectivity(t *testing.T) {
	setAutoRecalc(t, false)
	defer setAutoRecalc(t, true)
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE part (pk INT PRIMARY KEY, size INT, type VARCHAR(20))")
	env.must("CREATE TABLE ps (pk INT, sk INT, cost INT, PRIMARY KEY (pk, sk))")
	env.must("CREATE TABLE supp (sk INT PRIMARY KEY, region INT)")
	for b := 0; b < 10; b++ {
		var p, s []string
		for i := b * 2000; i < (b+1)*2000; i++ {
			typ := "SMALL BRASS"
			if i%3 == 0 {
				typ = "LARGE STEEL"
			}
			p = append(p, fmt.Sprintf("(%d, %d, '%s')", i, i%50, typ))
			for j := 0; j < 4; j++ {
				s = append(s, fmt.Sprintf("(%d, %d, %d)", i, (i+j*2500)%10000, (i*7+j)%1000))
			}
		}
		env.must("INSERT INTO part VALUES " + strings.Join(p, ","))
		env.must("INSERT INTO ps VALUES " + strings.Join(s, ","))
	}
	var s []string
	for i := 0; i < 10000; i++ {
		s = append(s, fmt.Sprintf("(%d, %d)", i, i%5))
	}
	env.must("INSERT INTO supp VALUES " + strings.Join(s, ","))
	env.must("ANALYZE TABLE part, ps, supp")

	db, err := env.e.prov.Database(nil, "d")
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := db.(*Database).GetTableInsensitive(nil, "part")
	if err != nil {
		t.Fatal(err)
	}
	tb := st.(*Table)
	// The filter's conditions as the planner sees them.
	conds := func(where string) []sql.Expression {
		q := "SELECT pk FROM part WHERE " + where
		ctx := env.e.NewContext(context.Background(), env.s).WithQuery(q)
		n, err := env.e.GMS().AnalyzeQuery(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []sql.Expression
		transform.Inspect(n, func(x sql.Node) bool {
			if f, ok := x.(*plan.Filter); ok && out == nil {
				out = expression.SplitConjunction(f.Expression)
			}
			return true
		})
		if out == nil {
			t.Fatalf("%s: no filter", q)
		}
		return out
	}
	for where, truth := range map[string]float64{
		"size = 30":                        0.02,
		"size >= 35":                       0.30,
		"type LIKE '%STEEL'":               1.0 / 3,
		"size = 30 AND type LIKE '%STEEL'": 0.02 / 3,
		"size < 10 OR size > 45":           0.28,
	} {
		sel, ok := env.e.prov.stats.SampledSelectivity(tb, "part", conds(where), nil)
		if !ok || sel < truth/2 || sel > truth*2 {
			t.Errorf("%s: estimated %.4f (%v), the truth %.4f", where, sel, ok, truth)
		}
	}
	// Another table's column, or a subquery: not estimated here.
	for _, c := range []sql.Expression{
		expression.NewEquals(expression.NewGetFieldWithTable(0, 0, tb.t.Schema[1].Type, "d", "ps", "size", false), expression.NewLiteral(int8(3), tb.t.Schema[1].Type)),
	} {
		if sel, ok := env.e.prov.stats.SampledSelectivity(tb, "part", []sql.Expression{c}, nil); ok {
			t.Errorf("%s estimated for part: %v", c, sel)
		}
	}
	if _, ok := env.e.prov.stats.SampledSelectivity(tb, "part", conds("size = (SELECT MAX(region) FROM supp WHERE supp.sk = part.pk)"), nil); ok {
		t.Error("a subquery's condition estimated")
	}

	// Q2's shape: part is the filtered side; partsupp is read by key.
	const q2 = "SELECT COUNT(*), MIN(ps.cost) FROM part, ps, supp WHERE part.pk = ps.pk AND supp.sk = ps.sk AND part.size = 30 AND part.type LIKE '%STEEL' AND supp.region = 0"
	count, least := 0, 1000
	for i := 0; i < 20000; i++ {
		if i%50 != 30 || i%3 != 0 {
			continue
		}
		for j := 0; j < 4; j++ {
			if (i+j*2500)%10000%5 == 0 {
				count++
				least = min(least, (i*7+j)%1000)
			}
		}
	}
	want := fmt.Sprintf("[[%d %d]]", count, least)
	if got := env.must(q2); got != want || strings.HasPrefix(got, "[[0 ") {
		t.Errorf("Q2's shape: %s, the reference %s", got, want)
	}
	plan := env.must("EXPLAIN FORMAT=TREE " + q2)
	if !strings.Contains(plan, "keys: part.pk") {
		t.Errorf("partsupp is not read by key from the filtered part rows:\n%s", plan)
	}
}
