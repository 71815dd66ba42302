package functions

import (
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// VARIANCE, VAR_POP, VAR_SAMP, STD, STDDEV, STDDEV_POP and STDDEV_SAMP as
// MySQL's. GMS computes them as DOUBLEs but types them as their argument,
// so over an INT column VARIANCE of 1, 2 and 4 (1.5556) read 2 and over a
// DECIMAL(10,2) one its value cut to 2 decimals. MySQL's result is a
// DOUBLE shown with the argument's decimals plus 4 (div_precision_increment)
// when the argument is an integer or a DECIMAL, with all its digits
// otherwise. Petrel types the former as DECIMAL(p, s+4), the value rounded
// to that scale, which prints as MySQL's DOUBLE does (the column's type
// code is NEWDECIMAL where MySQL's is DOUBLE), and the latter as DOUBLE.

// varianceIncrement is div_precision_increment's default.
const varianceIncrement = 4

func newVariance(mk func(sql.Expression) sql.Aggregation) func(sql.Expression) sql.Expression {
	return func(e sql.Expression) sql.Expression { return &varianceAgg{Aggregation: mk(e), mk: mk} }
}

func varPop(e sql.Expression) sql.Aggregation     { return aggregation.NewVarPop(e) }
func varSamp(e sql.Expression) sql.Aggregation    { return aggregation.NewVarSamp(e) }
func stdDevPop(e sql.Expression) sql.Aggregation  { return aggregation.NewStdDevPop(e) }
func stdDevSamp(e sql.Expression) sql.Aggregation { return aggregation.NewStdDevSamp(e) }

// varianceAgg is GMS's aggregate with MySQL's result type.
type varianceAgg struct {
	sql.Aggregation
	mk func(sql.Expression) sql.Aggregation
}

var _ sql.Aggregation = (*varianceAgg)(nil)

// varianceType is the result's type over an argument of type t: a
// DECIMAL with its scale, or nil for a DOUBLE.
func varianceType(t sql.Type) sql.DecimalType {
	switch {
	case types.IsDecimal(t):
		d := t.(sql.DecimalType)
		s := min(int(d.Scale())+varianceIncrement, types.DecimalTypeMaxScale)
		p := min(max(2*int(d.Precision())+varianceIncrement, s+1), types.DecimalTypeMaxPrecision)
		return types.MustCreateDecimalType(uint8(p), uint8(s))
	case types.IsInteger(t), types.IsYear(t), types.IsBit(t):
		return types.MustCreateDecimalType(2*20+varianceIncrement, varianceIncrement)
	}
	return nil
}

func (v *varianceAgg) child() sql.Expression { return v.Aggregation.Children()[0] }

func (v *varianceAgg) Type() sql.Type {
	if d := varianceType(v.child().Type()); d != nil {
		return d
	}
	return types.Float64
}

func (v *varianceAgg) IsNullable() bool { return true }

func (v *varianceAgg) wrap(a sql.Expression) *varianceAgg {
	return &varianceAgg{Aggregation: a.(sql.Aggregation), mk: v.mk}
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

// result converts GMS's DOUBLE to the result's type.
func (v *varianceAgg) result(x any) any {
	f, ok := x.(float64)
	d := varianceType(v.child().Type())
	if !ok || d == nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return x
	}
	return decimal.NewFromFloat(f).Round(int32(d.Scale()))
}

func (v *varianceAgg) NewBuffer() (sql.AggregationBuffer, error) {
	b, err := v.Aggregation.NewBuffer()
	if err != nil {
		return nil, err
	}
	return &varianceBuffer{AggregationBuffer: b, agg: v}, nil
}

func (v *varianceAgg) NewWindowFunction() (sql.WindowFunction, error) {
	f, err := v.Aggregation.NewWindowFunction()
	if err != nil {
		return nil, err
	}
	return &varianceWindow{WindowFunction: f, agg: v}, nil
}

type varianceBuffer struct {
	sql.AggregationBuffer
	agg *varianceAgg
}

func (b *varianceBuffer) Eval(ctx *sql.Context) (any, error) {
	x, err := b.AggregationBuffer.Eval(ctx)
	if err != nil {
		return nil, err
	}
	return b.agg.result(x), nil
}

type varianceWindow struct {
	sql.WindowFunction
	agg *varianceAgg
}

func (w *varianceWindow) Compute(ctx *sql.Context, i sql.WindowInterval, b sql.WindowBuffer) any {
	return w.agg.result(w.WindowFunction.Compute(ctx, i, b))
}

func (v *varianceAgg) FunctionName() string {
	return v.Aggregation.(sql.FunctionExpression).FunctionName()
}
func (v *varianceAgg) Description() string {
	return v.Aggregation.(sql.FunctionExpression).Description()
}
