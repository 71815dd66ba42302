package planstats

import (
	"math"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/memo"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"petrel/sqlengine/rewrite"
)

// Join cardinalities for the coster. GMS estimates every join's output
// as about its smaller input (memo's statsForRel: the selectivity of a
// join without merge-join histograms is 1 / (0.8 × the larger input's
// rows), whatever its condition), so a join on two non-key columns
// looks as cheap as a join on a key. TPC-H Q5 joined customer to
// supplier on c_nationkey = s_nationkey first (15,000 × 400 rows per
// nation estimated as 12,500) and took 37 s where MariaDB, joining
// through lineitem's supplier key, took 0.2 s.
//
// Petrel estimates an inner join's rows the way MySQL's optimizer does:
// the product of its inputs' rows times each equality's selectivity,
// 1 / the rows of a table whose unique key the equalities cover (each
// row of the other side matches at most one of that table's rows), else
// 1 / the larger distinct count of the two columns, from an index that
// starts with the column (ANALYZE's prefix counts) or MySQL's default of
// a tenth. The coster prices joins from these estimates (statsCoster).

// maxCardDepth bounds the recursion through nested join groups.
const maxCardDepth = 24

// defaultEqDistinct is the distinct count assumed for a column no index
// starts with: MySQL's 0.1 selectivity of an equality it knows nothing of.
const defaultEqDistinct = 10

// groupRows estimates the rows of memo group g.
func groupRows(ctx *sql.Context, g *memo.ExprGroup, depth int) float64 {
	gms := math.Max(1, float64(g.RelProps.GetStats().RowCount()))
	if aj := antiJoin(g); aj != nil && depth <= maxCardDepth {
		// NOT IN / NOT EXISTS against a right side far smaller than the
		// left keeps about the left side: GMS estimated about the
		// smaller input, so `partsupp NOT IN (a few suppliers)` looked
		// like 9,000 of its 80,000 rows and the join above it was
		// planned as 80,000 lookups (TPC-H Q16). At most one left row
		// per right row is taken as removed. Larger right sides keep
		// GMS's estimate (Q21's NOT EXISTS over lineitem itself).
		l := groupRows(ctx, aj.Left, depth+1)
		r := groupRows(ctx, aj.Right, depth+1)
		if r*2 < l {
			return math.Max(1, l-r)
		}
	}
	jp := logicalJoin(g)
	if jp == nil || depth > maxCardDepth {
		if est, ok := rangeRows(ctx, g); ok && est < gms {
			return math.Max(1, est)
		}
		return gms
	}
	l := groupRows(ctx, jp.Left, depth+1)
	r := groupRows(ctx, jp.Right, depth+1)
	return math.Max(1, l*r*joinSelectivity(jp.Filter, jp.Left, jp.Right))
}

// antiJoin is g's anti join (of NOT IN or NOT EXISTS), nil when g is
// none.
func antiJoin(g *memo.ExprGroup) *memo.JoinBase {
	for e := g.First; e != nil; e = e.Next() {
		if a, ok := e.(*memo.AntiJoin); ok {
			return a.JoinPrivate()
		}
	}
	return nil
}

// logicalJoin is the inner join of g that carries all of its conditions
// (the join order builder's member; physical forms may have moved their
// key equalities into the lookup), nil when g is no inner join.
func logicalJoin(g *memo.ExprGroup) *memo.JoinBase {
	var first *memo.JoinBase
	for e := g.First; e != nil; e = e.Next() {
		j, ok := e.(memo.JoinRel)
		if !ok {
			return nil
		}
		jp := j.JoinPrivate()
		if !rewrite.InnerJoinOp(jp.Op) {
			return nil
		}
		if jp.Op == plan.JoinTypeInner || jp.Op == plan.JoinTypeCross {
			return jp
		}
		if first == nil {
			first = jp
		}
	}
	return first
}

// cardCol is one side of a join equality: a column of a Petrel table.
type cardCol struct {
	tb   Table
	ord  int
	side int // 0 left, 1 right
	name string
}

// joinSelectivity is the fraction of left × right rows that the join
// conditions keep (joincard.go's rules). The equalities are taken per
// pair of tables they link, pairs being independent of each other: a
// join of partsupp with (part × supplier) on ps_partkey = p_partkey and
// ps_suppkey = s_suppkey keeps 1/20,000 of the part-partsupp pairs and
// 1/10,000 of the supplier-partsupp pairs, not the 1/80,000 of one
// partsupp row per (part, supplier) pair that its primary key alone
// would say (TPC-H Q2: that estimate priced every plan joining part and
// supplier before partsupp as 4,000,000 rows and the lookups into
// supplier lost to a hash join over its whole scan).
func joinSelectivity(filters []sql.Expression, left, right *memo.ExprGroup) float64 {
	type pairKey struct{ l, r string }
	pairs := map[pairKey][]cardEdge{}
	var order []pairKey // first seen first: the same product each time
	for _, f := range filters {
		for _, c := range expression.SplitConjunction(f) {
			eq, ok := c.(*expression.Equals)
			if !ok {
				continue
			}
			a, ok1 := joinColumn(eq.Left(), left, right)
			b, ok2 := joinColumn(eq.Right(), left, right)
			if !ok1 || !ok2 || a.side == b.side {
				continue
			}
			if a.side == 1 {
				a, b = b, a
			}
			k := pairKey{strings.ToLower(a.name), strings.ToLower(b.name)}
			if pairs[k] == nil {
				order = append(order, k)
			}
			pairs[k] = append(pairs[k], cardEdge{a, b})
		}
	}
	sel := 1.0
	for _, k := range order {
		sel *= pairSelectivity(pairs[k])
	}
	return sel
}

