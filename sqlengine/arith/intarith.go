package arith

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/sqlmode"
)

// Integer arithmetic as MySQL 8 does it: +, - and * of two integers are
// exact 64-bit operations, unsigned when either operand is unsigned, and a
// result outside BIGINT's (or BIGINT UNSIGNED's) range is error 1690
// (ER_DATA_OUT_OF_RANGE), never a wrapped or saturated value. GMS wraps
// or saturates, so an analyzer rule (intArithRule, after all of GMS's)
// puts intArith in place of each such Arithmetic.

type intArith struct {
	left, right sql.Expression
	op          string
	unsigned    bool
}

var _ sql.Expression = (*intArith)(nil)

func (a *intArith) Resolved() bool { return a.left.Resolved() && a.right.Resolved() }

// String is Arithmetic's form: it names the expression in the error, and
// in the text a column default is kept as.
func (a *intArith) String() string {
	return "(" + a.left.String() + " " + a.op + " " + a.right.String() + ")"
}
func (a *intArith) IsNullable() bool {
	return a.left.IsNullable() || a.right.IsNullable()
}
func (a *intArith) Children() []sql.Expression { return []sql.Expression{a.left, a.right} }

func (a *intArith) Type() sql.Type {
	if a.unsigned {
		return types.Uint64
	}
	return types.Int64
}

func (a *intArith) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(a, len(children), 2)
	}
	c := *a
	c.left, c.right = children[0], children[1]
	return &c, nil
}

// IntOperand reads an integer operand as a signed value and, for an
// unsigned one beyond int64, as a big value.
func IntOperand(v any) (n int64, big bool, u uint64, ok bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), false, 0, true
	case int16:
		return int64(x), false, 0, true
	case int32:
		return int64(x), false, 0, true
	case int64:
		return x, false, 0, true
	case int:
		return int64(x), false, 0, true
	case uint8:
		return int64(x), false, 0, true
	case uint16:
		return int64(x), false, 0, true
	case uint32:
		return int64(x), false, 0, true
	case uint:
		if uint64(x) > math.MaxInt64 {
			return 0, true, uint64(x), true
		}
		return int64(x), false, 0, true
	case uint64:
		if x > math.MaxInt64 {
			return 0, true, x, true
		}
		return int64(x), false, 0, true
	case bool:
		// NOT, comparisons and the like are integers in MySQL: TRUE is 1.
		if x {
			return 1, false, 0, true
		}
		return 0, false, 0, true
	}
	return 0, false, 0, false
}

func (a *intArith) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv, err := a.left.Eval(ctx, row)
	if err != nil || lv == nil {
		return nil, err
	}
	rv, err := a.right.Eval(ctx, row)
	if err != nil || rv == nil {
		return nil, err
	}
	ln, lbig, lu, lok := IntOperand(lv)
	rn, rbig, ru, rok := IntOperand(rv)
	if !lok || !rok {
		return a.slow(lv, rv)
	}
	if !lbig && !rbig {
		// The common case: int64 operands, overflow checked.
		var r int64
		over := false
		switch a.op {
		case "+":
			r = ln + rn
			over = (rn > 0 && r < ln) || (rn < 0 && r > ln)
		case "-":
			r = ln - rn
			over = (rn < 0 && r < ln) || (rn > 0 && r > ln)
		case "*":
			if ln != 0 && rn != 0 {
				r = ln * rn
				over = r/rn != ln || (ln == -1 && rn == math.MinInt64) || (rn == -1 && ln == math.MinInt64)
			}
		case "%":
			if rn == 0 {
				return nil, divisionByZero(ctx)
			}
			r = ln % rn // the dividend's sign, as MySQL's
		case "div":
			if rn == 0 {
				return nil, divisionByZero(ctx)
			}
			over = ln == math.MinInt64 && rn == -1
			if !over {
				r = ln / rn // truncated towards zero, as MySQL's
			}
		}
		if !over {
			if a.unsigned {
				if r < 0 {
					return nil, a.outOfRange()
				}
				return uint64(r), nil
			}
			return r, nil
		}
	}
	var l, r big.Int
	if lbig {
		l.SetUint64(lu)
	} else {
		l.SetInt64(ln)
	}
	if rbig {
		r.SetUint64(ru)
	} else {
		r.SetInt64(rn)
	}
	if (a.op == "%" || a.op == "div") && r.Sign() == 0 {
		return nil, divisionByZero(ctx)
	}
	return a.bigResult(&l, &r)
}

