package functions

import (
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

// REPEAT, SPACE, TIMESTAMPDIFF(QUARTER, ...) and UTC_TIMESTAMP as
// MySQL's:
//   - REPEAT(s, n) and SPACE(n) of a count below 1 are '' (GMS failed
//     with 1105 "negative Repeat count");
//   - TIMESTAMPDIFF in MONTH, QUARTER and YEAR counts whole months as
//     MySQL does (GMS's count was off by one across year ends:
//     TIMESTAMPDIFF(MONTH, '2024-01-01', '2024-12-31') was 12, MySQL's
//     11, and TIMESTAMPDIFF(MONTH, '2023-12-31', '2025-01-01') 11 for 12);
//   - UTC_TIMESTAMP() and UTC_TIMESTAMP(n) keep n fractional digits, 0
//     by default (GMS gave microseconds always:
//     '2024-01-01 10:00:00.123456' for UTC_TIMESTAMP()).

func newRepeat(s, n sql.Expression) sql.Expression {
	return &delegate{name: "repeat", args: []sql.Expression{s, n}, gms: function.NewRepeat(s, n), mk: func(args ...sql.Expression) (sql.Expression, error) {
		return newRepeat(args[0], args[1]), nil
	}, eval: func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
		return belowOne(ctx, row, args[0], args[1])
	}}
}

func newSpace(n sql.Expression) sql.Expression {
	return &delegate{name: "space", args: []sql.Expression{n}, gms: function.NewSpace(n), mk: func(args ...sql.Expression) (sql.Expression, error) {
		return newSpace(args[0]), nil
	}, eval: func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
		return belowOne(ctx, row, nil, args[0])
	}}
}

// belowOne answers ” (or NULL for a NULL s or n) when the count n is
// below 1; GMS answers otherwise.
func belowOne(ctx *sql.Context, row sql.Row, s, n sql.Expression) (any, bool, error) {
	nv, err := n.Eval(ctx, row)
	if err != nil || nv == nil {
		return nil, true, err
	}
	c, _, err := types.Int64.Convert(ctx, nv)
	if err != nil || c.(int64) >= 1 {
		return nil, false, nil
	}
	if s != nil {
		sv, err := s.Eval(ctx, row)
		if err != nil || sv == nil {
			return nil, true, err
		}
	}
	return "", true, nil
}

func newTimestampDiff(u, a, b sql.Expression) sql.Expression {
	g := function.NewTimestampDiff(u, a, b)
	return &delegate{name: "timestampdiff", args: []sql.Expression{u, a, b}, gms: g, mk: func(args ...sql.Expression) (sql.Expression, error) {
		return newTimestampDiff(args[0], args[1], args[2]), nil
	}, eval: func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
		if v, ok, err := monthsDiff(ctx, row, args); ok || err != nil {
			return v, true, noDateNull(ctx, err)
		}
		v, err := g.Eval(ctx, row)
		return v, true, noDateNull(ctx, err)
	}}
}

// noDateNull turns GMS's error for a value that is no date into MySQL's
// answer, NULL with warning 1292 (TIMESTAMPDIFF(DAY, 'abc', d) failed
// with 1105).
func noDateNull(ctx *sql.Context, err error) error {
	if err != nil && types.ErrConvertingToTime.Is(err) {
		ctx.Warn(1292, "%s", err.Error())
		return nil
	}
	return err
}

// monthsDiff answers TIMESTAMPDIFF in MONTH, QUARTER and YEAR: whole
// months from the earlier to the later value, less one when the later's
// day and time of month are before the earlier's, as MySQL counts them.
func monthsDiff(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
	uv, err := args[0].Eval(ctx, row)
	if err != nil {
		return nil, true, err
	}
	unit, ok := uv.(string)
	if !ok {
		return nil, false, nil
	}
	per := int64(0)
	switch strings.ToUpper(strings.TrimSpace(unit)) {
	case "MONTH":
		per = 1
	case "QUARTER":
		per = 3
	case "YEAR":
		per = 12
	default:
		return nil, false, nil
	}
	var ts [2]time.Time
	for i, a := range args[1:] {
		v, err := a.Eval(ctx, row)
		if err != nil || v == nil {
			return nil, true, err
		}
		tv, _, err := types.DatetimeMaxPrecision.Convert(ctx, v)
		if err != nil {
			// NULL with a warning, as MySQL's (GMS failed with 1105).
			ctx.Warn(1292, "Incorrect datetime value: '%v'", v)
			return nil, true, nil
		}
		t, ok := tv.(time.Time)
		if !ok {
			return nil, false, nil
		}
		ts[i] = t
	}
	beg, end, sign := ts[0], ts[1], int64(1)
	if end.Before(beg) {
		beg, end, sign = end, beg, -1
	}
	months := int64(end.Year()-beg.Year())*12 + int64(end.Month()) - int64(beg.Month())
	// The later value's day and time of month before the earlier's: one
	// month is not whole.
	if end.Day() < beg.Day() || end.Day() == beg.Day() && clockOf(end) < clockOf(beg) {
		months--
	}
	return months / per * sign, true, nil
}

// clockOf is t's time of day in microseconds.
func clockOf(t time.Time) int64 {
	return int64(t.Hour())*3_600_000_000 + int64(t.Minute())*60_000_000 + int64(t.Second())*1_000_000 + int64(t.Nanosecond()/1000)
}

