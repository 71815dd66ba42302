package planstats

import (
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/memo"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"petrel/sqlengine/lookup"
	"petrel/sqlengine/rewrite"
)

// Cost factors, GMS's (sql/memo/coster.go, after PostgreSQL's).
const (
	costSeqIO  = 1.0
	costRandIO = 1.3
	costCPU    = 0.01
	costMem    = 2.0
)

// statsCoster is GMS's coster with lookup joins (index nested loops)
// priced from index statistics, as MySQL prices ref access: each row of
// the outer side costs one random seek plus the rows one key matches in
// the inner index (rows / the distinct count of the key's column
// prefix). GMS prices a lookup join from its estimate of the whole join's
// output, which for a selective outer side joined on a non-unique index
// comes out far above a merge join that reads both indexes whole. Other
// operators, and lookups into indexes without statistics, keep GMS's
// costs.
type statsCoster struct {
	base  memo.Coster
	stats *Provider
}

var _ memo.Coster = statsCoster{}

// EstimateCost implements memo.Coster.
func (c statsCoster) EstimateCost(ctx *sql.Context, n memo.RelExpr, s sql.StatsProvider) (float64, error) {
	if distinctLost(n) {
		return refusedCost, nil
	}
	j, ok := n.(memo.JoinRel)
	if lj, isLookup := n.(*memo.LookupJoin); isLookup && lj.Lookup != nil && j.JoinPrivate().Op.IsLeftOuter() {
		// A left outer lookup join seeks once for every left row, as an
		// inner one does; GMS prices it from its estimate of the join's
		// output, which for a selective right side (NOT IN's subquery,
		// TPC-H Q16: a LIKE on supplier) is a handful of rows, and so
		// chose 80,000 seeks, each re-evaluating the LIKE, over one hash
		// of the right side.
		l := groupRows(ctx, j.JoinPrivate().Left, 0)
		perKey, ok := c.rowsPerKey(lj.Lookup)
		if !ok {
			perKey = 1
		}
		return l*costSeqIO + l*(costRandIO+perKey*(costSeqIO+costCPU)), nil
	}
	if hj, isHash := n.(*memo.HashJoin); isHash && j.JoinPrivate().Op.IsLeftOuter() {
		// Its alternative, a left outer hash join, priced as an inner
		// one (below): one pass over each side, a hash of the right.
		jp := hj.JoinPrivate()
		l, r := groupRows(ctx, jp.Left, 0), groupRows(ctx, jp.Right, 0)
		return l*(costSeqIO+costCPU) + r*(costSeqIO+costMem) + groupRows(ctx, hj.Group(), 0)*costCPU, nil
	}
	if !ok || !rewrite.InnerJoinOp(j.JoinPrivate().Op) {
		return c.base.EstimateCost(ctx, n, s)
	}
	// Inner joins priced from Petrel's estimates of their inputs' and
	// output's rows (joincard.go), with GMS's cost factors.
	jp := j.JoinPrivate()
	l, r := groupRows(ctx, jp.Left, 0), groupRows(ctx, jp.Right, 0)
	out := groupRows(ctx, j.Group(), 0)
	switch n := n.(type) {
	case *memo.LookupJoin:
		if n.Lookup == nil {
			break
		}
		if perKey, ok := c.rowsPerKey(n.Lookup); ok {
			return l*costSeqIO + l*(costRandIO+perKey*(costSeqIO+costCPU)), nil
		}
		return l*costSeqIO + out*(costRandIO+costSeqIO), nil
	case *memo.HashJoin:
		return l*(costSeqIO+costCPU) + r*(costSeqIO+costMem) + out*costCPU, nil
	case *memo.InnerJoin, *memo.CrossJoin:
		return (l*r+1)*costSeqIO + l*r*costCPU, nil
	}
	return c.base.EstimateCost(ctx, n, s)
}

// refusedCost prices a plan that would answer wrongly: never chosen
// while any other is possible.
const refusedCost = 1e30

