package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/sqlengine/arith"
	"petrel/sqlengine/collate"
	"petrel/sqlengine/planstats"
	"petrel/sqlengine/rewrite"
)

// A filter directly over a table scan tests its rows after the scan
// decoded them: every DECIMAL a big.Int, every string a copy, for rows
// the filter then drops. TPC-H Q14 reads a month of lineitem, 1.3% of
// its rows: its scan spent 720 ms building the other 98.7%. The filter's
// top-level comparisons of a column with literals (arith/fastcmp.go's of the
// column's own type, and GMS's of a string column with strings or a
// number column with numbers: deterministic, warning of nothing) are
// each a necessary condition of the AND, so
// the scan can test them first on the columns they name alone
// (storage's RowIter.Prefilter) and decode the rest of a row only when
// they hold. The Filter node stays where it is and tests the whole
// condition on the rows that pass (the comparisons twice: cheap), so
// EXPLAIN and the answer are unchanged; EXPLAIN ANALYZE counts the
// scan's rows after the prefilter.

// scanPrefilter is what a table's scans test first.
type scanPrefilter struct {
	cols  []int            // the schema ordinals the conditions read
	conds []sql.Expression // over the table's own row (ordinals as indexes)
}

// withPrefilter returns child with the column-literal comparisons among
// cond's conjuncts attached to its table's scans, or child itself.
func withPrefilter(ctx *sql.Context, cond sql.Expression, child sql.Node) sql.Node {
	var tb *Table
	var rebuild func(*Table) (sql.Node, error)
	name := ""
	switch c := child.(type) {
	case *plan.TableAlias:
		if rt, ok := c.Child.(*plan.ResolvedTable); ok {
			var inner func(*Table) (sql.Node, error)
			if tb, inner = resolvedTable(rt); tb != nil {
				rebuild = func(cp *Table) (sql.Node, error) {
					nt, err := inner(cp)
					if err != nil {
						return nil, err
					}
					return c.WithChildren(nt)
				}
			}
		}
		name = c.Name()
	case *plan.ResolvedTable:
		tb, rebuild = resolvedTable(c)
		name = c.Name()
	case *plan.IndexedTableAccess:
		if it, ok := c.Table.(*indexedTable); ok {
			tb = it.Table
			rebuild = func(cp *Table) (sql.Node, error) {
				nx := *c
				nx.Table = &indexedTable{Table: cp, lookup: it.lookup}
				return &nx, nil
			}
		}
		name = c.Name()
	}
	if tb == nil || tb.pre != nil {
		return child
	}
	pre := &scanPrefilter{}
	for _, e := range expression.SplitConjunction(cond) {
		if fc, ok := e.(*arith.FastCmp); ok {
			e = fc.Expression
		} else if fi, ok := e.(*arith.FastIn); ok {
			e = fi.Expression
		} else if t, ok := rewrite.PlainColumnTest(e); !ok || !strings.EqualFold(t, name) {
			// Only a column compared with literals of its kind (string
			// with string, number with number): GMS's comparison, which
			// warns of nothing for such a pair.
			continue
		}
		re, ok := planstats.RebaseToTable(tb, name, e, nil)
		if !ok {
			continue
		}
		o := -1
		transform.InspectExpr(re, func(x sql.Expression) bool {
			if gf, ok := x.(*expression.GetField); ok {
				o = gf.Index()
			}
			return o >= 0
		})
		if o < 0 {
			continue
		}
		if rc := arith.NewFastCmp(re); rc != nil {
			re = rc
		} else if ri := arith.NewFastIn(re); ri != nil {
			re = ri
		} else {
			var err error
			if re, _, err = transform.Expr(re, func(x sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				// Under a PAD SPACE collation trailing spaces do not count,
				// as collationRule makes the Filter's own comparisons later.
				return collate.PadComparison(ctx, x)
			}); err != nil {
				continue
			}
		}
		pre.conds = append(pre.conds, re)
		pre.cols = append(pre.cols, o)
	}
	if len(pre.conds) == 0 {
		return child
	}
	cp := *tb
	cp.pre = pre
	n, err := rebuild(&cp)
	if err != nil {
		return child
	}
	return n
}

// resolvedTable returns rt's Petrel table (under the process tracking
// GMS wraps it in last) and how to put a copy in its place; nil if none.
func resolvedTable(rt *plan.ResolvedTable) (*Table, func(*Table) (sql.Node, error)) {
	switch t := rt.Table.(type) {
	case *Table:
		return t, func(cp *Table) (sql.Node, error) { return rt.ReplaceTable(cp) }
	case *plan.ProcessTable:
		if tb, ok := t.Table.(*Table); ok {
			return tb, func(cp *Table) (sql.Node, error) {
				return rt.ReplaceTable(plan.NewProcessTable(cp, t.OnPartitionDone, t.OnPartitionStart, t.OnRowNext))
			}
		}
	}
	return nil, nil
}

// A prefilter condition compares one column with literals, so its
// answer for a string is the same on every row that has it: TPC-H Q19
// tests l_shipmode IN ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER
// IN PERSON' on every lineitem row, each through weights under
// utf8mb4_0900_ai_ci (two fifths of its scan), over seven and four
// distinct values. Strings up to maxMemoText bytes are remembered, up to
// maxMemoEntries a condition.
const (
	maxMemoText    = 64
	maxMemoEntries = 1024
)

// prefilter sets t's prefilter on a scan of it (a primary-key scan that
// is not a locking read; others ignore it).
func (t *Table) prefilter(ctx *sql.Context, it sql.RowIter) {
	ri, ok := it.(*rowIter)
	if !ok || t.pre == nil {
		return
	}
	if ri.ts.loc != nil {
		// The prefilter tests stored values: TIMESTAMPs in UTC, which a
		// converting session's conditions are not (tszone.go).
		for _, o := range t.pre.cols {
			if t.t.Schema[o].Type.Type() == sqltypes.Timestamp {
				return
			}
		}
	}
	conds, cols := t.pre.conds, t.pre.cols
	// Each condition reads one column; a string's answer is kept for
	// the rest of the scan (memo), per scan since plans are shared.
	memo := make([]map[string]bool, len(conds))
	keep := func(row sql.Row) (bool, error) {
		for i, c := range conds {
			s, isText := row[cols[i]].(string)
			if isText && len(s) <= maxMemoText {
				if ok, seen := memo[i][s]; seen {
					if !ok {
						return false, nil
					}
					continue
				}
			}
			v, err := c.Eval(ctx, row)
			if err != nil {
				return false, err
			}
			if isText && len(s) <= maxMemoText && len(memo[i]) < maxMemoEntries {
				if memo[i] == nil {
					memo[i] = map[string]bool{}
				}
				// The row's strings alias the stored bytes: a copy.
				memo[i][strings.Clone(s)] = v == true
			}
			if v != true {
				return false, nil
			}
		}
		return true, nil
	}
	if ri.it.Prefilter(t.pre.cols, keep) {
		ri.rejected = &t.db.p.prefilteredRows
	}
}
