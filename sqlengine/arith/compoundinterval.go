package arith

import (
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// An interval of a unit of several fields (INTERVAL '1:30' MINUTE_SECOND)
// read as MySQL's get_interval_value reads its value, whatever
// expression gives it: the value's text, leading spaces skipped, a '-'
// then negating the whole interval; its groups of digits, anything else
// between them, the fields from the right when there are fewer groups
// than fields ('5' MINUTE_SECOND is 5 seconds), NULL when there are
// more; a unit ending in MICROSECOND reads its last group as a fraction
// of a second, scaled to six digits ('1.5' SECOND_MICROSECOND is 1.5
// seconds). GMS matched the text against one pattern per unit, so a
// negative interval, one with fewer groups, and any interval given by a
// column or a parameter (INTERVAL col SECOND_MICROSECOND, whose text it
// did not scale) failed the statement (1105) or read 5 microseconds.

// compoundFields is the count of fields of each unit of several.
var compoundFields = map[string]int{
	"YEAR_MONTH": 2, "DAY_HOUR": 2, "DAY_MINUTE": 3, "DAY_SECOND": 4, "DAY_MICROSECOND": 5,
	"HOUR_MINUTE": 2, "HOUR_SECOND": 3, "HOUR_MICROSECOND": 4,
	"MINUTE_SECOND": 2, "MINUTE_MICROSECOND": 3, "SECOND_MICROSECOND": 2,
}

// intervalFieldText is v, an interval's value, as the text MySQL reads
// its fields from (a DECIMAL at its scale, a DOUBLE's shortest digits).
func intervalFieldText(ctx *sql.Context, v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	case decimal.Decimal:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32), true
	}
	s, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return "", false
	}
	str, ok := s.(string)
	return str, ok
}

// intervalFields reads text as the n fields of unit (see above); ok is
// false where MySQL's interval is NULL.
func intervalFields(text, unit string, n int) (vals []int64, neg, ok bool) {
	s := strings.TrimLeft(text, " \t\n\r\f\v")
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	i := 0
	skip := func() {
		for i < len(s) && !isDigit(s[i]) {
			i++
		}
	}
	skip()
	vals = make([]int64, n)
	got, lastLen := 0, 0
	for got < n {
		start := i
		var v int64
		for ; i < len(s) && isDigit(s[i]); i++ {
			if v > (1<<63-1-10)/10 {
				return nil, false, false
			}
			v = v*10 + int64(s[i]-'0')
		}
		vals[got], lastLen = v, i-start
		got++
		skip()
		if i == len(s) {
			break
		}
	}
	if i != len(s) {
		return nil, false, false // more groups than fields
	}
	if got < n { // the fields from the right
		copy(vals[n-got:], vals[:got])
		for j := 0; j < n-got; j++ {
			vals[j] = 0
		}
	}
	if strings.HasSuffix(unit, "_MICROSECOND") {
		switch {
		case lastLen > 0 && lastLen < 6:
			vals[n-1] *= pow10[6-lastLen]
		case lastLen > 24:
			vals[n-1] = 0
		case lastLen > 6: // past a microsecond: cut
			vals[n-1] /= pow10[lastLen-6]
		}
	}
	return vals, neg, true
}

// gmsIntervalText is vals as the text GMS's pattern for unit reads (the
// microseconds as a count of them).
func gmsIntervalText(unit string, vals []int64) string {
	f := func(i int) string { return strconv.FormatInt(vals[i], 10) }
	switch unit {
	case "YEAR_MONTH":
		return f(0) + "-" + f(1)
	case "DAY_HOUR":
		return f(0) + " " + f(1)
	case "DAY_MINUTE":
		return f(0) + " " + f(1) + ":" + f(2)
	case "DAY_SECOND":
		return f(0) + " " + f(1) + ":" + f(2) + ":" + f(3)
	case "DAY_MICROSECOND":
		return f(0) + " " + f(1) + ":" + f(2) + ":" + f(3) + "." + f(4)
	case "HOUR_MINUTE", "MINUTE_SECOND":
		return f(0) + ":" + f(1)
	case "HOUR_SECOND":
		return f(0) + ":" + f(1) + ":" + f(2)
	case "HOUR_MICROSECOND":
		return f(0) + ":" + f(1) + ":" + f(2) + "." + f(3)
	case "MINUTE_MICROSECOND":
		return f(0) + ":" + f(1) + "." + f(2)
	case "SECOND_MICROSECOND":
		return f(0) + "." + f(1)
	}
	return ""
}

// compoundAtRow is e, GMS's DATE_ADD or DATE_SUB, for row: when its
// interval's unit has several fields, the same function over the
// interval's fields as a literal GMS reads (a negative interval by the
// other function); null when MySQL's interval is NULL.
func compoundAtRow(ctx *sql.Context, e sql.Expression, row sql.Row) (out sql.Expression, null bool, err error) {
	ch := e.Children()
	if len(ch) != 2 {
		return e, false, nil
	}
	iv, ok := ch[1].(*expression.Interval)
	if !ok {
		return e, false, nil
	}
	n := compoundFields[iv.Unit]
	if n == 0 {
		return e, false, nil
	}
	v, err := iv.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, true, err
	}
	text, ok := intervalFieldText(ctx, v)
	if !ok {
		return nil, true, nil
	}
	vals, neg, ok := intervalFields(text, iv.Unit, n)
	if !ok {
		return nil, true, nil
	}
	lit := expression.NewInterval(expression.NewLiteral(gmsIntervalText(iv.Unit, vals), types.LongText), iv.Unit)
	_, sub := e.(*function.DateSub)
	if sub != neg {
		out, err = function.NewDateSub(ch[0], lit)
	} else {
		out, err = function.NewDateAdd(ch[0], lit)
	}
	return out, false, err
}

// intervalDelta is iv's delta for row, a unit of several fields read as
// MySQL reads it (nil: NULL).
func intervalDelta(ctx *sql.Context, iv *expression.Interval, row sql.Row) (*expression.TimeDelta, error) {
	n := compoundFields[iv.Unit]
	if n == 0 {
		return iv.EvalDelta(ctx, row)
	}
	v, err := iv.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	text, ok := intervalFieldText(ctx, v)
	if !ok {
		return nil, nil
	}
	vals, neg, ok := intervalFields(text, iv.Unit, n)
	if !ok {
		return nil, nil
	}
	if neg {
		for i := range vals {
			vals[i] = -vals[i]
		}
	}
	var td expression.TimeDelta
	fields := map[string][]*int64{
		"YEAR_MONTH": {&td.Years, &td.Months}, "DAY_HOUR": {&td.Days, &td.Hours},
		"DAY_MINUTE": {&td.Days, &td.Hours, &td.Minutes}, "DAY_SECOND": {&td.Days, &td.Hours, &td.Minutes, &td.Seconds},
		"DAY_MICROSECOND": {&td.Days, &td.Hours, &td.Minutes, &td.Seconds, &td.Microseconds},
		"HOUR_MINUTE":     {&td.Hours, &td.Minutes}, "HOUR_SECOND": {&td.Hours, &td.Minutes, &td.Seconds},
		"HOUR_MICROSECOND": {&td.Hours, &td.Minutes, &td.Seconds, &td.Microseconds},
		"MINUTE_SECOND":    {&td.Minutes, &td.Seconds}, "MINUTE_MICROSECOND": {&td.Minutes, &td.Seconds, &td.Microseconds},
		"SECOND_MICROSECOND": {&td.Seconds, &td.Microseconds},
	}[iv.Unit]
	for i, p := range fields {
		*p = vals[i]
	}
	return &td, nil
}