// distinctLost reports whether n is a join whose plan drops a DISTINCT
// its input needs. GMS answers `x IN (SELECT ...)` and EXISTS as an
// inner join over a de-duplicated right side (its semi-join
// conversion); when a merge join (either side) or a lookup join (the
// right side) is chosen over such a side, GMS's fixConflicts rebuilds
// that side's path without the DISTINCT (memo/expr_group.go), and each
// outer row came out once per match: `o_orderkey IN (SELECT l_orderkey
// FROM lineitem)` counted 19,408 orders where there are 7,399 (TPC-H
// Q4). The semi join, or a hash join, answers instead.
//
// It also reports a merge, lookup or range-heap join standing for a join
// that counts a NULL condition as a match (GMS's NOT IN, planned as a
// LeftOuterJoinExcludingNulls under a filter for the NULL-extended rows):
// GMS's lookup, merge and range-heap forms of it do not (plan.JoinType's
// AsLookup, AsMerge), so `a.sk NOT IN (SELECT b.ok FROM t b)` returned
// the rows with a NULL sk once t had statistics. Its hash join and
// nested loop keep the NULL rule.
func distinctLost(n memo.RelExpr) bool {
	switch j := n.(type) {
	case *memo.MergeJoin:
		return j.Left.RelProps.Distinct.IsHash() || j.Right.RelProps.Distinct.IsHash() || nullsLost(j.JoinBase)
	case *memo.LookupJoin:
		return j.Right.RelProps.Distinct.IsHash() || nullsLost(j.JoinBase)
	case *memo.RangeHeapJoin:
		return nullsLost(j.JoinBase)
	}
	return false
}

// nullsLost reports whether j is a lookup, merge or range-heap form of a
// join in its group that counts NULL conditions as matches and whose
// condition can be NULL (GMS converted the join type already, and moved
// a lookup's key equalities out of its filter).
func nullsLost(j *memo.JoinBase) bool {
	switch j.Op {
	case plan.JoinTypeLeftOuterLookup, plan.JoinTypeLeftOuterMerge, plan.JoinTypeLeftOuterRangeHeap:
	default:
		return false
	}
	if j.Group() == nil {
		return false
	}
	for e := j.Group().First; e != nil; e = e.Next() {
		x, ok := e.(interface{ JoinPrivate() *memo.JoinBase })
		if !ok || x.JoinPrivate().Op != plan.JoinTypeLeftOuterExcludeNulls {
			continue
		}
		for _, f := range x.JoinPrivate().Filter {
			if f.IsNullable() {
				return true
			}
		}
	}
	return false
}

// rowsPerKey is the rows one lookup into scan's index is expected to
// return, from the index's statistics.
func (c statsCoster) rowsPerKey(scan *memo.IndexScan) (float64, bool) {
	if scan.Index == nil || scan.Table == nil {
		return 0, false
	}
	ix, ok := scan.Index.SqlIdx().(Index)
	if !ok {
		return 0, false
	}
	keys := len(scan.Table.Expressions())
	if keys == 0 || keys > len(ix.KeyOrds()) {
		return 0, false
	}
	if ix.IsUnique() && keys == len(ix.KeyOrds()) {
		return 1, true
	}
	rows, distinct, ok := c.stats.PrefixCounts(ix.Database(), ix.Table(), ix.ID(), keys)
	if !ok || distinct == 0 {
		return 0, false
	}
	return math.Max(1, float64(rows)/float64(distinct)), true
}

// rangeRows estimates the rows of a group that reads one Petrel table
// through static index ranges (an IndexScan, possibly under a Filter),
// from the rows per key of each range's equality prefix, as indexchoice
// does; the least over the group's alternatives. GMS estimates such a
// scan from the histogram of the index's first column only, so TPC-C's
// STOCK_LEVEL outer side, `ol_w_id = ? AND ol_d_id = ? AND ol_o_id
// BETWEEN ...` over order_line's primary key (200 rows), counted as the
// whole warehouse (300,000), and a hash join that builds over all of a
// warehouse's stock won over 200 primary-key lookups into it.
func rangeRows(ctx *sql.Context, g *memo.ExprGroup) (float64, bool) {
	best, found := math.Inf(1), false
	for e := g.First; e != nil; e = e.Next() {
		var scan *memo.IndexScan
		switch e := e.(type) {
		case *memo.IndexScan:
			scan = e
		case *memo.Filter:
			// The filter only narrows its child's rows; equalities on a
			// key prefix (a correlated subquery's outer references,
			// lookup/correlated.go) narrow a scan to that prefix's rows.
			if est, ok := rangeRows(ctx, e.Child); ok && est < best {
				best, found = est, true
			}
			if est, ok := filterRows(e); ok && est < best {
				best, found = est, true
			}
			continue
		case *memo.LookupJoin:
			if e.Lookup == nil || e.Lookup.Index == nil {
				continue
			}
			ix, ok := e.Lookup.Index.SqlIdx().(Index)
			if !ok {
				continue
			}
			if est, ok := rangeRows(ctx, e.Left); ok {
				keys := len(e.Lookup.Table.Expressions())
				if keys == 0 || keys > len(ix.KeyOrds()) {
					continue
				}
				perKey := PrefixEstimate(ix.Owner(), ix, keys, float64(max(ix.Owner().ApproxRows(), 1)))
				if est *= perKey; est < best {
					best, found = est, true
				}
			}
			continue
		default:
			continue
		}
		if est, ok := scanRows(ctx, scan); ok && est < best {
			best, found = est, true
		}
	}
	return best, found
}

