package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Readers of a derived table's (or a view's) DATE or DATETIME column
// take the column's type as analysed, as derivedtypes.go does for
// DECIMALs: GMS built DATE_ADD's readers DATETIME(6) whatever its
// operands (`SELECT w FROM (SELECT d - INTERVAL 1 HOUR w ...) s ORDER BY
// w` printed six zero decimals), where the analysed DATE_ADD has MySQL's
// type (arith/dateinterval.go: DATETIME(0) for it).

const derivedTimesRuleID analyzer.RuleId = 1751

func derivedTimesRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	retype := map[sql.ColumnId]sql.Type{}
	transform.Inspect(n, func(node sql.Node) bool {
		sqa, ok := node.(*plan.SubqueryAlias)
		if !ok {
			return true
		}
		sch := sqa.Schema()
		cols := sqa.Columns()
		if cols.Len() != len(sch) {
			return true
		}
		i := 0
		cols.ForEach(func(id sql.ColumnId) {
			if i < len(sch) && dateOrDatetime(sch[i].Type) {
				retype[id] = sch[i].Type
			}
			i++
		})
		return true
	})
	if len(retype) == 0 {
		return n, transform.SameTree, nil
	}
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		gf, ok := e.(*expression.GetField)
		if !ok || !dateOrDatetime(gf.Type()) {
			return e, transform.SameTree, nil
		}
		t, ok := retype[gf.Id()]
		if !ok || t.Equals(gf.Type()) {
			return e, transform.SameTree, nil
		}
		ng := expression.NewGetFieldWithTable(gf.Index(), int(gf.TableId()), t, gf.Database(), gf.Table(), gf.Name(), gf.IsNullable()).WithId(gf.Id())
		return ng.(sql.Expression), transform.NewTree, nil
	})
}

// dateOrDatetime: a DATE or DATETIME type (not TIMESTAMP, whose values
// a reader converts by time zone).
func dateOrDatetime(t sql.Type) bool {
	return types.IsDateType(t) || types.IsDatetimeType(t)
}
