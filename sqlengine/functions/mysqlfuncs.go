package functions

import (
	"encoding/hex"
	"fmt"
	"math"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"petrel/sqlengine/arith"
)

// Functions Petrel registers over GMS's (asked first), where GMS's answer
// differs from MySQL 8's:
//   - ROUND(x[, d]) of a DOUBLE rounds half to even (MySQL rounds
//     approximate values with rint: ROUND(2.5e0) is 2, ROUND(5e29, -30)
//     is 0); other arguments go to GMS's ROUND;
//   - TRUNCATE(x, d), which GMS lacks: x cut (towards zero) to d decimals,
//     of x's kind (DECIMAL stays exact);
//   - HEX(x) of a TIME is the hex of its text, as for any other temporal
//     value; other arguments go to GMS's HEX;
//   - BENCHMARK(count, expr), which GMS lacks (benchmark.go);
//   - CONCAT and CONCAT_WS of a TIME, DATE or DATETIME value, its text
//     (timetext.go, datetext.go);
//   - ADDTIME and SUBTIME, which GMS lacks (addtime.go);
//   - GREATEST and LEAST over DECIMALs, which GMS refuses (minmax.go);
//   - LPAD and RPAD in characters (padfuncs.go);
//   - WEEK's modes, DATEDIFF of a bad date (weekfuncs.go);
//   - STR_TO_DATE's AM/PM (strtodate.go);
//   - REPEAT and SPACE of a count below 1, TIMESTAMPDIFF(QUARTER, ...),
//     UTC_TIMESTAMP's precision, FROM_UNIXTIME's fraction, OCT
//     (miscfuncs.go);
//   - SIGN, CEIL and FLOOR of DECIMALs and fractions (numfuncs.go);
//   - text arguments of numeric functions read as DOUBLEs (textnum.go);
//   - FORMAT of a DOUBLE (format.go);
//   - ABS and POW out of range, 1690; POW correctly rounded (numfuncs.go);
//   - INSERT, MAKE_SET, EXPORT_SET, MAKEDATE and UTC_TIME, which GMS
//     lacks (morefuncs.go); SEC_TO_TIME and MAKETIME (timefuncs.go);
//   - DATE_FORMAT and MONTHNAME of a bad or integer date, FROM_DAYS past
//     9999-12-31, TO_SECONDS, which GMS lacks (baddate.go);
//   - LENGTH and CHAR_LENGTH of a TIME (timefuncs.go);
//   - TIME_TO_SEC, HOUR, MINUTE, SECOND, MICROSECOND of a TIME (timefuncs.go);
//   - VARIANCE, STDDEV and their kin typed DOUBLE, as MySQL 8's (variance.go);
//   - JSON_ARRAYAGG of no rows NULL (jsonagg.go);
//   - TIME_FORMAT of hours past 24, %k and %l (timeformat.go);
//   - EXTRACT of a TIME's parts (extracttime.go);
//   - IF and IFNULL typed as MySQL aggregates their branches, with CASE
//     through BranchTypeRule (branchtype.go);
//   - petrel_assign_user_var(@v, expr): `@v := expr` in an expression,
//     as the parser wrapper rewrites it (assignvar.go).

