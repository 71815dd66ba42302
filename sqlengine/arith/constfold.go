package arith

import (
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// Constant folding of filters, as MySQL's optimizer does before it reads
// a row. GMS evaluates `l_shipdate <= date_sub('1998-12-01', interval 108
// day)` for every row: the date arithmetic, then the parse of its string
// result as a DATETIME for the comparison (a fifth of TPC-H Q1's time).
// Here, in WHERE, HAVING and join conditions:
//   - arithmetic (+ - * / DIV MOD, unary minus), DATE_ADD / DATE_SUB and
//     CAST over literals only are evaluated once and become literals of
//     the type GMS gave the expression;
//   - a number literal compared with a DECIMAL or integer column takes the
//     column's type when that loses nothing;
//   - a literal compared with a DATE, DATETIME or TIMESTAMP column (=, <,
//     <=, >, >=, <=>, BETWEEN) that reads as a date becomes a time value:
//     of the column's type when that loses nothing (a DATE column and a
//     midnight value), else a DATETIME(6), so the comparison is the one
//     MySQL makes (as DATETIME) without a parse per row.
//   - BETWEEN becomes the two comparisons GMS's Between evaluates (it
//     built them again for every row);
//   - a DECIMAL compared with a number of a larger scale is compared at
//     that scale (GMS rounded the other operand to the left one's scale:
//     `x = 0.055` matched 0.06 in a DECIMAL(6,2) column).
// Anything that fails to evaluate or convert is left as it was, and GMS
// gives its errors and warnings when the rows are read. Parameters, user
// variables, columns and every other function stay unevaluated.

const ConstFoldRuleID analyzer.RuleId = 1010

// FoldConstants is the analyzer rule (OnceBeforeDefault, so index
// ranges see the literals).
func FoldConstants(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !n.Resolved() {
		return n, transform.SameTree, nil
	}
	strict := StrictWrite(ctx, n)
	if strict {
		// A strict write's string-number comparisons fail on text that
		// is no number (strictcmp.go), once folded.
		out, same, err := foldConstants(ctx, n, strict)
		if err != nil {
			return out, same, err
		}
		out, sameStrict, err := transform.NodeExprsWithOpaque(out, strictComparisons)
		return out, same && sameStrict, err
	}
	return foldConstants(ctx, n, strict)
}

func foldConstants(ctx *sql.Context, n sql.Node, strict bool) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n.(type) {
		case *plan.Filter, *plan.Having, *plan.JoinNode:
		default:
			// Elsewhere (the select list, ORDER BY, GROUP BY) only
			// strings compared with numbers are fixed (strnum.go).
			return transform.OneNodeExpressions(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
					if ne, ok, err := fixCmpText(ctx, e, strict); err != nil || ok { // cmptext.go
						return ne, transform.NewTree, err
					}
					return strNumExpr(e)
				})
			})
		}
		return transform.OneNodeExpressions(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			return foldExpr(ctx, e, strict)
		})
	})
}

