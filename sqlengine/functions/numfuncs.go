package functions

import (
	"math"
	"math/big"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"petrel/internal/mysqlerr"
)

// SIGN, CEIL and FLOOR as MySQL's.
//   - SIGN(x) of a DECIMAL or DOUBLE is x's sign; GMS took the sign of x
//     rounded to an integer, so SIGN(0.05) and SIGN(-0.4e0) were 0.
//   - CEIL(x) and FLOOR(x) of a DECIMAL(p,s) are a BIGINT when their
//     p-s+1 digits fit in 18, else a DECIMAL(p-s+1, 0); of a DOUBLE or a
//     string, a DOUBLE. GMS typed them INT, so CEILING of
//     12345678901234567890.5 was 2147483647, and a CREATE TABLE ... AS
//     SELECT CEIL(dec_col) made an INT column.

func newSign(x sql.Expression) sql.Expression {
	return &delegate{name: "sign", args: []sql.Expression{x}, gms: function.NewSign(x), mk: func(args ...sql.Expression) (sql.Expression, error) {
		return newSign(args[0]), nil
	}, eval: signEval}
}

func signEval(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
	t := args[0].Type()
	if !types.IsDecimal(t) && !types.IsFloat(t) {
		return nil, false, nil
	}
	v, err := args[0].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, true, err
	}
	switch x := v.(type) {
	case decimal.Decimal:
		return int8(x.Sign()), true, nil
	case float64:
		return floatSign(x), true, nil
	case float32:
		return floatSign(float64(x)), true, nil
	}
	return nil, false, nil
}

func floatSign(f float64) int8 {
	switch {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return 0
}

func newCeil(x sql.Expression) sql.Expression  { return newIntVal("ceil", x, true) }
func newFloor(x sql.Expression) sql.Expression { return newIntVal("floor", x, false) }

// newIntVal is CEIL(x) (up) or FLOOR(x).
func newIntVal(name string, x sql.Expression, up bool) sql.Expression {
	var g sql.Expression
	if up {
		g = function.NewCeil(x)
	} else {
		g = function.NewFloor(x)
	}
	dl := &delegate{name: name, args: []sql.Expression{x}, gms: g, mk: func(args ...sql.Expression) (sql.Expression, error) {
		return newIntVal(name, args[0], up), nil
	}}
	dl.typ = intValType(x)
	dl.eval = func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
		if dl.typ == nil {
			return nil, false, nil
		}
		v, err := args[0].Eval(ctx, row)
		if err != nil || v == nil {
			return nil, true, err
		}
		if d, ok := v.(decimal.Decimal); ok {
			if up {
				d = d.Ceil()
			} else {
				d = d.Floor()
			}
			if dl.typ == types.Int64 {
				return d.IntPart(), true, nil
			}
			return d, true, nil
		}
		f, _, err := types.Float64.Convert(ctx, v)
		if err != nil {
			// MySQL reads a string's leading number; GMS answers.
			return nil, false, nil
		}
		if up {
			return math.Ceil(f.(float64)), true, nil
		}
		return math.Floor(f.(float64)), true, nil
	}
	return dl
}

// intValType is MySQL's type of CEIL(x) and FLOOR(x) where it is not
// GMS's (nil: integers, GMS's).
func intValType(x sql.Expression) sql.Type {
	if !x.Resolved() {
		return nil
	}
	t := x.Type()
	switch {
	case types.IsInteger(t), t == types.Null:
		return nil
	case types.IsDecimal(t):
		dt := t.(sql.DecimalType)
		digits := int(dt.Precision()) - int(dt.Scale()) + 1
		if digits <= 18 {
			return types.Int64
		}
		return types.MustCreateDecimalType(uint8(min(digits, types.DecimalTypeMaxPrecision)), 0)
	case types.IsNumber(t), types.IsText(t):
		return types.Float64
	}
	return nil
}

// ABS of BIGINT's least value and POW beyond DOUBLE's range are error
// 1690 (ER_DATA_OUT_OF_RANGE), as MySQL's: GMS gave
// ABS(-9223372036854775808) as itself and POW(10, 400) as NULL. POW of
// an integer exponent is the correctly rounded power (Go's math.Pow
// multiplies: POW(10, 308) was 1.0000000000000006e308).

