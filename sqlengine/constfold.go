package sqlengine

import (
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Constant folding of filters, as MySQL's optimizer does before it reads
// a row. GMS evaluates `l_shipdate <= date_sub('1998-12-01', interval 108
// day)` for every row: the date arithmetic, then the parse of its string
// result as a DATETIME for the comparison (a fifth of TPC-H Q1's time).
// Here, in WHERE, HAVING and join conditions:
//   - arithmetic (+ - * / DIV MOD, unary minus), DATE_ADD / DATE_SUB and
//     CAST over literals only are evaluated once and become literals of
//     the type GMS gave the expression;
//   - a literal compared with a DATE, DATETIME or TIMESTAMP column (=, <,
//     <=, >, >=, <=>, BETWEEN) that reads as a date becomes a time value:
//     of the column's type when that loses nothing (a DATE column and a
//     midnight value), else a DATETIME(6), so the comparison is the one
//     MySQL makes (as DATETIME) without a parse per row.
// Anything that fails to evaluate or convert is left as it was, and GMS
// gives its errors and warnings when the rows are read. Parameters, user
// variables, columns and every other function stay unevaluated.

const constFoldRuleID analyzer.RuleId = 1010

// foldConstants is the analyzer rule (OnceBeforeDefault, so index
// ranges see the literals).
func foldConstants(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !n.Resolved() {
		return n, transform.SameTree, nil
	}
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n.(type) {
		case *plan.Filter, *plan.Having, *plan.JoinNode:
		default:
			return n, transform.SameTree, nil
		}
		return transform.OneNodeExpressions(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			return foldExpr(ctx, e)
		})
	})
}

// foldExpr folds e bottom-up; it never fails (what cannot be folded
// stays).
func foldExpr(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch x := e.(type) {
		case *expression.Arithmetic, *expression.Div, *expression.IntDiv, *expression.Mod, *expression.UnaryMinus,
			*function.DateAdd, *function.DateSub, *expression.Convert:
			if !constantArgs(x.Children()) {
				return e, transform.SameTree, nil
			}
			v, err := e.Eval(ctx, nil)
			if err != nil {
				return e, transform.SameTree, nil
			}
			return expression.NewLiteral(v, e.Type()), transform.NewTree, nil
		case expression.Comparer:
			l, r := x.Left(), x.Right()
			if nl, ok := temporalLiteral(ctx, l, r); ok {
				ne, err := x.WithChildren(l, nl)
				if err != nil {
					return e, transform.SameTree, nil
				}
				return ne, transform.NewTree, nil
			}
			if nl, ok := temporalLiteral(ctx, r, l); ok {
				ne, err := x.WithChildren(nl, r)
				if err != nil {
					return e, transform.SameTree, nil
				}
				return ne, transform.NewTree, nil
			}
		case *expression.Between:
			lo, ok1 := temporalLiteral(ctx, x.Val, x.Lower)
			hi, ok2 := temporalLiteral(ctx, x.Val, x.Upper)
			if ok1 && ok2 {
				return expression.NewBetween(x.Val, lo, hi), transform.NewTree, nil
			}
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
