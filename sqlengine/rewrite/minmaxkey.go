package rewrite

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// MIN and MAX of a primary key's first column, as the one aggregate of a
// query without GROUP BY, read one row of the index, as MySQL's "Select
// tables optimized away" does. GMS's replaceAgg rule made such a query a
// LIMIT 1 over the index scan without the aggregate, so on an empty table
// (or when WHERE matched nothing) it answered no row where MySQL answers
// one row holding NULL. This rule takes its place: the aggregate stays,
// over the first row of the index in the order that gives the answer
// (GMS's replaceIdxSort then reads it as an index scan, backwards for
// MAX), so no rows in gives one NULL out.

const MinMaxKeyRuleID analyzer.RuleId = 1011

// idxSortRule is GMS's replaceIdxSort (installAnalyzerRules), run here on
// the subtree made: GMS's own pass does not look below a GROUP BY.
var IdxSortRule analyzer.RuleFunc

func MinMaxOnKey(ctx *sql.Context, a *analyzer.Analyzer, node sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !analyzer.FlagIsSet(qFlags, sql.QFlagAggregation) {
		return node, transform.SameTree, nil
	}
	return transform.Node(node, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		gb, ok := n.(*plan.GroupBy)
		if !ok || len(gb.SelectedExprs) != 1 || len(gb.GroupByExprs) != 0 {
			return n, transform.SameTree, nil
		}
		var pkIdx sql.Index
		switch t := gb.Child.(type) {
		case *plan.IndexedTableAccess:
			if _, ok := t.Table.(sql.IndexAddressableTable); !ok || t.Index().ID() != "PRIMARY" {
				return n, transform.SameTree, nil
			}
			pkIdx = t.Index()
		case *plan.ResolvedTable:
			ia, ok := t.UnderlyingTable().(sql.IndexAddressableTable)
			if !ok {
				return n, transform.SameTree, nil
			}
			idxs, err := ia.GetIndexes(ctx)
			if err != nil {
				return n, transform.SameTree, nil
			}
			for _, ix := range idxs {
				if ix.ID() == "PRIMARY" {
					pkIdx = ix
				}
			}
		}
		if pkIdx == nil {
			return n, transform.SameTree, nil
		}
		var child sql.Expression
		order := sql.Ascending
		switch agg := gb.SelectedExprs[0].(type) {
		case *aggregation.Max:
			child, order = agg.Child, sql.Descending
		case *aggregation.Min:
			child = agg.Child
		default:
			return n, transform.SameTree, nil
		}
		gf, ok := child.(*expression.GetField)
		if cols := pkIdx.Expressions(); !ok || len(cols) < 1 || !strings.EqualFold(cols[0], gf.String()) {
			return n, transform.SameTree, nil
		}
		var first sql.Node = plan.NewLimit(expression.NewLiteral(1, types.Int64), plan.NewSort(sql.SortFields{{Column: gf, Order: order}}, gb.Child))
		if IdxSortRule != nil {
			if r, _, err := IdxSortRule(ctx, a, first, scope, sel, qFlags); err == nil {
				first = r
			}
		}
		nn, err := gb.WithChildren(first)
		if err != nil {
			return n, transform.SameTree, nil
		}
		return nn, transform.NewTree, nil
	})
}
