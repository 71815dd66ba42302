package sqlengine

import (
	"slices"
	"strings"

	"petrel/sqlengine/rewrite"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Full table scans decode only the columns a query reads. A stored row
// is decoded whole by default (every DECIMAL a big.Int, every string a
// copy), and TPC-H's scans read 4 to 7 of lineitem's 16 columns: decoding
// was 61% of Q6's CPU. The rule gives each table of a plain read a list
// of the columns that any expression of the statement names (its
// select list, conditions, join and lookup keys, grouping, ordering, the
// subqueries' references to it); its scans leave the others NULL
// (storage's RowIter.Project), the rows keeping the table's width so
// every column reference stays where GMS put it. Scans of the primary
// key by range and single-row reads by a whole key do the same (a
// secondary index's rows are read whole by their keys). A statement
// with a node outside the list below (writes, derived tables, unions,
// windows, recursive CTEs, anything new) keeps whole rows, as do
// locking reads.

const scanColsRuleID analyzer.RuleId = 1015

// scanColumns is the analyzer rule.
func scanColumns(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	plain := true
	transform.Inspect(n, func(x sql.Node) bool {
		switch x.(type) {
		case *plan.Project, *plan.Filter, *plan.GroupBy, *plan.Having, *plan.Sort, *plan.TopN,
			*plan.Limit, *plan.Offset, *plan.Distinct, *plan.OrderedDistinct, *plan.JoinNode,
			*plan.ResolvedTable, *plan.TableAlias, *plan.IndexedTableAccess, *plan.HashLookup,
			*plan.Max1Row, *plan.EmptyTable, *rewrite.Materialized, nil:
		default:
			plain = false
		}
		return plain
	})
	if !plain {
		return n, transform.SameTree, nil
	}
	cols, all := readColumns(n)
	if all {
		return n, transform.SameTree, nil
	}
	alias := map[sql.Node]string{}
	transform.Inspect(n, func(x sql.Node) bool {
		if ta, ok := x.(*plan.TableAlias); ok {
			alias[ta.Child] = ta.Name()
		}
		return true
	})
	// narrowed is tb with the columns the statement names under name
	// (and those extra needs), nil when that is every column.
	narrowed := func(x sql.Node, name string, tb *Table, extra []int) *Table {
		if a, ok := alias[x]; ok {
			name = a
		}
		named := cols[strings.ToLower(name)]
		var need []int
		for o, c := range tb.t.Schema {
			if named[strings.ToLower(c.Name)] || cols[""][strings.ToLower(c.Name)] || slices.Contains(extra, o) {
				need = append(need, o)
			}
		}
		if len(need) == len(tb.t.Schema) {
			return nil
		}
		cp := *tb
		cp.need = need
		return &cp
	}
	return transform.Node(n, func(x sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch x := x.(type) {
		case *plan.ResolvedTable:
			tb, ok := x.Table.(*Table)
			if !ok || tb.need != nil {
				break
			}
			if cp := narrowed(x, x.Name(), tb, nil); cp != nil {
				if nt, err := x.WithTable(cp); err == nil {
					return nt, transform.NewTree, nil
				}
			}
		case *plan.IndexedTableAccess:
			// An index scan re-checks its rows against the range over
			// the index's columns (and the primary key's, which extend
			// it): those are read too.
			it, ok := x.Table.(*indexedTable)
			if !ok || it.Table.need != nil {
				break
			}
			ix, ok := it.lookup.Index.(*Index)
			if !ok {
				break
			}
			if cp := narrowed(x, x.Name(), it.Table, ix.extendedOrds()); cp != nil {
				nx := *x
				nx.Table = &indexedTable{Table: cp, lookup: it.lookup}
				return &nx, transform.NewTree, nil
			}
		}
		return x, transform.SameTree, nil
	})
}

// readColumns collects the columns of n's result and those every
// expression of n (and of its subqueries) names, by table name or alias
// (lower case; "" for a column named without one), and whether some
// expression may read whole rows.
func readColumns(n sql.Node) (map[string]map[string]bool, bool) {
	cols := map[string]map[string]bool{}
	all := false
	add := func(table, col string) {
		t := strings.ToLower(table)
		if cols[t] == nil {
			cols[t] = map[string]bool{}
		}
		cols[t][strings.ToLower(col)] = true
	}
	var walk func(n sql.Node)
	walk = func(n sql.Node) {
		// The result's columns: a plan may send a table's rows as they
		// are, with no expression naming them (SELECT * FROM t is the
		// table itself).
		for _, c := range n.Schema() {
			add(c.Source, c.Name)
		}
		transform.InspectExpressionsWithNode(n, func(x sql.Node, e sql.Expression) bool {
			if passedThrough(x, e) {
				return true
			}
			switch e := e.(type) {
			case *expression.GetField:
				add(e.Table(), e.Name())
			case *expression.Star:
				all = true
			case *plan.Subquery:
				if e.Query != nil {
					walk(e.Query)
				}
			}
			return !all
		})
	}
	walk(n)
	return cols, all
}

// passedThrough reports whether e is a column a projection x only
// passes on. Whoever reads it above names it again (an expression of an
// ancestor, or the result's columns), so naming it here adds nothing:
// GMS projects every column of a join's tables under the filter of a
// NOT IN's anti join (TPC-H Q16: partsupp's and part's nine columns,
// where the statement reads four), which made every lookup decode whole
// rows.
func passedThrough(x sql.Node, e sql.Expression) bool {
	p, ok := x.(*plan.Project)
	if !ok {
		return false
	}
	if _, ok := e.(*expression.GetField); !ok {
		return false
	}
	for _, pe := range p.Projections {
		if pe == e {
			return true
		}
	}
	return false
}
