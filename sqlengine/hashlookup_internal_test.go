package sqlengine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"petrel/sqlengine/iters"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// TestHashLookupOnTuples: a hash join on two columns (integers of two
// widths, strings beside integers, NULLs, repeated keys) keyed exactly
// (iters/hashlookup.go) finds the matches a count in Go finds, through a
// HashLookup on a tuple in the plan; and keys of integers and of text
// differ where their values do.
func TestHashLookupOnTuples(t *testing.T) {
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE a (id INT PRIMARY KEY, x INT, y BIGINT, s VARCHAR(10))")
	env.must("CREATE TABLE b (id INT PRIMARY KEY, x BIGINT, y BIGINT, s VARCHAR(10))")
	type ab struct {
		x, y any
		s    string
	}
	var av, bv []string
	var arows, brows []ab
	for i := 0; i < 300; i++ {
		var x any = int64(i % 17)
		if i%29 == 0 {
			x = nil
		}
		r := ab{x, int64(i % 5), fmt.Sprint(i % 3)}
		arows = append(arows, r)
		av = append(av, fmt.Sprintf("(%d, %s, %d, '%s')", i, sqlValue(x), r.y, r.s))
	}
	for i := 0; i < 200; i++ {
		r := ab{int64(i % 13), int64(i % 7), fmt.Sprint(i % 4)}
		brows = append(brows, r)
		bv = append(bv, fmt.Sprintf("(%d, %d, %d, '%s')", i, r.x, r.y, r.s))
	}
	env.must("INSERT INTO a VALUES " + strings.Join(av, ","))
	env.must("INSERT INTO b VALUES " + strings.Join(bv, ","))
	for _, c := range []struct {
		q     string
		match func(a, b ab) bool
	}{
		{"SELECT COUNT(*) FROM a JOIN b ON a.x = b.x AND a.y = b.y", func(a, b ab) bool { return a.x != nil && a.x == b.x && a.y == b.y }},
		{"SELECT COUNT(*) FROM a JOIN b ON a.x = b.x AND a.s = b.s", func(a, b ab) bool { return a.x != nil && a.x == b.x && a.s == b.s }},
	} {
		want := 0
		for _, x := range arows {
			for _, y := range brows {
				if c.match(x, y) {
					want++
				}
			}
		}
		if got := env.must(c.q); got != fmt.Sprintf("[[%d]]", want) || want == 0 {
			t.Errorf("%s: %s, want %d", c.q, got, want)
		}
		n, err := env.e.GMS().AnalyzeQuery(env.e.NewContext(context.Background(), env.s).WithQuery(c.q), c.q)
		if err != nil {
			t.Fatal(err)
		}
		tuples := 0
		transform.Inspect(n, func(n sql.Node) bool {
			if h, ok := n.(*plan.HashLookup); ok {
				if _, ok := h.LeftProbeKey.(expression.Tuple); ok {
					tuples++
				}
			}
			return true
		})
		if tuples == 0 {
			t.Errorf("%s: no hash lookup on a tuple:\n%s", c.q, sql.DebugString(n))
		}
	}
	ik, ok := iters.IntTupleKey([]any{int64(1), int64(23)})
	ik2, _ := iters.IntTupleKey([]any{int64(12), int64(3)})
	if !ok || ik == ik2 {
		t.Errorf("integer keys (1, 23) and (12, 3): %v, %v", ik, ik2)
	}
	if _, ok := iters.IntTupleKey([]any{int64(1), "x"}); ok {
		t.Error("a tuple with a string keyed as integers")
	}
}

func sqlValue(v any) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprint(v)
}