// divisionByZero is MySQL's answer to x % 0 outside strict writes: NULL,
// with warning 1365 under ERROR_FOR_DIVISION_BY_ZERO only (divStrict
// makes it the error in strict writes).
func divisionByZero(ctx *sql.Context) error {
	if sqlmode.Load(ctx).ModeEnabled("ERROR_FOR_DIVISION_BY_ZERO") {
		ctx.Warn(mysqlerr.ErDivisionByZero, "Division by 0")
	}
	return nil
}

// slow computes operands of other Go types (strings an integer-typed
// expression returned) through their decimal text.
func (a *intArith) slow(lv, rv any) (any, error) {
	var l, r big.Int
	if _, ok := l.SetString(fmt.Sprint(lv), 10); !ok {
		return nil, fmt.Errorf("sqlengine: integer operand %v", lv)
	}
	if _, ok := r.SetString(fmt.Sprint(rv), 10); !ok {
		return nil, fmt.Errorf("sqlengine: integer operand %v", rv)
	}
	return a.bigResult(&l, &r)
}

var (
	maxUint64 = new(big.Int).SetUint64(math.MaxUint64)
	minInt64  = big.NewInt(math.MinInt64)
	maxInt64  = big.NewInt(math.MaxInt64)
)

func (a *intArith) bigResult(l, r *big.Int) (any, error) {
	var z big.Int
	switch a.op {
	case "+":
		z.Add(l, r)
	case "-":
		z.Sub(l, r)
	case "%":
		if r.Sign() == 0 {
			return nil, nil
		}
		z.Rem(l, r) // truncated: the dividend's sign
	case "div":
		if r.Sign() == 0 {
			return nil, nil
		}
		z.Quo(l, r) // truncated towards zero
	default:
		z.Mul(l, r)
	}
	if a.unsigned {
		if z.Sign() < 0 || z.Cmp(maxUint64) > 0 {
			return nil, a.outOfRange()
		}
		return z.Uint64(), nil
	}
	if z.Cmp(minInt64) < 0 || z.Cmp(maxInt64) > 0 {
		return nil, a.outOfRange()
	}
	return z.Int64(), nil
}

func (a *intArith) outOfRange() error {
	kind := "BIGINT"
	if a.unsigned {
		kind = "BIGINT UNSIGNED"
	}
	return mysqlerr.New(mysqlerr.ErDataOutOfRange, "%s value is out of range in '%s'", kind, a.String())
}

func arithmetic(ctx *sql.Context, ar *expression.Arithmetic) (sql.Expression, transform.TreeIdentity, error) {
	switch ar.Op {
	case "+", "-", "*":
	default:
		return ar, transform.SameTree, nil
	}
	if ar.Type() == types.Float64 {
		if na, ok := textAsDouble(ar); ok {
			return floatArith{na}, transform.NewTree, nil // strnum.go
		}
	}
	lt, rt := ar.LeftChild.Type(), ar.RightChild.Type()
	if !IsIntegerType(lt) || !IsIntegerType(rt) {
		if d, ok := NewDecArith(ar); ok {
			return d, transform.NewTree, nil // decarith.go
		}
		if ar.Type() == types.Float64 {
			return floatArith{ar}, transform.NewTree, nil
		}
		return ar, transform.SameTree, nil
	}
	unsigned := types.IsUnsigned(lt) || types.IsUnsigned(rt)
	if unsigned && ar.Op == "-" && sqlmode.Load(ctx).ModeEnabled("NO_UNSIGNED_SUBTRACTION") {
		unsigned = false // the difference is signed under this mode
	}
	return &intArith{left: ar.LeftChild, right: ar.RightChild, op: ar.Op, unsigned: unsigned}, transform.NewTree, nil
}

// intMod is m as an intArith when both operands are integers, else nil.
func intMod(m *expression.Mod) *intArith {
	lt, rt := m.LeftChild.Type(), m.RightChild.Type()
	if !IsIntegerType(lt) || !IsIntegerType(rt) {
		return nil
	}
	return &intArith{left: m.LeftChild, right: m.RightChild, op: "%", unsigned: types.IsUnsigned(lt)}
}

// intDiv is d as an intArith when both operands are integers, else nil:
// unsigned when either is, as MySQL's DIV.
func intDiv(d *expression.IntDiv) *intArith {
	lt, rt := d.LeftChild.Type(), d.RightChild.Type()
	if !IsIntegerType(lt) || !IsIntegerType(rt) {
		return nil
	}
	return &intArith{left: d.LeftChild, right: d.RightChild, op: "div", unsigned: types.IsUnsigned(lt) || types.IsUnsigned(rt)}
}

// IsIntegerType: the integer types, not BIT, YEAR or booleans' TINYINT(1)
// (which MySQL treats as integers too).
func IsIntegerType(t sql.Type) bool {
	return types.IsInteger(t) && !types.IsYear(t)
}

