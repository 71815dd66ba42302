package lookup

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Correlated subqueries read their inner tables by index (issue 29).
// TPC-H's Q2 compares each candidate row with `SELECT min(ps_supplycost)
// FROM partsupp, supplier, nation, region WHERE p_partkey = ps_partkey
// AND ...`, p_partkey being the outer query's; MySQL reads partsupp by
// its primary key's prefix per outer row. GMS v0.20.0 leaves such a
// conjunct above the whole join (pushFilters moves only conjuncts that
// name one table, and counts the outer one), so every evaluation joined
// all of partsupp (800,000 rows at scale factor 1) before filtering; and
// its applyIndexesFromOuterScope keeps the index choices of the last
// filter it visits only. Two rules fix that:
//   - PushCorrelatedFilters (after pushFilters, before join planning)
//     moves a conjunct `inner.col = <outer expression>` of a filter over
//     inner joins to just above that inner table, where the join
//     planner sees it (and planstats/coster.go prices it as an index
//     lookup, so the plan starts from that table);
//   - OuterIndexLookups (after join planning) turns a filter over a table
//     with such equalities on an index prefix into an index lookup keyed
//     by the outer expressions (the filter stays, rechecking them).

// correlatedEq is a conjunct `col = e` of a filter directly above table
// tb, e naming none of tb's columns: an outer reference (or a constant
// expression) that is fixed during one evaluation of the subquery.
type correlatedEq struct {
	ord int
	key sql.Expression
}

// PushCorrelatedFilters implements the first rule (see above).
func PushCorrelatedFilters(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if scope.IsEmpty() {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		j, ok := f.Child.(*plan.JoinNode)
		if !ok || !j.Op.IsInner() {
			return n, transform.SameTree, nil
		}
		all, inner := map[string]bool{}, map[string]bool{}
		joinTables(j, all, inner, true)
		push := map[string][]sql.Expression{}
		var rest []sql.Expression
		for _, e := range expression.SplitConjunction(f.Expression) {
			if tb := correlatedTable(e, all, inner); tb != "" {
				pushed, _, err := transform.Expr(e, func(x sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
					if gf, ok := x.(*expression.GetField); ok && !all[strings.ToLower(gf.Table())] {
						return outerRef{gf}, transform.NewTree, nil
					}
					return x, transform.SameTree, nil
				})
				if err != nil {
					return nil, transform.SameTree, err
				}
				push[tb] = append(push[tb], pushed)
				continue
			}
			rest = append(rest, e)
		}
		if len(push) == 0 {
			return n, transform.SameTree, nil
		}
		child, err := pushAboveTables(j, push)
		if err != nil {
			return nil, transform.SameTree, err
		}
		for _, es := range push {
			// A table not found (never expected) keeps its conjuncts.
			rest = append(rest, es...)
		}
		if len(rest) == 0 {
			return child, transform.NewTree, nil
		}
		return plan.NewFilter(expression.JoinAnd(rest...), child), transform.NewTree, nil
	})
}

// joinTables collects the lower-cased names of the tables under n (all)
// and of those reached through inner joins and filters only (inner):
// a conjunct may move only to those.
func joinTables(n sql.Node, all, inner map[string]bool, viaInner bool) {
	switch n := n.(type) {
	case *plan.JoinNode:
		in := viaInner && n.Op.IsInner()
		joinTables(n.Left(), all, inner, in)
		joinTables(n.Right(), all, inner, in)
	case *plan.Filter:
		joinTables(n.Child, all, inner, viaInner)
	case *plan.ResolvedTable, *plan.TableAlias:
		name := strings.ToLower(n.(sql.Nameable).Name())
		all[name] = true
		if viaInner {
			inner[name] = true
		}
	default:
		transform.Inspect(n, func(c sql.Node) bool {
			if nm, ok := c.(sql.Nameable); ok {
				if _, isTable := c.(sql.TableNode); isTable {
					all[strings.ToLower(nm.Name())] = true
				}
			}
			return true
		})
		if nm, ok := n.(sql.Nameable); ok {
			all[strings.ToLower(nm.Name())] = true
		}
	}
}

// correlatedTable returns the inner table an equality names when it names
// exactly one table of the join and at least one column from outside it
// (an outer scope's), and no subquery; else "".
func correlatedTable(e sql.Expression, all, inner map[string]bool) string {
	eq, ok := e.(*expression.Equals)
	if !ok {
		return ""
	}
	tables, outer, bad := map[string]bool{}, 0, false
	sql.Inspect(eq, func(x sql.Expression) bool {
		switch x := x.(type) {
		case *plan.Subquery:
			bad = true
			return false
		case *expression.GetField:
			if tb := strings.ToLower(x.Table()); all[tb] {
				tables[tb] = true
			} else {
				outer++
			}
		}
		return true
	})
	if bad || outer == 0 || len(tables) != 1 {
		return ""
	}
	for tb := range tables {
		if inner[tb] {
			return tb
		}
	}
	return ""
}

