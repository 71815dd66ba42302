package functions

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/sqlengine/arith"
)

// CONCAT and CONCAT_WS of a TIME value. GMS's string conversion has no
// case for its TIME values (types.Timespan), so CONCAT(time_col) failed
// with 1105 "incompatible conversion to SQL type: '09:26:00'->longtext"
// (mtr's func_timestamp); MySQL concatenates the value's text
// ('09:26:00', with its fractional digits). Here each TIME argument is
// given as its text (timeText) to GMS's own CONCAT and CONCAT_WS, which
// answer everything else as before.

func newConcat(args ...sql.Expression) (sql.Expression, error) {
	return function.NewConcat(timeArgsAsText(args)...)
}

func newConcatWS(args ...sql.Expression) (sql.Expression, error) {
	return function.NewConcatWithSeparator(timeArgsAsText(args)...)
}

// timeArgsAsText is args with each TIME, DATE or DATETIME column
// argument read as text (asText); args itself when none is one.
func timeArgsAsText(args []sql.Expression) []sql.Expression {
	var out []sql.Expression
	for i, a := range args {
		t := asText(a)
		if t == nil {
			continue
		}
		if out == nil {
			out = append([]sql.Expression(nil), args...)
		}
		out[i] = t
	}
	if out == nil {
		return args
	}
	return out
}

// timeText is a TIME value as its text, with its precision's digits
// (arith.TimeFSP: CONCAT of a TIME(2) is '10:00:00.25', of a TIME(0)
// '10:00:00'; GMS's text had six digits whenever there was a fraction).
type timeText struct {
	child sql.Expression
	// fsp is the child's precision plus one once known (0: not yet).
	fsp atomic.Int32
}

var _ sql.Expression = (*timeText)(nil)
var _ sql.CollationCoercible = (*timeText)(nil)

func (t *timeText) Resolved() bool             { return t.child.Resolved() }
func (t *timeText) String() string             { return t.child.String() }
func (t *timeText) IsNullable() bool           { return t.child.IsNullable() }
func (t *timeText) Children() []sql.Expression { return []sql.Expression{t.child} }

// Type is a VARCHAR long enough for any TIME ('-838:59:59.000000').
func (t *timeText) Type() sql.Type { return types.MustCreateStringWithDefaults(sqltypes.VarChar, 17) }

// CollationCoercibility: a temporal value's text is in the connection's
// collation, with a number's coercibility (it never decides a collation).
func (t *timeText) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return ctx.GetCollation(), 5
}

func (t *timeText) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("functions: TIME text takes 1 child, got %d", len(children))
	}
	return &timeText{child: children[0]}, nil
}

func (t *timeText) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := t.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	if ts, ok := v.(types.Timespan); ok {
		f := t.fsp.Load()
		if f == 0 {
			fsp, trusted := arith.TimeFSP(ctx, t.child)
			if !trusted {
				fsp = 6
			}
			f = int32(fsp) + 1
			t.fsp.Store(f)
		}
		return timespanText(ts, int(f-1)), nil
	}
	return v, nil
}

// timespanText is ts with fsp fractional digits; at 6, GMS's text (six
// digits when there is a fraction, none otherwise).
func timespanText(ts types.Timespan, fsp int) string {
	s := ts.String()
	if fsp >= 6 {
		return s
	}
	whole, frac, _ := strings.Cut(s, ".")
	if fsp == 0 {
		return whole
	}
	frac += "000000"
	return whole + "." + frac[:fsp]
}

// TimeTextRuleID is TimeTextRule's analyzer rule id.
const TimeTextRuleID analyzer.RuleId = 1040

// TimeTextRule gives CAST(time AS CHAR) (CONVERT(time, CHAR)) its TIME
// argument as text: GMS's conversion to a string has no case for TIME
// values and failed with 1105 "incompatible conversion to SQL type".
// GROUP_CONCAT's DATE and DATETIME arguments are given as their text
// (dateText), and its result is cut as MySQL cuts it (groupconcatcut.go).
func TimeTextRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if g, ok := e.(*aggregation.GroupConcat); ok {
			ne, same, err := groupConcatText(g)
			if err != nil {
				return ne, same, err
			}
			// Cut as MySQL cuts it (groupconcatcut.go).
			if g, ok := ne.(*aggregation.GroupConcat); ok {
				if c := cutGroupConcat(g); c != nil {
					return c, transform.NewTree, nil
				}
			}
			return ne, same, nil
		}
		cv, ok := e.(*expression.Convert)
		if !ok || !types.IsText(cv.Type()) {
			return e, transform.SameTree, nil
		}
		text := asText(cv.Child)
		if text == nil {
			return e, transform.SameTree, nil
		}
		out, err := cv.WithChildren(text)
		if err != nil {
			return e, transform.SameTree, nil
		}
		return out, transform.NewTree, nil
	})
}
