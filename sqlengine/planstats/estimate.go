package planstats

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/memo"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/shopspring/decimal"
)

// Row estimates of a chosen plan, for EXPLAIN (explain/traditional.go), EXPLAIN
// FORMAT=TREE and EXPLAIN ANALYZE (issue 29). The planner estimates rows
// of memo groups (joincard.go's groupRows, coster.go's scanRows and
// filterRows); the plan GMS builds from the memo keeps none of them, so
// the same rules are applied again to the plan's operators, bottom up:
//
//   - a table scan reads the table's rows (storage's approximate count);
//   - an index read with static ranges reads, per range, the rows per key
//     of its leading point columns (ANALYZE's prefix counts), a third of
//     them when the next column is bounded too (scanRows);
//   - an index lookup keyed by another table's row (the inner side of a
//     lookup join) reads, per lookup, 1 for a whole unique key, else the
//     rows per key of the prefix it is given (PrefixEstimate);
//   - a filter keeps the fraction of its input that a sample of the table
//     passes (filtersample.go), else MySQL's defaults per condition: 0.1
//     for an equality, 1/3 for a comparison, 1/9 for BETWEEN;
//   - a lookup join returns its outer rows times the rows per lookup,
//     other inner joins the product of their inputs times each key
//     equality's selectivity (1 / the larger distinct count, joincard.go);
//   - aggregation without grouping returns one row, LIMIT at most its
//     count, and other operators their input's rows.
//
// The inner side of a nested loop is estimated per loop, as MySQL shows it.

// Estimator estimates rows of one plan's operators, memoised by node.
type Estimator struct {
	ctx  *sql.Context
	memo map[sql.Node]rowEst
}

type rowEst struct {
	rows float64
	ok   bool
}

func NewEstimator(ctx *sql.Context) *Estimator {
	return &Estimator{ctx: ctx, memo: map[sql.Node]rowEst{}}
}

// Context is the statement's context the estimates are made in.
func (pe *Estimator) Context() *sql.Context { return pe.ctx }

// Access is one read of a Petrel table: a scan or an index access,
// under the name (alias) the query gives it.
type Access struct {
	Name  string
	Table Table
	ITA   *plan.IndexedTableAccess // nil for a full scan
}

// AccessOf resolves n to a read of one Petrel table, through an alias.
func AccessOf(n sql.Node) (Access, bool) {
	switch x := n.(type) {
	case *plan.TableAlias:
		a, ok := AccessOf(x.Child)
		if ok {
			a.Name = x.Name()
		}
		return a, ok
	case *plan.ResolvedTable:
		if tb, ok := Unwrap(x.Table); ok {
			return Access{Name: x.Name(), Table: tb}, true
		}
	case *plan.IndexedTableAccess:
		if tb, ok := Unwrap(x.UnderlyingTable()); ok {
			return Access{Name: x.Name(), Table: tb, ITA: x}, true
		}
	}
	return Access{}, false
}

// index is the Petrel index an access reads, nil for a scan.
func (a Access) Index() Index {
	if a.ITA == nil {
		return nil
	}
	ix, _ := a.ITA.Index().(Index)
	return ix
}

// keyed reports whether the access is a lookup keyed by expressions
// evaluated per outer row (not static ranges).
func (a Access) Keyed() bool { return a.ITA != nil && !a.ITA.IsStatic() }

// rows estimates the rows n returns (per loop when n is the inner side of
// a nested loop); ok is false when nothing is known.
func (pe *Estimator) Rows(n sql.Node) (float64, bool) {
	if n == nil {
		return 0, false
	}
	if e, ok := pe.memo[n]; ok {
		return e.rows, e.ok
	}
	r, ok := pe.estimate(n)
	if ok {
		r = math.Max(r, 0)
	}
	pe.memo[n] = rowEst{r, ok}
	return r, ok
}

