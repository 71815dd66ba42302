package iters

import (
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// stubExec builds each ResolvedTable as the rows of its table's name in
// rows, counting the builds.
type stubExec struct {
	rows   map[string][]sql.Row
	builds map[string]int
}

func (s *stubExec) Build(ctx *sql.Context, n sql.Node, row sql.Row) (sql.RowIter, error) {
	switch n := n.(type) {
	case *plan.ResolvedTable:
		s.builds[n.Name()]++
		return sql.RowsToRowIter(s.rows[n.Name()]...), nil
	case *plan.JoinNode:
		if it, ok, err := CrossJoin(ctx, s, n, row); ok {
			return it, err
		}
	}
	return nil, fmt.Errorf("stub: %T", n)
}

func table(t *testing.T, name string) *plan.ResolvedTable {
	t.Helper()
	db := memory.NewDatabase("d")
	sch := sql.NewPrimaryKeySchema(sql.Schema{{Name: "n", Type: types.Int64, Source: name}})
	return plan.NewResolvedTable(memory.NewTable(db, name, sch, nil), db, nil)
}

func intRows(vals ...int64) []sql.Row {
	var out []sql.Row
	for _, v := range vals {
		out = append(out, sql.Row{v})
	}
	return out
}

func drain(t *testing.T, ctx *sql.Context, it sql.RowIter) []sql.Row {
	t.Helper()
	var out []sql.Row
	for {
		r, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := it.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return out
}

// A cross join of a, b and c (a outermost) gives every combination in
// GMS's order, reading b and c once each; past maxCachedValues it reads
// the right side once per left row and still gives every combination; an
// empty right side gives nothing; the parent row's scope columns lead.
func TestCrossJoinReadsRightOnce(t *testing.T) {
	ctx := sql.NewEmptyContext()
	a, b, c := table(t, "a"), table(t, "b"), table(t, "c")
	join := plan.NewCrossJoin(a, plan.NewCrossJoin(b, c))
	var want []sql.Row
	for _, x := range []int64{1, 2, 3} {
		for _, y := range []int64{10, 20} {
			for _, z := range []int64{100, 200, 300} {
				want = append(want, sql.Row{x, y, z})
			}
		}
	}
	for _, tc := range []struct {
		name       string
		max        int
		wantBuilds map[string]int
	}{
		{"kept", 1 << 20, map[string]int{"a": 1, "b": 1, "c": 1}},
		// b x c is 6 rows of 2 values: 12 values do not fit in 4, so the
		// outer join reads b x c for each of a's 3 rows; c's 3 rows (3
		// values) fit, so each b x c reads c once.
		{"streamed", 4, map[string]int{"a": 1, "b": 3, "c": 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(m int) { maxCachedValues = m }(maxCachedValues)
			maxCachedValues = tc.max
			s := &stubExec{rows: map[string][]sql.Row{"a": intRows(1, 2, 3), "b": intRows(10, 20), "c": intRows(100, 200, 300)}, builds: map[string]int{}}
			it, err := s.Build(ctx, join, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := drain(t, ctx, it); !reflect.DeepEqual(got, want) {
				t.Fatalf("rows %v, want %v", got, want)
			}
			if !reflect.DeepEqual(s.builds, tc.wantBuilds) {
				t.Fatalf("builds %v, want %v", s.builds, tc.wantBuilds)
			}
		})
	}

	s := &stubExec{rows: map[string][]sql.Row{"a": intRows(1, 2, 3), "c": nil}, builds: map[string]int{}}
	it, err := s.Build(ctx, plan.NewCrossJoin(a, c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := drain(t, ctx, it); len(got) != 0 || s.builds["c"] != 1 || s.builds["a"] != 1 {
		t.Fatalf("empty right side: rows %v, builds %v", got, s.builds)
	}

	s = &stubExec{rows: map[string][]sql.Row{"a": intRows(1, 2), "c": intRows(7)}, builds: map[string]int{}}
	it, err = s.Build(ctx, plan.NewCrossJoin(a, c).WithScopeLen(1), sql.Row{"outer"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := drain(t, ctx, it), []sql.Row{{"outer", int64(1), int64(7)}, {"outer", int64(2), int64(7)}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("with a scope column: %v, want %v", got, want)
	}
}
