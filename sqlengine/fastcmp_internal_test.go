package sqlengine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"petrel/sqlengine/arith"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// TestFastComparisonsInFilters: TPC-H Q6's filter (a DATE range, a
// DECIMAL BETWEEN and a DECIMAL bound, literals of the columns' types
// after constant folding) compares its values directly (fastCmp), and
// answers as the same filter written so that GMS compares (each column
// plus zero), including NULLs and both operand orders.
func TestFastComparisonsInFilters(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE li (id INT PRIMARY KEY, q DECIMAL(15,2), disc DECIMAL(15,2), ship DATE, n INT)")
	var v []string
	for i := 0; i < 500; i++ {
		q := fmt.Sprintf("%d.%02d", i%50, i%7)
		if i%41 == 0 {
			q = "NULL"
		}
		v = append(v, fmt.Sprintf("(%d, %s, 0.0%d, '1993-%02d-%02d', %d)", i, q, i%10, 1+i%12, 1+i%28, i%13-6))
	}
	env.must("INSERT INTO li VALUES " + strings.Join(v, ","))
	const q6 = "SELECT COUNT(*), SUM(q) FROM li WHERE ship >= '1993-03-01' AND ship < DATE_ADD('1993-03-01', INTERVAL 5 MONTH) AND disc BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND q < 24 AND 3 > n"
	ref := "SELECT COUNT(*), SUM(q) FROM li WHERE ship + INTERVAL 0 DAY >= '1993-03-01' AND ship + INTERVAL 0 DAY < DATE_ADD('1993-03-01', INTERVAL 5 MONTH) AND disc + 0 BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND q + 0 < 24 AND 3 > n + 0"
	got, want := env.must(q6), env.must(ref)
	if got != want || strings.HasPrefix(got, "[[0 ") {
		t.Fatalf("Q6's filter: %s, the reference %s", got, want)
	}
	ctx := env.e.NewContext(context.Background(), env.s).WithQuery(q6)
	n, err := env.e.GMS().AnalyzeQuery(ctx, q6)
	if err != nil {
		t.Fatal(err)
	}
	fast := 0
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		if _, ok := e.(*arith.FastCmp); ok {
			fast++
		}
		return true
	})
	if fast != 6 {
		t.Errorf("%d of Q6's 6 comparisons compare directly; plan:\n%s", fast, sql.DebugString(n))
	}
}

// TestFastComparisonsInHaving: HAVING's comparisons of a DECIMAL
// aggregate with an integer (TPC-H Q18's SUM(l_quantity) > 314) compare
// as decimals directly, with GMS's answers: equal values at another
// scale, negatives, NULL groups, the literal on either side.
func TestFastComparisonsInHaving(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE l (id INT PRIMARY KEY, o INT, q DECIMAL(15,2))")
	var v []string
	for i := 0; i < 400; i++ {
		q := fmt.Sprintf("%d.%02d", i%9-3, []int{0, 50, 25}[i%3])
		if i%10 == 7 {
			q = "NULL"
		}
		v = append(v, fmt.Sprintf("(%d, %d, %s)", i, i%40, q))
	}
	env.must("INSERT INTO l VALUES " + strings.Join(v, ","))
	for _, c := range []struct{ q, ref string }{
		{"SELECT o, SUM(q) FROM l GROUP BY o HAVING SUM(q) > 5 ORDER BY o", "SELECT o, SUM(q) FROM l GROUP BY o HAVING SUM(q) > CAST(5 AS DECIMAL(10,2)) ORDER BY o"},
		{"SELECT o, SUM(q) FROM l GROUP BY o HAVING SUM(q) = 12 ORDER BY o", "SELECT o, SUM(q) FROM l GROUP BY o HAVING SUM(q) = CAST(12 AS DECIMAL(10,2)) ORDER BY o"},
		{"SELECT o, MIN(q) FROM l GROUP BY o HAVING -1 >= MIN(q) ORDER BY o", "SELECT o, MIN(q) FROM l GROUP BY o HAVING CAST(-1 AS DECIMAL(10,2)) >= MIN(q) ORDER BY o"},
		{"SELECT o FROM l WHERE o > 30 GROUP BY o HAVING MAX(q) < 6 ORDER BY o", "SELECT o FROM l WHERE o > 30 GROUP BY o HAVING MAX(q) < CAST(6 AS DECIMAL(10,2)) ORDER BY o"},
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
		fast := 0
		transform.InspectExpressions(n, func(e sql.Expression) bool {
			if _, ok := e.(*arith.FastCmp); ok {
				fast++
			}
			return true
		})
		if fast == 0 {
			t.Errorf("%s: HAVING's comparison is GMS's; plan:\n%s", c.q, sql.DebugString(n))
		}
	}
}
