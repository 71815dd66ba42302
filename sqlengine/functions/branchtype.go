package functions

import (
	"fmt"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

// The result type of IF, IFNULL and CASE is MySQL's aggregate of their
// branches' types. GMS typed IF and IFNULL as their first branch and
// returned the taken branch's value unconverted, so IF(c, int_col,
// dec_col) read 1234567890.25 as the BIGINT 1234567890, IF(c, 1, 2.5)
// was 3, IF(c, uint_col, -1) was 18446744073709551615, and IF(c, 1, 2.5)
// + 0 failed with 1105; it typed a CASE mixing INT and DECIMAL as
// DECIMAL(65,10) (1234567890.2500000000). Here, when the branches mix
// kinds (ignoring NULL):
//   - integers and DECIMALs: DECIMAL(m+s, s), m the largest count of
//     integer digits (an integer literal's own digits, a column's type's),
//     s the largest scale;
//   - integers and a FLOAT or DOUBLE (or DECIMALs with one): DOUBLE;
//   - signed and unsigned integers: BIGINT, DECIMAL(20,0) beside a BIGINT
//     UNSIGNED;
//   - DATE beside DATETIME or TIMESTAMP: DATETIME at their largest
//     fractional precision;
//   - a text result (GMS's type) takes a DATE branch's value as
//     'YYYY-MM-DD' (it printed a DATE as a DATETIME).
// Branches of one kind keep GMS's answer.

// branchType is MySQL's type of a result chosen among branches, and
// whether it differs from what GMS gives.
func branchType(branches []sql.Expression) (sql.Type, bool) {
	var ts []sql.Type
	for _, b := range branches {
		if b == nil || !b.Resolved() {
			return nil, false
		}
		if t := b.Type(); t != types.Null {
			ts = append(ts, t)
		}
	}
	if len(ts) < 2 {
		return nil, false
	}
	var nInt, nUnsigned, nDec, nFloat, nDate, nDatetime, other int
	var hasUint64 bool
	intDigits, scale, fsp := 0, 0, 0
	for i, t := range ts {
		switch {
		case types.IsInteger(t):
			nInt++
			if types.IsUnsigned(t) {
				nUnsigned++
				hasUint64 = hasUint64 || t.Type() == sqltypes.Uint64
			}
			intDigits = max(intDigits, integerDigits(branchOf(branches, i), t))
		case types.IsDecimal(t):
			nDec++
			dt := t.(sql.DecimalType)
			intDigits = max(intDigits, int(dt.Precision())-int(dt.Scale()))
			scale = max(scale, int(dt.Scale()))
		case types.IsFloat(t):
			nFloat++
		case types.IsDateType(t):
			nDate++
		case types.IsDatetimeType(t), types.IsTimestampType(t):
			nDatetime++
			fsp = max(fsp, t.(sql.DatetimeType).Precision())
		default:
			other++
		}
	}
	n := len(ts)
	switch {
	case other > 0:
		return nil, false
	case nFloat > 0 && nFloat < n && nDate+nDatetime == 0:
		return types.Float64, true
	case nDec > 0 && nDec+nInt == n && (nInt > 0 || !sameDecimals(ts)):
		p := min(intDigits+scale, types.DecimalTypeMaxPrecision)
		t, err := types.CreateDecimalType(uint8(max(p, 1)), uint8(min(scale, types.DecimalTypeMaxScale)))
		if err != nil {
			return nil, false
		}
		return t, true
	case nInt == n && nUnsigned > 0 && nUnsigned < n:
		if hasUint64 {
			return types.MustCreateDecimalType(20, 0), true
		}
		return types.Int64, true
	case nDate > 0 && nDatetime > 0 && nDate+nDatetime == n:
		return types.MustCreateDatetimeType(sqltypes.Datetime, fsp), true
	}
	return nil, false
}

// branchOf is the i-th branch of the non-NULL ones.
func branchOf(branches []sql.Expression, i int) sql.Expression {
	for _, b := range branches {
		if b.Type() == types.Null {
			continue
		}
		if i == 0 {
			return b
		}
		i--
	}
	return nil
}

func sameDecimals(ts []sql.Type) bool {
	for _, t := range ts[1:] {
		if !t.Equals(ts[0]) {
			return false
		}
	}
	return true
}

// integerDigits is the integer digits an integer branch needs: a
// literal's own, else its type's (INT 10, BIGINT 19, ...).
func integerDigits(e sql.Expression, t sql.Type) int {
	if lit, ok := e.(*expression.Literal); ok && lit.Value() != nil {
		s := fmt.Sprint(lit.Value())
		if len(s) > 0 && s[0] == '-' {
			s = s[1:]
		}
		return len(s)
	}
	switch t.Type() {
	case sqltypes.Int8, sqltypes.Uint8:
		return 3
	case sqltypes.Int16, sqltypes.Uint16:
		return 5
	case sqltypes.Int24:
		return 7
	case sqltypes.Uint24:
		return 8
	case sqltypes.Int32, sqltypes.Uint32:
		return 10
	case sqltypes.Uint64:
		return 20
	}
	return 19
}

// branchValue is v, the value of a branch of type from, in the result
// type to (nil: GMS's type, only a DATE as text changes).
func branchValue(ctx *sql.Context, v any, from, to sql.Type, gmsType sql.Type) (any, error) {
	if v == nil {
		return nil, nil
	}
	if to == nil {
		if tm, ok := v.(time.Time); ok && types.IsText(gmsType) && types.IsDateType(from) {
			return tm.Format("2006-01-02"), nil
		}
		return v, nil
	}
	out, _, err := to.Convert(ctx, v)
	if err != nil {
		return nil, err
	}
	if d, ok := out.(decimal.Decimal); ok {
		// At the type's scale: IFNULL(int_col, 0.5) of 5 is 5.0.
		return d.Round(int32(to.(sql.DecimalType).Scale())), nil
	}
	return out, nil
}

// ifExpr is IF(cond, a, b).
type ifExpr struct {
	cond, a, b sql.Expression
	gms        sql.Expression
}

var _ sql.FunctionExpression = (*ifExpr)(nil)

func newIf(cond, a, b sql.Expression) sql.Expression {
	return &ifExpr{cond: cond, a: a, b: b, gms: function.NewIf(cond, a, b)}
}

func (f *ifExpr) Resolved() bool {
	return f.cond.Resolved() && f.a.Resolved() && f.b.Resolved()
}
func (f *ifExpr) String() string             { return f.gms.String() }
func (f *ifExpr) IsNullable() bool           { return f.gms.IsNullable() }
func (f *ifExpr) Children() []sql.Expression { return []sql.Expression{f.cond, f.a, f.b} }
func (f *ifExpr) FunctionName() string       { return "if" }
func (f *ifExpr) Description() string        { return "MySQL's IF" }

func (f *ifExpr) Type() sql.Type {
	if t, ok := branchType([]sql.Expression{f.a, f.b}); ok {
		return t
	}
	return f.gms.Type()
}

func (f *ifExpr) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return branchCollation(ctx, f.gms, f.a, f.b)
}