func (pe *Estimator) estimate(n sql.Node) (float64, bool) {
	if a, ok := AccessOf(n); ok {
		return pe.AccessRows(a), true
	}
	switch x := n.(type) {
	case *plan.ResolvedTable:
		if plan.IsDualTable(x.Table) {
			return 1, true
		}
		return 0, false
	case *plan.Filter:
		in, ok := pe.Rows(x.Child)
		if !ok {
			return 0, false
		}
		return in * pe.FilterSelectivity(x), true
	case *plan.JoinNode:
		return pe.joinRows(x)
	case *plan.GroupBy:
		in, ok := pe.Rows(x.Child)
		if len(x.GroupByExprs) == 0 {
			return 1, true
		}
		if !ok {
			return 0, false
		}
		return math.Min(in, pe.groupCount(x.Child, x.GroupByExprs)), true
	case *plan.Limit:
		in, ok := pe.Rows(x.Child)
		return limited(in, ok, x.Limit)
	case *plan.TopN:
		in, ok := pe.Rows(x.Child)
		return limited(in, ok, x.Limit)
	case *plan.SetOp:
		l, ok1 := pe.Rows(x.Left())
		r, ok2 := pe.Rows(x.Right())
		return l + r, ok1 && ok2
	case *plan.InsertInto:
		return pe.Rows(x.Source)
	case *plan.Values:
		return float64(len(x.ExpressionTuples)), true
	}
	if c := n.Children(); len(c) == 1 {
		return pe.Rows(c[0])
	}
	return 0, false
}

// StripProjects is n under any projections.
func StripProjects(n sql.Node) sql.Node {
	for {
		p, ok := n.(*plan.Project)
		if !ok {
			return n
		}
		n = p.Child
	}
}

// limited caps rows at a literal LIMIT.
func limited(in float64, ok bool, lim sql.Expression) (float64, bool) {
	l, isLit := lim.(*expression.Literal)
	if !isLit {
		return in, ok
	}
	v, err := types64(l.Value())
	if err != nil {
		return in, ok
	}
	if !ok {
		return v, true
	}
	return math.Min(in, v), true
}

func types64(v any) (float64, error) {
	switch x := v.(type) {
	case int8:
		return float64(x), nil
	case int16:
		return float64(x), nil
	case int32:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint8:
		return float64(x), nil
	case uint16:
		return float64(x), nil
	case uint32:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case int:
		return float64(x), nil
	}
	return 0, fmt.Errorf("not an integer: %T", v)
}

// accessRows estimates the rows one access reads: the table's rows for a
// scan, the ranges' rows for a static index read, the rows per key for a
// keyed lookup.
func (pe *Estimator) AccessRows(a Access) float64 {
	rows := tableRows(a.Table)
	ix := a.Index()
	if ix == nil {
		return rows
	}
	if a.Keyed() {
		k := len(a.ITA.Expressions())
		if k == 0 || k > len(ix.KeyOrds()) {
			return rows
		}
		return PrefixEstimate(a.Table, ix, k, rows)
	}
	if est, ok := pe.rangeRows(a, ix, rows); ok {
		return math.Max(1, est)
	}
	if est, ok := scanRows(pe.ctx, &memo.IndexScan{Table: a.ITA}); ok {
		return math.Max(1, est)
	}
	return rows
}

// rangeRows estimates a static index read: per range, the rows per key
// of its leading point columns, a third of them when the next column is
// bounded too (coster.go's scanRows); a range on the index's first
// column alone from the index's histogram (GMS's estimate of such a
// scan), a third of the table without one.
func (pe *Estimator) rangeRows(a Access, ix Index, rows float64) (float64, bool) {
	if len(ix.PrefixLengths()) > 0 {
		return 0, false
	}
	lookup, err := a.ITA.GetLookup(pe.ctx, nil)
	if err != nil {
		return 0, false
	}
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok || len(ranges) == 0 {
		return 0, false
	}
	total := 0.0
	for _, r := range ranges {
		k := 0
		for k < len(r) && k < len(ix.KeyOrds()) && IsPoint(pe.ctx, r[k]) {
			k++
		}
		est := rows
		if k > 0 {
			est = PrefixEstimate(a.Table, ix, k, rows)
		}
		if k < len(r) && r[k].Type() != sql.RangeType_All {
			h, ok := 0.0, false
			if k == 0 {
				h, ok = pe.histogramRows(ix, r[0])
			}
			if ok {
				est = h
			} else {
				est /= 3
			}
		}
		total += math.Max(est, 1)
	}
	return math.Min(total, rows), true
}

