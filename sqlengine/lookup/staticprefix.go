package lookup

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// staticLookupExtended is OuterIndexLookups for a filter over a table
// GMS already reads by a constant range: the subquery of TPC-C's
// consistency condition 3.3.2.10, `SELECT sum(ol_amount) FROM orders
// STRAIGHT_JOIN order_line WHERE ... AND o_w_id = ? AND o_d_id =
// c.c_d_id AND o_c_id = c.c_id`, read every order of the warehouse per
// customer (o_w_id = ? became a range over the primary key's first
// column, and the outer equalities stayed a filter), where MySQL reads
// idx_order (o_w_id, o_d_id, o_c_id, o_id) by all three. When the range
// holds the leading columns of its index to single values and leaves
// the rest whole, those values and the outer equalities together may
// key a longer prefix of some index: the table is then read by it. The
// new lookup's prefix covers every constant column, so it keeps the
// range's conditions; the filter stays, rechecking the outer ones.
func staticLookupExtended(ctx *sql.Context, f *plan.Filter) (sql.Node, transform.TreeIdentity, error) {
	ita, alias := f.Child, (*plan.TableAlias)(nil)
	if a, ok := ita.(*plan.TableAlias); ok {
		ita, alias = a.Child, a
	}
	access, ok := ita.(*plan.IndexedTableAccess)
	if !ok || !access.IsStatic() {
		return f, transform.SameTree, nil
	}
	rt, ok := access.TableNode.(*plan.ResolvedTable)
	if !ok {
		return f, transform.SameTree, nil
	}
	name, tb := FilteredTable(rt)
	if tb == nil {
		return f, transform.SameTree, nil
	}
	if alias != nil {
		name = alias.Name()
	}
	eqs := TableEqualities(tb, name, expression.SplitConjunction(f.Expression), false)
	if len(eqs) == 0 {
		return f, transform.SameTree, nil
	}
	consts, ok := rangeConstants(ctx, access)
	if !ok {
		return f, transform.SameTree, nil
	}
	for o, c := range consts {
		if _, dup := eqs[o]; !dup {
			eqs[o] = c
		}
	}
	ix, k := BestPrefix(tb, eqs)
	if k <= len(consts) {
		return f, transform.SameTree, nil
	}
	covered := 0
	for _, o := range ix.KeyOrds()[:k] {
		if _, ok := consts[o]; ok {
			covered++
		}
	}
	if covered != len(consts) {
		return f, transform.SameTree, nil // a constant condition would be lost
	}
	var target sql.Node = rt
	if alias != nil {
		na, err := alias.WithChildren(rt)
		if err != nil {
			return f, transform.SameTree, nil
		}
		target = na
	}
	child, ok := lookupAccess(ctx, target, ix, k, eqs)
	if !ok {
		return f, transform.SameTree, nil
	}
	return plan.NewFilter(f.Expression, child), transform.NewTree, nil
}

// rangeConstants maps the ordinals of the columns a static lookup holds
// to one value each to literals of those values, when its one range is
// points on its index's leading columns and whole ([NULL, +inf)) on the
// rest; ok=false for any other lookup.
func rangeConstants(ctx *sql.Context, access *plan.IndexedTableAccess) (map[int]sql.Expression, bool) {
	lk, err := access.GetLookup(ctx, nil)
	if err != nil || lk.IsReverse || lk.IsEmptyRange || lk.IsSpatialLookup {
		return nil, false
	}
	ix, ok := lk.Index.(KeyIndex)
	ranges, rok := lk.Ranges.(sql.MySQLRangeCollection)
	if !ok || !rok || len(ranges) != 1 || ix.Prefixed() {
		return nil, false
	}
	ords := ix.KeyOrds()
	out := map[int]sql.Expression{}
	points := true
	for i, ce := range ranges[0] {
		if i >= len(ords) {
			return nil, false
		}
		if points && PointColumn(ctx, ce) {
			out[ords[i]] = expression.NewLiteral(ce.LowerBound.(sql.Below).Key, ce.Typ)
			continue
		}
		points = false
		if _, lo := ce.LowerBound.(sql.BelowNull); !lo {
			return nil, false
		}
		if _, hi := ce.UpperBound.(sql.AboveAll); !hi {
			return nil, false
		}
	}
	return out, len(out) > 0
}

// PointColumn reports whether a range column expression holds its column
// to one non-NULL value ([v, v]).
func PointColumn(ctx *sql.Context, ce sql.MySQLRangeColumnExpr) bool {
	lb, ok := ce.LowerBound.(sql.Below)
	if !ok {
		return false
	}
	ub, ok := ce.UpperBound.(sql.Above)
	if !ok || lb.Key == nil || ub.Key == nil || ce.Typ == nil {
		return false
	}
	c, err := ce.Typ.Compare(ctx, lb.Key, ub.Key)
	return err == nil && c == 0
}