func temporal(t sql.Type) bool { return types.IsTime(t) || types.IsTimespan(t) }

// StrictDivision reports whether n writes rows (INSERT, REPLACE, UPDATE)
// under strict mode with ERROR_FOR_DIVISION_BY_ZERO, where MySQL makes
// a division by zero an error.
func StrictDivision(ctx *sql.Context, n sql.Node) bool {
	m := sqlmode.Load(ctx)
	return m.ModeEnabled("ERROR_FOR_DIVISION_BY_ZERO") && strictWrite(ctx, n, false)
}

// StrictWrite reports whether n changes rows (INSERT, REPLACE, UPDATE,
// DELETE; not with IGNORE) under strict mode, where MySQL 8 makes the
// warning of a value that is no date (1292) an error (WL#6891: its
// strict mode turns such warnings of a data-change statement into
// errors; a SELECT keeps them warnings).
func StrictWrite(ctx *sql.Context, n sql.Node) bool {
	return strictWrite(ctx, n, true)
}

func strictWrite(ctx *sql.Context, n sql.Node, deletes bool) bool {
	m := sqlmode.Load(ctx)
	if !m.ModeEnabled("STRICT_TRANS_TABLES") && !m.ModeEnabled("STRICT_ALL_TABLES") {
		return false
	}
	// An INSERT's source is analyzed as a tree of its own, without the
	// InsertInto above it: the statement's words tell.
	if w := strings.Fields(strings.ToUpper(strings.TrimLeft(ctx.Query(), " \t\r\n("))); len(w) > 0 && (w[0] == "INSERT" || w[0] == "REPLACE") {
		for _, x := range w[1:min(len(w), 4)] {
			if x == "IGNORE" {
				return false
			}
		}
		return true
	}
	write := false
	transform.Inspect(n, func(n sql.Node) bool {
		switch x := n.(type) {
		case *plan.InsertInto:
			write = write || !x.Ignore
		case *plan.Update:
			write = write || !x.Ignore
		case *plan.DeleteFrom:
			write = write || deletes
		}
		return !write
	})
	return write
}

// Operator is MySQL's own version of e when e is an integer +, - or *,
// a division or MOD, a unary minus, a bit operation or a cast from text
// to an integer or from an integer to a date; otherwise e itself
// (SameTree). divErrors: a division by zero is an error (a strict
// write), not NULL.
func Operator(ctx *sql.Context, e sql.Expression, divErrors bool) (sql.Expression, transform.TreeIdentity, error) {
	e, kept := keepQuotients(e)
	out, same, err := operator(ctx, e, divErrors)
	if kept {
		same = transform.NewTree
	}
	return out, same, err
}

