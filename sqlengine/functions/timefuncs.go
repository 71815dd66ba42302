package functions

import (
	"fmt"
	"math"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// SEC_TO_TIME and MAKETIME, which GMS lacks (1305), as MySQL 8's:
//   - SEC_TO_TIME(s): the TIME s seconds long, with s's decimals (up to 6;
//     6 for a DOUBLE or text), clipped to ±838:59:59 with warning 1292;
//   - MAKETIME(h, m, s): NULL unless 0 <= m < 60 and 0 <= s < 60; the
//     hour clipped to ±838 with 1292;
// GMS's TIME has no precision (it prints a fraction with six digits), so a
// result with decimals is its text, the column typed as a string.

// maxTimeSeconds is 838:59:59.
const maxTimeSeconds = 838*3600 + 59*60 + 59

func newSecToTime(args ...sql.Expression) (sql.Expression, error) {
	if len(args) != 1 {
		return nil, sql.ErrInvalidArgumentNumber.New("SEC_TO_TIME", 1, len(args))
	}
	fsp := timeArgDecimals(args[0])
	return &scalarFn{name: "sec_to_time", args: args, typ: timeResultType(fsp), mk: newSecToTime, eval: func(ctx *sql.Context, vals []any) (any, error) {
		if vals[0] == nil {
			return nil, nil
		}
		d, ok := argDecimal(ctx, vals[0])
		if !ok {
			return nil, nil
		}
		return timeOfSeconds(ctx, d, fsp, func() string { return fmt.Sprint(vals[0]) }), nil
	}}, nil
}

func newMakeTime(args ...sql.Expression) (sql.Expression, error) {
	if len(args) != 3 {
		return nil, sql.ErrInvalidArgumentNumber.New("MAKETIME", 3, len(args))
	}
	fsp := timeArgDecimals(args[2])
	return &scalarFn{name: "maketime", args: args, typ: timeResultType(fsp), mk: newMakeTime, eval: func(ctx *sql.Context, vals []any) (any, error) {
		if anyNull(vals) {
			return nil, nil
		}
		h, m := argInt(ctx, vals[0]), argInt(ctx, vals[1])
		s, ok := argDecimal(ctx, vals[2])
		if !ok || m < 0 || m > 59 || s.Sign() < 0 || s.GreaterThanOrEqual(decimal.NewFromInt(60)) {
			return nil, nil
		}
		neg := h < 0
		if neg {
			h = -h
		}
		total := decimal.NewFromInt(min(h, 839)*3600 + m*60).Add(s)
		if neg {
			total = total.Neg()
		}
		return timeOfSeconds(ctx, total, fsp, func() string {
			sign := ""
			if neg {
				sign = "-"
			}
			return fmt.Sprintf("%s%02d:%02d:%s", sign, h, m, s.String())
		}), nil
	}}, nil
}

// timeArgDecimals is the fractional digits a TIME made from e has.
func timeArgDecimals(e sql.Expression) int {
	t := e.Type()
	switch {
	case types.IsDecimal(t):
		return min(int(t.(sql.DecimalType).Scale()), 6)
	case types.IsInteger(t), t == types.Null:
		return 0
	}
	return 6
}

func timeResultType(fsp int) sql.Type {
	if fsp == 0 {
		return types.Time
	}
	return types.LongText
}

func argDecimal(ctx *sql.Context, v any) (decimal.Decimal, bool) {
	switch x := v.(type) {
	case decimal.Decimal:
		return x, true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return decimal.Zero, false
		}
		return decimal.NewFromFloat(x), true
	case string:
		return decimal.NewFromFloat(textDouble(ctx, x)), true
	}
	d, _, err := types.InternalDecimalType.Convert(ctx, v)
	if err != nil {
		return decimal.Zero, false
	}
	dd, ok := d.(decimal.Decimal)
	return dd, ok
}

// timeOfSeconds is the TIME secs long at fsp digits (a Timespan when fsp
// is 0, else its text), clipped to ±838:59:59 with warning 1292 naming
// arg().
func timeOfSeconds(ctx *sql.Context, secs decimal.Decimal, fsp int, arg func() string) any {
	secs = secs.Round(int32(fsp))
	limit := decimal.NewFromInt(maxTimeSeconds)
	if secs.Abs().GreaterThan(limit) {
		ctx.Warn(1292, "Truncated incorrect time value: '%s'", arg())
		if secs.Sign() < 0 {
			secs = limit.Neg()
		} else {
			secs = limit
		}
	}
	micros := secs.Shift(6).IntPart()
	if fsp == 0 {
		return types.Time.MicrosecondsToTimespan(micros)
	}
	neg := micros < 0
	if neg {
		micros = -micros
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	whole := micros / 1_000_000
	fmt.Fprintf(&b, "%02d:%02d:%02d.%06d", whole/3600, whole/60%60, whole%60, micros%1_000_000)
	return b.String()[:b.Len()-(6-fsp)]
}
