package arith

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/internal/mysqlerr"
)

// Strings compared with numbers. MySQL compares a string with a number
// as two DOUBLEs, the string read by its leading number ('2abc' is 2,
// 'x' is 0, each with warning 1292). GMS compared a string column with an
// integer as DOUBLEs parsed whole ('2abc' was 0), with a DECIMAL as
// DECIMALs, and a binary string with anything as bytes; and with an index
// on the column it looked the number up as a string ('0' for 0), so
// `b = 0` found nothing. A string-typed column or expression compared
// with a number-typed one (=, <=>, <, <=, >, >=, BETWEEN, IN of numbers)
// is read through strDouble, which makes the comparison MySQL's and, the
// column being wrapped, keeps the index from a lookup MySQL cannot make
// either. A string literal compared with a number column is left to
// GMS, which converts the literal once (and so keeps the index).

// stringSide reports whether e is a string of any kind (text or binary)
// that is not a literal.
func stringSide(e sql.Expression) bool {
	if _, ok := e.(*expression.Literal); ok {
		return false
	}
	t := e.Type()
	switch t.Type() {
	case sqltypes.Binary, sqltypes.VarBinary, sqltypes.Blob:
		return true // not JSON or geometry, which GMS counts as binary
	}
	return types.IsText(t)
}

// numberSide reports whether e is a number (integer, DECIMAL, FLOAT or
// DOUBLE; not BIT, YEAR or a boolean result).
func numberSide(e sql.Expression) bool {
	t := e.Type()
	return IsIntegerType(t) || types.IsDecimal(t) || types.IsFloat(t)
}

// strNumOperands wraps the string side of a string-number comparison in
// strDouble; ok=false when l and r are not one.
func strNumOperands(l, r sql.Expression) (sql.Expression, sql.Expression, bool) {
	switch {
	case stringSide(l) && numberSide(r), textLiteral(l) && numberLiteral(r):
		return &strDouble{child: l}, r, true
	case numberSide(l) && stringSide(r), numberLiteral(l) && textLiteral(r):
		return l, &strDouble{child: r}, true
	}
	return l, r, false
}

// textLiteral: e is a literal of a text (not binary) string. Compared
// with a number literal ('abc' = 0) it is read as strDouble reads it,
// with its warning 1292 (GMS converted it without one).
func textLiteral(e sql.Expression) bool {
	_, ok := e.(*expression.Literal)
	return ok && textOperand(e)
}

func numberLiteral(e sql.Expression) bool {
	_, ok := e.(*expression.Literal)
	return ok && numberSide(e)
}

// textOperand: e is a text (not binary) string, which arithmetic reads
// as a DOUBLE by its leading number ('1e2abc' + 0 is 100, with 1292;
// GMS's conversion stopped at the exponent: 1).
func textOperand(e sql.Expression) bool {
	t := e.Type()
	return types.IsText(t) && !types.IsBinaryType(t)
}

// textChildrenAsDouble is e with its text children read through
// strDouble; ok=false when it has none.
func textChildrenAsDouble(e sql.Expression) (sql.Expression, bool) {
	ch := e.Children()
	out := make([]sql.Expression, len(ch))
	found := false
	for i, c := range ch {
		out[i] = c
		if textOperand(c) {
			out[i], found = &strDouble{child: c}, true
		}
	}
	if !found {
		return e, false
	}
	ne, err := e.WithChildren(out...)
	return ne, err == nil
}

// doubleResult is its expression typed DOUBLE, its value converted.
type doubleResult struct{ sql.Expression }

func (d *doubleResult) Type() sql.Type { return types.Float64 }

func (d *doubleResult) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.Expression.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	f, _, err := types.Float64.Convert(ctx, v)
	return f, err
}

func (d *doubleResult) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := d.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &doubleResult{Expression: e}, nil
}

// textAsDouble is arithmetic ar with its text operands read through
// strDouble; ok=false when it has none.
func textAsDouble(ar *expression.Arithmetic) (*expression.Arithmetic, bool) {
	l, r := ar.LeftChild, ar.RightChild
	if !textOperand(l) && !textOperand(r) {
		return ar, false
	}
	if textOperand(l) {
		l = &strDouble{child: l}
	}
	if textOperand(r) {
		r = &strDouble{child: r}
	}
	ne, err := ar.WithChildren(l, r)
	if err != nil {
		return ar, false
	}
	na, ok := ne.(*expression.Arithmetic)
	return na, ok
}

