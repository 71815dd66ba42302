package functions

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// ADDTIME(expr1, expr2) and SUBTIME(expr1, expr2), which GMS lacks
// (1305): expr1, a DATETIME or a TIME, plus or minus expr2, a TIME. The
// result is of expr1's kind: a DATETIME for a DATETIME, TIMESTAMP or
// DATE (NULL past year 9999 or before year 1), a TIME for a TIME, and
// for a string the text of either, as the string reads (a date part
// makes it a DATETIME).

func newAddTime(a, b sql.Expression) sql.Expression { return &addTime{args: [2]sql.Expression{a, b}} }
func newSubTime(a, b sql.Expression) sql.Expression {
	return &addTime{args: [2]sql.Expression{a, b}, sub: true}
}

type addTime struct {
	args [2]sql.Expression
	sub  bool
}

var _ sql.FunctionExpression = (*addTime)(nil)

func (f *addTime) FunctionName() string {
	if f.sub {
		return "subtime"
	}
	return "addtime"
}
func (f *addTime) Description() string { return "MySQL's " + f.FunctionName() }
func (f *addTime) Resolved() bool      { return f.args[0].Resolved() && f.args[1].Resolved() }
func (f *addTime) String() string {
	return fmt.Sprintf("%s(%s, %s)", f.FunctionName(), f.args[0], f.args[1])
}
func (f *addTime) IsNullable() bool           { return true }
func (f *addTime) Children() []sql.Expression { return f.args[:] }

func (f *addTime) Type() sql.Type {
	switch t := f.args[0].Type(); {
	case types.IsTime(t):
		return types.DatetimeMaxPrecision
	case types.IsTimespan(t):
		return types.Time
	}
	return types.LongText
}

func (f *addTime) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 2)
	}
	return &addTime{args: [2]sql.Expression{children[0], children[1]}, sub: f.sub}, nil
}

func (f *addTime) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	a, err := f.args[0].Eval(ctx, row)
	if err != nil || a == nil {
		return nil, err
	}
	b, err := f.args[1].Eval(ctx, row)
	if err != nil || b == nil {
		return nil, err
	}
	d, err := timeArg(b)
	if err != nil {
		return nil, nil
	}
	if f.sub {
		d = d.Negate()
	}
	s, isText := a.(string)
	_, isTime := a.(time.Time)
	if isTime || types.IsTime(f.args[0].Type()) || (isText && strings.Contains(strings.TrimSpace(s), "-") && !strings.HasPrefix(strings.TrimSpace(s), "-")) {
		tv, _, err := types.DatetimeMaxPrecision.Convert(ctx, a)
		t, ok := tv.(time.Time)
		if err != nil || !ok {
			return nil, nil
		}
		r := t.Add(d.AsTimeDuration())
		if r.Year() < 1 || r.Year() > 9999 {
			return nil, nil
		}
		if !isText {
			return r, nil
		}
		if r.Nanosecond() != 0 {
			return r.Format("2006-01-02 15:04:05.000000"), nil
		}
		return r.Format("2006-01-02 15:04:05"), nil
	}
	ts, err := timeArg(a)
	if err != nil {
		return nil, nil
	}
	r := ts.Add(d)
	if isText {
		return r.String(), nil
	}
	return r, nil
}

// dayTime is TIME text with a day part, 'D hh:mm:ss[.frac]'.
var dayTime = regexp.MustCompile(`^\s*(-)?(\d+)\s+(\d.*)$`)

// timeArg is v as a TIME, its text read with a day part too ('1
// 1:1:1.000002', which GMS's conversion refuses).
func timeArg(v any) (types.Timespan, error) {
	if s, ok := v.(string); ok {
		if m := dayTime.FindStringSubmatch(s); m != nil {
			days, err := strconv.Atoi(m[2])
			if err != nil {
				return 0, err
			}
			rest, err := types.Time.ConvertToTimespan(m[3])
			if err != nil {
				return 0, err
			}
			ts, err := types.Time.ConvertToTimespan(int64(0))
			if err != nil {
				return 0, err
			}
			ts = ts.Add(rest)
			for i := 0; i < days; i++ {
				day, _ := types.Time.ConvertToTimespan("24:00:00")
				ts = ts.Add(day)
			}
			if m[1] == "-" {
				ts = ts.Negate()
			}
			return ts, nil
		}
	}
	return types.Time.ConvertToTimespan(v)
}
