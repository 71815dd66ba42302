package functions

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation/window"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
)

// Window functions GMS v0.20.0 lacks or does not plan as windows:
// NTH_VALUE and CUME_DIST (1305, no such function), and BIT_AND, BIT_OR
// and BIT_XOR OVER a window (GMS's planner knows a fixed list of window
// functions; the bit aggregates, not on it, were evaluated per row:
// 1105). The parser rewrite (rewrite/windowcalls.go) writes each as
// ROW_NUMBER('petrel:<name>', args...) OVER (...), a call only that
// rewrite makes (MySQL's grammar, and vitess's, give ROW_NUMBER no
// argument), which GMS's planner plans as a window function; newRowNumber
// builds the function the first argument names.

// WindowCallPrefix starts the name argument of the rewritten calls
// (rewrite/windowcalls.go writes it).
const WindowCallPrefix = "petrel:"

// Windows is the window functions sqlengine registers with MySQL()'s.
func Windows() []sql.Function {
	return []sql.Function{
		sql.FunctionN{Name: "row_number", Fn: newRowNumber},
		sql.Function1{Name: "first_value", Fn: func(e sql.Expression) sql.Expression {
			return &windowCall{name: "first_value", args: []sql.Expression{e}, n: 1}
		}},
		sql.Function1{Name: "last_value", Fn: func(e sql.Expression) sql.Expression {
			return &windowCall{name: "last_value", args: []sql.Expression{e}, n: 1}
		}},
	}
}

// newRowNumber is ROW_NUMBER(), or the window function a rewritten call
// names.
func newRowNumber(args ...sql.Expression) (sql.Expression, error) {
	if len(args) == 0 {
		return window.NewRowNumber(), nil
	}
	lit, ok := args[0].(*expression.Literal)
	name, _ := lit.Value().(string)
	if !ok || !strings.HasPrefix(name, WindowCallPrefix) {
		return nil, sql.ErrInvalidArgumentNumber.New("ROW_NUMBER", 0, len(args))
	}
	name, args = strings.TrimPrefix(name, WindowCallPrefix), args[1:]
	switch {
	case name == "nth_value" && len(args) == 2:
		// A bad N fails the statement when it runs: GMS's planner
		// reports an error here as no window function (1105).
		n, err := nthArg(args[1])
		return &windowCall{name: name, args: args[:1], n: n, err: err}, nil
	case name == "cume_dist" && len(args) == 0:
		return &windowCall{name: name}, nil
	case name == "bit_and" && len(args) == 1:
		return aggregation.NewBitAnd(args[0]), nil
	case name == "bit_or" && len(args) == 1:
		return aggregation.NewBitOr(args[0]), nil
	case name == "bit_xor" && len(args) == 1:
		return aggregation.NewBitXor(args[0]), nil
	}
	return nil, sql.ErrInvalidArgumentNumber.New(strings.ToUpper(name), "its", len(args))
}

// nthArg is NTH_VALUE's N: a positive integer literal, else MySQL's
// 1210 (Incorrect arguments to nth_value).
func nthArg(e sql.Expression) (int, error) {
	bad := mysqlerr.New(mysqlerr.ErWrongArguments, "Incorrect arguments to nth_value")
	lit, ok := e.(*expression.Literal)
	if !ok || !types.IsInteger(lit.Type()) {
		return 0, bad
	}
	var n int64
	switch v := lit.Value().(type) {
	case int8:
		n = int64(v)
	case int16:
		n = int64(v)
	case int32:
		n = int64(v)
	case int64:
		n = v
	case uint8:
		n = int64(v)
	case uint16:
		n = int64(v)
	case uint32:
		n = int64(v)
	case uint64:
		n = int64(min(v, 1<<62))
	}
	if n < 1 {
		return 0, bad
	}
	return int(n), nil
}

// windowCall is NTH_VALUE(args[0], n), FIRST_VALUE (the first), LAST_VALUE
// (the first from the frame's end) or CUME_DIST() over window. GMS's own
// FIRST_VALUE and LAST_VALUE failed over a window with neither PARTITION
// BY nor ORDER BY (OVER (): a nil pointer in its plan, caught: 1105).
type windowCall struct {
	name   string
	args   []sql.Expression
	n      int
	window *sql.WindowDefinition
	id     sql.ColumnId
	err    error // NTH_VALUE's bad N
}

var _ sql.WindowAggregation = (*windowCall)(nil)
var _ sql.FunctionExpression = (*windowCall)(nil)
var _ sql.CollationCoercible = (*windowCall)(nil)

