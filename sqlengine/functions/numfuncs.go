package functions

import (
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
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
