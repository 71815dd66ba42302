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
		if !ok || !strings.Contains(format, "%p") && !strings.Contains(format, "%r") {
			return nil, false, nil
		}
		in, ok := sv.(string)
		if !ok {
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