func newUTCTimestamp(args ...sql.Expression) (sql.Expression, error) {
	g, err := function.NewUTCTimestamp(args...)
	if err != nil {
		return nil, err
	}
	fsp := 0
	if len(args) == 1 {
		if lit, ok := args[0].(*expression.Literal); ok {
			if n, ok := lit.Value().(int8); ok {
				fsp = int(n)
			} else if v, _, err := types.Int64.Convert(sql.NewEmptyContext(), lit.Value()); err == nil {
				fsp = int(v.(int64))
			}
		}
	}
	fsp = min(max(fsp, 0), 6)
	return &delegate{name: "utc_timestamp", args: args, gms: g, mk: newUTCTimestamp,
		typ: types.MustCreateDatetimeType(sqltypes.Datetime, fsp),
		eval: func(ctx *sql.Context, row sql.Row, _ []sql.Expression) (any, bool, error) {
			v, err := g.Eval(ctx, row)
			if err != nil {
				return nil, true, err
			}
			t, ok := v.(time.Time)
			if !ok {
				return v, true, nil
			}
			unit := time.Second
			for i := 0; i < fsp; i++ {
				unit /= 10
			}
			return t.Truncate(unit), true, nil
		}}, nil
}

// ParsedFormsRuleID names ParsedFormsRule.
const ParsedFormsRuleID analyzer.RuleId = 1043

// ParsedFormsRule puts Petrel's functions in place of GMS's where GMS's
// parser builds them without the function registry: TIMESTAMPDIFF,
// TRIM of a NULL pattern (trimNull), and EXTRACT(WEEK FROM d), which is WEEK(d, 0) (GMS's was one more in
// 2024: EXTRACT(WEEK FROM '2024-02-29') was 9 where MySQL's is 8), other
// units through newExtract (a TIME's parts).
func ParsedFormsRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if ex, ok := e.(*function.Extract); ok {
			return extractWeek(ex)
		}
		if tr, ok := e.(*function.Trim); ok {
			return &trimNull{Expression: tr}, transform.NewTree, nil
		}
		td, ok := e.(*function.TimestampDiff)
		if !ok {
			return e, transform.SameTree, nil
		}
		ch := td.Children()
		if len(ch) != 3 {
			return e, transform.SameTree, nil
		}
		return newTimestampDiff(ch[0], ch[1], ch[2]), transform.NewTree, nil
	})
}

// trimNull is TRIM([dir] pat FROM str) with a NULL pat NULL (GMS's
// TRIM(NULL FROM 'a') panicked converting it).
type trimNull struct{ sql.Expression }

func (t *trimNull) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if ch := t.Expression.Children(); len(ch) == 2 {
		pat, err := ch[1].Eval(ctx, row)
		if err != nil || pat == nil {
			return nil, err
		}
	}
	return t.Expression.Eval(ctx, row)
}

func (t *trimNull) IsNullable() bool { return true }

func (t *trimNull) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := t.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &trimNull{Expression: e}, nil
}

// extractWeek is EXTRACT(WEEK FROM d) as WEEK(d, 0); other units GMS's.
func extractWeek(ex *function.Extract) (sql.Expression, transform.TreeIdentity, error) {
	lit, ok := ex.LeftChild.(*expression.Literal)
	if !ok {
		return ex, transform.SameTree, nil
	}
	unit, ok := lit.Value().(string)
	if !ok {
		return ex, transform.SameTree, nil
	}
	if !strings.EqualFold(unit, "week") {
		return newExtract(ex.LeftChild, ex.RightChild), transform.NewTree, nil // a TIME's parts: extracttime.go
	}
	w, err := newWeek(ex.RightChild, expression.NewLiteral(int8(0), types.Int8))
	if err != nil {
		return ex, transform.SameTree, nil
	}
	return w, transform.NewTree, nil
}

// newFromUnixtime is FROM_UNIXTIME(x): a fractional x keeps its fraction
// (GMS rounded it to a second: FROM_UNIXTIME(1709201472.5) was
// '... 10:11:13' where MySQL's is '... 10:11:12.5'). GMS answers whole
// seconds, the format form and everything else.
func newFromUnixtime(args ...sql.Expression) (sql.Expression, error) {
	g, err := function.NewFromUnixtime(args...)
	if err != nil {
		return nil, err
	}
	return &delegate{name: "from_unixtime", args: args, gms: g, mk: newFromUnixtime, eval: func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
		if len(args) != 1 {
			return nil, false, nil
		}
		v, err := args[0].Eval(ctx, row)
		if err != nil || v == nil {
			return nil, true, err
		}
		d, ok := v.(decimal.Decimal)
		if !ok || d.Sign() < 0 || d.Equal(d.Truncate(0)) {
			return nil, false, nil
		}
		whole := d.Truncate(0)
		secs, err := function.NewFromUnixtime(expression.NewLiteral(whole.IntPart(), types.Int64))
		if err != nil {
			return nil, false, nil
		}
		t, err := secs.Eval(ctx, row)
		if err != nil {
			return nil, true, err
		}
		tm, ok := t.(time.Time)
		if !ok {
			return t, true, nil
		}
		micros := d.Sub(whole).Shift(6).Truncate(0).IntPart()
		return tm.Add(time.Duration(micros) * time.Microsecond), true, nil
	}}, nil
}

// newOct is OCT(n), which GMS lacks (1305): CONV(n, 10, 8), as MySQL
// defines it.
func newOct(n sql.Expression) sql.Expression {
	return &delegate{name: "oct", args: []sql.Expression{n},
		gms: function.NewConv(n, expression.NewLiteral(int8(10), types.Int8), expression.NewLiteral(int8(8), types.Int8)),
		mk: func(args ...sql.Expression) (sql.Expression, error) {
			return newOct(args[0]), nil
		}, eval: func(*sql.Context, sql.Row, []sql.Expression) (any, bool, error) {
			return nil, false, nil
		}}
}