// MySQL is the functions sqlengine registers over GMS's.
func MySQL() []sql.Function {
	return withDoubleText(withTextNumbers([]sql.Function{
		sql.FunctionN{Name: "round", Fn: newMySQLRound},
		sql.Function2{Name: "truncate", Fn: newTruncate},
		sql.Function2{Name: "period_add", Fn: newPeriodAdd},
		sql.Function2{Name: "period_diff", Fn: newPeriodDiff},
		sql.Function2{Name: "benchmark", Fn: newBenchmark},
		sql.FunctionN{Name: "interval", Fn: newInterval},          // intervalfn.go
		sql.Function2{Name: "addtime", Fn: newAddTime},            // addtime.go
		sql.Function2{Name: "subtime", Fn: newSubTime},            // addtime.go
		sql.FunctionN{Name: "greatest", Fn: newGreatest},          // minmax.go
		sql.FunctionN{Name: "least", Fn: newLeast},                // minmax.go
		sql.FunctionN{Name: "concat", Fn: newConcat},              // timetext.go
		sql.FunctionN{Name: "concat_ws", Fn: newConcatWS},         // timetext.go
		sql.Function3{Name: "if", Fn: newIf},                      // branchtype.go
		sql.Function2{Name: "ifnull", Fn: newIfNull},              // branchtype.go
		sql.FunctionN{Name: "coalesce", Fn: newCoalesce},          // coalesce.go
		sql.Function0{Name: "curdate", Fn: newCurDate("curdate")}, // curdate.go
		sql.Function0{Name: "current_date", Fn: newCurDate("current_date")},
		sql.FunctionN{Name: "curtime", Fn: newCurTime("curtime")}, // curdate.go
		sql.FunctionN{Name: "current_time", Fn: newCurTime("current_time")},
		sql.Function1{Name: "time", Fn: newTimeFn},                // timecmp.go
		sql.FunctionN{Name: "timestamp", Fn: newTimestampFn},      // timestampfn.go
		sql.Function1{Name: "sign", Fn: newSign},                  // numfuncs.go
		sql.FunctionN{Name: "lpad", Fn: newLPad},                  // padfuncs.go
		sql.Function2{Name: "repeat", Fn: newRepeat},              // miscfuncs.go
		sql.Function1{Name: "space", Fn: newSpace},                // miscfuncs.go
		sql.FunctionN{Name: "utc_timestamp", Fn: newUTCTimestamp}, // miscfuncs.go
		sql.Function1{Name: "oct", Fn: newOct},                    // miscfuncs.go
		sql.FunctionN{Name: "from_unixtime", Fn: newFromUnixtime}, // miscfuncs.go
		sql.FunctionN{Name: "week", Fn: newWeek},                  // weekfuncs.go
		sql.Function2{Name: "datediff", Fn: newDateDiff},          // weekfuncs.go
		sql.Function2{Name: "str_to_date", Fn: newStrToDate},      // strtodate.go
		sql.FunctionN{Name: "rpad", Fn: newRPad},                  // padfuncs.go
		sql.Function1{Name: "ceil", Fn: newCeil},                  // numfuncs.go
		sql.Function1{Name: "ceiling", Fn: newCeil},               // numfuncs.go
		sql.Function1{Name: "floor", Fn: newFloor},                // numfuncs.go
		sql.Function1{Name: "abs", Fn: newAbs},                    // numfuncs.go
		sql.Function2{Name: "pow", Fn: newPow},                    // numfuncs.go
		sql.Function2{Name: "power", Fn: newPow},                  // numfuncs.go
		sql.FunctionN{Name: "format", Fn: newFormat},              // format.go
		sql.FunctionN{Name: "insert", Fn: newInsertFunc},          // morefuncs.go
		sql.FunctionN{Name: "make_set", Fn: newMakeSet},
		sql.FunctionN{Name: "export_set", Fn: newExportSet},
		sql.FunctionN{Name: "makedate", Fn: newMakeDate},
		sql.FunctionN{Name: "sec_to_time", Fn: newSecToTime}, // timefuncs.go
		sql.FunctionN{Name: "maketime", Fn: newMakeTime},
		sql.Function1{Name: "time_to_sec", Fn: newTimeToSec},
		sql.Function2{Name: "date_format", Fn: newDateFormat},                          // baddate.go
		sql.Function1{Name: "length", Fn: newTimeLength("length", function.NewLength)}, // timefuncs.go
		sql.Function1{Name: "octet_length", Fn: newTimeLength("octet_length", function.NewLength)},
		sql.Function1{Name: "char_length", Fn: newTimeLength("char_length", function.NewCharLength)},
		sql.Function1{Name: "character_length", Fn: newTimeLength("character_length", function.NewCharLength)},
		sql.Function1{Name: "monthname", Fn: newMonthName},
		sql.Function1{Name: "year", Fn: datePart("year", function.NewYear)}, // baddate.go
		sql.Function1{Name: "quarter", Fn: datePart("quarter", function.NewQuarter)},
		sql.Function1{Name: "month", Fn: datePart("month", function.NewMonth)},
		sql.Function1{Name: "day", Fn: datePart("day", function.NewDay)},
		sql.Function1{Name: "dayofmonth", Fn: datePart("dayofmonth", function.NewDay)},
		sql.Function1{Name: "weekday", Fn: datePart("weekday", function.NewWeekday)},
		sql.Function1{Name: "dayofweek", Fn: datePart("dayofweek", function.NewDayOfWeek)},
		sql.Function1{Name: "dayofyear", Fn: datePart("dayofyear", function.NewDayOfYear)},
		sql.Function1{Name: "dayname", Fn: datePart("dayname", function.NewDayName)},
		sql.Function1{Name: "to_days", Fn: datePart("to_days", function.NewToDays)},
		sql.Function1{Name: "last_day", Fn: datePart("last_day", function.NewLastDay)},
		sql.Function1{Name: "from_days", Fn: newFromDays}, // baddate.go
		sql.Function1{Name: "to_seconds", Fn: newToSeconds},
		sql.Function2{Name: "time_format", Fn: newTimeFormat}, // timeformat.go
		sql.Function1{Name: "hour", Fn: newHourOf},
		sql.Function1{Name: "minute", Fn: newMinuteOf},
		sql.Function1{Name: "second", Fn: newSecondOf},
		sql.Function1{Name: "microsecond", Fn: newMicrosecondOf},
		sql.FunctionN{Name: "utc_time", Fn: newUTCTime},
		sql.FunctionN{Name: "utc_date", Fn: newUTCDate},           // utcdate.go
		sql.Function1{Name: "json_arrayagg", Fn: newJSONArrayAgg}, // jsonagg.go
		sql.Function1{Name: "variance", Fn: newVariance(varPop)},  // variance.go
		sql.Function1{Name: "var_pop", Fn: newVariance(varPop)},
		sql.Function1{Name: "var_samp", Fn: newVariance(varSamp)},
		sql.Function1{Name: "std", Fn: newVariance(stdDevPop)},
		sql.Function1{Name: "stddev", Fn: newVariance(stdDevPop)},
		sql.Function1{Name: "stddev_pop", Fn: newVariance(stdDevPop)},
		sql.Function1{Name: "stddev_samp", Fn: newVariance(stdDevSamp)},
		sql.Function1{Name: "hex", Fn: func(a sql.Expression) sql.Expression {
			x, _ := newMySQLHex(a)
			return x
		}},
		sql.FunctionN{Name: AssignFunc, Fn: func(args ...sql.Expression) (sql.Expression, error) {
			if len(args) != 2 {
				return nil, sql.ErrInvalidArgumentNumber.New(AssignFunc, 2, len(args))
			}
			return newAssignUserVar(args[0], args[1])
		}},
		sql.Function1{Name: "sqrt", Fn: function.NewSqrt}, // text arguments: textnum.go
		sql.Function1{Name: "exp", Fn: newExp},            // numfuncs.go
		sql.Function1{Name: "ln", Fn: function.NewLogBaseFunc(math.E)},
		sql.FunctionN{Name: "log", Fn: function.NewLog},
		sql.Function1{Name: "log10", Fn: function.NewLogBaseFunc(10)},
		sql.Function1{Name: "log2", Fn: function.NewLogBaseFunc(2)},
		sql.Function1{Name: "sin", Fn: function.NewSin},
		sql.Function1{Name: "cos", Fn: function.NewCos},
		sql.Function1{Name: "tan", Fn: function.NewTan},
		sql.Function1{Name: "degrees", Fn: function.NewDegrees},
		sql.Function1{Name: "radians", Fn: function.NewRadians},
	}), true, Collated()) // doubletext.go
}