// histogramRows estimates the rows whose first column of ix lies in r,
// from the histogram of ix's last analysis: each bucket's rows in the
// proportion of its span the range covers (numbers, dates), or whole
// buckets whose upper bound is in the range, and half of the next
// (other types).
func (pe *Estimator) histogramRows(ix Index, r sql.MySQLRangeColumnExpr) (float64, bool) {
	sp := ix.Owner().Statistics()
	if sp == nil {
		return 0, false
	}
	ts := sp.lookup(ix.Owner().Storage())
	if ts == nil {
		return 0, false
	}
	is := ts.idx[strings.ToLower(ix.ID())]
	if is == nil || is.stat == nil {
		return 0, false
	}
	hist := is.stat.Histogram()
	if len(hist) == 0 {
		return 0, false
	}
	var lo, hi any
	if sql.MySQLRangeCutIsBinding(r.LowerBound) {
		lo = sql.GetMySQLRangeCutKey(r.LowerBound)
	}
	if sql.MySQLRangeCutIsBinding(r.UpperBound) {
		hi = sql.GetMySQLRangeCutKey(r.UpperBound)
	}
	first := func(row sql.Row) any {
		if len(row) == 0 {
			return nil
		}
		return row[0]
	}
	flo, okLo := toFloat(lo)
	fhi, okHi := toFloat(hi)
	if lo == nil {
		flo, okLo = math.Inf(-1), true
	}
	if hi == nil {
		fhi, okHi = math.Inf(1), true
	}
	prev, okPrev := toFloat(first(is.stat.LowerBound()))
	if okLo && okHi && okPrev {
		total := 0.0
		for _, b := range hist {
			up, ok := toFloat(first(b.UpperBound()))
			if !ok {
				return 0, false
			}
			n := float64(b.RowCount())
			switch {
			case up <= prev:
				if up >= flo && up <= fhi {
					total += n
				}
			default:
				f := (math.Min(fhi, up) - math.Max(flo, prev)) / (up - prev)
				total += n * math.Max(0, math.Min(1, f))
			}
			prev = up
		}
		return total, true
	}
	cmp := func(a, b any) (int, bool) {
		c, err := r.Typ.Compare(pe.ctx, a, b)
		return c, err == nil
	}
	total := 0.0
	for _, b := range hist {
		up := first(b.UpperBound())
		if up == nil {
			continue
		}
		if lo != nil {
			if c, ok := cmp(up, lo); !ok {
				return 0, false
			} else if c < 0 {
				continue
			}
		}
		if hi != nil {
			if c, ok := cmp(up, hi); !ok {
				return 0, false
			} else if c > 0 {
				total += float64(b.RowCount()) / 2
				break
			}
		}
		total += float64(b.RowCount())
	}
	return total, true
}

// toFloat is a number's or time's value on a line, for interpolation.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case decimal.Decimal:
		f, _ := x.Float64()
		return f, true
	case time.Time:
		return float64(x.UnixNano()) / 1e9, true
	}
	f, err := types64(v)
	return f, err == nil
}

// filterSelectivity is the fraction of its input f is expected to keep.
func (pe *Estimator) FilterSelectivity(f *plan.Filter) float64 {
	conds := expression.SplitConjunction(f.Expression)
	if a, ok := AccessOf(StripProjects(f.Child)); ok {
		used := map[int]bool{}
		if ix := a.Index(); ix != nil {
			k := len(ix.KeyOrds())
			if a.Keyed() {
				k = min(k, len(a.ITA.Expressions()))
			}
			for _, o := range ix.KeyOrds()[:k] {
				used[o] = true
			}
		}
		// Conditions on the key's columns alone were applied by the
		// access (a lookup's filter may repeat its key equality).
		kept := conds[:0:0]
		for _, c := range conds {
			cols := map[string]bool{}
			NamedColumns(c, a.Name, cols)
			all := len(cols) > 0
			for name := range cols {
				o := a.Table.Storage().Schema.IndexOfColName(name)
				all = all && o >= 0 && used[o]
			}
			if !all {
				kept = append(kept, c)
			}
		}
		conds = kept
		if len(conds) == 0 {
			return 1
		}
		if sp := a.Table.Statistics(); sp != nil {
			if sel, ok := sp.SampledSelectivity(a.Table, a.Name, conds, used); ok {
				return math.Min(1, sel)
			}
		}
	}
	sel := 1.0
	for _, c := range conds {
		sel *= defaultSelectivity(c)
	}
	return sel
}

// defaultSelectivity is MySQL's guess for a condition it has no
// statistics for.
func defaultSelectivity(c sql.Expression) float64 {
	switch x := c.(type) {
	case *expression.Equals, *expression.NullSafeEquals:
		return 0.1
	case *expression.GreaterThan, *expression.GreaterThanOrEqual, *expression.LessThan, *expression.LessThanOrEqual:
		return 1.0 / 3
	case *expression.Between:
		return 1.0 / 9
	case *expression.Not:
		return 1 - defaultSelectivity(x.Child)
	case *expression.InTuple:
		if t, ok := x.Right().(expression.Tuple); ok {
			return math.Min(0.5, 0.1*float64(len(t)))
		}
		return 0.5
	case *expression.Or:
		l, r := defaultSelectivity(x.LeftChild), defaultSelectivity(x.RightChild)
		return l + r - l*r
	}
	return 0.5
}

