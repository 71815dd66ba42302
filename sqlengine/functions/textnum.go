package functions

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Text given to a numeric function is read as MySQL reads a string as a
// DOUBLE: by its leading number, exponent included, with warning 1292
// when more follows ('1e2x' is 100). GMS parsed it whole, so ROUND('2.567',
// 2) was 3, ROUND('1e2x') and SQRT('1e2x') failed (1105, 1366) and
// FLOOR('1e2x') was 0 without a warning.

// textNumberArgs: the functions whose arguments are numbers, and which of
// them (-1: all).
var textNumberArgs = map[string]int{
	"round": 0, "truncate": 0, "floor": 0, "ceil": 0, "ceiling": 0, "sign": 0,
	"sqrt": -1, "exp": -1, "ln": -1, "log": -1, "log10": -1, "log2": -1,
	"sin": -1, "cos": -1, "tan": -1, "degrees": -1, "radians": -1,
}

// withTextNumbers wraps the functions of textNumberArgs.
func withTextNumbers(fns []sql.Function) []sql.Function {
	for i, f := range fns {
		if arg, ok := textNumberArgs[f.FunctionName()]; ok {
			fns[i] = textNumberFn{Function: f, arg: arg}
		}
	}
	return fns
}

// textNumberFn reads its text arguments through textNumber.
type textNumberFn struct {
	sql.Function
	arg int
}

func (f textNumberFn) NewInstance(args []sql.Expression) (sql.Expression, error) {
	out := make([]sql.Expression, len(args))
	for i, a := range args {
		out[i] = a
		if (f.arg < 0 || f.arg == i) && types.IsText(a.Type()) && !types.IsBinaryType(a.Type()) {
			out[i] = &textNumber{child: a}
		}
	}
	return f.Function.NewInstance(out)
}

// textNumber is its text child read as a DOUBLE.
type textNumber struct{ child sql.Expression }

var _ sql.Expression = (*textNumber)(nil)

func (t *textNumber) Resolved() bool             { return t.child.Resolved() }
func (t *textNumber) String() string             { return t.child.String() }
func (t *textNumber) Type() sql.Type             { return types.Float64 }
func (t *textNumber) IsNullable() bool           { return t.child.IsNullable() }
func (t *textNumber) Children() []sql.Expression { return []sql.Expression{t.child} }

func (t *textNumber) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 1)
	}
	return &textNumber{child: children[0]}, nil
}

func (t *textNumber) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := t.child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	if s, ok := v.(string); ok {
		return textDouble(ctx, s), nil
	}
	f, _, err := types.Float64.Convert(ctx, v)
	return f, err
}
