package functions

import (
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"

	"petrel/sqlengine/arith"
)

// GREATEST and LEAST where GMS's comparison is not MySQL's: GMS refuses a
// TIME (1105 "unsupported type ... TimespanType_"), compares a DATE with
// a string as DOUBLEs, drops a string that is no number when mixed with
// numbers (LEAST('a', 1) was 1 without warning; MySQL reads 'a' as 0
// with warning 1292) and fails on a BIGINT UNSIGNED above 2^63-1. MySQL
// compares temporal values (with strings or numbers among them: their
// types aggregate to a string) as temporal values:
// as TIMEs when all are TIME, as DATEs when all are DATE, else as
// DATETIMEs; numbers with strings as DOUBLEs; integers as integers.

type minMaxMode int

const (
	modeOther    minMaxMode = iota // minmax.go's decimal and text paths, or GMS's
	modeTime                       // TIMEs (and strings)
	modeDate                       // DATEs (and strings)
	modeDatetime                   // temporal values of several kinds (and strings)
	modeStrNum                     // numbers and strings: compared as DOUBLEs
	modeInt                        // integers, some unsigned
)

// minMaxModeOf is args' comparison mode and the result's type.
func minMaxModeOf(args []sql.Expression) (minMaxMode, sql.Type) {
	var nTime, nDate, nDatetime, nStr, nNum, nUnsigned, nSigned, nInexact int
	fsp := 0
	for _, a := range args {
		if !a.Resolved() {
			return modeOther, nil
		}
		t := a.Type()
		if svt, ok := t.(sql.SystemVariableType); ok {
			t = svt.UnderlyingType()
		}
		switch {
		case t == types.Null:
			return modeOther, nil
		case types.IsTimespan(t):
			nTime++
		case types.IsDateType(t):
			nDate++
		case types.IsTime(t):
			nDatetime++
			if dt, ok := t.(sql.DatetimeType); ok {
				fsp = max(fsp, dt.Precision())
			}
		case types.IsText(t) && !types.IsEnum(t) && !types.IsSet(t):
			nStr++
			if p, ok := arith.TemporalFsp(a); ok {
				fsp = max(fsp, p)
			}
		case arith.IsIntegerType(t):
			nNum++
			if types.IsUnsigned(t) {
				nUnsigned++
			} else {
				nSigned++
			}
		case types.IsDecimal(t) || types.IsFloat(t):
			nNum++
			nInexact++
		default:
			return modeOther, nil
		}
	}
	temporal := nTime + nDate + nDatetime
	switch {
	case temporal > 0 && nTime == temporal:
		return modeTime, types.Time
	case temporal > 0 && nDate == temporal:
		return modeDate, types.Date
	case temporal > 0:
		return modeDatetime, types.MustCreateDatetimeType(sqltypes.Datetime, min(fsp, 6))
	case nNum > 0 && nStr > 0:
		return modeStrNum, types.Float64
	case nStr == 0 && nInexact == 0 && nUnsigned > 0:
		if nSigned == 0 {
			return modeInt, types.Uint64
		}
		return modeInt, types.MustCreateDecimalType(20, 0)
	}
	return modeOther, nil
}

// evalMode evaluates the modes of minMaxModeOf.
func (m *minMax) evalMode(ctx *sql.Context, row sql.Row) (any, error) {
	var best, bestKey any
	for i, a := range m.args {
		v, err := a.Eval(ctx, row)
		if err != nil || v == nil {
			return nil, err
		}
		k, err := m.modeKey(ctx, v)
		if err != nil {
			return nil, err
		}
		if k == nil {
			return nil, nil
		}
		if i == 0 || m.better(k, bestKey) {
			best, bestKey = v, k
		}
	}
	if m.mode == modeInt {
		r, _, err := m.modeType.Convert(ctx, best)
		return r, err
	}
	return bestKey, nil
}

// modeKey is v as m.mode compares it; nil when v is no value of the
// mode (a string that is no date: MySQL's comparison gives NULL too).
func (m *minMax) modeKey(ctx *sql.Context, v any) (any, error) {
	switch m.mode {
	case modeTime:
		t, err := types.Time.ConvertToTimespan(v)
		if err != nil {
			ctx.Warn(1292, "Incorrect time value: '%v'", v)
			return nil, nil
		}
		return t, nil
	case modeDate, modeDatetime:
		if ts, ok := v.(types.Timespan); ok {
			// A TIME is a DATETIME on the current day.
			y, mo, d := ctx.QueryTime().Date()
			return time.Date(y, mo, d, 0, 0, 0, 0, time.UTC).Add(ts.AsTimeDuration()), nil
		}
		typ := types.DatetimeMaxPrecision
		if m.mode == modeDate {
			typ = types.Date
		}
		t, _, err := typ.Convert(ctx, v)
		if err != nil || t == nil {
			ctx.Warn(1292, "Incorrect datetime value: '%v'", v)
			return nil, nil
		}
		return t, nil
	case modeStrNum:
		return arith.TextAsDouble(valueExpr{v}).Eval(ctx, nil)
	default: // modeInt
		d, _, err := types.InternalDecimalType.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		return d, nil
	}
}

// better reports whether key k beats the best so far.
func (m *minMax) better(k, best any) bool {
	var c int
	switch x := k.(type) {
	case types.Timespan:
		c = x.Compare(best.(types.Timespan))
	case time.Time:
		c = x.Compare(best.(time.Time))
	case float64:
		y := best.(float64)
		switch {
		case x < y:
			c = -1
		case x > y:
			c = 1
		}
	case decimal.Decimal:
		c = x.Cmp(best.(decimal.Decimal))
	}
	return (m.greatest && c > 0) || (!m.greatest && c < 0)
}

// valueExpr is an evaluated value as an expression, for a conversion
// that takes one.
type valueExpr struct{ v any }

func (e valueExpr) Resolved() bool                          { return true }
func (e valueExpr) String() string                          { return "value" }
func (e valueExpr) Type() sql.Type                          { return types.LongText }
func (e valueExpr) IsNullable() bool                        { return e.v == nil }
func (e valueExpr) Children() []sql.Expression              { return nil }
func (e valueExpr) Eval(*sql.Context, sql.Row) (any, error) { return e.v, nil }
func (e valueExpr) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return e, nil
}
