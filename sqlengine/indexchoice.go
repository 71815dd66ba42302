package sqlengine

import (
	"math"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"

	"petrel/sqlengine/lookup"
	"petrel/sqlengine/planstats"
)

// Choosing between indexes that an equality prefix of different lengths
// reaches (issue 29). GMS's index coster estimates a lookup from the
// histogram of the index's first column only (see statistic), so two
// indexes with the same first column look equally selective however many
// of their columns the WHERE fixes, and its tie-breaks then prefer a
// unique index: TPC-C's `c_w_id = ? AND c_d_id = ? AND c_last = ?` read
// a district's 3,000 customers by the primary key (c_w_id, c_d_id, c_id)
// instead of the few of idx_customer (c_w_id, c_d_id, c_last, c_first).
// Petrel prices such lookups as MySQL prices ref access, from the rows per
// key of the prefix (ANALYZE TABLE's per-prefix distinct counts, or a
// tenfold narrowing per column before any analysis), and answers GMS's
// LookupForExpressions itself when the cheapest lookup fixes two or more
// leading columns and another index competes; otherwise GMS costs as
// before.

var _ sql.IndexSearchableTable = (*Table)(nil)

// SkipIndexCosting implements sql.IndexSearchable: GMS costs the indexes
// whenever LookupForExpressions declines.
func (t *Table) SkipIndexCosting() bool { return false }

// colConds are the conjuncts on one column: an equality `col = literal`
// or `col IN (literals)` and range bounds.
type colConds struct {
	eq     []any // the values of an equality or IN list (first one only)
	eqExpr int   // its conjunct's index
	exact  bool  // the values are of the column's kind, taken unchanged
	ranges []rangeLeaf
}

type rangeLeaf struct {
	op  analyzer.IndexScanOp
	val any
}

// maxLookupKeys bounds the keys (products of IN lists) a chosen lookup
// enumerates.
const maxLookupKeys = 4096

// LookupForExpressions implements sql.IndexSearchable (see above).
func (t *Table) LookupForExpressions(ctx *sql.Context, exprs ...sql.Expression) (sql.IndexLookup, *sql.FuncDepSet, sql.Expression, bool, error) {
	none := func() (sql.IndexLookup, *sql.FuncDepSet, sql.Expression, bool, error) {
		return sql.IndexLookup{}, nil, nil, false, nil
	}
	conds := t.leafConditions(ctx, exprs)
	if len(conds) < 2 {
		return none()
	}
	indexes, err := t.GetIndexes(ctx)
	if err != nil {
		return none()
	}
	if sp := t.db.p.stats; sp != nil {
		sp.Refresh(t) // loads the statistics, starts a due analysis
	}
	rows := float64(max(t.db.p.e.ApproxRows(t.t), 1))
	type choice struct {
		ix     *Index
		k      int  // leading columns with an equality
		ranged bool // and a range on the next
		est    float64
		combos int
	}
	var best *choice
	competitors := 0
	for _, sqlIx := range indexes {
		ix := sqlIx.(*Index)
		if len(ix.plens) > 0 {
			continue
		}
		c := choice{ix: ix, combos: 1}
		for _, o := range ix.ords {
			cc, ok := conds[o]
			if !ok || cc.eq == nil || c.combos*len(cc.eq) > maxLookupKeys {
				break
			}
			c.k++
			c.combos *= len(cc.eq)
		}
		if c.k < len(ix.ords) {
			if cc, ok := conds[ix.ords[c.k]]; ok && len(cc.ranges) > 0 {
				c.ranged = true
			}
		}
		if c.k == 0 {
			if c.ranged {
				competitors++
			}
			continue
		}
		competitors++
		c.est = planstats.PrefixEstimate(t, ix, c.k, rows) * float64(c.combos)
		if c.ranged {
			c.est /= 3
		}
		c.est = math.Max(c.est, 1)
		if best == nil || c.est < best.est || c.est == best.est && lookup.Better(c.ix, c.k, best.ix, best.k) {
			cp := c
			best = &cp
		}
	}
	if best == nil || best.k < 2 || competitors < 2 {
		return none()
	}
	b := sql.NewMySQLIndexBuilder(best.ix)
	sch := t.t.Schema
	name := func(o int) string { return strings.ToLower(t.t.Def.Name + "." + sch[o].Name) }
	used := map[int]bool{}
	for _, o := range best.ix.ords[:best.k] {
		cc := conds[o]
		b.Equals(ctx, name(o), cc.eq...)
		if cc.exact {
			used[cc.eqExpr] = true
		}
	}
	if best.ranged {
		o := best.ix.ords[best.k]
		for _, r := range conds[o].ranges {
			switch r.op {
			case analyzer.IndexScanOpGt:
				b.GreaterThan(ctx, name(o), r.val)
			case analyzer.IndexScanOpGte:
				b.GreaterOrEqual(ctx, name(o), r.val)
			case analyzer.IndexScanOpLt:
				b.LessThan(ctx, name(o), r.val)
			case analyzer.IndexScanOpLte:
				b.LessOrEqual(ctx, name(o), r.val)
			}
		}
	}
	lookup, err := b.Build(ctx)
	if err != nil || lookup.Index == nil {
		return none()
	}
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok || len(ranges) == 0 {
		return none()
	}
	// Repeated IN values would read their rows twice.
	if ranges, err = sql.RemoveOverlappingRanges(ranges...); err != nil || len(ranges) == 0 {
		return none()
	}
	empty := false
	if len(ranges) == 1 {
		if empty, err = ranges[0].IsEmpty(); err != nil {
			return none()
		}
	}
	lookup = sql.NewIndexLookup(best.ix, ranges, false, empty, false, false)
	var rest []sql.Expression
	for i, e := range exprs {
		if !used[i] {
			rest = append(rest, e)
		}
	}
	return lookup, nil, expression.JoinAnd(rest...), true, nil
}