// cardEdge is one equality between a column of each side.
type cardEdge struct{ a, b cardCol }

// pairSelectivity is the fraction of the pairs of rows of two tables
// that their equalities keep: 1 / the rows of either table whose unique
// key the equalities cover (each row of the other matches at most one),
// the more selective of the two; the equalities outside that key, and
// all of them when none is covered, each 1 / the larger distinct count
// of its two columns.
func pairSelectivity(edges []cardEdge) float64 {
	cols := [2]map[int]bool{{}, {}}
	var tbs [2]Table
	for _, e := range edges {
		for side, c := range []cardCol{e.a, e.b} {
			cols[side][c.ord] = true
			tbs[side] = c.tb
		}
	}
	sel := 1.0
	best := -1
	for side := range tbs {
		if s := 1 / tableRows(tbs[side]); s < sel && coversUniqueKey(tbs[side], cols[side]) {
			sel, best = s, side
		}
	}
	if best >= 0 {
		return sel
	}
	for _, e := range edges {
		sel /= math.Max(columnDistinct(e.a), columnDistinct(e.b))
	}
	return sel
}

// joinColumn resolves x, a column reference, to its table on one side of
// the join.
func joinColumn(x sql.Expression, left, right *memo.ExprGroup) (cardCol, bool) {
	gf, ok := x.(*expression.GetField)
	if !ok {
		return cardCol{}, false
	}
	for side, g := range []*memo.ExprGroup{left, right} {
		if tb := groupTable(g, gf.Table(), 0); tb != nil {
			o := tb.Storage().Schema.IndexOfColName(gf.Name())
			if o < 0 {
				return cardCol{}, false
			}
			return cardCol{tb: tb, ord: o, side: side, name: gf.Table()}, true
		}
	}
	return cardCol{}, false
}

// groupTable finds the Petrel table named name among g's sources.
func groupTable(g *memo.ExprGroup, name string, depth int) Table {
	if g == nil || depth > maxCardDepth {
		return nil
	}
	switch e := g.First.(type) {
	case memo.JoinRel:
		jp := e.JoinPrivate()
		if tb := groupTable(jp.Left, name, depth+1); tb != nil {
			return tb
		}
		return groupTable(jp.Right, name, depth+1)
	case *memo.TableScan:
		if rt, ok := e.Table.(*plan.ResolvedTable); ok && strings.EqualFold(rt.Name(), name) {
			tb, _ := rt.UnderlyingTable().(Table)
			return tb
		}
	case *memo.TableAlias:
		if n, tb := filteredTable(e.Table); tb != nil && strings.EqualFold(n, name) {
			return tb
		}
	case *memo.Filter:
		return groupTable(e.Child, name, depth+1)
	case *memo.Project:
		return groupTable(e.Child, name, depth+1)
	case *memo.Distinct:
		return groupTable(e.Child, name, depth+1)
	}
	return nil
}

// coversUniqueKey reports whether cols hold every column of tb's primary
// key or of one of its unique indexes.
func coversUniqueKey(tb Table, cols map[int]bool) bool {
	indexes, err := tb.GetIndexes(nil)
	if err != nil {
		return false
	}
	for _, sqlIx := range indexes {
		ix, ok := sqlIx.(Index)
		if !ok || !ix.IsUnique() || len(ix.PrefixLengths()) > 0 {
			continue
		}
		all := true
		for _, o := range ix.KeyOrds() {
			all = all && cols[o]
		}
		if all {
			return true
		}
	}
	return false
}

// tableRows is tb's approximate row count, at least 1.
func tableRows(tb Table) float64 {
	return float64(max(tb.ApproxRows(), 1))
}

// columnDistinct estimates the distinct values of one column: from an
// index that starts with it, else defaultEqDistinct (at most the rows).
func columnDistinct(c cardCol) float64 {
	rows := tableRows(c.tb)
	ix, k := bestIndexPrefix(c.tb, map[int]sql.Expression{c.ord: nil})
	if ix == nil || k == 0 {
		return math.Min(rows, defaultEqDistinct)
	}
	return math.Max(1, rows/PrefixEstimate(c.tb, ix, 1, rows))
}
