package arith

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// A TIME value in a numeric context is the number its digits read,
// hhmmss: '09:26:00' + 0 is 92600 in MySQL. GMS's arithmetic and numeric
// casts read a TIME value (types.Timespan) as 0 (Zeit + 0, Zeit * 1,
// CAST(Zeit AS SIGNED) all 0). TimeOperands gives an arithmetic
// operator's or numeric cast's TIME operands as that number (timeNumber,
// an integer: fractional seconds, which TIME(0) columns never have, are
// dropped).

// TimeOperands is e with its TIME operands as numbers when e is an
// arithmetic operator or a cast to a number (true); e itself otherwise.
func TimeOperands(e sql.Expression) (sql.Expression, bool) {
	switch x := e.(type) {
	case *expression.Arithmetic, *expression.Div, *expression.IntDiv, *expression.Mod, *expression.UnaryMinus:
	case *expression.Convert:
		if !types.IsNumber(x.Type()) {
			return e, false
		}
	default:
		return e, false
	}
	ch := e.Children()
	var out []sql.Expression
	for i, c := range ch {
		if c == nil || !types.IsTimespan(c.Type()) {
			continue
		}
		if out == nil {
			out = append([]sql.Expression(nil), ch...)
		}
		out[i] = &timeNumber{child: c}
	}
	if out == nil {
		return e, false
	}
	n, err := e.WithChildren(out...)
	if err != nil {
		return e, false
	}
	return n, true
}

// timeNumber is a TIME value as the integer hhmmss.
type timeNumber struct{ child sql.Expression }

var _ sql.Expression = (*timeNumber)(nil)

func (t *timeNumber) Resolved() bool             { return t.child.Resolved() }
func (t *timeNumber) String() string             { return t.child.String() }
func (t *timeNumber) Type() sql.Type             { return types.Int64 }
func (t *timeNumber) IsNullable() bool           { return t.child.IsNullable() }
func (t *timeNumber) Children() []sql.Expression { return []sql.Expression{t.child} }

func (t *timeNumber) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("arith: TIME number takes 1 child, got %d", len(children))
	}
	return &timeNumber{child: children[0]}, nil
}

func (t *timeNumber) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := t.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	ts, ok := v.(types.Timespan)
	if !ok {
		return v, nil
	}
	us := ts.AsMicroseconds()
	neg := us < 0
	if neg {
		us = -us
	}
	secs := us / 1_000_000
	n := (secs/3600)*10000 + (secs/60%60)*100 + secs%60
	if neg {
		n = -n
	}
	return n, nil
}
