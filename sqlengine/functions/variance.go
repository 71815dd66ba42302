package functions

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// VARIANCE, VAR_POP, VAR_SAMP, STD, STDDEV, STDDEV_POP and STDDEV_SAMP
// are DOUBLEs with all their digits, as MySQL 8's (Item_sum_variance's
// type is DOUBLE whatever the argument's). GMS computes a DOUBLE but types
// it as the argument, so over an INT column VARIANCE of 1, 2 and 4
// (1.5555555555555556) read 2, and over a DECIMAL(10,2) one it was cut to
// 2 decimals. MariaDB shows an integer's or DECIMAL's variance with the
// argument's decimals plus 4 (1.5556), MySQL 5.7's rule.

func newVariance(mk func(sql.Expression) sql.Aggregation) func(sql.Expression) sql.Expression {
	return func(e sql.Expression) sql.Expression { return &varianceAgg{Aggregation: mk(e)} }
}

func varPop(e sql.Expression) sql.Aggregation     { return aggregation.NewVarPop(e) }
func varSamp(e sql.Expression) sql.Aggregation    { return aggregation.NewVarSamp(e) }
func stdDevPop(e sql.Expression) sql.Aggregation  { return aggregation.NewStdDevPop(e) }
func stdDevSamp(e sql.Expression) sql.Aggregation { return aggregation.NewStdDevSamp(e) }

// varianceAgg is GMS's aggregate typed DOUBLE.
type varianceAgg struct {
	sql.Aggregation
}

var _ sql.Aggregation = (*varianceAgg)(nil)

func (v *varianceAgg) Type() sql.Type   { return types.Float64 }
func (v *varianceAgg) IsNullable() bool { return true }

func (v *varianceAgg) wrap(a sql.Expression) *varianceAgg {
	return &varianceAgg{Aggregation: a.(sql.Aggregation)}
}

func (v *varianceAgg) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	a, err := v.Aggregation.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return v.wrap(a), nil
}

func (v *varianceAgg) WithWindow(w *sql.WindowDefinition) sql.WindowAdaptableExpression {
	return v.wrap(v.Aggregation.WithWindow(w))
}

func (v *varianceAgg) WithId(id sql.ColumnId) sql.IdExpression {
	return v.wrap(v.Aggregation.WithId(id))
}

func (v *varianceAgg) FunctionName() string {
	return v.Aggregation.(sql.FunctionExpression).FunctionName()
}

func (v *varianceAgg) Description() string {
	return v.Aggregation.(sql.FunctionExpression).Description()
}
