package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Columns of a derived table keep the types analysis gave them. GMS
// types a query's columns as it builds the plan, and a derived table's
// readers (`SELECT x FROM (SELECT AVG(c) AS x ...) AS d`) keep the type
// built then, DOUBLE for SUM and AVG, after the arithmetic rules made
// the derived table's column MySQL's DECIMAL (arith/exactagg.go): the
// client was told DOUBLE, and a sort above printed the values as
// doubles (1 for MySQL's 1.0000, 8.6 for 8.6000). This rule gives each
// reader of a derived table's column the column's type as analysed,
// where GMS's was DOUBLE and the analysed one is DECIMAL, or GMS's an
// ENUM or SET and the analysed one a string (a UNION's column of ENUMs is
// text: functions/setoporder.go; an ENUM reader of it failed with 1105
// "value b is not valid for this Enum" on the second ENUM's members).

const derivedTypesRuleID analyzer.RuleId = 1736

func derivedTypesRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	n, same, err := retypeDerivedReaders(n, types.IsDecimal, func(reader, _ sql.Type) bool { return reader == types.Float64 })
	if err != nil {
		return n, same, err
	}
	n, same2, err := retypeDerivedReaders(n, types.IsText, func(reader, _ sql.Type) bool { return types.IsEnum(reader) || types.IsSet(reader) })
	return n, same && same2, err
}

// retypeDerivedReaders gives each reader of a derived table's (or a
// view's) column the column's analysed type, for the columns whose
// analysed type is carried (carry) and the readers that take it
// (takes, given the reader's type and the analysed one).
func retypeDerivedReaders(n sql.Node, carry func(sql.Type) bool, takes func(reader, analysed sql.Type) bool) (sql.Node, transform.TreeIdentity, error) {
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
			if i < len(sch) && carry(sch[i].Type) {
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
		if !ok {
			return e, transform.SameTree, nil
		}
		t, ok := retype[gf.Id()]
		if !ok || !takes(gf.Type(), t) {
			return e, transform.SameTree, nil
		}
		ng := expression.NewGetFieldWithTable(gf.Index(), int(gf.TableId()), t, gf.Database(), gf.Table(), gf.Name(), gf.IsNullable()).WithId(gf.Id())
		return ng.(sql.Expression), transform.NewTree, nil
	})
}