// scanRows estimates one static index scan's rows: per range, the rows
// per key of its leading point columns (a third of them when the next
// column is bounded too, indexchoice's rule).
func scanRows(ctx *sql.Context, scan *memo.IndexScan) (float64, bool) {
	if scan.Table == nil || !scan.Table.IsStatic() {
		return 0, false
	}
	ix, ok := scan.Table.Index().(Index)
	if !ok || len(ix.PrefixLengths()) > 0 {
		return 0, false
	}
	lookup, err := scan.Table.GetLookup(ctx, nil)
	if err != nil {
		return 0, false
	}
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok || len(ranges) == 0 {
		return 0, false
	}
	t := ix.Owner()
	rows := float64(max(t.ApproxRows(), 1))
	total := 0.0
	for _, r := range ranges {
		k := 0
		for k < len(r) && k < len(ix.KeyOrds()) && IsPoint(ctx, r[k]) {
			k++
		}
		est := rows
		if k > 0 {
			est = PrefixEstimate(t, ix, k, rows)
		}
		if k < len(r) && r[k].Type() != sql.RangeType_All {
			est /= 3
		}
		total += math.Max(est, 1)
	}
	return math.Min(total, rows), true
}

// IsPoint reports whether a column's range is one non-NULL value.
func IsPoint(ctx *sql.Context, r sql.MySQLRangeColumnExpr) bool {
	if r.Type() != sql.RangeType_ClosedClosed {
		return false
	}
	lo, hi := sql.GetMySQLRangeCutKey(r.LowerBound), sql.GetMySQLRangeCutKey(r.UpperBound)
	if lo == nil || hi == nil {
		return false
	}
	c, err := r.Typ.Compare(ctx, lo, hi)
	return err == nil && c == 0
}

// filterRows estimates a filter over one Petrel table's scan from its
// equalities on the leading columns of the table's best index.
func filterRows(f *memo.Filter) (float64, bool) {
	var name string
	var tb Table
	for e := f.Child.First; e != nil && tb == nil; e = e.Next() {
		switch e := e.(type) {
		case *memo.TableScan:
			if rt, ok := e.Table.(*plan.ResolvedTable); ok {
				tb, _ = rt.UnderlyingTable().(Table)
				name = rt.Name()
			}
		case *memo.TableAlias:
			name, tb = filteredTable(e.Table)
		}
	}
	if tb == nil {
		return 0, false
	}
	eqs := lookup.TableEqualities(tb, name, f.Filters, true)
	ix, k := bestIndexPrefix(tb, eqs)
	rows := float64(max(tb.ApproxRows(), 1))
	used := map[int]bool{}
	est := rows
	if k > 0 {
		est = PrefixEstimate(tb, ix, k, rows)
		for _, o := range ix.KeyOrds()[:k] {
			used[o] = true
		}
	}
	sel, sampled := 0.0, false
	if sp := tb.Statistics(); sp != nil {
		sel, sampled = sp.SampledSelectivity(tb, name, f.Filters, used)
	}
	if sampled {
		est *= sel
	} else if k == 0 {
		return 0, false
	}
	return math.Max(1, est), true
}

// bestIndexPrefix is bestPrefix over a Petrel table, as its Index.
func bestIndexPrefix(tb Table, eqs map[int]sql.Expression) (Index, int) {
	ix, k := lookup.BestPrefix(tb, eqs)
	p, _ := ix.(Index)
	return p, k
}

// NewCoster is base with Petrel's estimates from stats.
func NewCoster(base memo.Coster, stats *Provider) memo.Coster {
	return statsCoster{base: base, stats: stats}
}
