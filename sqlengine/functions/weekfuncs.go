package functions

import (
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// WEEK(d[, mode]) as MySQL numbers weeks, and DATEDIFF of a value that
// is not a date. GMS's WEEK was wrong for several modes
// (WEEK('2024-12-31', 3) was 53 where MySQL's is 1, WEEK('2023-01-01',
// 7) 0 for 52); DATEDIFF('bad', ...) failed with 1105 where MySQL gives
// NULL and warning 1292.

// Bits of a week mode, as MySQL's week_mode gives them.
const (
	weekMondayFirst  = 1
	weekYear         = 2
	weekFirstWeekday = 4
)

func newWeek(args ...sql.Expression) (sql.Expression, error) {
	g, err := function.NewWeek(args...)
	if err != nil {
		return nil, err
	}
	return &delegate{name: "week", args: args, gms: g, mk: newWeek, eval: weekEval}, nil
}

func weekEval(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
	v, err := args[0].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, true, err
	}
	mode := int64(0)
	if len(args) > 1 {
		mv, err := args[1].Eval(ctx, row)
		if err != nil {
			return nil, true, err
		}
		if mv != nil {
			n, _, err := types.Int64.Convert(ctx, mv)
			if err != nil {
				return nil, false, nil
			}
			mode = n.(int64)
		}
	}
	tv, _, err := types.DatetimeMaxPrecision.Convert(ctx, v)
	if err != nil {
		return nil, false, nil // GMS's answer for a bad date
	}
	t, ok := tv.(time.Time)
	if !ok || t.Year() == 0 {
		return nil, false, nil
	}
	wm := int(mode & 7)
	if wm&weekMondayFirst == 0 {
		wm ^= weekFirstWeekday
	}
	w, _ := mysqlWeek(t, wm)
	return int32(w), true, nil
}

// mysqlWeek is MySQL's calc_week: t's week number under week mode bits
// wm, and the year it belongs to.
func mysqlWeek(t time.Time, wm int) (int, int) {
	mondayFirst := wm&weekMondayFirst != 0
	useWeekYear := wm&weekYear != 0
	firstWeekday := wm&weekFirstWeekday != 0
	year := t.Year()
	daynr := dayNumber(year, int(t.Month()), t.Day())
	firstDaynr := dayNumber(year, 1, 1)
	weekday := weekdayOf(year, 1, 1, mondayFirst)
	notFirst := func(wd int) bool { return firstWeekday && wd != 0 || !firstWeekday && wd >= 4 }
	if t.Month() == 1 && t.Day() <= 7-weekday {
		if !useWeekYear && notFirst(weekday) {
			return 0, year
		}
		useWeekYear = true
		year--
		days := daysInYear(year)
		firstDaynr -= days
		weekday = (weekday + 53*7 - days) % 7
	}
	var days int
	if notFirst(weekday) {
		days = daynr - (firstDaynr + 7 - weekday)
	} else {
		days = daynr - (firstDaynr - weekday)
	}
	if useWeekYear && days >= 52*7 {
		weekday = (weekday + daysInYear(year)) % 7
		if !firstWeekday && weekday < 4 || firstWeekday && weekday == 0 {
			return 1, year + 1
		}
	}
	return days/7 + 1, year
}

func dayNumber(y, m, d int) int {
	return int(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// weekdayOf is the day's weekday, 0 the week's first day.
func weekdayOf(y, m, d int, mondayFirst bool) int {
	wd := int(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Weekday()) // Sunday 0
	if mondayFirst {
		return (wd + 6) % 7
	}
	return wd
}

func daysInYear(y int) int {
	if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		return 366
	}
	return 365
}

func newDateDiff(a, b sql.Expression) sql.Expression {
	return &delegate{name: "datediff", args: []sql.Expression{a, b}, gms: function.NewDateDiff(a, b), mk: func(args ...sql.Expression) (sql.Expression, error) {
		return newDateDiff(args[0], args[1]), nil
	}, eval: func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
		for _, a := range args {
			v, err := a.Eval(ctx, row)
			if err != nil || v == nil {
				return nil, true, err
			}
			if _, _, err := types.DatetimeMaxPrecision.Convert(ctx, v); err != nil {
				ctx.Warn(1292, "Incorrect datetime value: '%v'", v)
				return nil, true, nil
			}
		}
		return nil, false, nil
	}}
}
