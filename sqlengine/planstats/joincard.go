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
// conditions keep (joincard.go's rules).
func joinSelectivity(filters []sql.Expression, left, right *memo.ExprGroup) float64 {
	type edge struct{ a, b cardCol }
	var edges []edge
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
			edges = append(edges, edge{a, b})
		}
	}
	if len(edges) == 0 {
		return 1
	}
	// The columns of each table (by side and name) equated to the other
	// side; the most selective unique key one of them covers.
	type source struct {
		side int
		name string
	}
	cols := map[source]map[int]bool{}
	tbs := map[source]Table{}
	var order []source // first seen first: ties resolve the same way each time
	for _, e := range edges {
		for _, c := range []cardCol{e.a, e.b} {
			k := source{c.side, strings.ToLower(c.name)}
			if cols[k] == nil {
				cols[k], tbs[k] = map[int]bool{}, c.tb
				order = append(order, k)
			}
			cols[k][c.ord] = true
		}
	}
	sel := 1.0
	var best *source
	for _, k := range order {
		if s := 1 / tableRows(tbs[k]); s < sel && coversUniqueKey(tbs[k], cols[k]) {
			sel, best = s, &k
		}
	}
	used := make([]bool, len(edges))
	for i, e := range edges {
		for _, c := range []cardCol{e.a, e.b} {
			used[i] = used[i] || (best != nil && *best == source{c.side, strings.ToLower(c.name)})
		}
	}
	for i, e := range edges {
		if !used[i] {
			sel /= math.Max(columnDistinct(e.a), columnDistinct(e.b))
		}
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
