package sqlengine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// TestOrImpliesOneTableConditions: TPC-H Q7's OR over two aliases of
// one table gives each alias its own necessary condition, filtered at
// its scan below the joins, and the answers equal the same OR written
// so that nothing is derived (each column through CONCAT), NULL names
// included; under NOT nothing is derived and the answers still agree.
func TestOrImpliesOneTableConditions(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE nation (nk INT PRIMARY KEY, name VARCHAR(20))")
	env.must("CREATE TABLE supp (sk INT PRIMARY KEY, nk INT)")
	env.must("CREATE TABLE cust (ck INT PRIMARY KEY, nk INT)")
	env.must("CREATE TABLE ord (ok INT PRIMARY KEY, ck INT, sk INT, v INT)")
	env.must("INSERT INTO nation VALUES (0, 'JAPAN'), (1, 'INDIA'), (2, 'PERU'), (3, NULL), (4, 'CHINA')")
	var s, c, o []string
	for i := 0; i < 50; i++ {
		s = append(s, fmt.Sprintf("(%d, %d)", i, i%5))
		c = append(c, fmt.Sprintf("(%d, %d)", i, i%5))
	}
	for i := 0; i < 400; i++ {
		o = append(o, fmt.Sprintf("(%d, %d, %d, %d)", i, (i/5)%50, (i*7)%50, i))
	}
	env.must("INSERT INTO supp VALUES " + strings.Join(s, ","))
	env.must("INSERT INTO cust VALUES " + strings.Join(c, ","))
	env.must("INSERT INTO ord VALUES " + strings.Join(o, ","))
	const join = "SELECT n1.name, n2.name, COUNT(*), SUM(ord.v) FROM ord, supp, cust, nation n1, nation n2 " +
		"WHERE ord.sk = supp.sk AND ord.ck = cust.ck AND supp.nk = n1.nk AND cust.nk = n2.nk AND %s GROUP BY n1.name, n2.name ORDER BY 1, 2"
	for _, c := range []struct{ cond, ref string }{
		{"((n1.name = 'JAPAN' AND n2.name = 'INDIA') OR (n1.name = 'INDIA' AND n2.name = 'JAPAN'))",
			"((CONCAT(n1.name, '') = 'JAPAN' AND CONCAT(n2.name, '') = 'INDIA') OR (CONCAT(n1.name, '') = 'INDIA' AND CONCAT(n2.name, '') = 'JAPAN'))"},
		{"((n1.name = 'JAPAN' AND ord.v > 100) OR (n1.name IN ('PERU', 'CHINA') AND n2.name < 'J'))",
			"((CONCAT(n1.name, '') = 'JAPAN' AND ord.v + 0 > 100) OR (CONCAT(n1.name, '') IN ('PERU', 'CHINA') AND CONCAT(n2.name, '') < 'J'))"},
		{"NOT ((n1.name = 'JAPAN' AND n2.name = 'INDIA') OR (n1.name = 'INDIA' AND n2.name = 'JAPAN'))",
			"NOT ((CONCAT(n1.name, '') = 'JAPAN' AND CONCAT(n2.name, '') = 'INDIA') OR (CONCAT(n1.name, '') = 'INDIA' AND CONCAT(n2.name, '') = 'JAPAN'))"},
	} {
		q, ref := fmt.Sprintf(join, c.cond), fmt.Sprintf(join, c.ref)
		got, want := env.must(q), env.must(ref)
		if got != want || got == "[]" {
			t.Errorf("%s: %s, the reference %s", c.cond, got, want)
		}
	}
	// Q7's shape: a filter directly over each alias's scan.
	q := fmt.Sprintf(join, "((n1.name = 'JAPAN' AND n2.name = 'INDIA') OR (n1.name = 'INDIA' AND n2.name = 'JAPAN'))")
	ctx := env.e.NewContext(context.Background(), env.s).WithQuery(q)
	n, err := env.e.GMS().AnalyzeQuery(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	pushed := map[string]bool{}
	transform.Inspect(n, func(x sql.Node) bool {
		if f, ok := x.(*plan.Filter); ok {
			if ta, ok := f.Child.(*plan.TableAlias); ok {
				pushed[ta.Name()] = true
			}
		}
		return true
	})
	if !pushed["n1"] || !pushed["n2"] {
		t.Errorf("filters over the aliases' scans: %v; plan:\n%s", pushed, sql.DebugString(n))
	}
}
