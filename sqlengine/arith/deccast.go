package arith

import (
	"math/big"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/shopspring/decimal"
)

// CAST(x AS DECIMAL(p,s)) of a value beyond DECIMAL(p,s) is its largest
// value of x's sign, with warning 1264, as MySQL's: GMS gave 0
// (CAST(1234.5 AS DECIMAL(4,2)) was 0.00 where MySQL's is 99.99, CAST(1e10
// AS DECIMAL(10,0)) 10000000000 where MySQL's is 9999999999). A number
// in range is rounded to the type's scale (GMS dropped a DOUBLE's zero
// decimals: 150 for 150.0); strings in range are GMS's.

// decCast is a CAST to DECIMAL(p,s) that clips.
type decCast struct {
	*expression.Convert
	p, s int32
}

func newDecCast(c *expression.Convert) sql.Expression {
	dt, ok := c.Type().(sql.DecimalType)
	if !ok || dt.Precision() == 65 && dt.Scale() == 30 {
		// GMS's type when it kept no precision (CAST(x AS DECIMAL),
		// some DECIMAL(p,0)): GMS's conversion.
		return nil
	}
	return &decCast{Convert: c, p: int32(dt.Precision()), s: int32(dt.Scale())}
}

func (d *decCast) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	n, err := d.Convert.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	c, ok := n.(*expression.Convert)
	if !ok {
		return n, nil
	}
	return &decCast{Convert: c, p: d.p, s: d.s}, nil
}

func (d *decCast) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	x, ok := exactDecimal(v)
	if ok {
		x = x.Round(d.s)
		limit := decimal.New(1, d.p-d.s).Sub(decimal.New(1, -d.s))
		if x.Abs().GreaterThan(limit) {
			ctx.Warn(1264, "Out of range value for column '%s' at row 1", d.Convert.String())
			if x.Sign() < 0 {
				return limit.Neg(), nil
			}
			return limit, nil
		}
		if _, isText := v.(string); !isText {
			// At the type's scale: CAST(150e0 AS DECIMAL(4,1)) is 150.0.
			return x, nil
		}
	}
	return d.Convert.Eval(ctx, row)
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
