package sqlengine

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// DECIMAL + - * without GMS's per-row type work. GMS's Arithmetic.Eval
// works out its result type again for every row (walking the operands'
// types for precision and scale) and converts both operands through
// DecimalType.Convert with a bounds check: two thirds of TPC-H Q1's time
// (`l_extendedprice * (1 - l_discount) * (1 + l_tax)`). decArith computes
// the exact result, as MySQL does (the scale of a sum is the larger
// operand scale, of a product their sum), from operands that are already
// decimals or integers, and leaves anything else (strings, floats, a
// result past MySQL's 30 digits of scale or 65 of precision) to GMS's
// Arithmetic, which it keeps.

type decArith struct {
	gms         *expression.Arithmetic
	left, right sql.Expression
	typ         sql.Type
	// lit holds a literal operand's value as a decimal, converted once
	// (Q1's 1 - l_discount made a decimal of the 1 for every row), and
	// litSmall the same value as a smallDec when it is one.
	lit      [2]*decimal.Decimal
	litSmall [2]*smallDec
	// scale is each operand type's DECIMAL scale (-1: not a DECIMAL),
	// for withinScale's check on the small path.
	scale [2]int32
}

// withLiterals sets a.lit from its operands.
func (a *decArith) withLiterals() *decArith {
	for i, c := range []sql.Expression{a.left, a.right} {
		a.lit[i], a.litSmall[i], a.scale[i] = nil, nil, -1
		if dt, ok := c.Type().(sql.DecimalType); ok {
			a.scale[i] = int32(dt.Scale())
		}
		l, ok := c.(*expression.Literal)
		if !ok || l.Value() == nil {
			continue
		}
		if d, ok := decOperand(l.Value()); ok && withinScale(d, l.Type()) {
			a.lit[i] = &d
			if sd, ok := smallOf(d); ok {
				a.litSmall[i] = &sd
			}
		}
	}
	return a
}

// operand is the value of operand i.
func (a *decArith) operand(ctx *sql.Context, i int, e sql.Expression, row sql.Row) (any, error) {
	if d := a.lit[i]; d != nil {
		return *d, nil
	}
	return e.Eval(ctx, row)
}

var _ sql.Expression = (*decArith)(nil)

// newDecArith takes ar when it is DECIMAL arithmetic: + - or * of a
// DECIMAL with a DECIMAL or an integer.
func newDecArith(ar *expression.Arithmetic) (sql.Expression, bool) {
	switch ar.Op {
	case "+", "-", "*":
	default:
		return nil, false
	}
	// Operands are columns, literals or such arithmetic: a quotient
	// carries digits GMS tracks (and rounds) its own way.
	for _, c := range []sql.Expression{ar.LeftChild, ar.RightChild} {
		switch c.(type) {
		case *expression.GetField, *expression.Literal, *decArith, *intArith:
		default:
			return nil, false
		}
	}
	lt, rt := ar.LeftChild.Type(), ar.RightChild.Type()
	dec := func(t sql.Type) bool { return types.IsDecimal(t) }
	num := func(t sql.Type) bool { return dec(t) || isIntegerType(t) }
	if !(dec(lt) || dec(rt)) || !num(lt) || !num(rt) {
		return nil, false
	}
	typ := ar.Type()
	if !types.IsDecimal(typ) {
		return nil, false
	}
	return (&decArith{gms: ar, left: ar.LeftChild, right: ar.RightChild, typ: typ}).withLiterals(), true
}

func (a *decArith) Resolved() bool             { return a.left.Resolved() && a.right.Resolved() }
func (a *decArith) String() string             { return a.gms.String() }
func (a *decArith) Type() sql.Type             { return a.typ }
func (a *decArith) IsNullable() bool           { return a.left.IsNullable() || a.right.IsNullable() }
func (a *decArith) Children() []sql.Expression { return []sql.Expression{a.left, a.right} }

func (a *decArith) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(a, len(children), 2)
	}
	g, err := a.gms.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	c := *a
	c.left, c.right = children[0], children[1]
	if ga, ok := g.(*expression.Arithmetic); ok {
		c.gms = ga
	}
	return c.withLiterals(), nil
}

