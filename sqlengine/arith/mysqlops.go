package arith

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/sqlmode"
)

// Operators and casts as MySQL 8 evaluates them, where GMS's differ in
// the value they return. exprRule (intarith.go) puts these in place of
// GMS's expressions after all of GMS's analysis:
//   - bit operators (& | ^ << >> and ~) work on BIGINT UNSIGNED: GMS
//     types 1 << 63 as a signed BIGINT and saturates it, and cannot parse ~;
//   - floating-point + - * / whose result is infinite are error 1690, as
//     MySQL's, not the value inf;
//   - CAST(string AS SIGNED|UNSIGNED) reads the string's leading integer
//     with warning 1292 when something else follows (GMS returns 0), and
//     CAST(number AS DATE) reads YYYYMMDD digits (GMS returns NULL).

// bitOp is a MySQL bit operator over 64-bit unsigned operands.
type bitOp struct {
	left, right sql.Expression
	op          string
}

// bitLiteral is a hex or bit literal's value as the number MySQL reads
// it as in a numeric context: its bytes, big-endian (X'7F' is 127).
func bitLiteral(e sql.Expression) (uint64, bool) {
	l, ok := e.(*expression.Literal)
	if !ok {
		return 0, false
	}
	b, ok := l.Value().([]byte)
	if !ok {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if n > math.MaxUint64>>8 {
			return math.MaxUint64, true
		}
		n = n<<8 | uint64(c)
	}
	return n, true
}

var _ sql.Expression = (*bitOp)(nil)

func (b *bitOp) Resolved() bool             { return b.left.Resolved() && b.right.Resolved() }
func (b *bitOp) String() string             { return fmt.Sprintf("(%s %s %s)", b.left, b.op, b.right) }
func (b *bitOp) Type() sql.Type             { return types.Uint64 }
func (b *bitOp) IsNullable() bool           { return b.left.IsNullable() || b.right.IsNullable() }
func (b *bitOp) Children() []sql.Expression { return []sql.Expression{b.left, b.right} }

func (b *bitOp) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(b, len(children), 2)
	}
	c := *b
	c.left, c.right = children[0], children[1]
	return &c, nil
}

func (b *bitOp) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv, err := b.left.Eval(ctx, row)
	if err != nil || lv == nil {
		return nil, err
	}
	rv, err := b.right.Eval(ctx, row)
	if err != nil || rv == nil {
		return nil, err
	}
	l, lok := bitLiteral(b.left)
	if !lok {
		if l, err = bitOperand(ctx, lv); err != nil {
			return nil, err
		}
	}
	r, rok := bitLiteral(b.right)
	if !rok {
		if r, err = bitOperand(ctx, rv); err != nil {
			return nil, err
		}
	}
	switch b.op {
	case ast.BitAndStr:
		return l & r, nil
	case ast.BitOrStr:
		return l | r, nil
	case ast.BitXorStr:
		return l ^ r, nil
	case ast.ShiftLeftStr:
		if r >= 64 {
			return uint64(0), nil
		}
		return l << r, nil
	case ast.ShiftRightStr:
		if r >= 64 {
			return uint64(0), nil
		}
		return l >> r, nil
	}
	return nil, fmt.Errorf("unknown bit operator %q", b.op)
}

// BitOperand converts a bit operator's operand to the 64 bits MySQL
// operates on: integers as two's complement, fractional numbers rounded
// to the nearest integer and clipped to BIGINT's range (BIGINT
// UNSIGNED's above it), strings by their leading integer.
func bitOperand(ctx *sql.Context, v any) (uint64, error) {
	if n, big, u, ok := IntOperand(v); ok {
		if big {
			return u, nil
		}
		return uint64(n), nil
	}
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case float32:
		return floatBits(float64(x)), nil
	case float64:
		return floatBits(x), nil
	case decimal.Decimal:
		return decimalBits(x), nil
	case string:
		n, _ := castStringInt(ctx, x, true)
		return n, nil
	case []byte:
		n, _ := castStringInt(ctx, string(x), true)
		return n, nil
	}
	return 0, fmt.Errorf("bit operand of type %T", v)
}

func floatBits(f float64) uint64 {
	f = math.RoundToEven(f)
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxUint64:
		return math.MaxUint64
	case f >= math.MaxInt64:
		return uint64(f)
	case f <= math.MinInt64:
		return 1 << 63
	}
	return uint64(int64(f))
}

var maxUint64Dec = decimal.RequireFromString("18446744073709551615")

func decimalBits(d decimal.Decimal) uint64 {
	d = d.Round(0)
	switch {
	case d.Cmp(maxUint64Dec) >= 0:
		return math.MaxUint64
	case d.Sign() >= 0:
		return d.BigInt().Uint64()
	case d.Cmp(decimal.NewFromInt(math.MinInt64)) <= 0:
		return 1 << 63
	}
	return uint64(d.IntPart())
}

