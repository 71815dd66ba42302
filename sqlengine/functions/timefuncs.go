package functions

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
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

// TIME_TO_SEC, HOUR, MINUTE, SECOND and MICROSECOND of a TIME, or of
// text that reads as one, as MySQL's: GMS read the argument as a
// DATETIME, so TIME_TO_SEC('10:00:00') and MICROSECOND('10:00:00.5')
// failed (1105), HOUR('838:00:00') and SECOND('10:00:59.9') were NULL
// with 1292, and a TIME past 24 hours or negative lost its sign and days.
// Text with a date ('2024-01-01 10:00:00') and DATETIME values stay with
// GMS's functions.

// timeOf reads v as a TIME when it is one or is text of one (no date
// part); ok=false leaves v to GMS.
func timeOf(ctx *sql.Context, v any) (ts types.Timespan, isNull, ok bool) {
	switch x := v.(type) {
	case types.Timespan:
		return x, false, true
	case string:
		s := strings.TrimSpace(x)
		if strings.Count(strings.TrimPrefix(s, "-"), "-") > 0 || strings.Contains(s, "/") {
			return 0, false, false // a date part
		}
		days := int64(0)
		neg := strings.HasPrefix(s, "-")
		if d, rest, found := strings.Cut(strings.TrimPrefix(s, "-"), " "); found && d != "" && strings.Trim(d, "0123456789") == "" {
			// 'D HH:MM:SS': D days.
			days, _ = strconv.ParseInt(d, 10, 64)
			s = strings.TrimSpace(rest)
		}
		t, err := types.Time.ConvertToTimespan(s)
		if err != nil {
			ctx.Warn(1292, "Truncated incorrect time value: '%s'", x)
			return 0, true, true
		}
		if days > 0 {
			us := t.AsMicroseconds() + days*86_400_000_000
			if neg {
				us = -us
			}
			t = types.Time.MicrosecondsToTimespan(us)
		}
		return t, false, true
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64:
		// HHMMSS.
		return timeOf(ctx, fmt.Sprint(x))
	}
	return 0, false, false
}

// timePart is a function of a TIME's parts (GMS's mk for the rest).
func timePart(name string, mk func(sql.Expression) sql.Expression, typ sql.Type, part func(neg bool, micros int64) any) func(sql.Expression) sql.Expression {
	var f func(sql.Expression) sql.Expression
	f = func(x sql.Expression) sql.Expression {
		return &delegate{name: name, args: []sql.Expression{x}, gms: mk(x), typ: typ, mk: func(args ...sql.Expression) (sql.Expression, error) {
			return f(args[0]), nil
		}, eval: func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
			v, err := args[0].Eval(ctx, row)
			if err != nil || v == nil {
				return nil, true, err
			}
			ts, isNull, ok := timeOf(ctx, v)
			if !ok {
				return nil, false, nil
			}
			if isNull {
				return nil, true, nil
			}
			us := ts.AsMicroseconds()
			neg := us < 0
			if neg {
				us = -us
			}
			return part(neg, us), true, nil
		}}
	}
	return f
}

func newTimeToSec(x sql.Expression) sql.Expression {
	scale := 0
	if lit, ok := x.(*expression.Literal); ok {
		if s, ok := lit.Value().(string); ok {
			if _, frac, found := strings.Cut(s, "."); found {
				scale = min(len(strings.TrimSpace(frac)), 6)
			}
		}
	}
	typ := sql.Type(types.Int64)
	if scale > 0 {
		typ = types.MustCreateDecimalType(uint8(scale+10), uint8(scale))
	}
	return timePart("time_to_sec", function.NewTimeToSec, typ, func(neg bool, us int64) any {
		if neg {
			us = -us
		}
		if scale == 0 {
			return us / 1_000_000
		}
		return decimal.New(us, -6).Round(int32(scale))
	})(x)
}

var (
	newHourOf = timePart("hour", function.NewHour, types.Int32, func(_ bool, us int64) any {
		return int32(us / 3_600_000_000)
	})
	newMinuteOf = timePart("minute", function.NewMinute, types.Int32, func(_ bool, us int64) any {
		return int32(us / 60_000_000 % 60)
	})
	newSecondOf = timePart("second", function.NewSecond, types.Int32, func(_ bool, us int64) any {
		return int32(us / 1_000_000 % 60)
	})
	newMicrosecondOf = timePart("microsecond", function.NewMicrosecond, types.Int32, func(_ bool, us int64) any {
		return int32(us % 1_000_000)
	})
)

// LENGTH and CHAR_LENGTH of a TIME or a DATE count its text, as of any
// temporal value (GMS counted a DATE as a DATETIME, 19); of a TIME GMS failed converting the TIME to a string (1105
// "incompatible conversion to SQL type"), so LENGTH(time_col) and
// LENGTH(SEC_TO_TIME(n)) failed.
func newTimeLength(name string, mk func(sql.Expression) sql.Expression) func(sql.Expression) sql.Expression {
	var f func(sql.Expression) sql.Expression
	f = func(x sql.Expression) sql.Expression {
		return &delegate{name: name, args: []sql.Expression{x}, gms: mk(x), mk: func(args ...sql.Expression) (sql.Expression, error) {
			return f(args[0]), nil
		}, eval: func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
			isDate := args[0].Type().Type() == sqltypes.Date
			if !types.IsTimespan(args[0].Type()) && !isDate {
				return nil, false, nil
			}
			v, err := args[0].Eval(ctx, row)
			if err != nil || v == nil {
				return nil, true, err
			}
			if isDate {
				// 'YYYY-MM-DD' (GMS counted a DATETIME's 19).
				if _, ok := v.(time.Time); ok {
					return int32(10), true, nil
				}
				return nil, false, nil
			}
			ts, ok := v.(types.Timespan)
			if !ok {
				return nil, false, nil
			}
			return int32(len(ts.String())), true, nil
		}}
	}
	return f
}