// delegate is a function expression answered by GMS's own expression
// except for the arguments Petrel answers itself.
type delegate struct {
	name string
	args []sql.Expression
	gms  sql.Expression // GMS's expression over the same arguments
	// eval answers when it can (ok=false: GMS's).
	eval func(ctx *sql.Context, row sql.Row, args []sql.Expression) (v any, ok bool, err error)
	mk   func(args ...sql.Expression) (sql.Expression, error)
	// typ, when set, is the result's type in place of GMS's.
	typ sql.Type
}

func (d *delegate) Resolved() bool {
	for _, a := range d.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

// String is GMS's expression's (SHOW CREATE TABLE prints defaults so).
func (d *delegate) String() string { return d.gms.String() }
func (d *delegate) Type() sql.Type {
	if d.typ != nil {
		return d.typ
	}
	return d.gms.Type()
}
func (d *delegate) IsNullable() bool           { return d.gms.IsNullable() }
func (d *delegate) Children() []sql.Expression { return d.args }
func (d *delegate) FunctionName() string       { return d.name }
func (d *delegate) Description() string        { return "MySQL's " + d.name }

func (d *delegate) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return d.mk(children...)
}

func (d *delegate) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if v, ok, err := d.eval(ctx, row, d.args); ok || err != nil {
		return v, err
	}
	return d.gms.Eval(ctx, row)
}

