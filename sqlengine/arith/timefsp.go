package arith

import (
	"reflect"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"petrel/sqlengine/sqlmode"
)

// The fractional-seconds precision of a TIME expression, as MySQL
// derives it: a TIME(n) column's n, a literal's digits ('10:00:00.5'
// has 1), CAST(x AS TIME(n))'s n, and for a function the largest of its
// arguments' (ADDTIME(t, '0:00:01.25') of a TIME(1) has 2, TIME(x) and
// SEC_TO_TIME(x) x's). GMS's TIME has no precision: it printed six
// digits for every TIME expression with a fraction, read TIME(n) values
// as integers in arithmetic (TIME(2) '10:00:00.25' + 0 was 100000) and
// ignored CAST's n. TimeFSP gives the precision; trusted is false when
// a DATETIME expression of GMS's (which types many at precision 6 where
// MySQL's is 0) decided it.

// timeFSPSession is a session that knows its tables' TIME precisions.
type timeFSPSession interface {
	ColumnTimeFSP(col *sql.Column) int
}

// ColumnTimeFSP is the precision of TIME column col: its table's, as
// ctx's session knows it, else 6 (microseconds, GMS's).
func ColumnTimeFSP(ctx *sql.Context, col *sql.Column) int {
	if ctx == nil {
		return 6
	}
	if s, ok := ctx.Session.(timeFSPSession); ok {
		return s.ColumnTimeFSP(col)
	}
	return 6
}

// FSPer is an expression that knows its own precision (CURTIME(n)).
type FSPer interface {
	FSP() int
}

// TimeFSP is e's fractional-seconds precision (0 to 6) and whether it
// is MySQL's for certain.
func TimeFSP(ctx *sql.Context, e sql.Expression) (fsp int, trusted bool) {
	switch x := e.(type) {
	case FSPer:
		return x.FSP(), true
	case *expression.Alias:
		return TimeFSP(ctx, x.Child)
	case *expression.GetField:
		t := x.Type()
		switch {
		case types.IsTimespan(t):
			if ctx == nil {
				return 6, false
			}
			if _, ok := ctx.Session.(timeFSPSession); !ok {
				return 6, false
			}
			return ColumnTimeFSP(ctx, &sql.Column{Name: x.Name(), Source: x.Table(), DatabaseSource: x.Database()}), true
		case types.IsDatetimeType(t) || types.IsTimestampType(t):
			return t.(sql.DatetimeType).Precision(), true
		}
		return scaleOf(t), true
	case *expression.Literal:
		return literalFSP(x.Value()), true
	case *expression.Convert:
		t := x.Type()
		if types.IsTimespan(t) || types.IsDatetimeType(t) || types.IsTimestampType(t) {
			return ConvertFSP(x), true
		}
		if types.IsText(t) {
			return TimeFSP(ctx, x.Child)
		}
		return scaleOf(t), true
	}
	t := e.Type()
	if !types.IsTimespan(t) && !types.IsTime(t) {
		if types.IsText(t) {
			return 6, false
		}
		return scaleOf(t), true
	}
	if (types.IsDatetimeType(t) || types.IsTimestampType(t)) && !types.IsTimespan(t) {
		p := t.(sql.DatetimeType).Precision()
		return p, p < 6
	}
	// A TIME function: the largest of its value arguments'.
	fsp, trusted, any := 0, true, false
	for _, c := range e.Children() {
		if c == nil || types.IsBoolean(c.Type()) || isCondition(c) {
			continue
		}
		f, tr := TimeFSP(ctx, c)
		any = true
		if f > fsp {
			fsp = f
		}
		trusted = trusted && tr
	}
	if !any {
		return 6, false
	}
	return fsp, trusted
}

// isCondition: c is a comparison or logic operator (IF's and CASE's
// conditions), whose precision is no value's.
func isCondition(c sql.Expression) bool {
	switch c.(type) {
	case expression.Comparer, *expression.And, *expression.Or, *expression.Not, *expression.IsNull:
		return true
	}
	return false
}

// scaleOf is a number type's decimals as a precision: a DECIMAL's
// scale (at most 6), 0 for integers, 6 for floating point.
func scaleOf(t sql.Type) int {
	switch {
	case types.IsDecimal(t):
		if d, ok := t.(sql.DecimalType); ok {
			return min(int(d.Scale()), 6)
		}
	case types.IsFloat(t):
		return 6
	}
	return 0
}

// literalFSP is the precision of a literal value: a TIME's or a text's
// fractional digits, a DECIMAL's scale.
func literalFSP(v any) int {
	switch x := v.(type) {
	case types.Timespan:
		us := int64(x) % 1_000_000
		if us < 0 {
			us = -us
		}
		if us == 0 {
			return 0
		}
		n := 6
		for us%10 == 0 {
			us /= 10
			n--
		}
		return n
	case string:
		i := strings.LastIndexByte(x, '.')
		if i < 0 {
			return 0
		}
		n := 0
		for _, c := range x[i+1:] {
			if c < '0' || c > '9' {
				break
			}
			n++
		}
		return min(n, 6)
	case decimal.Decimal:
		if x.Exponent() < 0 {
			return min(int(-x.Exponent()), 6)
		}
		return 0
	case float32, float64:
		return 6
	}
	return 0
}

// convertLength is CAST(x AS TIME(n))'s n (0 without one).
func ConvertFSP(c *expression.Convert) int {
	f := reflect.ValueOf(c).Elem().FieldByName("typeLength")
	if !f.IsValid() || f.Kind() != reflect.Int {
		return 0
	}
	return min(max(int(f.Int()), 0), 6)
}

// RoundTimespan is ts at fsp fractional digits: rounded, or cut under
// TIME_TRUNCATE_FRACTIONAL, as MySQL fits a TIME to its precision.
func RoundTimespan(ctx *sql.Context, ts types.Timespan, fsp int) types.Timespan {
	unit := int64(1)
	for i := fsp; i < 6; i++ {
		unit *= 10
	}
	v := int64(ts)
	neg := v < 0
	if neg {
		v = -v
	}
	r := v % unit
	v -= r
	if r*2 >= unit && !sqlmode.Load(ctx).ModeEnabled("TIME_TRUNCATE_FRACTIONAL") {
		v += unit
	}
	if v > MaxTimeMicros {
		v = MaxTimeMicros
	}
	if neg {
		v = -v
	}
	return types.Timespan(v)
}

// MaxTimeMicros is TIME's largest magnitude, 838:59:59, in microseconds.
const MaxTimeMicros = ((838*60+59)*60 + 59) * 1_000_000