// strNumIn wraps the left side of `s IN (numbers...)`.
func strNumIn(in *expression.InTuple) (sql.Expression, bool) {
	tup, ok := in.Right().(expression.Tuple)
	if !ok || !stringSide(in.Left()) {
		return nil, false
	}
	for _, e := range tup {
		if !numberSide(e) {
			return nil, false
		}
	}
	return expression.NewInTuple(&strDouble{child: in.Left()}, in.Right()), true
}

// strDouble reads its string child as MySQL reads a string as a DOUBLE.
type strDouble struct {
	child sql.Expression
	// strict: text that is no number fails the statement (1292), in a
	// strict write's comparison (strictcmp.go).
	strict bool
}

var _ sql.Expression = (*strDouble)(nil)

func (s *strDouble) Resolved() bool             { return s.child.Resolved() }
func (s *strDouble) String() string             { return s.child.String() }
func (s *strDouble) Type() sql.Type             { return types.Float64 }
func (s *strDouble) IsNullable() bool           { return s.child.IsNullable() }
func (s *strDouble) Children() []sql.Expression { return []sql.Expression{s.child} }

func (s *strDouble) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(s, len(children), 1)
	}
	return &strDouble{child: children[0], strict: s.strict}, nil
}

func (s *strDouble) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := s.child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	v, err = sql.UnwrapAny(ctx, v)
	if err != nil {
		return nil, err
	}
	var str string
	switch x := v.(type) {
	case string:
		str = x
	case []byte:
		str = string(x)
	default:
		f, _, err := types.Float64.Convert(ctx, v)
		return f, err
	}
	f, clean := stringDouble(str)
	if !clean && s.strict {
		return nil, mysqlerr.New(mysqlerr.ErWrongValue, "Truncated incorrect DOUBLE value: '%s'", str)
	}
	if !clean {
		ctx.Warn(mysqlerr.ErWrongValue, "%s", fmt.Sprintf("Truncated incorrect DOUBLE value: '%s'", str))
	}
	return f, nil
}

// stringDouble reads s's leading number as MySQL's string-to-DOUBLE
// conversion does: leading spaces, a sign, digits, a fraction, an
// exponent. clean=false when anything but trailing spaces follows, or
// there is no number at all.
func stringDouble(s string) (f float64, clean bool) {
	start, end, ok := NumberSpan(s)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s[start:end], 64)
	if err != nil {
		// Out of range: ParseFloat gives ±Inf; MySQL gives ±DBL_MAX.
		if f > 0 {
			f = math.MaxFloat64
		} else if f < 0 {
			f = -math.MaxFloat64
		}
		return f, false
	}
	return f, strings.TrimRight(s[end:], " \t\r\n") == ""
}

// strNumExpr fixes e when it is a comparison or IN of a string with
// numbers (for transform.Expr).
func strNumExpr(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	switch x := e.(type) {
	case *expression.InTuple:
		if ne, ok := strNumIn(x); ok {
			return ne, transform.NewTree, nil
		}
	case *expression.Between:
		if ne, ok := strNumBetween(x); ok {
			return ne, transform.NewTree, nil
		}
	case expression.Comparer:
		if l, r, ok := strNumOperands(x.Left(), x.Right()); ok {
			if ne, err := x.WithChildren(l, r); err == nil {
				return ne, transform.NewTree, nil
			}
		}
	}
	return e, transform.SameTree, nil
}

// strBetween is `s BETWEEN lo AND hi` for a string s and number bounds:
// s read once as a DOUBLE (one warning, as MySQL gives), compared as
// DOUBLEs, NULL as AND gives it.
type strBetween struct {
	val, lo, hi sql.Expression
	strict      bool // as strDouble's
}

var _ sql.Expression = (*strBetween)(nil)

func (b *strBetween) Resolved() bool {
	return b.val.Resolved() && b.lo.Resolved() && b.hi.Resolved()
}
func (b *strBetween) String() string {
	return fmt.Sprintf("(%s BETWEEN %s AND %s)", b.val, b.lo, b.hi)
}
func (b *strBetween) Type() sql.Type             { return types.Boolean }
func (b *strBetween) IsNullable() bool           { return true }
func (b *strBetween) Children() []sql.Expression { return []sql.Expression{b.val, b.lo, b.hi} }

