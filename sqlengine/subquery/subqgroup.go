package subquery

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// A remembered subquery of the shape `SELECT f(agg(x)) FROM t WHERE t.a
// = outer.p [AND t.b = outer.q ...] [AND conditions on t alone]`, its
// table read whole (no index on the correlated columns: TPC-H Q17's and
// Q20's lineitem), is answered for every outer value at once after its
// second evaluation: the same plan grouped by t.a, t.b, ... without the
// correlated equalities is run once and its groups fill the memory, as
// MySQL's subquery-to-derived rewrite joins a grouped derived table. An
// outer value with no group gets the subquery's answer over no rows (f
// of the aggregates of an empty input), which is what the subquery gives
// for it: no row of t equals it. So that "no group" means "no row", the
// correlated columns and the outer ones are integers of the same
// signedness (equal exactly when their keys are equal); a NULL group is
// dropped (an equality with NULL is never true). Past memoGroupMax
// groups the grouping is abandoned and each outer value runs the
// subquery as before.

// memoGroupMax bounds the groups one grouped run may remember.
const memoGroupMax = 1 << 20

// groupPlan is a subquery's plan taken apart for its grouped run.
type groupPlan struct {
	proj  *plan.Project
	gb    *plan.GroupBy
	local []sql.Expression // the filter's conditions on the table alone
	leaf  sql.Node
	pairs []eqPair // the correlated equalities
}

type eqPair struct{ inner, outer *expression.GetField }

// newGroupPlan returns sq's plan taken apart, or nil where it is not of
// the shape above.
func newGroupPlan(sq *plan.Subquery) *groupPlan {
	corr := sq.Correlated()
	p, ok := sq.Query.(*plan.Project)
	if !ok || len(p.Projections) != 1 {
		return nil
	}
	gb, ok := p.Child.(*plan.GroupBy)
	if !ok || len(gb.GroupByExprs) != 0 {
		return nil
	}
	f, ok := gb.Child.(*plan.Filter)
	if !ok {
		return nil
	}
	outerIn := func(e sql.Expression) bool {
		found := false
		sql.Inspect(e, func(e sql.Expression) bool {
			if gf, ok := e.(*expression.GetField); ok && corr.Contains(gf.Id()) {
				found = true
			}
			if _, ok := e.(*plan.Subquery); ok {
				found = true // a nested subquery: not this shape
			}
			return !found
		})
		return found
	}
	for _, e := range append(append([]sql.Expression{}, p.Projections...), gb.SelectedExprs...) {
		if outerIn(e) {
			return nil
		}
	}
	leafOuter := false
	transform.Inspect(f.Child, func(n sql.Node) bool {
		if ex, ok := n.(sql.Expressioner); ok {
			for _, e := range ex.Expressions() {
				leafOuter = leafOuter || outerIn(e)
			}
		}
		return !leafOuter
	})
	if leafOuter {
		return nil
	}
	g := &groupPlan{proj: p, gb: gb, leaf: f.Child}
	seen := map[int]bool{}
	for _, c := range expression.SplitConjunction(f.Expression) {
		if !outerIn(c) {
			g.local = append(g.local, c)
			continue
		}
		eq, ok := c.(*expression.Equals)
		if !ok {
			return nil
		}
		l, lok := eq.Left().(*expression.GetField)
		r, rok := eq.Right().(*expression.GetField)
		if !lok || !rok {
			return nil
		}
		if corr.Contains(l.Id()) {
			l, r = r, l
		}
		if corr.Contains(l.Id()) || !corr.Contains(r.Id()) || seen[r.Index()] || !sameIntegerKind(l.Type(), r.Type()) {
			return nil
		}
		seen[r.Index()] = true
		g.pairs = append(g.pairs, eqPair{inner: l, outer: r})
	}
	if len(g.pairs) == 0 {
		return nil
	}
	return g
}