// joinRows estimates a join's output.
func (pe *Estimator) joinRows(j *plan.JoinNode) (float64, bool) {
	l, ok1 := pe.Rows(j.Left())
	r, ok2 := pe.Rows(j.Right())
	if !ok1 || !ok2 {
		return 0, false
	}
	op := j.Op
	var out float64
	switch {
	case op.IsLookup():
		// The right side is estimated per lookup.
		out = l * r
	case op.IsCross() && j.Filter == nil:
		out = l * r
	default:
		out = l * r * pe.joinSelectivity(j)
	}
	switch {
	case op.IsAnti():
		return l, true
	case op.IsSemi():
		if op.IsLookup() {
			// The share of outer rows that find a match.
			return l * math.Min(1, r), true
		}
		return math.Min(l, out), true
	case op.IsLeftOuter():
		return math.Max(l, out), true
	}
	return math.Max(1, out), true
}

// joinSelectivity is the fraction of left × right rows the join's
// equalities between its sides keep: 1 / the larger distinct count of the
// two columns each (joincard.go's columnDistinct), MySQL's default 0.1
// for another condition when there is no equality.
func (pe *Estimator) joinSelectivity(j *plan.JoinNode) float64 {
	if j.Filter == nil {
		return 1
	}
	sel, eqs := 1.0, 0
	for _, c := range expression.SplitConjunction(j.Filter) {
		eq, ok := c.(*expression.Equals)
		if !ok {
			continue
		}
		a, ok1 := pe.columnOf(eq.Left(), j.Left(), j.Right())
		b, ok2 := pe.columnOf(eq.Right(), j.Left(), j.Right())
		if !ok1 || !ok2 || a.side == b.side {
			continue
		}
		sel /= math.Max(columnDistinct(a), columnDistinct(b))
		eqs++
	}
	if eqs == 0 {
		return 0.1
	}
	return sel
}

// columnOf resolves x, a column reference, to a Petrel table read on one
// of sides.
func (pe *Estimator) columnOf(x sql.Expression, sides ...sql.Node) (cardCol, bool) {
	gf, ok := x.(*expression.GetField)
	if !ok {
		return cardCol{}, false
	}
	for side, n := range sides {
		if a, ok := findAccess(n, gf.Table()); ok {
			o := a.Table.Storage().Schema.IndexOfColName(gf.Name())
			if o < 0 {
				return cardCol{}, false
			}
			return cardCol{tb: a.Table, ord: o, side: side, name: a.Name}, true
		}
	}
	return cardCol{}, false
}

// findAccess finds the read of the table named name (or aliased so) in
// n's subtree, not entering subqueries.
func findAccess(n sql.Node, name string) (Access, bool) {
	if a, ok := AccessOf(n); ok {
		if strings.EqualFold(a.Name, name) {
			return a, true
		}
		return Access{}, false
	}
	if _, ok := n.(*plan.SubqueryAlias); ok {
		return Access{}, false
	}
	for _, c := range n.Children() {
		if a, ok := findAccess(c, name); ok {
			return a, true
		}
	}
	return Access{}, false
}

// groupCount estimates the groups of exprs over child: the product of
// the grouping columns' distinct counts where they are known.
func (pe *Estimator) groupCount(child sql.Node, exprs []sql.Expression) float64 {
	n := 1.0
	for _, e := range exprs {
		c, ok := pe.columnOf(e, child)
		if !ok {
			return math.Inf(1)
		}
		n *= columnDistinct(c)
	}
	return n
}

// EstimateText is how an operator's estimate is shown: MySQL 8's
// "(rows=N)" without the cost, rows rounded as MySQL rounds them.
func EstimateText(rows float64) string {
	return "(rows=" + fmtRows(rows) + ")"
}

// fmtRows prints an estimate: whole above 10, else to two places at most
// (a lookup's rows per key may be fractional).
func fmtRows(r float64) string {
	if r >= 10 || r == math.Trunc(r) {
		return fmt.Sprint(int64(math.Round(r)))
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", r), "0"), ".")
}

// NamedColumns adds the lower-cased names of table's columns that e
// reads to cols.
func NamedColumns(e sql.Expression, table string, cols map[string]bool) {
	sql.Inspect(e, func(x sql.Expression) bool {
		if gf, ok := x.(*expression.GetField); ok && strings.EqualFold(gf.Table(), table) {
			cols[strings.ToLower(gf.Name())] = true
		}
		return true
	})
}