// decOperand reads a decimal or integer operand.
func decOperand(v any) (decimal.Decimal, bool) {
	if d, ok := v.(decimal.Decimal); ok {
		return d, true
	}
	n, isBig, _, ok := intOperand(v)
	if !ok || isBig {
		return decimal.Decimal{}, false
	}
	if _, isBool := v.(bool); isBool {
		return decimal.Decimal{}, false
	}
	return decimal.NewFromInt(n), true
}

func (a *decArith) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if d, null, ok, err := a.evalSmall(ctx, row); err != nil || null {
		return nil, err
	} else if ok {
		return decimal.New(d.c, d.e), nil
	}
	return a.evalDecimal(ctx, row)
}

// evalDecimal is Eval in decimals (and GMS's Arithmetic past them).
func (a *decArith) evalDecimal(ctx *sql.Context, row sql.Row) (any, error) {
	lv, err := a.operand(ctx, 0, a.left, row)
	if err != nil || lv == nil {
		return nil, err
	}
	rv, err := a.operand(ctx, 1, a.right, row)
	if err != nil || rv == nil {
		return nil, err
	}
	l, ok1 := decOperand(lv)
	r, ok2 := decOperand(rv)
	if !ok1 || !ok2 || !withinScale(l, a.left.Type()) || !withinScale(r, a.right.Type()) {
		// A quotient carries digits past its type's scale, which GMS
		// (as MySQL) rounds away in the result: GMS's.
		return a.gms.Eval(ctx, row)
	}
	var out decimal.Decimal
	switch a.gms.Op {
	case "+":
		out = l.Add(r)
	case "-":
		out = l.Sub(r)
	default:
		out = l.Mul(r)
	}
	if out.Exponent() < -30 || out.Exponent() > math.MaxInt16 || !limit65.holds(out) {
		return a.gms.Eval(ctx, row)
	}
	return out, nil
}

// digitLimits holds ±10^n with exponent -s, for s in [0, 30]: a decimal
// of that exponent compares with them without rescaling.
type digitLimits struct {
	n   int
	lim [31][2]decimal.Decimal
}

func newDigitLimits(n int) *digitLimits {
	l := &digitLimits{n: n}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
	for s := range l.lim {
		l.lim[s][0] = decimal.NewFromBigInt(p, int32(-s))
		l.lim[s][1] = decimal.NewFromBigInt(new(big.Int).Neg(p), int32(-s))
	}
	return l
}

var (
	limit65 = newDigitLimits(65) // MySQL's DECIMAL precision
	limit18 = newDigitLimits(18) // what an int64 coefficient surely holds
)

// holds reports whether d has at most l's n digits without decimal's
// NumDigits, which formats the coefficient as text (a quarter of TPC-H
// Q1's CPU when every product and sum asked it).
func (l *digitLimits) holds(d decimal.Decimal) bool {
	e := d.Exponent()
	if e > 0 || e < -30 {
		return d.NumDigits() <= l.n
	}
	b := l.lim[-e]
	return d.Cmp(b[0]) < 0 && d.Cmp(b[1]) > 0
}

// withinScale reports whether d has no more fractional digits than its
// expression's type declares (a column's values never have).
func withinScale(d decimal.Decimal, t sql.Type) bool {
	if d.Exponent() >= 0 {
		return true
	}
	dt, ok := t.(sql.DecimalType)
	return ok && -d.Exponent() <= int32(dt.Scale())
}

// The small path: DECIMAL arithmetic whose operands and result have
// coefficients that fit an int64 (every price, quantity and rate of
// TPC-H) is computed in an int64 with its exponent, without a big.Int
// per operation: Q1's four operations a row made about twenty
// allocations, a third of its CPU. The value is the one the decimal
// path computes (a sum's exponent is the smaller operand exponent, a
// product's their sum), and whatever does not fit (or would make the
// decimal path fall back to GMS) takes that path instead.

// smallDec is c × 10^e.
type smallDec struct {
	c int64
	e int32
}