func operator(ctx *sql.Context, e sql.Expression, divErrors bool) (sql.Expression, transform.TreeIdentity, error) {
	if ne, ok := hexComparison(e); ok { // hexcmp.go
		return ne, transform.NewTree, nil
	}
	if ne, ok := rowComparison(e); ok { // rowcmp.go
		return ne, transform.NewTree, nil
	}
	if ne, ok := numDateComparison(ctx, e); ok { // numdatecmp.go
		return ne, transform.NewTree, nil
	}
	switch e.(type) {
	case *expression.Div, *expression.IntDiv, *expression.Mod, *expression.UnaryMinus:
		// Text read as a DOUBLE by its leading number (strnum.go).
		if ne, ok := textChildrenAsDouble(e); ok {
			out, _, err := operator(ctx, ne, divErrors)
			if err == nil && !types.IsFloat(out.Type()) && !IsIntegerType(out.Type()) {
				// GMS types / and MOD by the literals and columns
				// under them: a DOUBLE, as MySQL's.
				out = &doubleResult{Expression: out}
			}
			return out, transform.NewTree, err
		}
	}
	if m, ok := e.(*expression.Mod); ok {
		// Integer MOD is an integer, signed as its dividend (GMS
		// computed it, and typed it, as a DECIMAL).
		if im := intMod(m); im != nil {
			if divErrors {
				return divStrict{Expression: im, divisor: im.right}, transform.NewTree, nil
			}
			return im, transform.NewTree, nil
		}
	}
	if d, ok := e.(*expression.IntDiv); ok {
		// Integer DIV is exact over BIGINT UNSIGNED too (GMS read the
		// operands as int64: 18446744073709551615 DIV 1 failed).
		if id := intDiv(d); id != nil {
			if divErrors {
				return divStrict{Expression: id, divisor: id.right}, transform.NewTree, nil
			}
			return id, transform.NewTree, nil
		}
	}
	if d, ok := e.(*expression.Div); ok {
		// div_precision_increment other than 4 (divinc.go).
		if di := divIncrement(ctx, d); di != nil {
			if divErrors {
				return divStrict{Expression: di, divisor: d.RightChild}, transform.NewTree, nil
			}
			return di, transform.NewTree, nil
		}
		// An outermost integer quotient (intquot.go).
		if iq := newIntQuot(ctx, d); iq != nil {
			if divErrors {
				return divStrict{Expression: iq, divisor: d.RightChild}, transform.NewTree, nil
			}
			return iq, transform.NewTree, nil
		}
	}
	// DATE_ADD / DATE_SUB of an integer (numdate.go).
	if nd := numDateArg(e); nd != nil {
		e = nd
	}
	// DATE_ADD / DATE_SUB of a literal date (dateshift.go).
	if ds := newDateShift(ctx, e); ds != nil {
		return ds, transform.NewTree, nil
	}
	if divErrors {
		switch e.(type) {
		case *expression.Div, *expression.IntDiv, *expression.Mod:
			return divStrict{Expression: e, divisor: e.Children()[1]}, transform.NewTree, nil
		}
	}
	switch x := e.(type) {
	case *expression.Arithmetic:
		if d := dateInterval(x); d != nil {
			return d, transform.NewTree, nil
		}
		return arithmetic(ctx, x)
	case *expression.Div:
		if x.Type() == types.Float64 {
			return floatArith{x}, transform.NewTree, nil
		}
	case *expression.UnaryMinus:
		if IsIntegerType(x.Child.Type()) {
			return &negInt{child: x.Child, gms: x}, transform.NewTree, nil
		}
	case *expression.BitOp:
		if temporal(x.LeftChild.Type()) || temporal(x.RightChild.Type()) {
			// Dates and times as numbers: GMS's conversion.
			return e, transform.SameTree, nil
		}
		return &bitOp{left: x.LeftChild, right: x.RightChild, op: strings.ToLower(x.Op)}, transform.NewTree, nil
	case *function.DateAdd, *function.DateSub:
		return checkedDateArith(x), transform.NewTree, nil
	case *expression.Convert:
		ct, t := x.Type(), x.Child.Type()
		if ct == types.Int64 || ct == types.Uint64 || ct == types.Float64 {
			// CAST(X'41' AS UNSIGNED) is 65 (hexcmp.go; GMS read the
			// bytes as text: 0 with 1292).
			if n, ok := hexValue(x.Child); ok {
				nx, err := x.WithChildren(n)
				if err != nil {
					return nil, transform.SameTree, err
				}
				out, _, err := operator(ctx, nx, divErrors)
				return out, transform.NewTree, err
			}
		}
		switch {
		case (ct == types.Int64 || ct == types.Uint64) && types.IsText(t):
			return &castInt{child: x.Child, gms: x, unsigned: ct == types.Uint64}, transform.NewTree, nil
		case ct == types.Float64 && types.IsText(t):
			// CAST(text AS DOUBLE) reads the leading number with 1292
			// (strnum.go; GMS gave 0 for '1x', without a warning).
			return &strDouble{child: x.Child}, transform.NewTree, nil
		case ct == types.Date && IsIntegerType(t):
			return &castDate{child: x.Child, gms: x}, transform.NewTree, nil
		case (ct == types.Date || types.IsDatetimeType(ct)) && types.IsText(t):
			return &castDateText{child: x.Child, gms: x}, transform.NewTree, nil
		case (ct == types.Int64 || ct == types.Uint64) && types.IsFloat(t):
			// castnum.go
			return &castNumber{child: x.Child, gms: x, eval: floatToInt(ct == types.Uint64)}, transform.NewTree, nil
		case (ct == types.Int64 || ct == types.Uint64) && types.IsDecimal(t):
			return &castNumber{child: x.Child, gms: x, eval: decimalToInt(ct == types.Uint64)}, transform.NewTree, nil
		case ct == types.Int64 && IsIntegerType(t) && types.IsUnsigned(t):
			return &castNumber{child: x.Child, gms: x, eval: uintToSigned}, transform.NewTree, nil
		case types.IsDatetimeType(ct) && IsIntegerType(t):
			return &castNumber{child: x.Child, gms: x, eval: numberToDatetime}, transform.NewTree, nil
		case types.IsDecimal(ct) && !temporal(t):
			// Clipped to the type's range (deccast.go).
			if dc := newDecCast(x); dc != nil {
				return dc, transform.NewTree, nil
			}
		}
	}
	return e, transform.SameTree, nil
}
