package arith

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"petrel/internal/mysqlerr"
)

// CAST(x AS DECIMAL(p,s)) of a value beyond DECIMAL(p,s) is its largest
// value of x's sign, with warning 1264, as MySQL's: GMS gave 0
// (CAST(1234.5 AS DECIMAL(4,2)) was 0.00 where MySQL's is 99.99, CAST(1e10
// AS DECIMAL(10,0)) 10000000000 where MySQL's is 9999999999). A number
// in range is rounded to the type's scale (GMS dropped a DOUBLE's zero
// decimals: 150 for 150.0). Text is read by its leading number, as
// MySQL's string-to-DECIMAL conversion reads it, with warning 1292
// ("Truncated incorrect DECIMAL value") when anything but trailing spaces
// follows it or there is none: GMS gave 0 without a warning
// (CAST('1x' AS DECIMAL(5,2)) was 0.00 where MySQL's is 1.00) and read
// '0x10' as hexadecimal (16). CAST(x AS DECIMAL) is DECIMAL(10,0) and
// DECIMAL(p) DECIMAL(p,0), as MySQL's: GMS kept DECIMAL(65,30), so that
// CAST(1.5 AS DECIMAL) was 1.5 where MySQL's is 2 (the precision 10 is
// written into the cast at parse time: decliteral.go).

// decCast is a CAST to DECIMAL(p,s) that clips.
type decCast struct {
	*expression.Convert
	p, s int32
	typ  sql.Type
}

func newDecCast(c *expression.Convert) sql.Expression {
	dt, ok := c.Type().(sql.DecimalType)
	if !ok {
		return nil
	}
	p, s := int32(dt.Precision()), int32(dt.Scale())
	if p == 65 && s == 30 {
		// GMS's type when the scale is 0 or absent (it keeps no
		// precision then): the declared precision, which only GMS's
		// rendering of the cast shows ("decimal(p)"; a CAST without
		// one was given 10 at parse time, decliteral.go). A conversion
		// of GMS's own ("decimal") keeps GMS's type.
		suffix, ok := strings.CutPrefix(c.String(), "convert("+c.Child.String()+", decimal(")
		if !ok {
			return nil
		}
		n, err := strconv.Atoi(strings.TrimSuffix(suffix, "))"))
		if err != nil || n < 1 || n > 65 {
			return nil
		}
		p, s = int32(n), 0
	}
	t, err := types.CreateColumnDecimalType(uint8(p), uint8(s))
	if err != nil {
		return nil
	}
	return &decCast{Convert: c, p: p, s: s, typ: t}
}

func (d *decCast) Type() sql.Type { return d.typ }

func (d *decCast) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	n, err := d.Convert.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	c, ok := n.(*expression.Convert)
	if !ok {
		return n, nil
	}
	return &decCast{Convert: c, p: d.p, s: d.s, typ: d.typ}, nil
}

func (d *decCast) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	var x decimal.Decimal
	switch t := v.(type) {
	case string:
		x = d.text(ctx, t)
	case []byte:
		if _, lit := d.Child.(*expression.Literal); lit && types.IsBlobType(d.Child.Type()) {
			// A hexadecimal literal is a number: GMS's conversion.
			return d.gms(ctx, row)
		}
		x = d.text(ctx, string(t))
	default:
		var ok bool
		if x, ok = exactDecimal(v); !ok {
			return d.gms(ctx, row)
		}
	}
	x = x.Round(d.s)
	limit := decimal.New(1, d.p-d.s).Sub(decimal.New(1, -d.s))
	if x.Abs().GreaterThan(limit) {
		ctx.Warn(1264, "Out of range value for column '%s' at row 1", d.Convert.String())
		if x.Sign() < 0 {
			return limit.Neg(), nil
		}
		return limit, nil
	}
	// At the type's scale: CAST(150e0 AS DECIMAL(4,1)) is 150.0.
	return x, nil
}

// gms is GMS's conversion, at the cast's type.
func (d *decCast) gms(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.Convert.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	out, _, err := d.typ.Convert(ctx, v)
	return out, err
}

// text reads s's leading number as a DECIMAL, warning 1292 when more
// than trailing spaces follows it or there is none.
func (d *decCast) text(ctx *sql.Context, s string) decimal.Decimal {
	start, end, ok := NumberSpan(s)
	var x decimal.Decimal
	if ok {
		var err error
		if x, err = decimal.NewFromString(s[start:end]); err != nil {
			ok = false
		}
	}
	if !ok || strings.TrimRight(s[end:], " \t\r\n") != "" {
		ctx.Warn(mysqlerr.ErWrongValue, "Truncated incorrect DECIMAL value: '%s'", s)
	}
	return x
}

// exactDecimal is v as an exact decimal when it is a number or a
// string that is one.
func exactDecimal(v any) (decimal.Decimal, bool) {
	switch x := v.(type) {
	case decimal.Decimal:
		return x, true
	case bool:
		return decimal.Decimal{}, false
	case float64:
		return decimal.NewFromFloat(x), true
	case float32:
		return decimal.NewFromFloat32(x), true
	case string:
		dv, err := decimal.NewFromString(strings.TrimSpace(x))
		return dv, err == nil
	}
	if n, isBig, u, ok := IntOperand(v); ok {
		if isBig {
			return decimal.NewFromBigInt(new(big.Int).SetUint64(u), 0), true
		}
		return decimal.NewFromInt(n), true
	}
	return decimal.Decimal{}, false
}