func newAbs(x sql.Expression) sql.Expression {
	d := &delegate{name: "abs", args: []sql.Expression{x}, gms: function.NewAbsVal(x), mk: func(args ...sql.Expression) (sql.Expression, error) {
		return newAbs(args[0]), nil
	}, eval: func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
		text := types.IsText(args[0].Type())
		if !types.IsSigned(args[0].Type()) && !text {
			return nil, false, nil
		}
		v, err := args[0].Eval(ctx, row)
		if err != nil || v == nil {
			return nil, true, err
		}
		if s, ok := v.(string); ok && text {
			// A DOUBLE, as MySQL reads text in a number's place (GMS
			// gave NULL).
			return math.Abs(textDouble(ctx, s)), true, nil
		}
		if n, ok := v.(int64); ok && n == math.MinInt64 {
			return nil, true, mysqlerr.New(mysqlerr.ErDataOutOfRange, "BIGINT value is out of range in 'abs(%s)'", args[0])
		}
		return nil, false, nil
	}}
	if types.IsText(x.Type()) {
		d.typ = types.Float64
	}
	return d
}

func newPow(x, y sql.Expression) sql.Expression {
	return &delegate{name: "pow", args: []sql.Expression{x, y}, gms: function.NewPower(x, y), mk: func(args ...sql.Expression) (sql.Expression, error) {
		return newPow(args[0], args[1]), nil
	}, typ: types.Float64, eval: func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
		var f [2]float64
		for i, a := range args {
			v, err := a.Eval(ctx, row)
			if err != nil || v == nil {
				return nil, true, err
			}
			if s, ok := v.(string); ok {
				f[i] = textDouble(ctx, s)
				continue
			}
			c, _, err := types.Float64.Convert(ctx, v)
			if err != nil {
				return nil, false, nil
			}
			f[i] = c.(float64)
		}
		r := power(f[0], f[1])
		if math.IsInf(r, 0) || math.IsNaN(r) {
			return nil, true, mysqlerr.New(mysqlerr.ErDataOutOfRange, "DOUBLE value is out of range in 'pow(%s,%s)'", args[0], args[1])
		}
		return r, true, nil
	}}
}

// power is x^y, correctly rounded for an integer y of at most 1100 (the
// exact power at 512 bits, rounded once).
func power(x, y float64) float64 {
	if y != math.Trunc(y) || math.Abs(y) > 1100 || x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return math.Pow(x, y)
	}
	n := int64(math.Abs(y))
	const prec = 512
	z := new(big.Float).SetPrec(prec).SetFloat64(1)
	b := new(big.Float).SetPrec(prec).SetFloat64(x)
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			z.Mul(z, b)
		}
		b.Mul(b, b)
	}
	if y < 0 {
		z.Quo(new(big.Float).SetPrec(prec).SetFloat64(1), z)
	}
	r, _ := z.Float64()
	return r
}

// newExp is EXP(x) with MySQL's overflow check: a result past the DOUBLE
// range is error 1690 ("DOUBLE value is out of range in 'exp(x)'"); GMS
// answered NULL.
func newExp(x sql.Expression) sql.Expression {
	return &delegate{name: "exp", args: []sql.Expression{x}, gms: function.NewExp(x), mk: func(args ...sql.Expression) (sql.Expression, error) {
		return newExp(args[0]), nil
	}, typ: types.Float64, eval: func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
		v, err := args[0].Eval(ctx, row)
		if err != nil || v == nil {
			return nil, true, err
		}
		var f float64
		if s, ok := v.(string); ok {
			f = textDouble(ctx, s)
		} else {
			c, _, err := types.Float64.Convert(ctx, v)
			if err != nil {
				return nil, false, nil
			}
			f = c.(float64)
		}
		r := math.Exp(f)
		if math.IsInf(r, 0) || math.IsNaN(r) {
			return nil, true, mysqlerr.New(mysqlerr.ErDataOutOfRange, "DOUBLE value is out of range in 'exp(%s)'", args[0])
		}
		return r, true, nil
	}}
}
