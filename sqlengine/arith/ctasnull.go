package arith

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// nullableCreateSelect lets CREATE TABLE ... AS SELECT's new columns
// hold the NULL that MAX, MIN, SUM and the other aggregates answer over
// no rows. GMS types those aggregates NOT NULL whenever their argument
// is, so `CREATE TABLE c AS SELECT MAX(d) FROM t` over an empty t made
// a NOT NULL column and failed on its own row with 1048. MySQL makes a
// column of any such aggregate (or of an expression over one) nullable;
// COUNT and BIT_AND/BIT_OR/BIT_XOR never answer NULL and keep NOT NULL.
func nullableCreateSelect(tc *plan.TableCopier) {
	ct, ok := tc.Destination.(*plan.CreateTable)
	if !ok {
		return
	}
	outs := selectOutputs(tc.Source)
	cols := ct.PkSchema().Schema
	if outs == nil || len(outs) != len(cols) {
		return
	}
	ids := map[sql.ColumnId]bool{}
	transform.InspectExpressions(tc.Source, func(x sql.Expression) bool {
		if a, ok := x.(*expression.Alias); ok && nullableAggregate(a.Child) {
			ids[a.Id()] = true
		}
		if ie, ok := x.(sql.IdExpression); ok && nullableAggregate(x) {
			ids[ie.Id()] = true
		}
		return true
	})
	for i, c := range cols {
		if c.Nullable || c.PrimaryKey {
			continue
		}
		sql.Inspect(outs[i], func(x sql.Expression) bool {
			switch y := x.(type) {
			case *expression.GetField:
				if ids[y.Id()] {
					c.Nullable = true
				}
			default:
				if nullableAggregate(x) {
					c.Nullable = true
				}
			}
			return !c.Nullable
		})
	}
}

// selectOutputs is the expressions a select's rows are made of, found
// below the nodes that pass rows through unchanged; nil when the
// statement's top is something else (a UNION).
func selectOutputs(n sql.Node) []sql.Expression {
	for n != nil {
		switch x := n.(type) {
		case *plan.Project:
			return x.Projections
		case *plan.GroupBy:
			return x.SelectedExprs
		case *plan.Window:
			return x.SelectExprs
		}
		ch := n.Children()
		if len(ch) != 1 {
			return nil
		}
		switch n.(type) {
		case *plan.Limit, *plan.Sort, *plan.Distinct, *plan.OrderedDistinct, *plan.Having, *plan.Filter, *plan.TopN, *plan.SubqueryAlias:
			n = ch[0]
		default:
			return nil
		}
	}
	return nil
}

// nullableAggregate reports whether e is an aggregate that answers NULL
// over no rows although GMS types it NOT NULL.
func nullableAggregate(e sql.Expression) bool {
	if x, ok := e.(*exactAgg); ok {
		e = x.Aggregation
	}
	switch e.(type) {
	case *aggregation.Max, *aggregation.Min, *aggregation.Sum, *aggregation.Avg,
		*aggregation.AnyValue, *aggregation.First, *aggregation.Last,
		*aggregation.StdDevPop, *aggregation.StdDevSamp, *aggregation.VarPop, *aggregation.VarSamp:
		return true
	}
	return false
}