// smallEvaler evaluates to a smallDec when the value is one: ok false
// means "use Eval", null a NULL.
type smallEvaler interface {
	evalSmall(ctx *sql.Context, row sql.Row) (d smallDec, null, ok bool, err error)
}

// smallOf is d as a smallDec when its coefficient has at most 18 digits.
func smallOf(d decimal.Decimal) (smallDec, bool) {
	e := d.Exponent()
	if e > 0 || e < -30 || !limit18.holds(d) {
		return smallDec{}, false
	}
	return smallDec{c: d.CoefficientInt64(), e: e}, true
}

// smallOperand reads operand i of a for the small path.
func (a *decArith) smallOperand(ctx *sql.Context, i int, e sql.Expression, row sql.Row) (smallDec, bool, bool, error) {
	if d := a.litSmall[i]; d != nil {
		return *d, false, true, nil
	}
	if a.lit[i] != nil {
		return smallDec{}, false, false, nil
	}
	var d smallDec
	if se, ok := e.(smallEvaler); ok {
		var null, ok bool
		var err error
		if d, null, ok, err = se.evalSmall(ctx, row); err != nil || null || !ok {
			return d, null, ok, err
		}
	} else {
		v, err := e.Eval(ctx, row)
		if err != nil || v == nil {
			return smallDec{}, v == nil, false, err
		}
		switch x := v.(type) {
		case decimal.Decimal:
			if d, ok = smallOf(x); !ok {
				return smallDec{}, false, false, nil
			}
		case bool:
			return smallDec{}, false, false, nil
		default:
			n, isBig, _, ok := intOperand(v)
			if !ok || isBig {
				return smallDec{}, false, false, nil
			}
			d = smallDec{c: n}
		}
	}
	// withinScale: more fractional digits than the operand's type
	// declares go to GMS (decArith.Eval).
	if d.e < 0 && (a.scale[i] < 0 || -d.e > a.scale[i]) {
		return smallDec{}, false, false, nil
	}
	return d, false, true, nil
}

func (a *decArith) evalSmall(ctx *sql.Context, row sql.Row) (smallDec, bool, bool, error) {
	l, null, ok, err := a.smallOperand(ctx, 0, a.left, row)
	if err != nil || null || !ok {
		return smallDec{}, null, ok, err
	}
	r, null, ok, err := a.smallOperand(ctx, 1, a.right, row)
	if err != nil || null || !ok {
		return smallDec{}, null, ok, err
	}
	var out smallDec
	switch a.gms.Op {
	case "+", "-":
		if a.gms.Op == "-" {
			if r.c == math.MinInt64 {
				return smallDec{}, false, false, nil
			}
			r.c = -r.c
		}
		out, ok = addSmall(l, r)
	default:
		out, ok = mulSmall(l, r)
	}
	if !ok || out.e < -30 {
		return smallDec{}, false, false, nil
	}
	return out, false, true, nil
}

// addSmall is l + r at the smaller exponent; false past int64.
func addSmall(l, r smallDec) (smallDec, bool) {
	var ok bool
	if l.e > r.e {
		if l.c, ok = mulPow10(l.c, l.e-r.e); !ok {
			return smallDec{}, false
		}
		l.e = r.e
	} else if r.e > l.e {
		if r.c, ok = mulPow10(r.c, r.e-l.e); !ok {
			return smallDec{}, false
		}
	}
	s := l.c + r.c
	if (l.c >= 0) == (r.c >= 0) && (s >= 0) != (r.c >= 0) {
		return smallDec{}, false
	}
	return smallDec{c: s, e: l.e}, true
}

// mulSmall is l × r; false past int64.
func mulSmall(l, r smallDec) (smallDec, bool) {
	if l.c == math.MinInt64 || r.c == math.MinInt64 {
		return smallDec{}, false
	}
	hi, lo := bits.Mul64(uint64(abs64(l.c)), uint64(abs64(r.c)))
	if hi != 0 || lo > math.MaxInt64 {
		return smallDec{}, false
	}
	p := int64(lo)
	if (l.c < 0) != (r.c < 0) {
		p = -p
	}
	return smallDec{c: p, e: l.e + r.e}, true
}
