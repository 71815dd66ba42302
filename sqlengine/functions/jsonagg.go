package functions

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
)

// JSON_ARRAYAGG of no rows is NULL, as MySQL's ("returns NULL if the
// result contains no rows"); GMS's answered the empty array [].

func newJSONArrayAgg(e sql.Expression) sql.Expression {
	return &jsonArrayAgg{Aggregation: aggregation.NewJsonArray(e)}
}

// jsonArrayAgg is GMS's JSON_ARRAYAGG, NULL over no rows.
type jsonArrayAgg struct {
	sql.Aggregation
}

var _ sql.Aggregation = (*jsonArrayAgg)(nil)

func (j *jsonArrayAgg) IsNullable() bool { return true }

func (j *jsonArrayAgg) wrap(a sql.Expression) *jsonArrayAgg {
	return &jsonArrayAgg{Aggregation: a.(sql.Aggregation)}
}

func (j *jsonArrayAgg) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	a, err := j.Aggregation.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return j.wrap(a), nil
}

func (j *jsonArrayAgg) WithWindow(w *sql.WindowDefinition) sql.WindowAdaptableExpression {
	return j.wrap(j.Aggregation.WithWindow(w))
}

func (j *jsonArrayAgg) WithId(id sql.ColumnId) sql.IdExpression {
	return j.wrap(j.Aggregation.WithId(id))
}

func (j *jsonArrayAgg) FunctionName() string {
	return j.Aggregation.(sql.FunctionExpression).FunctionName()
}

func (j *jsonArrayAgg) Description() string {
	return j.Aggregation.(sql.FunctionExpression).Description()
}

func (j *jsonArrayAgg) NewBuffer() (sql.AggregationBuffer, error) {
	b, err := j.Aggregation.NewBuffer()
	if err != nil {
		return nil, err
	}
	return &countedBuffer{AggregationBuffer: b}, nil
}

// countedBuffer is an aggregation's buffer that answers NULL until a row
// comes.
type countedBuffer struct {
	sql.AggregationBuffer
	rows bool
}

func (c *countedBuffer) Update(ctx *sql.Context, row sql.Row) error {
	c.rows = true
	return c.AggregationBuffer.Update(ctx, row)
}

func (c *countedBuffer) Eval(ctx *sql.Context) (any, error) {
	if !c.rows {
		return nil, nil
	}
	return c.AggregationBuffer.Eval(ctx)
}