func (c *windowCall) FunctionName() string { return c.name }
func (c *windowCall) Description() string  { return c.name + " over a window" }
func (c *windowCall) Id() sql.ColumnId     { return c.id }
func (c *windowCall) IsNullable() bool     { return true }

func (c *windowCall) Window() *sql.WindowDefinition { return c.window }

func (c *windowCall) Resolved() bool {
	for _, e := range c.Children() {
		if !e.Resolved() {
			return false
		}
	}
	return true
}

func (c *windowCall) Type() sql.Type {
	if c.name == "cume_dist" {
		return types.Float64
	}
	return c.args[0].Type()
}

func (c *windowCall) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	if c.name == "cume_dist" {
		return sql.Collation_binary, 5
	}
	return sql.GetCoercibility(ctx, c.args[0])
}

func (c *windowCall) String() string {
	var b strings.Builder
	b.WriteString(c.name)
	b.WriteString("(")
	for i, a := range c.args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.String())
	}
	if c.name == "nth_value" {
		fmt.Fprintf(&b, ", %d", c.n)
	}
	b.WriteString(")")
	if c.window != nil {
		b.WriteString(" ")
		b.WriteString(c.window.String())
	}
	return b.String()
}

func (c *windowCall) Eval(*sql.Context, sql.Row) (interface{}, error) {
	return nil, sql.ErrWindowUnsupported.New(c.name)
}

func (c *windowCall) Children() []sql.Expression {
	return append(c.window.ToExpressions(), c.args...)
}

func (c *windowCall) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	nw := len(children) - len(c.args)
	if nw < 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), len(c.args))
	}
	w, err := c.window.FromExpressions(children[:nw])
	if err != nil {
		return nil, err
	}
	nc := *c
	nc.window, nc.args = w, children[nw:]
	return &nc, nil
}

func (c *windowCall) WithId(id sql.ColumnId) sql.IdExpression {
	nc := *c
	nc.id = id
	return &nc
}

func (c *windowCall) WithWindow(w *sql.WindowDefinition) sql.WindowAdaptableExpression {
	nc := *c
	nc.window = w
	return &nc
}

func (c *windowCall) NewWindowFunction() (sql.WindowFunction, error) {
	if c.err != nil {
		return nil, c.err
	}
	if c.name == "cume_dist" {
		// The rows up to the current row's last peer: a peer frame's.
		f, err := peerFrame{}.NewFramer(c.window)
		return &cumeDist{framer: f}, err
	}
	arg, err := transform.Clone(c.args[0])
	if err != nil {
		return nil, err
	}
	framer, err := windowFramer(c.window)
	if err != nil {
		return nil, err
	}
	return &nthValue{arg: arg, n: c.n, fromLast: c.name == "last_value", framer: framer}, nil
}

// nthValue is the frame's nth row's value (from its end: fromLast),
// NULL past the frame's end.
type nthValue struct {
	arg      sql.Expression
	n        int
	fromLast bool
	framer   sql.WindowFramer
	part     sql.WindowInterval
}

func (v *nthValue) DefaultFramer() sql.WindowFramer { return v.framer }
func (v *nthValue) Dispose()                        {}

func (v *nthValue) StartPartition(_ *sql.Context, part sql.WindowInterval, _ sql.WindowBuffer) error {
	v.part = part
	return nil
}

func (v *nthValue) Compute(ctx *sql.Context, frame sql.WindowInterval, rows sql.WindowBuffer) interface{} {
	frame = clampFrame(frame, v.part)
	i := frame.Start + v.n - 1
	if v.fromLast {
		i = frame.End - v.n
	}
	if i < frame.Start || i >= frame.End {
		return nil
	}
	x, err := v.arg.Eval(ctx, rows[i])
	if err != nil {
		ctx.Warn(1105, "%s", err.Error())
		return nil
	}
	return x
}

// cumeDist is the share of the partition's rows up to the current row's
// last peer, its frame's end.
type cumeDist struct {
	framer sql.WindowFramer
	part   sql.WindowInterval
}

func (d *cumeDist) DefaultFramer() sql.WindowFramer { return d.framer }
func (d *cumeDist) Dispose()                        {}

func (d *cumeDist) StartPartition(_ *sql.Context, part sql.WindowInterval, _ sql.WindowBuffer) error {
	d.part = part
	return nil
}

func (d *cumeDist) Compute(_ *sql.Context, frame sql.WindowInterval, _ sql.WindowBuffer) interface{} {
	n := d.part.End - d.part.Start
	if n == 0 {
		return nil
	}
	return float64(frame.End-d.part.Start) / float64(n)
}
