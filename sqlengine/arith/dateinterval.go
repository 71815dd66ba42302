package arith

import (
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/sqlmode"
)

// dateInterval is `x + INTERVAL n unit` (or INTERVAL n unit + x, or
// x - INTERVAL n unit) as DATE_ADD(x, INTERVAL n unit) (DATE_SUB),
// which MySQL defines them to be; nil for other arithmetic. GMS typed
// the operator DATETIME whatever x was, so CURDATE() - INTERVAL 1 DAY
// and date_col + INTERVAL 1 YEAR printed '2024-01-01 00:00:00' where
// MySQL prints the DATE '2024-01-01'.
func dateInterval(a *expression.Arithmetic) sql.Expression {
	var x sql.Expression
	var iv *expression.Interval
	switch a.Op {
	case sqlparser.PlusStr:
		if i, ok := a.RightChild.(*expression.Interval); ok {
			x, iv = a.LeftChild, i
		} else if i, ok := a.LeftChild.(*expression.Interval); ok {
			x, iv = a.RightChild, i
		}
	case sqlparser.MinusStr:
		if i, ok := a.RightChild.(*expression.Interval); ok {
			x, iv = a.LeftChild, i
		}
	}
	if iv == nil {
		return nil
	}
	if _, ok := x.(*expression.Interval); ok {
		return nil
	}
	var out sql.Expression
	var err error
	if a.Op == sqlparser.MinusStr {
		out, err = function.NewDateSub(x, iv)
	} else {
		out, err = function.NewDateAdd(x, iv)
	}
	if err != nil {
		return nil
	}
	if nd := numDateArg(out); nd != nil { // numdate.go
		out = nd
	}
	if c := checkedDateArith(out); c != nil {
		return c
	}
	return out
}

// DATE_ADD and DATE_SUB (ADDDATE, SUBDATE, date +/- INTERVAL) whose
// result is past 9999-12-31 or before year 0 are NULL with warning 1441
// ("Datetime function: datetime field overflow"), as MySQL's
// date_add_interval gives them: GMS gave NULL without a warning past
// 9999 and a negative year before 0 (DATE_SUB('2000-01-01', INTERVAL
// 2001 YEAR) was -0001-01-01).

// erDatetimeOverflow is ER_DATETIME_FUNCTION_OVERFLOW.
const erDatetimeOverflow = 1441

// dateRange is GMS's DATE_ADD or DATE_SUB with its result's range
// checked.
type dateRange struct {
	sql.Expression // *function.DateAdd or *function.DateSub
}

var _ sql.FunctionExpression = (*dateRange)(nil)

// checkedDateArith is e wrapped in dateRange when it is GMS's DATE_ADD
// or DATE_SUB, else nil.
func checkedDateArith(e sql.Expression) sql.Expression {
	switch e.(type) {
	case *function.DateAdd, *function.DateSub:
		return &dateRange{Expression: e}
	}
	return nil
}

func (d *dateRange) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	n, err := d.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if c := checkedDateArith(n); c != nil {
		return c, nil
	}
	return n, nil
}

// Type is GMS's, but a DATETIME of MySQL's precision: the date's
// (0 for a DATE or text), 6 with an interval of microseconds or of
// fractional seconds. GMS typed every DATETIME result DATETIME(6), so a
// derived table's DATE - INTERVAL 1 HOUR printed six zero decimals.
func (d *dateRange) Type() sql.Type {
	t := d.Expression.Type()
	if t != types.DatetimeMaxPrecision {
		return t
	}
	ch := d.Expression.Children()
	if len(ch) != 2 {
		return t
	}
	iv, ok := ch[1].(*expression.Interval)
	if !ok {
		return t
	}
	fsp := 0
	if dt, ok := ch[0].Type().(sql.DatetimeType); ok && (types.IsDatetimeType(dt) || types.IsTimestampType(dt)) {
		fsp = dt.Precision()
	}
	if strings.Contains(iv.Unit, "MICROSECOND") || (iv.Unit == "SECOND" && !IsIntegerType(iv.Child.Type())) {
		fsp = 6
	}
	return types.MustCreateDatetimeType(sqltypes.Datetime, fsp)
}

