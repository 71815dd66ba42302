package arith

import (
	"math"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"

	"petrel/internal/mysqlerr"
)

// Casts of numbers GMS converts otherwise than MySQL:
//   - CAST(double AS SIGNED | UNSIGNED) rounds half to even, as MySQL's
//     val_int of a DOUBLE (rint): CAST(2.5e0 AS SIGNED) is 2 (GMS
//     rounded half away from zero: 3); a negative one as UNSIGNED is
//     the signed integer's bits (CAST(-2.5e0 AS UNSIGNED) is
//     18446744073709551614, without a warning; GMS clipped to 2^63);
//   - CAST(decimal AS SIGNED | UNSIGNED) rounds half away from zero; a
//     negative one as UNSIGNED is the signed integer's bits, as MySQL 8's
//     Item_typecast_unsigned (GMS gave 2^63 for any negative DECIMAL and
//     for one above 2^63); past the range it clips with 1292;
//   - CAST(bigint_unsigned AS SIGNED) wraps past 2^63-1, as MySQL's
//     (CAST(18446744073709551615 AS SIGNED) is -1; GMS clipped to
//     9223372036854775807);
//   - CAST(number AS DATETIME) reads the digits as YYYYMMDDhhmmss (or
//     YYMMDDhhmmss, or a date alone), as MySQL's number-to-datetime
//     conversion (GMS: NULL).

// castNumber is one of the casts above; gms is GMS's cast, for its name,
// type and the values it answers.
type castNumber struct {
	child sql.Expression
	gms   sql.Expression
	eval  func(ctx *sql.Context, v any) (out any, ok bool)
}

var _ sql.Expression = (*castNumber)(nil)

func (c *castNumber) Resolved() bool             { return c.child.Resolved() }
func (c *castNumber) String() string             { return c.gms.String() }
func (c *castNumber) Type() sql.Type             { return c.gms.Type() }
func (c *castNumber) IsNullable() bool           { return c.gms.IsNullable() }
func (c *castNumber) Children() []sql.Expression { return []sql.Expression{c.child} }

func (c *castNumber) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 1)
	}
	g, err := c.gms.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &castNumber{child: children[0], gms: g, eval: c.eval}, nil
}

func (c *castNumber) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	if out, ok := c.eval(ctx, v); ok {
		return out, nil
	}
	return c.gms.Eval(ctx, row)
}

// floatToInt is CAST(double AS SIGNED | UNSIGNED) within the range it
// reaches without clipping.
func floatToInt(unsigned bool) func(*sql.Context, any) (any, bool) {
	return func(_ *sql.Context, v any) (any, bool) {
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case float32:
			f = float64(x)
		default:
			return nil, false
		}
		r := math.RoundToEven(f)
		switch {
		case math.IsNaN(r) || r < -9.223372036854775808e18:
			return nil, false
		case r < 9.223372036854775808e18:
			if unsigned {
				if r < 0 {
					return uint64(int64(r)), true
				}
				return uint64(r), true
			}
			return int64(r), true
		case unsigned && r < 1.8446744073709551616e19:
			return uint64(r), true
		}
		return nil, false
	}
}

var (
	decMinInt64  = decimal.NewFromInt(math.MinInt64)
	decMaxInt64  = decimal.NewFromInt(math.MaxInt64)
	decMaxUint64 = decimal.RequireFromString("18446744073709551615")
)

// decimalToInt is CAST(decimal AS SIGNED | UNSIGNED).
func decimalToInt(unsigned bool) func(*sql.Context, any) (any, bool) {
	return func(ctx *sql.Context, v any) (any, bool) {
		d, ok := v.(decimal.Decimal)
		if !ok {
			return nil, false
		}
		r := d.Round(0)
		if unsigned && d.Sign() >= 0 {
			if r.GreaterThan(decMaxUint64) {
				ctx.Warn(mysqlerr.ErWrongValue, "Truncated incorrect DECIMAL value: '%s'", decText(d))
				return uint64(math.MaxUint64), true
			}
			return r.BigInt().Uint64(), true
		}
		var n int64
		switch {
		case r.LessThan(decMinInt64):
			ctx.Warn(mysqlerr.ErWrongValue, "Truncated incorrect DECIMAL value: '%s'", decText(d))
			n = math.MinInt64
		case r.GreaterThan(decMaxInt64):
			ctx.Warn(mysqlerr.ErWrongValue, "Truncated incorrect DECIMAL value: '%s'", decText(d))
			n = math.MaxInt64
		default:
			n = r.IntPart()
		}
		if unsigned {
			return uint64(n), true
		}
		return n, true
	}
}

// uintToSigned is CAST(bigint_unsigned AS SIGNED): the bits as signed.
func uintToSigned(_ *sql.Context, v any) (any, bool) {
	if u, ok := v.(uint64); ok {
		return int64(u), true
	}
	return nil, false
}

// numberToDatetime is CAST(integer AS DATETIME): its digits as a
// datetime, NULL with 1292 when they name none.
func numberToDatetime(ctx *sql.Context, v any) (any, bool) {
	n, big, _, ok := IntOperand(v)
	if !ok {
		return nil, false
	}
	digits := ""
	if !big && n >= 0 {
		digits = itoa(n)
		if l := len(digits); l == 5 || l == 7 || l == 11 || l == 13 {
			digits = "0" + digits // a leading zero the number lost
		}
	}
	p, ok := ParseDateDigits(digits)
	if !ok || p.Mo < 1 || p.Mo > 12 || p.D < 1 || p.D > DaysIn(p.Y, p.Mo) || p.H > 23 || p.Mi > 59 || p.S > 59 {
		ctx.Warn(mysqlerr.ErWrongValue, "Truncated incorrect datetime value: '%v'", v)
		return nil, true
	}
	return time.Date(p.Y, time.Month(p.Mo), p.D, p.H, p.Mi, p.S, 0, time.UTC), true
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// decText is d as written, its scale kept (18446744073709551616.0).
func decText(d decimal.Decimal) string {
	if e := d.Exponent(); e < 0 {
		return d.StringFixed(-e)
	}
	return d.String()
}