// CastStringInt reads s's leading integer as MySQL's CAST(s AS SIGNED |
// UNSIGNED) does: spaces, a sign, digits. Warning 1292 when anything but
// trailing spaces follows or the digits exceed 64 bits (then the value is
// clipped); a negative number wraps to its two's complement.
func castStringInt(ctx *sql.Context, s string, unsigned bool) (uint64, bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') { // MySQL skips only these before digits
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var u uint64
	over, digits := false, 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
		d := uint64(s[i] - '0')
		if u > (math.MaxUint64-d)/10 {
			over = true
			continue
		}
		u = u*10 + d
	}
	truncated := digits == 0 || over || strings.TrimRight(s[i:], " \t\n\r") != ""
	var out uint64
	switch {
	case over && neg:
		out = 1 << 63 // BIGINT's minimum
	case over:
		out = math.MaxUint64 // -1 as a signed cast, as MySQL's
	case neg && u > 1<<63:
		out, truncated = 1<<63, true
	case neg:
		out = -u
	case !unsigned && u > math.MaxInt64:
		out = u // wraps to negative, as MySQL's signed cast
	default:
		out = u
	}
	if truncated && ctx != nil {
		ctx.Warn(mysqlerr.ErWrongValue, "Truncated incorrect INTEGER value: '%s'", s)
	}
	return out, truncated
}

// castInt is CAST(string AS SIGNED | UNSIGNED).
type castInt struct {
	child    sql.Expression
	gms      sql.Expression // the cast GMS built, for its name and non-strings
	unsigned bool
}

var _ sql.Expression = (*castInt)(nil)

func (c *castInt) Resolved() bool             { return c.child.Resolved() }
func (c *castInt) String() string             { return c.gms.String() }
func (c *castInt) Type() sql.Type             { return c.gms.Type() }
func (c *castInt) IsNullable() bool           { return c.child.IsNullable() }
func (c *castInt) Children() []sql.Expression { return []sql.Expression{c.child} }

func (c *castInt) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 1)
	}
	g, err := c.gms.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &castInt{child: children[0], gms: g, unsigned: c.unsigned}, nil
}

func (c *castInt) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case []byte:
		s = string(x)
	default:
		return c.gms.Eval(ctx, row)
	}
	u, _ := castStringInt(ctx, s, c.unsigned)
	if c.unsigned {
		return u, nil
	}
	return int64(u), nil
}

// castDate is CAST(number AS DATE): the number's digits read as YYMMDD
// or YYYYMMDD (a DATETIME's YYYYMMDDhhmmss keeps its date), as MySQL's
// number-to-date conversion; NULL with warning 1292 when they name no
// date.
type castDate struct {
	child sql.Expression
	gms   sql.Expression
}

var _ sql.Expression = (*castDate)(nil)

func (c *castDate) Resolved() bool             { return c.child.Resolved() }
func (c *castDate) String() string             { return c.gms.String() }
func (c *castDate) Type() sql.Type             { return c.gms.Type() }
func (c *castDate) IsNullable() bool           { return true }
func (c *castDate) Children() []sql.Expression { return []sql.Expression{c.child} }

func (c *castDate) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 1)
	}
	g, err := c.gms.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &castDate{child: children[0], gms: g}, nil
}

func (c *castDate) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	n, big, _, ok := IntOperand(v)
	if !ok || big || n < 0 {
		if ok && (big || n < 0) {
			ctx.Warn(mysqlerr.ErWrongValue, "Truncated incorrect date value: '%v'", v)
			return nil, nil
		}
		return c.gms.Eval(ctx, row)
	}
	if n == 0 {
		// The zero date, as CAST('0000-00-00' AS DATE); NULL with 1292
		// under NO_ZERO_DATE.
		if sqlmode.Load(ctx).ModeEnabled("NO_ZERO_DATE") {
			ctx.Warn(mysqlerr.ErWrongValue, "Incorrect datetime value: '0'")
			return nil, nil
		}
		z, _, err := c.gms.Type().Convert(ctx, "0000-00-00")
		return z, err
	}
	digits := fmt.Sprint(n)
	if l := len(digits); l == 5 || l == 7 || l == 11 || l == 13 {
		digits = "0" + digits // a leading zero the number lost
	}
	p, ok := ParseDateDigits(digits)
	if !ok || p.Mo < 1 || p.Mo > 12 || p.D < 1 || p.D > DaysIn(p.Y, p.Mo) {
		ctx.Warn(mysqlerr.ErWrongValue, "Truncated incorrect date value: '%d'", n)
		return nil, nil
	}
	return time.Date(p.Y, time.Month(p.Mo), p.D, 0, 0, 0, 0, time.UTC), nil
}

