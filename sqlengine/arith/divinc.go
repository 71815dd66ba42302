package arith

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// MySQL's `/` over exact operands (integers and DECIMALs) under the
// session's div_precision_increment. GMS's Div has the default, 4, built
// in; a session that sets another value gets this in its place (at 4,
// GMS's Div stays, as before).
//
// MySQL's rules (Item_func_div and decimal_div): the quotient's scale is
// the dividend's plus the increment, at most 30; the quotient is
// computed, truncated, to the operands' fractional digits plus the
// increment rounded up to whole 9-digit words, and that longer value is
// what an enclosing +, -, *, /, ROUND, TRUNCATE, CAST to DECIMAL or
// comparison computes with ((1/3)*3 is 1.000000 at increment 6, and
// 1/3 = 0.333333 is false: MySQL 8's answers, as GMS's engine tests
// record them at the default increment; MariaDB compares the rounded
// value); elsewhere (the client, CONCAT) it is rounded to the scale. AVG's scale is
// its argument's plus the increment (exactagg.go). A zero divisor gives NULL and warning 1365.

// maxDivScale is MySQL's DECIMAL_MAX_SCALE (MariaDB's is 38).
const maxDivScale = 30

// divIncrement is d as MySQL computes it under increment inc, or nil
// when GMS's own Div is right: the default increment, or an operand that
// is not exact (floats, text, dates: a DOUBLE quotient).
func divIncrement(ctx *sql.Context, d *expression.Div) sql.Expression {
	inc, ok := divPrecisionIncrement(ctx)
	if !ok || inc == 4 {
		return nil
	}
	l, r := d.LeftChild, d.RightChild
	lp, ls, lok := ExactDigits(l.Type())
	_, rs, rok := ExactDigits(r.Type())
	if !lok || !rok {
		return nil
	}
	scale := min(ls+inc, maxDivScale)
	prec := min(max(lp+inc+rs, scale+1), types.DecimalTypeMaxPrecision)
	typ, err := types.CreateDecimalType(uint8(prec), uint8(scale))
	if err != nil {
		return nil
	}
	return &divInc{left: l, right: r, inc: inc, rscale: rs, lscale: ls, typ: typ}
}

// DivIncrement is the session's div_precision_increment (4 without a
// session).
func DivIncrement(ctx *sql.Context) int {
	if inc, ok := divPrecisionIncrement(ctx); ok {
		return inc
	}
	return 4
}

// divPrecisionIncrement is the session's div_precision_increment.
func divPrecisionIncrement(ctx *sql.Context) (int, bool) {
	if ctx == nil || ctx.Session == nil {
		return 0, false
	}
	v, err := ctx.GetSessionVariable(ctx, "div_precision_increment")
	if err != nil {
		return 0, false
	}
	n, _, _, ok := IntOperand(v)
	if !ok || n < 0 || n > maxDivScale {
		return 0, false
	}
	return int(n), true
}

// ExactDigits is an exact numeric type's precision and scale.
func ExactDigits(t sql.Type) (prec, scale int, ok bool) {
	switch {
	case types.IsDecimal(t):
		dt := t.(sql.DecimalType)
		return int(dt.Precision()), int(dt.Scale()), true
	case IsIntegerType(t):
		switch t.Type() {
		case types.Int8.Type(), types.Uint8.Type():
			return 3, 0, true
		case types.Int16.Type(), types.Uint16.Type():
			return 5, 0, true
		case types.Int24.Type(), types.Uint24.Type():
			return 8, 0, true
		case types.Int32.Type(), types.Uint32.Type():
			return 10, 0, true
		default:
			return 20, 0, true
		}
	}
	return 0, 0, false
}

type divInc struct {
	left, right    sql.Expression
	inc            int
	lscale, rscale int
	typ            sql.Type
	// keep: an enclosing arithmetic operator takes the longer value.
	keep bool
}

var _ sql.Expression = (*divInc)(nil)

func (d *divInc) Resolved() bool             { return d.left.Resolved() && d.right.Resolved() }
func (d *divInc) String() string             { return fmt.Sprintf("(%s / %s)", d.left, d.right) }
func (d *divInc) Type() sql.Type             { return d.typ }
func (d *divInc) IsNullable() bool           { return true }
func (d *divInc) Children() []sql.Expression { return []sql.Expression{d.left, d.right} }

func (d *divInc) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(d, len(children), 2)
	}
	c := *d
	c.left, c.right = children[0], children[1]
	return &c, nil
}

