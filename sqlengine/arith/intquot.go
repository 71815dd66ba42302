package arith

import (
	"fmt"
	"math"
	"reflect"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/shopspring/decimal"
)

// An integer divided by an integer at the default div_precision_increment
// (4), where the quotient is not an operand of another arithmetic
// operator: `(x % 11) / 100` in a select list or an INSERT's values.
// GMS's Div gets it right and slowly: per row it works out its result
// type through its children's types, converts both integers to DECIMALs
// through a DECIMAL type made for each, divides with big.Int powers of
// ten and evaluates its left operand a second time to find the scale to
// round to (a fifth of the CPU of a 300,000-row INSERT ... SELECT,
// bench/tpchscan/setup.sql). intQuot computes the same value in int64
// arithmetic, in GMS's steps: the quotient rounded half away from zero
// to 11 digits, truncated to 9, rounded half away from zero to 4. A
// dividend whose 11 extra digits do not fit in an int64, a zero
// divisor, and a value that is not an integer go to GMS's Div.

// quotScale is the scale of an integer quotient at increment 4.
const quotScale = 4

// intQuot is an outermost integer `/` (see above).
type intQuot struct {
	div *expression.Div
	typ sql.Type
}

var _ sql.Expression = (*intQuot)(nil)

// newIntQuot is d as an intQuot, or nil: the increment is not 4, an
// operand is not an integer, or d is an operand of an arithmetic
// operator or a comparison (GMS keeps such a quotient at 9 digits).
func newIntQuot(ctx *sql.Context, d *expression.Div) sql.Expression {
	if DivIncrement(ctx) != quotScale || !IsIntegerType(d.LeftChild.Type()) || !IsIntegerType(d.RightChild.Type()) {
		return nil
	}
	if !outermostDiv(d) {
		return nil
	}
	return &intQuot{div: d, typ: d.Type()}
}

// outermostDiv reports whether GMS rounds d's quotient to its scale:
// its operator count (set by the operators built over it, -1 under a
// comparison) equals the operators in d itself. GMS keeps the count
// unexported; it is read, never written.
func outermostDiv(d *expression.Div) bool {
	f := reflect.ValueOf(d).Elem().FieldByName("ops")
	if !f.IsValid() || !f.CanInt() {
		return false
	}
	return f.Int() == int64(countArithOps(d))
}

// countArithOps counts the arithmetic operators at and under e, as GMS
// does.
func countArithOps(e sql.Expression) int {
	a, ok := e.(expression.ArithmeticOp)
	if !ok {
		return 0
	}
	return countArithOps(a.Left()) + countArithOps(a.Right()) + 1
}

func (q *intQuot) Resolved() bool             { return q.div.Resolved() }
func (q *intQuot) String() string             { return q.div.String() }
func (q *intQuot) Type() sql.Type             { return q.typ }
func (q *intQuot) IsNullable() bool           { return true }
func (q *intQuot) Children() []sql.Expression { return q.div.Children() }

func (q *intQuot) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(q, len(children), 2)
	}
	d := expression.NewDiv(children[0], children[1])
	return &intQuot{div: d, typ: d.Type()}, nil
}

func (q *intQuot) DebugString() string { return fmt.Sprintf("intQuot(%s)", sql.DebugString(q.div)) }

func (q *intQuot) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv, err := q.div.LeftChild.Eval(ctx, row)
	if err != nil || lv == nil {
		return nil, err
	}
	rv, err := q.div.RightChild.Eval(ctx, row)
	if err != nil || rv == nil {
		return nil, err
	}
	l, lbig, _, lok := IntOperand(lv)
	r, rbig, _, rok := IntOperand(rv)
	if lok && rok && !lbig && !rbig {
		if v, ok := quotient4(l, r); ok {
			return v, nil
		}
	}
	return q.div.Eval(ctx, row)
}

// quotient4 is l / r as GMS's Div computes it for integers (see above);
// false when r is 0 or l's 11 extra digits overflow an int64.
func quotient4(l, r int64) (decimal.Decimal, bool) {
	const pow11 = 100_000_000_000
	if r == 0 || l > maxScaled11 || l < -maxScaled11 || r == math.MinInt64 {
		return decimal.Decimal{}, false
	}
	t := roundHalfAway(l*pow11, r) // 11 digits
	t /= 100                       // truncated to 9
	return decimal.New(roundHalfAway(t, 100_000), -quotScale), true
}

// maxScaled11 is the largest |l| whose l * 10^11 fits an int64.
const maxScaled11 = 92_233_720

// roundHalfAway is a / b rounded half away from zero (b != 0, b not
// MinInt64).
func roundHalfAway(a, b int64) int64 {
	neg := (a < 0) != (b < 0)
	ua, ub := uabs(a), uabs(b)
	q, rem := ua/ub, ua%ub
	if rem >= ub-rem {
		q++
	}
	if neg {
		return -int64(q)
	}
	return int64(q)
}

func uabs(x int64) uint64 {
	if x < 0 {
		return uint64(-x)
	}
	return uint64(x)
}
