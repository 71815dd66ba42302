package functions

import (
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// TIME_FORMAT(time, format) as MySQL's make_date_time formats a TIME:
// %H and %k print every digit of the hour (TIME_FORMAT('100:00:00',
// '%H') is 100), %h, %I and %l the hour of a 12-hour clock, %k and %l
// without padding, %p and %r by the hour of the day, a negative TIME
// with its sign; a date specifier makes the result NULL. GMS took the
// hour modulo 24 and printed %k and %l as the letters.

func newTimeFormat(t, f sql.Expression) sql.Expression {
	var self func(args ...sql.Expression) (sql.Expression, error)
	self = func(args ...sql.Expression) (sql.Expression, error) {
		return &delegate{name: "time_format", args: args, gms: function.NewTimeFormat(args[0], args[1]), mk: self, eval: timeFormat}, nil
	}
	e, _ := self(t, f)
	return e
}

func timeFormat(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
	v, err := args[0].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, true, err
	}
	fv, err := args[1].Eval(ctx, row)
	if err != nil || fv == nil {
		return nil, true, err
	}
	format, ok := fv.(string)
	if !ok {
		return nil, false, nil
	}
	var neg bool
	var hours, minutes, seconds, micros int64
	ts, isNull, isTimeText := timeOf(ctx, v)
	if !isTimeText {
		// A DATETIME, or text with a date: its time of day (GMS failed
		// text with a date, 1105).
		dt, _, err := types.DatetimeMaxPrecision.Convert(ctx, v)
		tm, ok := dt.(time.Time)
		if err != nil || !ok {
			ctx.Warn(1292, "Incorrect time value: '%v'", v)
			return nil, true, nil
		}
		hours, minutes, seconds, micros = int64(tm.Hour()), int64(tm.Minute()), int64(tm.Second()), int64(tm.Nanosecond()/1000)
	} else {
		if isNull {
			return nil, true, nil
		}
		us := ts.AsMicroseconds()
		if us < 0 {
			neg, us = true, -us
		}
		hours, minutes, seconds, micros = us/3_600_000_000, us/60_000_000%60, us/1_000_000%60, us%1_000_000
	}
	pad2 := func(n int64) string {
		if n < 10 {
			return "0" + strconv.FormatInt(n, 10)
		}
		return strconv.FormatInt(n, 10)
	}
	h12 := (hours%24+11)%12 + 1
	ampm := "AM"
	if hours%24 >= 12 {
		ampm = "PM"
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'H':
			b.WriteString(pad2(hours))
		case 'k':
			b.WriteString(strconv.FormatInt(hours, 10))
		case 'h', 'I':
			b.WriteString(pad2(h12))
		case 'l':
			b.WriteString(strconv.FormatInt(h12, 10))
		case 'i':
			b.WriteString(pad2(minutes))
		case 's', 'S':
			b.WriteString(pad2(seconds))
		case 'f':
			b.WriteString((strconv.FormatInt(micros+1_000_000, 10))[1:])
		case 'p':
			b.WriteString(ampm)
		case 'r':
			b.WriteString(pad2(h12) + ":" + pad2(minutes) + ":" + pad2(seconds) + " " + ampm)
		case 'T':
			b.WriteString(pad2(hours) + ":" + pad2(minutes) + ":" + pad2(seconds))
		case 'a', 'b', 'c', 'D', 'd', 'e', 'j', 'M', 'm', 'U', 'u', 'V', 'v', 'W', 'w', 'X', 'x', 'Y', 'y':
			return nil, true, nil // a date's part: NULL, as MySQL's
		default:
			b.WriteByte(format[i])
		}
	}
	return b.String(), true, nil
}