// pushAboveTables puts each table's conjuncts in a filter just above it
// (joined with a filter already there), removing them from push.
func pushAboveTables(n sql.Node, push map[string][]sql.Expression) (sql.Node, error) {
	switch c := n.(type) {
	case *plan.JoinNode:
		if !c.Op.IsInner() {
			return n, nil
		}
		l, err := pushAboveTables(c.Left(), push)
		if err != nil {
			return nil, err
		}
		r, err := pushAboveTables(c.Right(), push)
		if err != nil {
			return nil, err
		}
		return c.WithChildren(l, r)
	case *plan.Filter:
		if name := tableName(c.Child); name != "" {
			if es, ok := push[name]; ok {
				delete(push, name)
				return plan.NewFilter(expression.JoinAnd(append([]sql.Expression{c.Expression}, es...)...), c.Child), nil
			}
			return n, nil
		}
		child, err := pushAboveTables(c.Child, push)
		if err != nil {
			return nil, err
		}
		return c.WithChildren(child)
	case *plan.ResolvedTable, *plan.TableAlias:
		name := tableName(c)
		if es, ok := push[name]; ok {
			delete(push, name)
			return plan.NewFilter(expression.JoinAnd(es...), c), nil
		}
	}
	return n, nil
}

// tableName is the lower-cased name of a table or alias node, else "".
func tableName(n sql.Node) string {
	switch c := n.(type) {
	case *plan.ResolvedTable:
		return strings.ToLower(c.Name())
	case *plan.TableAlias:
		return strings.ToLower(c.Name())
	}
	return ""
}

// OuterIndexLookups implements the second rule (see above).
func OuterIndexLookups(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if scope.IsEmpty() {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		name, tb := FilteredTable(f.Child)
		if tb == nil {
			return staticLookupExtended(ctx, f)
		}
		eqs := TableEqualities(tb, name, expression.SplitConjunction(f.Expression), false)
		ix, k := BestPrefix(tb, eqs)
		if k == 0 {
			return n, transform.SameTree, nil
		}
		child, ok := lookupAccess(ctx, f.Child, ix, k, eqs)
		if !ok {
			return n, transform.SameTree, nil
		}
		return plan.NewFilter(f.Expression, child), transform.NewTree, nil
	})
}

// lookupAccess is table node t (a table or an alias of one) read by
// index ix's first k columns, keyed by the expressions eqs gives those
// columns (tableEqualities); ok=false when GMS cannot build it.
func lookupAccess(ctx *sql.Context, t sql.Node, ix KeyIndex, k int, eqs map[int]sql.Expression) (sql.Node, bool) {
	keys := make([]sql.Expression, k)
	for i, o := range ix.KeyOrds()[:k] {
		keys[i] = eqs[o]
	}
	lb := plan.NewLookupBuilder(ix, keys, make([]bool, k))
	switch c := t.(type) {
	case *plan.ResolvedTable:
		ita, err := plan.NewIndexedAccessForTableNode(ctx, c, lb)
		return ita, err == nil
	case *plan.TableAlias:
		rt, ok := c.Child.(*plan.ResolvedTable)
		if !ok {
			return nil, false
		}
		ita, err := plan.NewIndexedAccessForTableNode(ctx, rt, lb)
		if err != nil {
			return nil, false
		}
		nc, err := c.WithChildren(ita)
		return nc, err == nil
	}
	return nil, false
}

// TableEqualities maps the ordinals of tb's columns (tb named name in the
// query) to the expressions they are equal to in conjuncts `col = e`
// where e names no column of tb, contains no subquery and has the
// column's type (integers of any width count as one type, as the index
// keys compare them). With literals false, e must name a column (an
// outer reference): constants are GMS's index coster's.
func TableEqualities(tb KeyTable, name string, conj []sql.Expression, literals bool) map[int]sql.Expression {
	out := map[int]sql.Expression{}
	for _, e := range conj {
		eq, ok := e.(*expression.Equals)
		if !ok {
			continue
		}
		for _, side := range [2][2]sql.Expression{{eq.Left(), eq.Right()}, {eq.Right(), eq.Left()}} {
			gf, ok := side[0].(*expression.GetField)
			if !ok || !strings.EqualFold(gf.Table(), name) {
				continue
			}
			o := tb.ColumnOrdinal(gf.Name())
			if o < 0 {
				continue
			}
			if _, dup := out[o]; dup || !keyComparable(gf.Type(), side[1].Type()) {
				continue
			}
			own, cols, sub := false, 0, false
			sql.Inspect(side[1], func(x sql.Expression) bool {
				switch x := x.(type) {
				case *expression.GetField:
					cols++
					own = own || strings.EqualFold(x.Table(), name)
				case *plan.Subquery:
					sub = true
				}
				return true
			})
			if own || sub || (cols == 0 && !literals) {
				continue
			}
			out[o] = side[1]
			break
		}
	}
	return out
}

