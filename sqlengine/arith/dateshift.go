package arith

import (
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// DATE_ADD and DATE_SUB of a literal date by an interval that changes
// per row: `DATE_ADD('1992-01-01', INTERVAL n DAY)` in a generated load.
// GMS's DateAdd parses the literal as a DATETIME for every row (trying
// its layouts one by one, an error value for each miss), and for a
// string result parses it again to choose the result's layout: a sixth
// of the CPU of bench/tpchscan/setup.sql's INSERT ... SELECT. dateShift
// parses the literal and chooses the layout once, then computes each row
// as GMS does, its range checked as dateRange checks GMS's (a result past
// 9999-12-31 or before year 0 is NULL with warning 1441). A literal GMS
// cannot read as a date keeps GMS's function (its warning is per row).

// dateShift is DATE_ADD / DATE_SUB of a literal date (see above).
type dateShift struct {
	fn       sql.Expression // GMS's DateAdd or DateSub, for String and children
	interval *expression.Interval
	sub      bool
	base     time.Time
	typ      sql.Type
	// strText: the literal is text and the result a string, which GMS
	// formats itself: with layout when the fraction is zero ("": the
	// result is converted to typ instead).
	strText bool
	layout  string
}

var _ sql.FunctionExpression = (*dateShift)(nil)

// newDateShift is e as a dateShift, or nil: e is not DATE_ADD / DATE_SUB
// of a literal, its interval is constant (constant folding's), or the
// literal is no date.
func newDateShift(ctx *sql.Context, e sql.Expression) sql.Expression {
	var date sql.Expression
	var iv *expression.Interval
	var sub bool
	switch x := e.(type) {
	case *function.DateAdd:
		date, iv = x.Date, x.Interval
	case *function.DateSub:
		date, iv, sub = x.Date, x.Interval, true
	default:
		return nil
	}
	lit, ok := date.(*expression.Literal)
	if !ok || iv == nil || constantArgs([]sql.Expression{iv}) {
		return nil
	}
	v, err := lit.Eval(ctx, nil)
	if err != nil || v == nil {
		return nil
	}
	dv, _, err := types.DatetimeMaxPrecision.Convert(ctx, v)
	if err != nil {
		return nil
	}
	base, ok := dv.(time.Time)
	if !ok {
		return nil
	}
	ds := &dateShift{fn: e, interval: iv, sub: sub, base: base, typ: e.Type()}
	if s, isStr := v.(string); isStr && types.IsText(ds.typ) {
		ds.strText, ds.layout = true, stringResultLayout(s, iv)
	}
	return ds
}

// stringResultLayout is the layout GMS formats a string date's result
// with when its fraction is zero: a DATETIME's for an interval of hours,
// minutes or seconds, a DATE's for a date-only string, else none (the
// result is converted to the function's type).
func stringResultLayout(s string, iv *expression.Interval) string {
	if strings.Contains(iv.Unit, "HOUR") || strings.Contains(iv.Unit, "MINUTE") || strings.Contains(iv.Unit, "SECOND") {
		return sql.TimestampDatetimeLayout
	}
	for _, layout := range types.DateOnlyLayouts {
		if _, err := time.Parse(layout, s); err == nil {
			return sql.DateLayout
		}
	}
	return ""
}

func (d *dateShift) Resolved() bool             { return d.fn.Resolved() }
func (d *dateShift) String() string             { return d.fn.String() }
func (d *dateShift) Type() sql.Type             { return d.typ }
func (d *dateShift) IsNullable() bool           { return true }
func (d *dateShift) Children() []sql.Expression { return d.fn.Children() }

// FunctionName and Description are GMS's function's (CREATE TABLE ...
// AS SELECT types the column by the name: ctastypes.go).
func (d *dateShift) FunctionName() string { return d.fn.(sql.FunctionExpression).FunctionName() }
func (d *dateShift) Description() string  { return d.fn.(sql.FunctionExpression).Description() }

func (d *dateShift) DebugString() string { return fmt.Sprintf("dateShift(%s)", sql.DebugString(d.fn)) }

func (d *dateShift) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	fn, err := d.fn.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if ds := newDateShift(sql.NewEmptyContext(), fn); ds != nil {
		return ds, nil
	}
	return fn, nil
}

func (d *dateShift) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	delta, err := intervalDelta(ctx, d.interval, row) // compoundinterval.go
	if err != nil || delta == nil {
		return nil, err
	}
	var shifted time.Time
	if d.sub {
		shifted = delta.Sub(d.base)
	} else {
		shifted = delta.Add(d.base)
	}
	if beyondDateRange(shifted) { // as dateRange checks GMS's functions
		warnDatetimeOverflow(ctx)
		return nil, nil
	}
	res := types.ValidateTime(shifted)
	if res == nil {
		return nil, nil
	}
	t := res.(time.Time)
	if d.strText {
		if t.Nanosecond() > 0 {
			return t.Format(sql.DatetimeLayoutNoTrim), nil
		}
		if d.layout != "" {
			return t.Format(d.layout), nil
		}
	}
	ret, _, err := d.typ.Convert(ctx, t)
	return ret, err
}