func newMySQLRound(args ...sql.Expression) (sql.Expression, error) {
	g, err := function.NewRound(args...)
	if err != nil {
		return nil, err
	}
	dl := &delegate{name: "round", args: args, gms: g, mk: newMySQLRound, eval: roundDouble}
	// ROUND(x) is ROUND(x, 0): a DECIMAL's to no decimals
	// (ROUND(dec_col) printed the column's scale, 3.00).
	var placesArg sql.Expression = expression.NewLiteral(int8(0), types.Int8)
	if len(args) == 2 {
		placesArg = args[1]
	}
	if args[0].Resolved() && types.IsFloat(args[0].Type()) {
		dl.typ = types.Float64 // a FLOAT's rounded as the DOUBLE it reads as
	}
	if len(args) <= 2 {
		if t, places, ok := placesType(args[0], placesArg); ok {
			dl.typ = t
			dl.eval = func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
				v, err := args[0].Eval(ctx, row)
				if err != nil || v == nil {
					return nil, true, err
				}
				x, ok := v.(decimal.Decimal)
				if !ok {
					return nil, false, nil
				}
				// Half away from zero, as MySQL rounds DECIMALs.
				return x.Round(places), true, nil
			}
		}
	}
	return dl, nil
}

// placesType is the type of ROUND(x, d) and TRUNCATE(x, d) for a DECIMAL
// x and a constant d: d decimals (0 for a negative d, at most 30), as
// MySQL types them, where GMS kept x's (ROUND(2.5, 3) is 2.500); and d.
func placesType(x, d sql.Expression) (sql.Type, int32, bool) {
	if !x.Resolved() || !types.IsDecimal(x.Type()) {
		return nil, 0, false
	}
	lit, ok := d.(*expression.Literal)
	if !ok {
		return nil, 0, false
	}
	n, ok := arith.ToInt64(lit.Value())
	if !ok {
		return nil, 0, false
	}
	n = min(max(n, -30), 30)
	xt := x.Type().(sql.DecimalType)
	scale := max(n, 0)
	intDigits := int64(xt.Precision()) - int64(xt.Scale())
	t, err := types.CreateDecimalType(uint8(min(max(intDigits+scale, 1), types.DecimalTypeMaxPrecision)), uint8(scale))
	if err != nil {
		return nil, 0, false
	}
	return t, int32(n), true
}

// roundDouble rounds a DOUBLE half to even.
func roundDouble(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
	if !types.IsFloat(args[0].Type()) {
		return nil, false, nil
	}
	v, err := args[0].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, true, err
	}
	f, ok := v.(float64)
	if x, is32 := v.(float32); is32 {
		// A FLOAT column's value, rounded as the DOUBLE MySQL reads it
		// as (ROUND(1.25 in a FLOAT, 1) is 1.2; GMS's decimal rounding 1.3).
		f, ok = float64(x), true
	}
	if !ok {
		return nil, false, nil
	}
	d := int64(0)
	if len(args) > 1 {
		dv, err := args[1].Eval(ctx, row)
		if err != nil || dv == nil {
			return nil, true, err
		}
		n, ok := arith.ToInt64(dv)
		if !ok {
			return nil, false, nil
		}
		d = n
	}
	if d > 30 {
		d = 30
	}
	if d < -30 {
		d = -30
	}
	// As MySQL's my_double_round: rint (half to even) of x*10^d, or of
	// x/10^-d for a negative d.
	var r float64
	if d < 0 {
		p := math.Pow(10, float64(-d))
		r = math.RoundToEven(f/p) * p
	} else {
		p := math.Pow(10, float64(d))
		if math.IsInf(f*p, 0) {
			return f, true, nil
		}
		r = math.RoundToEven(f*p) / p
	}
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return f, true, nil
	}
	return r, true, nil
}

