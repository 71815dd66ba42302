package arith

import (
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// A number compared with a DATE, DATETIME or TIMESTAMP is read as a
// date, as MySQL reads a constant compared with a temporal value: its
// digits (YYYYMMDD, YYYYMMDDhhmmss, YYMMDD...), and 0 the zero date, so
// `created_at > 0` holds for every date and `d = 20200101` for
// 2020-01-01. Digits that name no date are the zero date with 1292
// "Truncated incorrect datetime value". GMS compared the date with the
// number's text and found nothing (`WHERE created_at > 0` returned no
// row).

// numDateLiteral is lit, a number literal compared with col, a temporal
// expression, as a DATETIME literal; warn gives the 1292 of digits that
// are no date (false: leave lit as it is).
func numDateLiteral(col, lit sql.Expression, warn func(string) bool) (sql.Expression, bool) {
	ct := col.Type()
	if !(types.IsDateType(ct) || types.IsDatetimeType(ct) || types.IsTimestampType(ct)) {
		return nil, false
	}
	l, ok := lit.(*expression.Literal)
	if !ok || l.Value() == nil {
		return nil, false
	}
	var digits string
	var n int64
	switch v := l.Value().(type) {
	case decimal.Decimal:
		if !v.Equal(v.Truncate(0)) || v.Sign() < 0 || !v.LessThan(decimal.New(1, 15)) {
			return zeroDate(v.String(), warn)
		}
		n = v.IntPart()
	default:
		i, big, _, ok := IntOperand(v)
		if !ok {
			return nil, false
		}
		if big || i < 0 {
			return zeroDate(l.String(), warn)
		}
		n = i
	}
	if n == 0 {
		return expression.NewLiteral(types.DatetimeMaxPrecision.Zero(), types.DatetimeMaxPrecision), true
	}
	digits = itoa(n)
	if k := len(digits); k == 5 || k == 7 || k == 11 || k == 13 {
		digits = "0" + digits
	}
	p, ok := ParseDateDigits(digits)
	if !ok || p.Mo < 1 || p.Mo > 12 || p.D < 1 || p.D > DaysIn(p.Y, p.Mo) || p.H > 23 || p.Mi > 59 || p.S > 59 {
		return zeroDate(itoa(n), warn)
	}
	t := time.Date(p.Y, time.Month(p.Mo), p.D, p.H, p.Mi, p.S, 0, time.UTC)
	return expression.NewLiteral(t, types.DatetimeMaxPrecision), true
}

func zeroDate(text string, warn func(string) bool) (sql.Expression, bool) {
	if !warn("Truncated incorrect datetime value: '" + text + "'") {
		return nil, false
	}
	return expression.NewLiteral(types.DatetimeMaxPrecision.Zero(), types.DatetimeMaxPrecision), true
}

// numDateComparison is e, a comparison (=, <, IN, BETWEEN ...) of a
// temporal expression with number literals, with those literals read as
// dates; ok=false when e has none.
func numDateComparison(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	warn := func(msg string) bool { ctx.Warn(1292, "%s", msg); return true }
	switch x := e.(type) {
	case *expression.InTuple:
		tup, ok := x.Right().(expression.Tuple)
		if !ok {
			return nil, false
		}
		elems := make([]sql.Expression, len(tup))
		changed := false
		for i, el := range tup {
			elems[i] = el
			if z, ok := numDateLiteral(x.Left(), el, warn); ok {
				elems[i], changed = z, true
			}
		}
		if !changed {
			return nil, false
		}
		return expression.NewInTuple(x.Left(), expression.NewTuple(elems...)), true
	case *expression.Between:
		lo, okLo := numDateLiteral(x.Val, x.Lower, warn)
		hi, okHi := numDateLiteral(x.Val, x.Upper, warn)
		if !okLo && !okHi {
			return nil, false
		}
		if !okLo {
			lo = x.Lower
		}
		if !okHi {
			hi = x.Upper
		}
		return expression.NewBetween(x.Val, lo, hi), true
	case *expression.Equals, *expression.NullSafeEquals, *expression.LessThan, *expression.LessThanOrEqual, *expression.GreaterThan, *expression.GreaterThanOrEqual:
		c := x.(expression.Comparer)
		l, r := c.Left(), c.Right()
		if z, ok := numDateLiteral(l, r, warn); ok {
			r = z
		} else if z, ok := numDateLiteral(r, l, warn); ok {
			l = z
		} else {
			return nil, false
		}
		ne, err := x.WithChildren(l, r)
		if err != nil {
			return nil, false
		}
		return ne, true
	}
	return nil, false
}
