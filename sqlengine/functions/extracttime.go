package functions

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
)

// EXTRACT(unit FROM time) of a TIME or of time text (no date part), for
// a unit of the time of day, as MySQL's Item_extract: the parts of the
// TIME, its sign on the result (EXTRACT(HOUR FROM '10:11:12') is 10,
// EXTRACT(HOUR FROM CAST('-10:00:00' AS TIME)) -10). GMS read the value
// as a DATETIME: NULL with 1292 for text, 14 for -10:00:00. Dates and
// other units stay GMS's.

func newExtract(unit, x sql.Expression) sql.Expression {
	var self func(args ...sql.Expression) (sql.Expression, error)
	self = func(args ...sql.Expression) (sql.Expression, error) {
		return &delegate{name: "extract", args: args, gms: function.NewExtract(args[0], args[1]), mk: self, eval: extractTime}, nil
	}
	e, _ := self(unit, x)
	return e
}

func extractTime(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
	u, err := args[0].Eval(ctx, row)
	if err != nil {
		return nil, true, err
	}
	unit, ok := u.(string)
	if !ok {
		return nil, false, nil
	}
	switch unit = strings.ToUpper(unit); unit {
	case "HOUR", "MINUTE", "SECOND", "MICROSECOND", "HOUR_MINUTE", "HOUR_SECOND", "HOUR_MICROSECOND",
		"MINUTE_SECOND", "MINUTE_MICROSECOND", "SECOND_MICROSECOND":
	default:
		return nil, false, nil
	}
	v, err := args[1].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, true, err
	}
	ts, isNull, ok := timeOf(ctx, v)
	if !ok {
		return nil, false, nil // a date and time: GMS's
	}
	if isNull {
		return nil, true, nil
	}
	us := ts.AsMicroseconds()
	sign := int64(1)
	if us < 0 {
		sign, us = -1, -us
	}
	h, m, s, f := us/3_600_000_000, us/60_000_000%60, us/1_000_000%60, us%1_000_000
	var n int64
	switch unit {
	case "HOUR":
		n = h
	case "MINUTE":
		n = m
	case "SECOND":
		n = s
	case "MICROSECOND":
		n = f
	case "HOUR_MINUTE":
		n = h*100 + m
	case "HOUR_SECOND":
		n = h*10000 + m*100 + s
	case "HOUR_MICROSECOND":
		n = (h*10000+m*100+s)*1_000_000 + f
	case "MINUTE_SECOND":
		n = m*100 + s
	case "MINUTE_MICROSECOND":
		n = (m*100+s)*1_000_000 + f
	case "SECOND_MICROSECOND":
		n = s*1_000_000 + f
	}
	return int(n * sign), true, nil
}
