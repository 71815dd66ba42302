package arith

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

type DecArith struct {
	gms         *expression.Arithmetic
	left, right sql.Expression
	typ         sql.Type
	// lit holds a literal operand's value as a decimal, converted once
	// (Q1's 1 - l_discount made a decimal of the 1 for every row), and
	// litSmall the same value as a smallDec when it is one.
	lit      [2]*decimal.Decimal
	litSmall [2]*SmallDec
	// scale is each operand type's DECIMAL scale (-1: not a DECIMAL),
	// for withinScale's check on the small path.
	scale [2]int32
}

// withLiterals sets a.lit from its operands.
func (a *DecArith) withLiterals() *DecArith {
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
func (a *DecArith) operand(ctx *sql.Context, i int, e sql.Expression, row sql.Row) (any, error) {
	if d := a.lit[i]; d != nil {
		return *d, nil
	}
	return e.Eval(ctx, row)
}

var _ sql.Expression = (*DecArith)(nil)

// NewDecArith takes ar when it is DECIMAL arithmetic: + - or * of a
// DECIMAL with a DECIMAL or an integer.
func NewDecArith(ar *expression.Arithmetic) (sql.Expression, bool) {
	switch ar.Op {
	case "+", "-", "*":
	default:
		return nil, false
	}
	// Operands are columns, literals or such arithmetic: a quotient
	// carries digits GMS tracks (and rounds) its own way.
	for _, c := range []sql.Expression{ar.LeftChild, ar.RightChild} {
		switch c.(type) {
		case *expression.GetField, *expression.Literal, *DecArith, *intArith:
		default:
			return nil, false
		}
	}
	lt, rt := ar.LeftChild.Type(), ar.RightChild.Type()
	dec := func(t sql.Type) bool { return types.IsDecimal(t) }
	num := func(t sql.Type) bool { return dec(t) || IsIntegerType(t) }
	if !(dec(lt) || dec(rt)) || !num(lt) || !num(rt) {
		return nil, false
	}
	typ := ar.Type()
	if !types.IsDecimal(typ) {
		return nil, false
	}
	return (&DecArith{gms: ar, left: ar.LeftChild, right: ar.RightChild, typ: typ}).withLiterals(), true
}

func (a *DecArith) Resolved() bool             { return a.left.Resolved() && a.right.Resolved() }
func (a *DecArith) String() string             { return a.gms.String() }
func (a *DecArith) Type() sql.Type             { return a.typ }
func (a *DecArith) IsNullable() bool           { return a.left.IsNullable() || a.right.IsNullable() }
func (a *DecArith) Children() []sql.Expression { return []sql.Expression{a.left, a.right} }

func (a *DecArith) WithChildren(children ...sql.Expression) (sql.Expression, error) {
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
	n, isBig, _, ok := IntOperand(v)
	if !ok || isBig {
		return decimal.Decimal{}, false
	}
	if _, isBool := v.(bool); isBool {
		return decimal.Decimal{}, false
	}
	return decimal.NewFromInt(n), true
}

func (a *DecArith) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if d, null, ok, err := a.EvalSmall(ctx, row); err != nil || null {
		return nil, err
	} else if ok {
		return decimal.New(d.C, d.E), nil
	}
	return a.EvalDecimal(ctx, row)
}

// EvalDecimal is Eval in decimals (and GMS's Arithmetic past them).
func (a *DecArith) EvalDecimal(ctx *sql.Context, row sql.Row) (any, error) {
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
	if out.Exponent() < -30 || out.Exponent() > math.MaxInt16 || !limit65.Holds(out) {
		return a.gms.Eval(ctx, row)
	}
	return out, nil
}

// DigitLimits holds ±10^n with exponent -s, for s in [0, 30]: a decimal
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
	Limit18 = newDigitLimits(18) // what an int64 coefficient surely holds
)