// branchCollation is the collation and coercibility of a result taken
// from one of args (IF, IFNULL, COALESCE): MySQL aggregates the
// branches' as for any operation, a column's (implicit) over a
// literal's (coercible), a NULL's counting for none. GMS's gave IF the
// literal's and COALESCE utf8mb4_0900_bin, so `ORDER BY IF(c IS NULL,
// 'n/a', c)` over a utf8mb4_0900_ai_ci column sorted bytes. gms is
// GMS's expression, whose answer stands when no branch is a string.
func branchCollation(ctx *sql.Context, gms sql.Expression, args ...sql.Expression) (sql.CollationID, byte) {
	coll, co, any, text := sql.Collation_Unspecified, byte(7), false, false
	for _, a := range args {
		var c sql.CollationID
		var k byte
		switch {
		case a.Type() == types.Null:
			continue
		case types.IsText(a.Type()):
			c, k = sql.GetCoercibility(ctx, a)
			text = true
		default:
			// A number's or a date's text: the connection's collation,
			// which a column's decides over (COALESCE(1, name) is
			// name's collation).
			c, k = ctx.GetCollation(), 5
		}
		if !any {
			coll, co, any = c, k, true
			continue
		}
		coll, co = sql.ResolveCoercibility(coll, co, c, k)
	}
	if !any || !text {
		return sql.GetCoercibility(ctx, gms)
	}
	return coll, co
}

func (f *ifExpr) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 3 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 3)
	}
	return newIf(children[0], children[1], children[2]), nil
}

func (f *ifExpr) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	c, err := f.cond.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	taken := f.b
	if c != nil {
		ok, err := sql.ConvertToBool(ctx, c)
		if err != nil {
			return nil, err
		}
		if ok {
			taken = f.a
		}
	}
	v, err := taken.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	to, _ := branchType([]sql.Expression{f.a, f.b})
	return branchValue(ctx, v, taken.Type(), to, f.Type())
}

// ifNullExpr is IFNULL(a, b).
type ifNullExpr struct {
	a, b sql.Expression
	gms  sql.Expression
}

var _ sql.FunctionExpression = (*ifNullExpr)(nil)

func newIfNull(a, b sql.Expression) sql.Expression {
	return &ifNullExpr{a: a, b: b, gms: function.NewIfNull(a, b)}
}

func (f *ifNullExpr) Resolved() bool { return f.a.Resolved() && f.b.Resolved() }
func (f *ifNullExpr) String() string { return f.gms.String() }

// IsNullable: NULL only when both arguments can be, as MySQL flags
// IFNULL(a, 0) NOT NULL (GMS took the first argument's flag, so CREATE
// TABLE ... AS SELECT IFNULL(a, 0) made a nullable column).
func (f *ifNullExpr) IsNullable() bool           { return f.a.IsNullable() && f.b.IsNullable() }
func (f *ifNullExpr) Children() []sql.Expression { return []sql.Expression{f.a, f.b} }
func (f *ifNullExpr) FunctionName() string       { return "ifnull" }
func (f *ifNullExpr) Description() string        { return "MySQL's IFNULL" }

