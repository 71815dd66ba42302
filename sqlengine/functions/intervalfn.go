package functions

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/sqlengine/arith"
)

// INTERVAL(N, N1, N2, ...): 0 if N < N1, 1 if N < N2, and so on, the
// number of arguments after N when N is not below any, -1 if N is NULL;
// the arguments compared as numbers. GMS had no such function, and
// vitess reads INTERVAL as a keyword: the statement's text names it
// `INTERVAL` before parsing (sqlmode/intervalunit.go).
type intervalFn struct {
	args []sql.Expression
}

func newInterval(args ...sql.Expression) (sql.Expression, error) {
	if len(args) < 2 {
		return nil, sql.ErrInvalidArgumentNumber.New("INTERVAL", "2 or more", len(args))
	}
	return &intervalFn{args: args}, nil
}

func (f *intervalFn) Resolved() bool {
	for _, a := range f.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

func (f *intervalFn) String() string {
	parts := make([]string, len(f.args))
	for i, a := range f.args {
		parts[i] = a.String()
	}
	return fmt.Sprintf("interval(%s)", strings.Join(parts, ", "))
}

func (f *intervalFn) Type() sql.Type             { return types.Int64 }
func (f *intervalFn) IsNullable() bool           { return false }
func (f *intervalFn) Children() []sql.Expression { return f.args }
func (f *intervalFn) FunctionName() string       { return "interval" }
func (f *intervalFn) Description() string {
	return "returns the index of the last argument that is less than or equal to the first"
}

func (f *intervalFn) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return newInterval(children...)
}

func (f *intervalFn) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	n, null, err := intervalNumber(ctx, f.args[0], row)
	if err != nil || null {
		return int64(-1), err
	}
	for i, a := range f.args[1:] {
		x, null, err := intervalNumber(ctx, a, row)
		if err != nil {
			return nil, err
		}
		if !null && n < x {
			return int64(i), nil
		}
	}
	return int64(len(f.args) - 1), nil
}

// intervalNumber is a's value as a DOUBLE, text read by its leading
// number.
func intervalNumber(ctx *sql.Context, a sql.Expression, row sql.Row) (float64, bool, error) {
	v, err := a.Eval(ctx, row)
	if err != nil || v == nil {
		return 0, true, err
	}
	if s, ok := v.(string); ok {
		start, end, ok := arith.NumberSpan(s)
		if !ok {
			return 0, false, nil
		}
		f, _ := strconv.ParseFloat(s[start:end], 64)
		return f, false, nil
	}
	f, _, err := types.Float64.Convert(ctx, v)
	if err != nil {
		return 0, false, nil
	}
	return f.(float64), false, nil
}
