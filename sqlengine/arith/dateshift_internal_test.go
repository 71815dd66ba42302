package arith

import (
	"fmt"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// TestDateShiftIsGMSs: DATE_ADD / DATE_SUB of a literal date by a
// per-row interval gives what GMS's functions give with their range
// checked (dateRange: value, Go type, warnings and the expression's
// type) for dates as text, DATE and DATETIME literals, every kind of
// unit, NULL and out-of-range results.
func TestDateShiftIsGMSs(t *testing.T) {
	ctx := sql.NewEmptyContext()
	dates := []sql.Expression{
		expression.NewLiteral("1992-01-01", types.LongText),
		expression.NewLiteral("1992-01-31 10:20:30", types.LongText),
		expression.NewLiteral("1992-02-29 10:20:30.250", types.LongText),
		expression.NewLiteral("19920101", types.LongText),
		expression.NewLiteral("9999-12-31", types.LongText),
	}
	if d, _, err := types.Date.Convert(ctx, "2024-02-29"); err == nil {
		dates = append(dates, expression.NewLiteral(d, types.Date))
	}
	if d, _, err := types.DatetimeMaxPrecision.Convert(ctx, "2024-02-29 23:59:59.5"); err == nil {
		dates = append(dates, expression.NewLiteral(d, types.DatetimeMaxPrecision))
	}
	units := []string{"DAY", "MONTH", "YEAR", "HOUR", "MINUTE", "SECOND", "MICROSECOND", "WEEK", "QUARTER"}
	// The interval's value is a column: per row.
	col := expression.NewGetField(0, types.Int64, "n", true)
	rows := []sql.Row{{int64(0)}, {int64(1)}, {int64(-1)}, {int64(31)}, {int64(2499)}, {int64(-800000)}, {int64(3000000)}, {nil}}
	taken := 0
	for _, date := range dates {
		for _, unit := range units {
			for _, sub := range []bool{false, true} {
				var fn sql.Expression
				var err error
				if sub {
					fn, err = function.NewDateSub(date, expression.NewInterval(col, unit))
				} else {
					fn, err = function.NewDateAdd(date, expression.NewInterval(col, unit))
				}
				if err != nil {
					t.Fatal(err)
				}
				ds := newDateShift(ctx, fn)
				if ds == nil {
					t.Fatalf("%s: not taken", fn)
				}
				taken++
				if ds.Type() != fn.Type() {
					t.Errorf("%s: typed %s, GMS %s", fn, ds.Type(), fn.Type())
				}
				checked := checkedDateArith(fn)
				for _, row := range rows {
					ctx.ClearWarnings()
					want, werr := checked.Eval(ctx, row)
					wantWarn := warnings(ctx)
					ctx.ClearWarnings()
					got, gerr := ds.Eval(ctx, row)
					gotWarn := warnings(ctx)
					if fmt.Sprintf("%T %v %v %s", want, want, werr, wantWarn) != fmt.Sprintf("%T %v %v %s", got, got, gerr, gotWarn) {
						t.Errorf("%s with n = %v: %T %v (%v) warnings %s, GMS's range-checked %T %v (%v) warnings %s", fn, row[0], got, got, gerr, gotWarn, want, want, werr, wantWarn)
					}
				}
			}
		}
	}
	// A literal that is no date, and a constant interval, stay GMS's.
	bad, _ := function.NewDateAdd(expression.NewLiteral("garbage", types.LongText), expression.NewInterval(col, "DAY"))
	konst, _ := function.NewDateAdd(dates[0], expression.NewInterval(expression.NewLiteral(int64(1), types.Int64), "DAY"))
	for _, e := range []sql.Expression{bad, konst} {
		if newDateShift(ctx, e) != nil {
			t.Errorf("%s was taken", e)
		}
	}
}

// warnings lists ctx's warning codes.
func warnings(ctx *sql.Context) string {
	var codes []int
	for _, w := range ctx.Session.Warnings() {
		codes = append(codes, w.Code)
	}
	return fmt.Sprint(codes)
}