func (f *ifNullExpr) Type() sql.Type {
	if t, ok := branchType([]sql.Expression{f.a, f.b}); ok {
		return t
	}
	if mixedText(f.a, f.b) {
		// A number or date and a string: a string, as MySQL's (GMS
		// typed it as the first argument, so IFNULL(NULL_decimal, 'x')
		// failed converting 'x': 1105 "number has no digits").
		return types.LongText
	}
	return f.gms.Type()
}

// mixedText: one of a and b is text and the other a number or a
// temporal value.
func mixedText(a, b sql.Expression) bool {
	if !a.Resolved() || !b.Resolved() {
		return false
	}
	ta, tb := a.Type(), b.Type()
	if ta == types.Null || tb == types.Null {
		return false
	}
	other := func(t sql.Type) bool { return types.IsNumber(t) || types.IsTime(t) }
	return types.IsText(ta) && other(tb) || types.IsText(tb) && other(ta)
}

func (f *ifNullExpr) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, f.gms)
}

func (f *ifNullExpr) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 2)
	}
	return newIfNull(children[0], children[1]), nil
}

func (f *ifNullExpr) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	taken := f.a
	v, err := f.a.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if v == nil {
		taken = f.b
		if v, err = f.b.Eval(ctx, row); err != nil {
			return nil, err
		}
	}
	to, _ := branchType([]sql.Expression{f.a, f.b})
	return branchValue(ctx, v, taken.Type(), to, f.Type())
}

// BranchTypeRuleID names BranchTypeRule.
const BranchTypeRuleID analyzer.RuleId = 1042

// BranchTypeRule types a CASE whose branches mix kinds as MySQL does
// (branchType), converting the taken branch's value to it.
func BranchTypeRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		c, ok := e.(*expression.Case)
		if !ok {
			return e, transform.SameTree, nil
		}
		if _, ok := branchType(caseValues(c)); !ok {
			if textBranches(caseValues(c)) {
				return &caseColl{Case: c}, transform.NewTree, nil
			}
			return e, transform.SameTree, nil
		}
		return &caseExpr{Case: c}, transform.NewTree, nil
	})
}

// textBranches: every value is a string or NULL, one at least a string.
func textBranches(vals []sql.Expression) bool {
	text := false
	for _, v := range vals {
		switch t := v.Type(); {
		case types.IsText(t):
			text = true
		case t == types.Null:
		default:
			return false
		}
	}
	return text
}

// caseColl is a CASE of string values with its branches' collation
// (branchCollation): GMS's was utf8mb4_0900_bin, so ORDER BY, GROUP BY
// and comparisons of `CASE WHEN ... THEN name ELSE 'x' END` over a
// case-insensitive column went by bytes.
type caseColl struct{ *expression.Case }

func (c *caseColl) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return branchCollation(ctx, c.Case, caseValues(c.Case)...)
}

func (c *caseColl) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return rewrapCase(c.Case, children, func(nc *expression.Case) sql.Expression { return &caseColl{Case: nc} })
}

// rewrapCase is c with children, in wrap's wrapper again.
func rewrapCase(c *expression.Case, children []sql.Expression, wrap func(*expression.Case) sql.Expression) (sql.Expression, error) {
	n, err := c.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if nc, ok := n.(*expression.Case); ok {
		return wrap(nc), nil
	}
	return n, nil
}

func caseValues(c *expression.Case) []sql.Expression {
	var out []sql.Expression
	for _, b := range c.Branches {
		out = append(out, b.Value)
	}
	if c.Else != nil {
		out = append(out, c.Else)
	}
	return out
}

// caseExpr is a CASE typed by branchType.
type caseExpr struct{ *expression.Case }

func (c *caseExpr) Type() sql.Type {
	if t, ok := branchType(caseValues(c.Case)); ok {
		return t
	}
	return c.Case.Type()
}

func (c *caseExpr) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return rewrapCase(c.Case, children, func(nc *expression.Case) sql.Expression { return &caseExpr{Case: nc} })
}

func (c *caseExpr) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	var taken sql.Expression
	for _, b := range c.Branches {
		cond := b.Cond
		if c.Expr != nil {
			cond = expression.NewEquals(c.Expr, b.Cond)
		}
		res, err := sql.EvaluateCondition(ctx, cond, row)
		if err != nil {
			return nil, err
		}
		if sql.IsTrue(res) {
			taken = b.Value
			break
		}
	}
	if taken == nil {
		taken = c.Else
	}
	if taken == nil {
		return nil, nil
	}
	v, err := taken.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	to, _ := branchType(caseValues(c.Case))
	return branchValue(ctx, v, taken.Type(), to, c.Case.Type())
}