func (b *strBetween) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 3 {
		return nil, sql.ErrInvalidChildrenNumber.New(b, len(children), 3)
	}
	return &strBetween{val: children[0], lo: children[1], hi: children[2], strict: b.strict}, nil
}

// double is e's value as a DOUBLE: a string's leading number (with
// strDouble's warning), another value converted.
func (b *strBetween) double(ctx *sql.Context, e sql.Expression, row sql.Row) (any, error) {
	if stringSide(e) || textLiteral(e) {
		return (&strDouble{child: e, strict: b.strict}).Eval(ctx, row)
	}
	x, err := e.Eval(ctx, row)
	if err != nil || x == nil {
		return nil, err
	}
	f, _, err := types.Float64.Convert(ctx, x)
	return f, err
}

func (b *strBetween) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := b.double(ctx, b.val, row)
	if err != nil || v == nil {
		return nil, err
	}
	f := v.(float64)
	// side is lo <= f (or f <= hi): true, false or unknown (nil).
	side := func(e sql.Expression, lower bool) (any, error) {
		bf, err := b.double(ctx, e, row)
		if err != nil || bf == nil {
			return nil, err
		}
		if lower {
			return bf.(float64) <= f, nil
		}
		return f <= bf.(float64), nil
	}
	lo, err := side(b.lo, true)
	if err != nil {
		return nil, err
	}
	if lo == false {
		return false, nil
	}
	hi, err := side(b.hi, false)
	if err != nil {
		return nil, err
	}
	if hi == false {
		return false, nil
	}
	if lo == nil || hi == nil {
		return nil, nil
	}
	return true, nil
}

// strNumBetween makes x a strBetween when it mixes strings and numbers,
// which MySQL compares as DOUBLEs, all three: a string value between
// numbers, or a string between a number and a string column ('a'
// BETWEEN 0 AND c, where GMS compared 'a' with c as strings). A number
// column between string literals is GMS's (it converts the literals
// once and keeps the index).
func strNumBetween(x *expression.Between) (sql.Expression, bool) {
	str := func(e sql.Expression) bool { return stringSide(e) || textLiteral(e) }
	switch {
	case stringSide(x.Val) && numberSide(x.Lower) && numberSide(x.Upper):
	case str(x.Val) && (numberSide(x.Lower) || numberSide(x.Upper)):
	case numberSide(x.Val) && (stringSide(x.Lower) || stringSide(x.Upper)):
	default:
		return nil, false
	}
	return &strBetween{val: x.Val, lo: x.Lower, hi: x.Upper}, true
}

// NumberSpan finds the number at the start of s as MySQL reads one when
// it converts a string to a number (leading spaces, a sign, digits, a
// fraction, an exponent): s[start:end]; ok=false when there are no
// digits.
func NumberSpan(s string) (start, end int, ok bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	start = i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return start, start, false
	}
	end = i
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			end = k
		}
	}
	return start, end, true
}

// TextAsDouble is e read as MySQL reads a string as a DOUBLE: the
// leading number, with warning 1292 when the text is no clean number;
// values of other types convert as numbers.
func TextAsDouble(e sql.Expression) sql.Expression { return &strDouble{child: e} }

// MixedBetweenRuleID is MixedBetweenRule's.
const MixedBetweenRuleID analyzer.RuleId = 1062

// MixedBetweenRule makes each BETWEEN that mixes strings and numbers a
// strBetween before GMS's simplifyFilters splits a filter's BETWEEN into
// two comparisons, each of which would pick its own type ('a' BETWEEN 0
// AND c, c a VARBINARY, compared 'a' with c as strings; MySQL compares
// all three as DOUBLEs: mtr type_varbinary).
func MixedBetweenRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			b, ok := e.(*expression.Between)
			if !ok || !b.Resolved() {
				return e, transform.SameTree, nil
			}
			if ne, ok := strNumBetween(b); ok {
				return ne, transform.NewTree, nil
			}
			return e, transform.SameTree, nil
		})
	})
}