func newMySQLHex(args ...sql.Expression) (sql.Expression, error) {
	if len(args) != 1 {
		return nil, sql.ErrInvalidArgumentNumber.New("HEX", 1, len(args))
	}
	return &delegate{name: "hex", args: args, gms: function.NewHex(args[0]), mk: newMySQLHex, eval: hexTime}, nil
}

// hexTime answers HEX of a TIME value: the hex of its text.
func hexTime(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
	if !types.IsTimespan(args[0].Type()) {
		return nil, false, nil
	}
	v, err := args[0].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, true, err
	}
	var s any = v
	if _, ok := v.(types.Timespan); !ok {
		if s, _, err = types.Time.Convert(ctx, v); err != nil {
			return nil, true, err
		}
	}
	return strings.ToUpper(hex.EncodeToString([]byte(fmt.Sprint(s)))), true, nil
}

// truncateExpr is TRUNCATE(x, d).
type truncateExpr struct {
	x, d sql.Expression
}

func newTruncate(x, d sql.Expression) sql.Expression { return &truncateExpr{x: x, d: d} }

var _ sql.FunctionExpression = (*truncateExpr)(nil)

func (t *truncateExpr) Resolved() bool             { return t.x.Resolved() && t.d.Resolved() }
func (t *truncateExpr) String() string             { return fmt.Sprintf("TRUNCATE(%s, %s)", t.x, t.d) }
func (t *truncateExpr) IsNullable() bool           { return true }
func (t *truncateExpr) Children() []sql.Expression { return []sql.Expression{t.x, t.d} }
func (t *truncateExpr) FunctionName() string       { return "truncate" }
func (t *truncateExpr) Description() string        { return "truncates X to D decimal places" }

func (t *truncateExpr) Type() sql.Type {
	xt := t.x.Type()
	switch {
	case types.IsInteger(xt):
		return xt
	case types.IsFloat(xt):
		return types.Float64 // a FLOAT's too, as MySQL's REAL result
	case types.IsDecimal(xt):
		if pt, _, ok := placesType(t.x, t.d); ok {
			return pt
		}
		return xt
	}
	return types.Float64
}

func (t *truncateExpr) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 2)
	}
	return &truncateExpr{x: children[0], d: children[1]}, nil
}

func (t *truncateExpr) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	xv, err := t.x.Eval(ctx, row)
	if err != nil || xv == nil {
		return nil, err
	}
	dv, err := t.d.Eval(ctx, row)
	if err != nil || dv == nil {
		return nil, err
	}
	d, ok := arith.ToInt64(dv)
	if !ok {
		if dd, err := decimal.NewFromString(fmt.Sprint(dv)); err == nil {
			d = dd.IntPart()
		}
	}
	if d > 30 {
		d = 30
	}
	if d < -30 {
		d = -30
	}
	switch x := xv.(type) {
	case float64:
		p := math.Pow(10, float64(d))
		return math.Trunc(x*p) / p, nil
	case float32:
		p := math.Pow(10, float64(d))
		return math.Trunc(float64(x)*p) / p, nil
	case decimal.Decimal:
		if d < 0 {
			// Truncate takes no negative places: shift, cut, shift back.
			return x.Shift(int32(d)).Truncate(0).Shift(int32(-d)), nil
		}
		// At d decimals (TRUNCATE(2.5, 3) is 2.500).
		return x.Truncate(int32(d)).Add(decimal.New(0, int32(-d))), nil
	}
	if n, ok := arith.ToInt64(xv); ok && types.IsInteger(t.x.Type()) {
		if d >= 0 {
			return xv, nil
		}
		p := int64(math.Pow(10, float64(-d)))
		return n / p * p, nil
	}
	// Strings and others: as a DOUBLE.
	f, _, err := types.Float64.Convert(ctx, xv)
	if err != nil {
		return nil, err
	}
	p := math.Pow(10, float64(d))
	return math.Trunc(f.(float64)*p) / p, nil
}
