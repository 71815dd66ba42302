package functions

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// benchmark is MySQL's BENCHMARK(count, expr): expr evaluated count
// times, 0 returned (NULL for a NULL or negative count); the statement's
// context ends it early (KILL QUERY, max_execution_time).
type benchmark struct{ count, expr sql.Expression }

func newBenchmark(count, expr sql.Expression) sql.Expression { return &benchmark{count, expr} }

func (b *benchmark) Resolved() bool             { return b.count.Resolved() && b.expr.Resolved() }
func (b *benchmark) String() string             { return fmt.Sprintf("BENCHMARK(%s, %s)", b.count, b.expr) }
func (b *benchmark) Type() sql.Type             { return types.Int32 }
func (b *benchmark) IsNullable() bool           { return true }
func (b *benchmark) Children() []sql.Expression { return []sql.Expression{b.count, b.expr} }
func (b *benchmark) FunctionName() string       { return "benchmark" }
func (b *benchmark) Description() string        { return "evaluates an expression count times" }
func (b *benchmark) IsNonDeterministic() bool   { return true }

func (b *benchmark) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(b, len(children), 2)
	}
	return newBenchmark(children[0], children[1]), nil
}

func (b *benchmark) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := b.count.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	c, _, err := types.Int64.Convert(ctx, v)
	if err != nil {
		return nil, err
	}
	n := c.(int64)
	if n < 0 {
		return nil, nil
	}
	for i := int64(0); i < n; i++ {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if _, err := b.expr.Eval(ctx, row); err != nil {
			return nil, err
		}
	}
	return int32(0), nil
}