// floatArith is floating-point + - * / with MySQL's overflow check: an
// infinite result is error 1690 (DOUBLE value is out of range).
type floatArith struct {
	sql.Expression
}

func (f floatArith) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := f.Expression.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if x, ok := v.(float64); ok && math.IsInf(x, 0) {
		return nil, mysqlerr.New(mysqlerr.ErDataOutOfRange, "DOUBLE value is out of range in '%s'", f.Expression.String())
	}
	return v, nil
}

func (f floatArith) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := f.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return floatArith{e}, nil
}

// RewriteBitNot turns MySQL's ~x, which GMS's planner does not know,
// into x ^ 18446744073709551615 (the same 64 bits) under a unary plus,
// which GMS's planner drops: the column keeps the name "~x", which
// GMS takes from the statement's text.
func RewriteBitNot(q string, st ast.Statement) {
	if st == nil || strings.IndexByte(q, '~') < 0 {
		return
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if u, ok := n.(*ast.UnaryExpr); ok && u.Operator == ast.TildaStr {
			u.Operator = ast.UPlusStr
			u.Expr = &ast.BinaryExpr{Operator: ast.BitXorStr, Left: u.Expr,
				Right: ast.NewIntVal([]byte("18446744073709551615"))}
		}
		return true, nil
	}, st)
}

// negInt is unary minus of an integer, exact: GMS negates an unsigned
// operand in its own width (-CAST(200 AS TINYINT UNSIGNED) gives 56) and
// a BIGINT UNSIGNED one in int64. MySQL's result is a BIGINT (an error
// 1690 past its range); a BIGINT UNSIGNED operand's is a DECIMAL here, so
// that -18446744073709551615 is the value MySQL computes for a constant.
type negInt struct {
	child sql.Expression
	gms   sql.Expression
}

var _ sql.Expression = (*negInt)(nil)

var negUnsignedType = types.MustCreateDecimalType(21, 0)

func (n *negInt) Resolved() bool             { return n.child.Resolved() }
func (n *negInt) String() string             { return n.gms.String() }
func (n *negInt) IsNullable() bool           { return n.child.IsNullable() }
func (n *negInt) Children() []sql.Expression { return []sql.Expression{n.child} }

// Type: the negation of a BIGINT UNSIGNED literal is a DECIMAL
// (-18446744073709551615 is that number), of any other BIGINT UNSIGNED
// operand a BIGINT, out of range past -2^63 (1690), as MySQL's
// Item_func_neg types them.
func (n *negInt) Type() sql.Type {
	if n.unsignedLiteral() {
		return negUnsignedType
	}
	return types.Int64
}

// unsignedLiteral: the operand is a BIGINT UNSIGNED constant (a
// literal, ~0), reading no column.
func (n *negInt) unsignedLiteral() bool {
	if n.child.Type() != types.Uint64 {
		return false
	}
	return !transform.InspectExpr(n.child, func(e sql.Expression) bool {
		switch e.(type) {
		case *expression.GetField, *expression.Literal:
			_, col := e.(*expression.GetField)
			return col
		}
		return len(e.Children()) == 0 // a variable, a subquery, a parameter
	})
}

func (n *negInt) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(children), 1)
	}
	g, err := n.gms.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &negInt{child: children[0], gms: g}, nil
}

func (n *negInt) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := n.child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	x, big, u, ok := IntOperand(v)
	if !ok {
		return n.gms.Eval(ctx, row)
	}
	if n.unsignedLiteral() {
		if big {
			return decimal.RequireFromString(fmt.Sprint(u)).Neg(), nil
		}
		return decimal.NewFromInt(x).Neg(), nil
	}
	if big || x == math.MinInt64 {
		return nil, mysqlerr.New(mysqlerr.ErDataOutOfRange, "BIGINT value is out of range in '%s'", n.gms.String())
	}
	return -x, nil
}

// divStrict is /, DIV or MOD in an INSERT or UPDATE under strict mode
// with ERROR_FOR_DIVISION_BY_ZERO: a zero divisor is error 1365, as in
// MySQL (GMS returns NULL with the warning whatever the mode).
type divStrict struct {
	sql.Expression
	divisor sql.Expression
}

func (d divStrict) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.Expression.Eval(ctx, row)
	if err != nil || v != nil {
		return v, err
	}
	dv, err := d.divisor.Eval(ctx, row)
	if err != nil || dv == nil {
		return nil, err
	}
	if f, _, cerr := types.Float64.Convert(ctx, dv); cerr == nil && f == float64(0) {
		return nil, mysqlerr.New(mysqlerr.ErDivisionByZero, "Division by 0")
	}
	return nil, nil
}

func (d divStrict) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := d.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return divStrict{Expression: e, divisor: e.Children()[1]}, nil
}