// foldExpr folds e bottom-up; it fails only on a literal that is no
// date under strict (datecmp.go): what cannot be folded stays.
func foldExpr(ctx *sql.Context, e sql.Expression, strict bool) (sql.Expression, transform.TreeIdentity, error) {
	return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if ne, ok, err := fixCmpText(ctx, e, strict); err != nil || ok { // cmptext.go
			return ne, transform.NewTree, err
		}
		switch x := e.(type) {
		case *expression.Arithmetic, *expression.Div, *expression.IntDiv, *expression.Mod, *expression.UnaryMinus,
			*function.DateAdd, *function.DateSub, *expression.Convert:
			if !constantArgs(x.Children()) {
				return e, transform.SameTree, nil
			}
			if d, ok := x.(*expression.Div); ok {
				if di := divIncrement(ctx, d); di != nil {
					e = di
				}
			}
			if c := checkedDateArith(x); c != nil {
				e = c
			}
			v, err := e.Eval(ctx, nil)
			if err != nil {
				return e, transform.SameTree, nil
			}
			return expression.NewLiteral(v, e.Type()), transform.NewTree, nil
		case *expression.InTuple:
			return strNumExpr(x)
		case expression.Comparer:
			if ne, ok := fixComparison(ctx, x); ok {
				return ne, transform.NewTree, nil
			}
		case *expression.Between:
			if ne, ok := strNumBetween(x); ok {
				return ne, transform.NewTree, nil
			}
			// What GMS's Between evaluates (building the two comparisons
			// again for every row), made once, each comparison fixed.
			lo, _ := fixComparison(ctx, expression.NewLessThanOrEqual(x.Lower, x.Val))
			hi, _ := fixComparison(ctx, expression.NewGreaterThanOrEqual(x.Upper, x.Val))
			if lo == nil {
				lo = expression.NewLessThanOrEqual(x.Lower, x.Val)
			}
			if hi == nil {
				hi = expression.NewGreaterThanOrEqual(x.Upper, x.Val)
			}
			return expression.NewAnd(lo, hi), transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// constantArgs reports whether every argument is a literal, or an
// INTERVAL of one.
func constantArgs(args []sql.Expression) bool {
	for _, a := range args {
		switch x := a.(type) {
		case *expression.Literal:
		case *expression.Interval:
			if _, ok := x.Child.(*expression.Literal); !ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// columnLiteral is temporalLiteral, or numericLiteral for a DECIMAL or
// integer column.
func columnLiteral(ctx *sql.Context, col, lit sql.Expression) (sql.Expression, bool) {
	if e, ok := temporalLiteral(ctx, col, lit); ok {
		return e, true
	}
	return numericLiteral(ctx, col, lit)
}

// numericLiteral gives a number literal compared with a DECIMAL or
// integer column the column's type when it converts without loss (24 to
// DECIMAL(15,2) is 24.00; 0.055 is left alone): the comparison is then
// one of two values of one type, with no conversion per row.
func numericLiteral(ctx *sql.Context, col, lit sql.Expression) (sql.Expression, bool) {
	gf, ok := col.(*expression.GetField)
	if !ok {
		return nil, false
	}
	ct := gf.Type()
	if !types.IsDecimal(ct) && !IsIntegerType(ct) {
		return nil, false
	}
	l, ok := lit.(*expression.Literal)
	if !ok || l.Value() == nil || types.TypesEqual(l.Type(), ct) {
		return nil, false
	}
	lt := l.Type()
	if !types.IsDecimal(lt) && !IsIntegerType(lt) {
		return nil, false
	}
	v, inRange, err := ct.Convert(ctx, l.Value())
	if err != nil || inRange != sql.InRange || v == nil {
		return nil, false
	}
	if n, err := types.InternalDecimalType.Compare(ctx, v, l.Value()); err != nil || n != 0 {
		return nil, false // rounded by the conversion: compare as GMS does
	}
	if dt, ok := ct.(sql.DecimalType); ok {
		// DECIMAL's Convert keeps digits past the scale (its Compare
		// rounds them): 0.055 is no DECIMAL(6,2) value.
		d, ok := v.(decimal.Decimal)
		if !ok || !d.Equal(d.Round(int32(dt.Scale()))) {
			return nil, false
		}
	}
	return expression.NewLiteral(v, ct), true
}

// temporalLiteral converts lit, compared with col, to a time value when
// col is a DATE, DATETIME or TIMESTAMP column and lit a non-NULL string
// literal that reads as a date.
func temporalLiteral(ctx *sql.Context, col, lit sql.Expression) (sql.Expression, bool) {
	gf, ok := col.(*expression.GetField)
	if !ok || !types.IsTime(gf.Type()) || types.IsTimestampType(gf.Type()) {
		// TIMESTAMP compares in the session's time zone: GMS's.
		return nil, false
	}
	l, ok := lit.(*expression.Literal)
	if !ok {
		return nil, false
	}
	s, ok := l.Value().(string)
	if !ok {
		return nil, false
	}
	v, _, err := types.DatetimeMaxPrecision.Convert(ctx, s)
	t, isTime := v.(time.Time)
	if err != nil || !isTime || t.Year() == 0 {
		return nil, false // zero dates compare as GMS compares them
	}
	if gf.Type().Type() == types.Date.Type() && t.Equal(t.Truncate(24*time.Hour)) {
		return expression.NewLiteral(t, types.Date), true
	}
	return expression.NewLiteral(t, types.DatetimeMaxPrecision), true
}

// fixComparison converts a literal compared with a column to the
// column's type (columnLiteral) and widens a DECIMAL left operand to the
// right's scale: GMS compares two numbers in the left operand's DECIMAL
// type, rounding the right one to its scale, so `x = 0.055` matched 0.06
// in a DECIMAL(6,2) column (MySQL compares decimals exactly). nil, false
// when nothing changes.
func fixComparison(ctx *sql.Context, c expression.Comparer) (sql.Expression, bool) {
	l, r, changed := strNumOperands(c.Left(), c.Right()) // strnum.go
	if !changed {
		if nl, ok := columnLiteral(ctx, l, r); ok {
			r, changed = nl, true
		} else if nl, ok := columnLiteral(ctx, r, l); ok {
			l, changed = nl, true
		}
	}
	if ls, ok := decimalScale(l.Type()); ok {
		if rs, ok := decimalScale(r.Type()); ok && rs > ls {
			l, changed = &decWiden{child: l, typ: types.MustCreateDecimalType(types.DecimalTypeMaxPrecision, rs)}, true
		}
	}
	if !changed {
		return nil, false
	}
	ne, err := c.WithChildren(l, r)
	if err != nil {
		return nil, false
	}
	return ne, true
}

// decimalScale is the scale of a DECIMAL type, 0 for an integer one.
func decimalScale(t sql.Type) (uint8, bool) {
	if dt, ok := t.(sql.DecimalType); ok {
		return dt.Scale(), true
	}
	if IsIntegerType(t) {
		return 0, true
	}
	return 0, false
}

// decWiden reads its child's DECIMAL values as a type of a larger scale
// (values unchanged), so a comparison made in its type is exact.
type decWiden struct {
	child sql.Expression
	typ   sql.Type
}

var _ sql.Expression = (*decWiden)(nil)

func (w *decWiden) Resolved() bool             { return w.child.Resolved() }
func (w *decWiden) String() string             { return w.child.String() }
func (w *decWiden) Type() sql.Type             { return w.typ }
func (w *decWiden) IsNullable() bool           { return w.child.IsNullable() }
func (w *decWiden) Children() []sql.Expression { return []sql.Expression{w.child} }
func (w *decWiden) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	return w.child.Eval(ctx, row)
}
func (w *decWiden) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(w, len(children), 1)
	}
	return &decWiden{child: children[0], typ: w.typ}, nil
}