// keyComparable reports whether a key of type b looks up a column of type
// a as `a = b` compares them.
func keyComparable(a, b sql.Type) bool {
	if types.IsInteger(a) && types.IsInteger(b) {
		return true
	}
	return a.Equals(b)
}

// BestPrefix is the index of tb whose leading columns eqs covers the
// most of (ties: better), and how many.
func BestPrefix(tb KeyTable, eqs map[int]sql.Expression) (KeyIndex, int) {
	if len(eqs) == 0 {
		return nil, 0
	}
	indexes, err := tb.GetIndexes(nil)
	if err != nil {
		return nil, 0
	}
	var best KeyIndex
	bestK := 0
	for _, sqlIx := range indexes {
		ix, ok := sqlIx.(KeyIndex)
		if !ok || ix.Prefixed() {
			continue
		}
		ords := ix.KeyOrds()
		k := 0
		for k < len(ords) {
			if _, ok := eqs[ords[k]]; !ok {
				break
			}
			k++
		}
		if k == 0 {
			continue
		}
		if best == nil || k > bestK || k == bestK && Better(ix, k, best, bestK) {
			best, bestK = ix, k
		}
	}
	return best, bestK
}

// Better breaks a tie between two lookups expected to read as many rows:
// a whole unique key first, then the primary key (no second read of the
// row), then the longer prefix.
func Better(a KeyIndex, ak int, b KeyIndex, bk int) bool {
	aFull, bFull := a.IsUnique() && ak == len(a.KeyOrds()), b.IsUnique() && bk == len(b.KeyOrds())
	if aFull != bFull {
		return aFull
	}
	if a.IsPrimary() != b.IsPrimary() {
		return a.IsPrimary()
	}
	return ak > bk
}

// KeyIndex is an index as the lookup rules read it (sqlengine's Index).
type KeyIndex interface {
	sql.Index
	// KeyOrds are the ordinals of the table's columns, in key order.
	KeyOrds() []int
	// Prefixed reports a column indexed by a prefix of its value.
	Prefixed() bool
	IsPrimary() bool
}

// KeyTable is a table whose indexes are keyIndexes (sqlengine's Table).
type KeyTable interface {
	sql.Table
	GetIndexes(ctx *sql.Context) ([]sql.Index, error)
	// ColumnOrdinal is the ordinal of the column named name, -1 if none.
	ColumnOrdinal(name string) int
}

// FilteredTable is the table (and the name the query gives it) of a
// table node or an alias of one; "", nil for anything else.
func FilteredTable(n sql.Node) (string, KeyTable) {
	switch c := n.(type) {
	case *plan.ResolvedTable:
		if tb, ok := c.UnderlyingTable().(KeyTable); ok {
			return tb.Name(), tb
		}
	case *plan.TableAlias:
		if rt, ok := c.Child.(*plan.ResolvedTable); ok {
			if tb, ok := rt.UnderlyingTable().(KeyTable); ok {
				return c.Name(), tb
			}
		}
	}
	return "", nil
}

// outerRef is an outer query's column in a conjunct pushed above an inner
// table. GMS's join planner takes `col = col` filters as equivalences
// between two of its join's columns and, finding no table of the join
// for the outer one, panics ("vertex not found"); wrapped, the conjunct
// is an equality with an expression, as `col = ? + 1` would be. It
// evaluates, prints and is re-indexed (its child) as the column itself.
type outerRef struct{ child sql.Expression }

var _ sql.Expression = outerRef{}

func (o outerRef) Resolved() bool                                  { return o.child.Resolved() }
func (o outerRef) String() string                                  { return o.child.String() }
func (o outerRef) Type() sql.Type                                  { return o.child.Type() }
func (o outerRef) IsNullable() bool                                { return o.child.IsNullable() }
func (o outerRef) Children() []sql.Expression                      { return []sql.Expression{o.child} }
func (o outerRef) Eval(ctx *sql.Context, row sql.Row) (any, error) { return o.child.Eval(ctx, row) }

// WithChildren implements sql.Expression.
func (o outerRef) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(o, len(children), 1)
	}
	return outerRef{children[0]}, nil
}

// CollationCoercibility implements sql.CollationCoercible.
func (o outerRef) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, o.child)
}