func (d *divInc) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv, err := d.left.Eval(ctx, row)
	if err != nil || lv == nil {
		return nil, err
	}
	rv, err := d.right.Eval(ctx, row)
	if err != nil || rv == nil {
		return nil, err
	}
	l, ok, err := exactOperand(ctx, lv)
	if err != nil || !ok {
		return nil, err
	}
	r, ok, err := exactOperand(ctx, rv)
	if err != nil || !ok {
		return nil, err
	}
	if r.IsZero() {
		if ctx != nil && ctx.Session != nil {
			ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: 1365, Message: "Division by 0"})
		}
		return nil, nil
	}
	// The operands' fractional digits: their declared scale, or more
	// when the value carries more (a quotient's longer value).
	frac := max(d.lscale, fracDigits(l)) + max(d.rscale, fracDigits(r)) + d.inc
	frac = (frac + 8) / 9 * 9
	q, _ := l.QuoRem(r, int32(frac))
	if !d.keep {
		q = q.Round(int32(d.typ.(sql.DecimalType).Scale()))
	}
	return q, nil
}

// keepQuotients gives e's quotient operands their longer values, when e
// is an arithmetic operator (+, -, *, /); true when it changed e.
func keepQuotients(e sql.Expression) (sql.Expression, bool) {
	if !keeper(e) {
		return e, false
	}
	ch := e.Children()
	var out []sql.Expression
	for i, c := range ch {
		if di, ok := c.(*divInc); ok && !di.keep {
			if out == nil {
				out = append([]sql.Expression(nil), ch...)
			}
			k := *di
			k.keep = true
			out[i] = &k
		}
	}
	if out == nil {
		return e, false
	}
	ne, err := e.WithChildren(out...)
	if err != nil {
		return e, false
	}
	return ne, true
}

// fracDigits is the number of digits after d's decimal point.
func fracDigits(d decimal.Decimal) int {
	if e := d.Exponent(); e < 0 {
		return int(-e)
	}
	return 0
}

// keeper reports whether e computes with its quotient operands' longer
// values (keepQuotients).
func keeper(e sql.Expression) bool {
	switch x := e.(type) {
	case *expression.Arithmetic, *expression.Div, *divInc, expression.Comparer, *expression.InTuple, *expression.Between:
		return true
	case *expression.Convert:
		return types.IsDecimal(x.Type())
	case sql.FunctionExpression:
		n := x.FunctionName()
		return n == "round" || n == "truncate"
	}
	return false
}

// RoundQuotients rounds, to its type's scale, each outermost +, - or *
// of n's expressions that computed with a quotient's longer value: such
// an operator's value has the quotient's digits (1/2.0 + 1 computes
// 1.500000000), and MySQL shows and compares it at its own scale
// (1.50000).
func RoundQuotients(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		ex, ok := n.(sql.Expressioner)
		if !ok {
			return n, transform.SameTree, nil
		}
		exprs := ex.Expressions()
		var out []sql.Expression
		for i, e := range exprs {
			if ne, changed := roundKept(e, false); changed {
				if out == nil {
					out = append([]sql.Expression(nil), exprs...)
				}
				out[i] = ne
			}
		}
		if out == nil {
			return n, transform.SameTree, nil
		}
		nn, err := ex.WithExpressions(out...)
		if err != nil {
			return nil, transform.SameTree, err
		}
		return nn, transform.NewTree, nil
	})
}

// roundKept is e with its outermost arithmetic over kept quotients
// rounded; parentKeeps: e's parent takes e's longer value.
func roundKept(e sql.Expression, parentKeeps bool) (sql.Expression, bool) {
	keeps := keeper(e)
	ch := e.Children()
	var out []sql.Expression
	for i, c := range ch {
		if nc, changed := roundKept(c, keeps); changed {
			if out == nil {
				out = append([]sql.Expression(nil), ch...)
			}
			out[i] = nc
		}
	}
	changed := false
	if out != nil {
		if ne, err := e.WithChildren(out...); err == nil {
			e, changed = ne, true
		}
	}
	if a, ok := e.(*expression.Arithmetic); ok && !parentKeeps && keptBelow(a) {
		if dt, ok := a.Type().(sql.DecimalType); ok {
			return &scaled{Expression: e, scale: int32(dt.Scale())}, true
		}
	}
	return e, changed
}

// keptBelow reports whether arithmetic e computes with a kept quotient.
func keptBelow(e sql.Expression) bool {
	for _, c := range e.Children() {
		switch x := c.(type) {
		case *divInc:
			if x.keep {
				return true
			}
		case *expression.Arithmetic:
			if keptBelow(x) {
				return true
			}
		}
	}
	return false
}

// scaled is a DECIMAL expression's value rounded to scale.
type scaled struct {
	sql.Expression
	scale int32
}

func (s *scaled) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := s.Expression.Eval(ctx, row)
	if d, ok := v.(decimal.Decimal); ok && err == nil {
		return d.Round(s.scale), nil
	}
	return v, err
}

func (s *scaled) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := s.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &scaled{Expression: e, scale: s.scale}, nil
}