// Holds reports whether d has at most l's n digits without decimal's
// NumDigits, which formats the coefficient as text (a quarter of TPC-H
// Q1's CPU when every product and sum asked it).
func (l *digitLimits) Holds(d decimal.Decimal) bool {
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

// SmallDec is c × 10^e.
type SmallDec struct {
	C int64
	E int32
}

// SmallEvaler evaluates to a smallDec when the value is one: ok false
// means "use Eval", null a NULL.
type SmallEvaler interface {
	EvalSmall(ctx *sql.Context, row sql.Row) (d SmallDec, null, ok bool, err error)
}

// SmallOf is d as a SmallDec when its coefficient has at most 18 digits.
func SmallOf(d decimal.Decimal) (SmallDec, bool) { return smallOf(d) }

// smallOf is d as a smallDec when its coefficient has at most 18 digits.
func smallOf(d decimal.Decimal) (SmallDec, bool) {
	e := d.Exponent()
	if e > 0 || e < -30 || !Limit18.Holds(d) {
		return SmallDec{}, false
	}
	return SmallDec{C: d.CoefficientInt64(), E: e}, true
}

// smallOperand reads operand i of a for the small path.
func (a *DecArith) smallOperand(ctx *sql.Context, i int, e sql.Expression, row sql.Row) (SmallDec, bool, bool, error) {
	if d := a.litSmall[i]; d != nil {
		return *d, false, true, nil
	}
	if a.lit[i] != nil {
		return SmallDec{}, false, false, nil
	}
	var d SmallDec
	if se, ok := e.(SmallEvaler); ok {
		var null, ok bool
		var err error
		if d, null, ok, err = se.EvalSmall(ctx, row); err != nil || null || !ok {
			return d, null, ok, err
		}
	} else {
		v, err := e.Eval(ctx, row)
		if err != nil || v == nil {
			return SmallDec{}, v == nil, false, err
		}
		switch x := v.(type) {
		case decimal.Decimal:
			if d, ok = smallOf(x); !ok {
				return SmallDec{}, false, false, nil
			}
		case bool:
			return SmallDec{}, false, false, nil
		default:
			n, isBig, _, ok := IntOperand(v)
			if !ok || isBig {
				return SmallDec{}, false, false, nil
			}
			d = SmallDec{C: n}
		}
	}
	// withinScale: more fractional digits than the operand's type
	// declares go to GMS (decArith.Eval).
	if d.E < 0 && (a.scale[i] < 0 || -d.E > a.scale[i]) {
		return SmallDec{}, false, false, nil
	}
	return d, false, true, nil
}

func (a *DecArith) EvalSmall(ctx *sql.Context, row sql.Row) (SmallDec, bool, bool, error) {
	l, null, ok, err := a.smallOperand(ctx, 0, a.left, row)
	if err != nil || null || !ok {
		return SmallDec{}, null, ok, err
	}
	r, null, ok, err := a.smallOperand(ctx, 1, a.right, row)
	if err != nil || null || !ok {
		return SmallDec{}, null, ok, err
	}
	var out SmallDec
	switch a.gms.Op {
	case "+", "-":
		if a.gms.Op == "-" {
			if r.C == math.MinInt64 {
				return SmallDec{}, false, false, nil
			}
			r.C = -r.C
		}
		out, ok = AddSmall(l, r)
	default:
		out, ok = mulSmall(l, r)
	}
	if !ok || out.E < -30 {
		return SmallDec{}, false, false, nil
	}
	return out, false, true, nil
}

// AddSmall is l + r at the smaller exponent; false past int64.
func AddSmall(l, r SmallDec) (SmallDec, bool) {
	var ok bool
	if l.E > r.E {
		if l.C, ok = mulPow10(l.C, l.E-r.E); !ok {
			return SmallDec{}, false
		}
		l.E = r.E
	} else if r.E > l.E {
		if r.C, ok = mulPow10(r.C, r.E-l.E); !ok {
			return SmallDec{}, false
		}
	}
	s := l.C + r.C
	if (l.C >= 0) == (r.C >= 0) && (s >= 0) != (r.C >= 0) {
		return SmallDec{}, false
	}
	return SmallDec{C: s, E: l.E}, true
}

// mulSmall is l × r; false past int64.
func mulSmall(l, r SmallDec) (SmallDec, bool) {
	if l.C == math.MinInt64 || r.C == math.MinInt64 {
		return SmallDec{}, false
	}
	hi, lo := bits.Mul64(uint64(abs64(l.C)), uint64(abs64(r.C)))
	if hi != 0 || lo > math.MaxInt64 {
		return SmallDec{}, false
	}
	p := int64(lo)
	if (l.C < 0) != (r.C < 0) {
		p = -p
	}
	return SmallDec{C: p, E: l.E + r.E}, true
}

// mulPow10 is n * 10^k, ok=false past int64.
func mulPow10(n int64, k int32) (int64, bool) {
	if k == 0 || n == 0 {
		return n, true
	}
	if k < 0 || int(k) >= len(pow10) {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(abs64(n)), uint64(pow10[k]))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if n < 0 {
		return -int64(lo), true
	}
	return int64(lo), true
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// Pow10 is pow10[k], 10^k, for k up to 18 (storeval's DECIMAL path).
func Pow10(k int32) int64 { return pow10[k] }

// pow10 are the powers of ten an int64 holds.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()
