package functions

import (
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/sqlengine/arith"
)

// timestampFn is TIMESTAMP(expr) and TIMESTAMP(expr, time) as MySQL's: a
// DATETIME, plus the time when given, with the fractional digits of its
// arguments. GMS's TIMESTAMP was its DATETIME function of one argument:
// TIMESTAMP(date_col) printed '2024-02-29' (MySQL '2024-02-29
// 00:00:00'), TIMESTAMP(varchar_col) printed nothing, and the
// two-argument form was 1105.
type timestampFn struct {
	args []sql.Expression
	typ  sql.Type
}

var _ sql.FunctionExpression = (*timestampFn)(nil)

func newTimestampFn(args ...sql.Expression) (sql.Expression, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, sql.ErrInvalidArgumentNumber.New("TIMESTAMP", "1 or 2", len(args))
	}
	fsp := 0
	for _, a := range args {
		p, ok := arith.TemporalFsp(a)
		if !ok {
			p = 6 // a string column's, as MySQL's
		}
		fsp = max(fsp, p)
	}
	return &timestampFn{args: args, typ: types.MustCreateDatetimeType(sqltypes.Datetime, fsp)}, nil
}

func (f *timestampFn) Resolved() bool {
	for _, a := range f.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

func (f *timestampFn) String() string {
	parts := make([]string, len(f.args))
	for i, a := range f.args {
		parts[i] = a.String()
	}
	return "timestamp(" + strings.Join(parts, ",") + ")"
}

func (f *timestampFn) Type() sql.Type             { return f.typ }
func (f *timestampFn) IsNullable() bool           { return true }
func (f *timestampFn) Children() []sql.Expression { return f.args }
func (f *timestampFn) FunctionName() string       { return "timestamp" }
func (f *timestampFn) Description() string        { return "returns a datetime, plus a time when given." }
func (f *timestampFn) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (f *timestampFn) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return newTimestampFn(children...)
}

func (f *timestampFn) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := f.args[0].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	c, _, err := types.DatetimeMaxPrecision.Convert(ctx, v)
	if err != nil || c == nil {
		warnBadDatetime(ctx, v)
		return nil, nil
	}
	dt, ok := c.(time.Time)
	if !ok {
		return nil, nil
	}
	if len(f.args) == 2 {
		tv, err := f.args[1].Eval(ctx, row)
		if err != nil || tv == nil {
			return nil, err
		}
		span, err := types.Time.ConvertToTimespan(tv)
		if err != nil {
			warnBadDatetime(ctx, tv)
			return nil, nil
		}
		dt = dt.Add(span.AsTimeDuration())
	}
	return dt, nil
}

// warnBadDatetime is MySQL's warning for a value TIMESTAMP() cannot read.
func warnBadDatetime(ctx *sql.Context, v any) {
	ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: 1292, Message: "Incorrect datetime value: '" + toText(v) + "'"})
}

func toText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}
