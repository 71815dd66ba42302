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

	"petrel/sqlengine/arith"
)

// DATE_FORMAT, MONTHNAME and the date parts (YEAR, MONTH, DAY, ...) of
// a value that is no date are NULL with
// warning 1292, as MySQL's: GMS failed the statement (1105 "Incorrect
// datetime value"), for a bad string ('2024-02-30', '') and for an
// integer date too (DATE_FORMAT(20240229, '%Y') failed; MySQL reads
// YYYYMMDD and YYYYMMDDHHMMSS numbers as dates).

func newDateFormat(d, f sql.Expression) sql.Expression {
	return badDateNull("date_format", []sql.Expression{d, f}, func(args ...sql.Expression) sql.Expression {
		return function.NewDateFormat(args[0], args[1])
	})
}

func newMonthName(d sql.Expression) sql.Expression {
	return badDateNull("monthname", []sql.Expression{d}, func(args ...sql.Expression) sql.Expression {
		return function.NewMonthName(args[0])
	})
}

// datePart is GMS's one-argument date function name over an integer
// date or a value that is no date as badDateNull reads them: DAY(20240229)
// was NULL with a garbled warning ('%!s(int32=20240229)'), MySQL's is 29.
func datePart(name string, mk func(sql.Expression) sql.Expression) func(sql.Expression) sql.Expression {
	return func(d sql.Expression) sql.Expression {
		if d.Resolved() && types.IsTime(d.Type()) {
			return mk(d) // a DATE or DATETIME: GMS's, its argument read once
		}
		return badDateNull(name, []sql.Expression{d}, func(args ...sql.Expression) sql.Expression {
			return mk(args[0])
		})
	}
}

// badDateNull is GMS's function mk over args, its first a date: an
// integer date read as its digits, a conversion failure NULL with 1292.
func badDateNull(name string, args []sql.Expression, mk func(...sql.Expression) sql.Expression) sql.Expression {
	var self func(args ...sql.Expression) (sql.Expression, error)
	self = func(args ...sql.Expression) (sql.Expression, error) {
		g := mk(args...)
		return &delegate{name: name, args: args, gms: g, mk: self, eval: func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
			v, err := args[0].Eval(ctx, row)
			if err != nil || v == nil {
				return nil, true, err
			}
			e := g
			if s, ok := integerDate(v); ok {
				rest := append([]sql.Expression{expression.NewLiteral(s, types.LongText)}, args[1:]...)
				e = mk(rest...)
			}
			out, err := e.Eval(ctx, row)
			if err != nil && types.ErrConvertingToTime.Is(err) {
				ctx.Warn(1292, "Incorrect datetime value: '%v'", v)
				return nil, true, nil
			}
			return out, true, err
		}}, nil
	}
	e, _ := self(args...)
	return e
}

// integerDate is an integer's digits as date text: YYYYMMDD or
// YYYYMMDDHHMMSS (YYMMDD with MySQL's 70-69 year window).
func integerDate(v any) (string, bool) {
	switch v.(type) {
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64:
	default:
		return "", false
	}
	s := fmt.Sprint(v)
	switch len(s) {
	case 6:
		y := "20"
		if s[0] >= '7' {
			y = "19"
		}
		return y + s[:2] + "-" + s[2:4] + "-" + s[4:], true
	case 8:
		return s[:4] + "-" + s[4:6] + "-" + s[6:], true
	case 14:
		return s[:4] + "-" + s[4:6] + "-" + s[6:8] + " " + s[8:10] + ":" + s[10:12] + ":" + s[12:], true
	}
	return "", false
}

// Day numbers past 9999-12-31 (3652424): MySQL's get_date_from_daynr
// gives year 10000 up to 3652499, which FROM_DAYS refuses (NULL with
// 1441, ER_DATETIME_FUNCTION_OVERFLOW), and the zero date from 3652500
// on; GMS failed the statement (1105, "outside of date range").
const (
	lastDayNumber    = 3652424 // TO_DAYS('9999-12-31')
	zeroDayNumberMin = 3652500 // get_date_from_daynr's zero date from here on
)

func newFromDays(d sql.Expression) sql.Expression {
	var self func(args ...sql.Expression) (sql.Expression, error)
	self = func(args ...sql.Expression) (sql.Expression, error) {
		return &delegate{name: "from_days", args: args, gms: function.NewFromDays(args[0]), mk: self, eval: fromDaysBeyond}, nil
	}
	e, _ := self(d)
	return e
}

// fromDaysBeyond answers FROM_DAYS of a day number past 9999-12-31, and
// of text read by its leading number (GMS's warning quoted its own
// error), others through GMS's over the number; false leaves what the
// number is not to GMS's.
func fromDaysBeyond(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
	v, err := args[0].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, true, err
	}
	if s, ok := v.(string); ok {
		start, end, ok := arith.NumberSpan(s)
		var f float64
		if ok {
			f, _ = strconv.ParseFloat(s[start:end], 64)
		}
		if !ok || strings.TrimRight(s[end:], " \t\r\n") != "" {
			ctx.Warn(1292, "Truncated incorrect INTEGER value: '%s'", s)
		}
		v = math.Round(f)
	}
	n, _, err := types.Int64.Convert(ctx, v)
	days, ok := n.(int64)
	if err != nil || !ok {
		return nil, false, nil
	}
	if days <= lastDayNumber {
		out, err := function.NewFromDays(expression.NewLiteral(days, types.Int64)).Eval(ctx, nil)
		return out, true, err
	}
	if days >= zeroDayNumberMin {
		return "0000-00-00", true, nil
	}
	ctx.Warn(1441, "Datetime function: from_days field overflow")
	return nil, true, nil
}

// TO_SECONDS(date), which GMS lacks (1305): the seconds since year 0,
// TO_DAYS of the date times 86400 plus its time of day (the fraction
// left out, as MySQL's); an integer date read by its digits; NULL with
// 1292 for a value that is no date.
func newToSeconds(d sql.Expression) sql.Expression {
	var self func(args ...sql.Expression) (sql.Expression, error)
	self = func(args ...sql.Expression) (sql.Expression, error) {
		return &delegate{name: "to_seconds", args: args, gms: function.NewToDays(args[0]), mk: self, typ: types.Int64, eval: toSeconds}, nil
	}
	e, _ := self(d)
	return e
}

func toSeconds(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
	v, err := args[0].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, true, err
	}
	in := v
	if s, ok := integerDate(v); ok {
		in = s
	}
	t, _, err := types.DatetimeMaxPrecision.Convert(ctx, in)
	tm, ok := t.(time.Time)
	if err != nil || !ok {
		ctx.Warn(1292, "Incorrect datetime value: '%v'", v)
		return nil, true, nil
	}
	days, err := function.NewToDays(expression.NewLiteral(tm, types.DatetimeMaxPrecision)).Eval(ctx, nil)
	n, isInt := days.(int)
	if err != nil || !isInt {
		return nil, true, err
	}
	return int64(n)*86400 + int64(tm.Hour()*3600+tm.Minute()*60+tm.Second()), true, nil
}
