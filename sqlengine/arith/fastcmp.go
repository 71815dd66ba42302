package arith

import (
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

// A filter comparing a column with a literal of the column's own type
// (arith/constfold.go converts literals so) compares the two values directly.
// GMS's comparison unwraps both values and calls the type's Compare,
// which converts both again (a DECIMAL's is a rescale of each operand:
// a fifth of TPC-H Q6's time was its filter's three comparisons). For
// DECIMAL, DATE/DATETIME and integer columns, values read from the
// column are already of the type, so comparing them as Go values is
// the type's comparison; any other pair of values falls back to GMS's.

const FastCmpRuleID analyzer.RuleId = 1019

// FastCmp is a comparison of a column with a literal of its type.
type FastCmp struct {
	sql.Expression // GMS's comparison: everything but Eval
	col            *expression.GetField
	lit            interface{}
	colLeft        bool
	op             string
}

// NewFastCmp returns e as a fastCmp, or nil.
func NewFastCmp(e sql.Expression) *FastCmp {
	var op string
	switch e.(type) {
	case *expression.Equals:
		op = "="
	case *expression.LessThan:
		op = "<"
	case *expression.LessThanOrEqual:
		op = "<="
	case *expression.GreaterThan:
		op = ">"
	case *expression.GreaterThanOrEqual:
		op = ">="
	default:
		return nil
	}
	ch := e.Children()
	l, r := ch[0], ch[1]
	col, lok := l.(*expression.GetField)
	lit, rok := r.(*expression.Literal)
	colLeft := true
	if !lok || !rok {
		col, lok = r.(*expression.GetField)
		lit, rok = l.(*expression.Literal)
		colLeft = false
	}
	if !lok || !rok || lit.Value() == nil {
		return nil
	}
	t, v := col.Type(), lit.Value()
	if n, isBig, _, isInt := IntOperand(v); isInt && !isBig && types.IsDecimal(t) && IsIntegerType(lit.Type()) {
		// A DECIMAL with an integer: compared as decimals (MySQL's rule,
		// and GMS's), the integer's exact decimal made once.
		return &FastCmp{Expression: e, col: col, lit: decimal.NewFromInt(n), colLeft: colLeft, op: op}
	}
	if !types.TypesEqual(t, lit.Type()) {
		return nil
	}
	switch v.(type) {
	case decimal.Decimal:
		if !types.IsDecimal(t) {
			return nil
		}
	case time.Time:
		if k := t.Type(); k != sqltypes.Date && k != sqltypes.Datetime {
			return nil // TIMESTAMP: its zone handling stays GMS's
		}
	case int64, int32:
		if !IsIntegerType(t) || types.IsUnsigned(t) {
			return nil
		}
	default:
		return nil
	}
	return &FastCmp{Expression: e, col: col, lit: v, colLeft: colLeft, op: op}
}

func (c *FastCmp) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := c.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if n := NewFastCmp(e); n != nil {
		return n, nil
	}
	return e, nil
}

func (c *FastCmp) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	v, err := c.col.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	cmp, ok := 0, true
	switch l := c.lit.(type) {
	case decimal.Decimal:
		d, isDec := v.(decimal.Decimal)
		ok = isDec
		if ok {
			cmp = d.Cmp(l)
		}
	case time.Time:
		t, isTime := v.(time.Time)
		ok = isTime
		if ok {
			cmp = t.Compare(l)
		}
	case int64:
		cmp, ok = cmpInt(v, l)
	case int32:
		cmp, ok = cmpInt(v, int64(l))
	}
	if !ok {
		return c.Expression.Eval(ctx, row)
	}
	if !c.colLeft {
		cmp = -cmp
	}
	switch c.op {
	case "=":
		return cmp == 0, nil
	case "<":
		return cmp < 0, nil
	case "<=":
		return cmp <= 0, nil
	case ">":
		return cmp > 0, nil
	}
	return cmp >= 0, nil
}

// cmpInt compares a signed integer column value with n (intarith.go's
// intOperand reads it); false for any other kind of value.
func cmpInt(v interface{}, n int64) (int, bool) {
	x, big, _, ok := IntOperand(v)
	if !ok || big {
		return 0, false
	}
	switch {
	case x < n:
		return -1, true
	case x > n:
		return 1, true
	}
	return 0, true
}
