package functions

import (
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// STR_TO_DATE with %p (or %r): GMS's parser read the AM/PM marker and
// dropped it, so STR_TO_DATE('1:02 PM', '%h:%i %p') was 01:02:00 where
// MySQL's is 13:02:00, and '12:30 AM' 12:30:00 for 00:30:00. Here GMS's
// value has its hour moved by the input's marker: PM adds 12 hours to
// hours 1 to 11, AM makes hour 12 hour 0. A NULL argument is NULL (GMS
// failed with 1105).
//
// A date with no month or day, or a month or day of 0, is NULL with
// warning 1411 (MySQL's under NO_ZERO_IN_DATE, in its default sql_mode;
// Petrel's dates hold no zero parts): GMS passed the parts to time.Date,
// so STR_TO_DATE('2024', '%Y') was 2023-11-30. Only formats of numeric
// parts are checked (strDateParts). So is a day past its month's end,
// NULL with 1411 as MySQL's check_date gives it without
// ALLOW_INVALID_DATES (GMS gave the next month: '2024-02-30' was
// 2024-03-01).

func newStrToDate(s, f sql.Expression) sql.Expression {
	g := function.NewStrToDate(s, f)
	return &delegate{name: "str_to_date", args: []sql.Expression{s, f}, gms: g, mk: func(args ...sql.Expression) (sql.Expression, error) {
		return newStrToDate(args[0], args[1]), nil
	}, eval: func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
		fv, err := args[1].Eval(ctx, row)
		if err != nil || fv == nil {
			return nil, true, err
		}
		sv, err := args[0].Eval(ctx, row)
		if err != nil || sv == nil {
			// NULL (GMS failed with 1105 "invalid type: <nil>").
			return nil, true, err
		}
		format, ok := fv.(string)
		if !ok {
			return nil, false, nil
		}
		in, ok := sv.(string)
		if !ok {
			return nil, false, nil
		}
		if y, m, d, ok := strDateParts(in, format); ok && (m >= 0 || d >= 0 || y >= 0) && !validDateParts(y, m, d) {
			ctx.Warn(1411, "Incorrect datetime value: '%s' for function str_to_date", in)
			return nil, true, nil
		}
		if !strings.Contains(format, "%p") && !strings.Contains(format, "%r") {
			return nil, false, nil
		}
		v, err := g.Eval(ctx, row)
		if err != nil || v == nil {
			return v, true, err
		}
		pm, found := meridiem(in)
		if !found {
			return v, true, nil
		}
		switch x := v.(type) {
		case time.Time:
			return x.Add(meridiemShift(x.Hour(), pm)), true, nil
		case types.Timespan:
			hour := int(x.AsMicroseconds() / 3_600_000_000)
			return x + types.Timespan(meridiemShift(hour, pm).Microseconds()), true, nil
		}
		return v, true, nil
	}}
}

// meridiemShift is what moves hour (1 to 12 on a clock) to its hour of
// the day.
func meridiemShift(hour int, pm bool) time.Duration {
	switch {
	case pm && hour >= 1 && hour <= 11:
		return 12 * time.Hour
	case !pm && hour == 12:
		return -12 * time.Hour
	}
	return 0
}

// meridiem finds an AM or PM word in s: whether it is PM, and whether
// there is one.
func meridiem(s string) (pm, found bool) {
	u := strings.ToUpper(s)
	for i := 0; i+2 <= len(u); i++ {
		w := u[i : i+2]
		if w != "AM" && w != "PM" {
			continue
		}
		if i > 0 && isLetter(u[i-1]) || i+2 < len(u) && isLetter(u[i+2]) {
			continue
		}
		return w == "PM", true
	}
	return false, false
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// strDateParts reads in by format as STR_TO_DATE does when format has
// numeric parts only (%Y %y %m %c %d %e, the time's %H %h %k %l %i %s %S
// %f %p %T %r, literals): the year, month and day read, -1 where format
// has none. ok is false for any other format or an input that does not
// match it (GMS's answer stands).
func strDateParts(in, format string) (year, month, day int, ok bool) {
	year, month, day = -1, -1, -1
	num := func(maxDigits int) (int, bool) {
		in = strings.TrimLeft(in, " ")
		n, i := 0, 0
		for ; i < len(in) && i < maxDigits && in[i] >= '0' && in[i] <= '9'; i++ {
			n = n*10 + int(in[i]-'0')
		}
		if i == 0 {
			return 0, false
		}
		in = in[i:]
		return n, true
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			if c == ' ' {
				continue
			}
			in = strings.TrimLeft(in, " ")
			if in == "" || in[0] != c {
				return 0, 0, 0, false
			}
			in = in[1:]
			continue
		}
		if i++; i == len(format) {
			return 0, 0, 0, false
		}
		var ok bool
		switch format[i] {
		case 'Y':
			year, ok = num(4)
		case 'y':
			if year, ok = num(2); ok {
				year += 2000
				if year >= 2070 {
					year -= 100
				}
			}
		case 'm', 'c':
			month, ok = num(2)
		case 'd', 'e':
			day, ok = num(2)
		case 'H', 'h', 'k', 'l', 'i', 's', 'S':
			_, ok = num(2)
		case 'f':
			_, ok = num(6)
		case 'T', 'r':
			// Hours, minutes and seconds: GMS's parser checks them.
			return year, month, day, true
		case 'p':
			in = strings.TrimLeft(in, " ")
			if u := strings.ToUpper(in); strings.HasPrefix(u, "AM") || strings.HasPrefix(u, "PM") {
				in, ok = in[2:], true
			}
		default:
			return 0, 0, 0, false
		}
		if !ok {
			return 0, 0, 0, false
		}
	}
	return year, month, day, true
}

// validDateParts: a date of these parts (-1: none read) holds no zero
// part and no day past its month's end. A time alone (no part read) is
// valid.
func validDateParts(year, month, day int) bool {
	if year < 0 && month < 0 && day < 0 {
		return true
	}
	if month < 1 || day < 1 {
		return false
	}
	// A year not read is year 0, which is no leap year.
	return month > 12 || day <= daysInMonth(max(year, 0), month)
}

// daysInMonth is the number of days of month (1 to 12) in year. MySQL's
// year 0 is no leap year (Go's proleptic year 0 is).
func daysInMonth(year, month int) int {
	if year == 0 && month == 2 {
		return 28
	}
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