// FunctionName and Description are GMS's (CREATE TABLE ... AS SELECT
// reads the name for the result's fractional digits).
func (d *dateRange) FunctionName() string {
	return d.Expression.(sql.FunctionExpression).FunctionName()
}

func (d *dateRange) Description() string {
	return d.Expression.(sql.FunctionExpression).Description()
}

func (d *dateRange) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (d *dateRange) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	e, null, err := compoundAtRow(ctx, d.Expression, row) // compoundinterval.go
	if err != nil || null {
		return nil, err
	}
	v, err := e.Eval(ctx, row)
	if err == nil && v != nil && !beforeYearZero(v) {
		return v, nil
	}
	// NULL (of a NULL argument, of a value that is no date, which GMS
	// warned 1292 about, or of a result past 9999-12-31), a negative
	// year, or GMS's failure to convert one.
	if overflows(ctx, e, row) {
		if strictDataChange(ctx) {
			// A strict INSERT or UPDATE makes the warning an error, as
			// MySQL's (SQLSTATE 22008): it stored NULL.
			return nil, mysqlerr.Relay(erDatetimeOverflow, "22008", "Datetime function: datetime field overflow")
		}
		warnDatetimeOverflow(ctx)
		return nil, nil
	}
	return v, err
}

// strictDataChange reports whether ctx's statement is an INSERT, REPLACE
// or UPDATE without IGNORE under strict mode, where MySQL makes a
// warning an error.
func strictDataChange(ctx *sql.Context) bool {
	m := sqlmode.Load(ctx)
	if !m.ModeEnabled("STRICT_TRANS_TABLES") && !m.ModeEnabled("STRICT_ALL_TABLES") {
		return false
	}
	w := strings.Fields(strings.ToUpper(strings.TrimLeft(ctx.Query(), " \t\r\n(")))
	if len(w) == 0 || (w[0] != "INSERT" && w[0] != "REPLACE" && w[0] != "UPDATE") {
		return false
	}
	for _, x := range w[1:min(len(w), 4)] {
		if x == "IGNORE" {
			return false
		}
	}
	return true
}

// overflows reports whether the result of e, GMS's DATE_ADD or DATE_SUB,
// for row is past 9999-12-31 or before year 0.
func overflows(ctx *sql.Context, e sql.Expression, row sql.Row) bool {
	children := e.Children()
	iv, ok := children[1].(*expression.Interval)
	if !ok {
		return false
	}
	date, err := children[0].Eval(ctx, row)
	if err != nil || date == nil {
		return false
	}
	t, _, err := types.DatetimeMaxPrecision.Convert(ctx, date)
	if err != nil {
		return false
	}
	delta, err := iv.EvalDelta(ctx, row)
	if err != nil || delta == nil {
		return false
	}
	var r time.Time
	if _, sub := e.(*function.DateSub); sub {
		r = delta.Sub(t.(time.Time))
	} else {
		r = delta.Add(t.(time.Time))
	}
	return beyondDateRange(r)
}

// beyondDateRange: t is past 9999-12-31 or before year 0, where MySQL's
// date arithmetic gives NULL with 1441 (warnDatetimeOverflow).
func beyondDateRange(t time.Time) bool { return t.Year() < 0 || t.Year() > 9999 }

// warnDatetimeOverflow raises MySQL's 1441 for a date out of range.
func warnDatetimeOverflow(ctx *sql.Context) {
	ctx.Warn(erDatetimeOverflow, "Datetime function: datetime field overflow")
}

// beforeYearZero: v, a DATE_ADD's result, has a negative year.
func beforeYearZero(v any) bool {
	switch x := v.(type) {
	case time.Time:
		return x.Year() < 0
	case string:
		return strings.HasPrefix(x, "-")
	}
	return false
}