// sameIntegerKind: both integer types, both signed or both unsigned
// (their values then key equal exactly when they compare equal).
func sameIntegerKind(a, b sql.Type) bool {
	if !types.IsInteger(a) || !types.IsInteger(b) {
		return false
	}
	return types.IsUnsigned(a) == types.IsUnsigned(b)
}

// run evaluates the grouped plan with the outer row row (its values are
// read by nothing: the correlated equalities are gone) and returns each
// group's key (as subqueryMemo.key encodes the outer row) and answer,
// and the answer over no rows; ok is false when it cannot (too many
// groups, a key of another kind, refs other than the pairs' outer
// columns).
func (g *groupPlan) run(ctx *sql.Context, b sql.NodeExecBuilder, refs []int, row sql.Row) (groups map[string]interface{}, empty interface{}, ok bool, err error) {
	scope := len(row)
	// The memory's key is the outer row's values at refs below the
	// scope; they must be the pairs' outer columns, each once.
	pos := make([]int, 0, len(g.pairs)) // pair index per key position
	for _, i := range refs {
		if i >= scope {
			break
		}
		found := -1
		for k, p := range g.pairs {
			if p.outer.Index() == i {
				found = k
			}
		}
		if found < 0 {
			return nil, nil, false, nil
		}
		pos = append(pos, found)
	}
	if len(pos) != len(g.pairs) {
		return nil, nil, false, nil
	}
	keys := make([]sql.Expression, len(g.pairs))
	for k, p := range g.pairs {
		keys[k] = p.inner
	}
	var child sql.Node = g.leaf
	if len(g.local) > 0 {
		child = plan.NewFilter(expression.JoinAnd(g.local...), g.leaf)
	}
	selected := append(append([]sql.Expression{}, g.gb.SelectedExprs...), keys...)
	projs := []sql.Expression{g.proj.Projections[0]}
	for k, p := range g.pairs {
		projs = append(projs, p.inner.WithIndex(scope+len(g.gb.SelectedExprs)+k))
	}
	grouped := plan.NewProject(projs, plan.NewGroupBy(selected, keys, child))
	rows, err := runPrepended(ctx, b, grouped, row, memoGroupMax)
	if err != nil || rows == nil {
		return nil, nil, false, err
	}
	groups = make(map[string]interface{}, len(rows))
	for _, r := range rows {
		var kb []byte
		null := false
		for _, k := range pos {
			v := r[scope+1+k]
			if v == nil {
				null = true
				break
			}
			var ok bool
			if kb, ok = appendMemoKey(kb, v); !ok {
				return nil, nil, false, nil
			}
		}
		if !null {
			groups[string(kb)] = r[scope]
		}
	}
	// The answer over no rows: the same aggregates over an empty table.
	none := plan.NewProject(g.proj.Projections, plan.NewGroupBy(g.gb.SelectedExprs, nil, plan.NewEmptyTableWithSchema(g.leaf.Schema())))
	erows, err := runPrepended(ctx, b, none, row, 2)
	if err != nil || len(erows) != 1 {
		return nil, nil, false, err
	}
	return groups, erows[0][scope], true, nil
}

// runPrepended runs n as GMS runs a subquery's plan for the outer row
// row (every row source's rows prefixed with it) and returns its rows, or
// nil rows when there are more than max.
func runPrepended(ctx *sql.Context, b sql.NodeExecBuilder, n sql.Node, row sql.Row, max int) ([]sql.Row, error) {
	q, _, err := transform.Node(n, plan.PrependRowInPlan(row, false))
	if err != nil {
		return nil, err
	}
	iter, err := b.Build(ctx, q, row)
	if err != nil {
		return nil, err
	}
	var rows []sql.Row
	for {
		r, err := iter.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			_ = iter.Close(ctx)
			return nil, err
		}
		if len(rows) >= max {
			return nil, iter.Close(ctx)
		}
		rows = append(rows, r)
	}
	return rows, iter.Close(ctx)
}