// leafConditions groups the conjuncts that compare one of t's columns
// with literals by column ordinal.
func (t *Table) leafConditions(ctx *sql.Context, exprs []sql.Expression) map[int]*colConds {
	out := map[int]*colConds{}
	for i, e := range exprs {
		op, left, right, ok := analyzer.IndexLeafChildren(e)
		if !ok || left == nil || right == nil {
			continue
		}
		gf, isGF := left.(*expression.GetField)
		if !isGF {
			if gf, isGF = right.(*expression.GetField); !isGF {
				continue
			}
			left, right = right, left
			op = op.Swap()
		}
		if !strings.EqualFold(gf.Table(), t.t.Def.Name) {
			continue
		}
		o := t.t.Schema.IndexOfColName(gf.Name())
		if o < 0 {
			continue
		}
		cc := out[o]
		if cc == nil {
			cc = &colConds{}
		}
		switch op {
		case analyzer.IndexScanOpEq:
			lit, ok := right.(*expression.Literal)
			if !ok || lit.Value() == nil || cc.eq != nil {
				continue
			}
			cc.eq, cc.eqExpr, cc.exact = []any{lit.Value()}, i, sameKind(ctx, gf.Type(), lit)
		case analyzer.IndexScanOpInSet:
			tup, ok := right.(expression.Tuple)
			if !ok || cc.eq != nil {
				continue
			}
			var vals []any
			exact := true
			for _, v := range tup {
				lit, ok := v.(*expression.Literal)
				if !ok || lit.Value() == nil {
					vals = nil
					break
				}
				vals = append(vals, lit.Value())
				exact = exact && sameKind(ctx, gf.Type(), lit)
			}
			if vals == nil {
				continue
			}
			cc.eq, cc.eqExpr, cc.exact = vals, i, exact
		case analyzer.IndexScanOpGt, analyzer.IndexScanOpGte, analyzer.IndexScanOpLt, analyzer.IndexScanOpLte:
			lit, ok := right.(*expression.Literal)
			if !ok || lit.Value() == nil {
				continue
			}
			cc.ranges = append(cc.ranges, rangeLeaf{op: op, val: lit.Value()})
		default:
			continue
		}
		out[o] = cc
	}
	return out
}
