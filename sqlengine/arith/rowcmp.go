package arith

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// Row comparisons, (a, b) = (c, d), compare component by component as
// MySQL's Arg_comparator::compare_row: = is FALSE when some components
// differ, else NULL when some are NULL, else TRUE (the AND of the
// components' =); < <= > >= decide at the first component that differs
// and are NULL at a NULL before it; <=> is the AND of the components'
// <=>. GMS compared the tuples as values: (20, NULL) = (20, NULL) was 1
// and (1, NULL) <> (1, 2) failed with 1105 "value not nil". An IN list
// of rows is the OR of the rows' = (lists of up to rowInMax rows; a
// longer one keeps GMS's hash lookup, whose answer differs only where a
// NULL is compared).

const rowInMax = 32

// rowComparison is e, a comparison of two rows or a row IN a list of
// rows, as comparisons of their components; ok=false for other e.
func rowComparison(e sql.Expression) (sql.Expression, bool) {
	switch x := e.(type) {
	case *plan.InSubquery:
		if out := newRowInSubquery(x); out != nil { // rowinsubq.go
			return out, true
		}
		return nil, false
	case *expression.InTuple, *expression.HashInTuple:
		c := x.(expression.Comparer)
		l, ok := c.Left().(expression.Tuple)
		list, ok2 := c.Right().(expression.Tuple)
		if !ok || !ok2 || len(l) < 2 || len(list) == 0 || len(list) > rowInMax {
			return nil, false
		}
		var out sql.Expression
		for _, el := range list {
			r, ok := el.(expression.Tuple)
			if !ok || len(r) != len(l) {
				return nil, false
			}
			eq := rowAnd(l, r, func(a, b sql.Expression) sql.Expression { return expression.NewEquals(a, b) })
			if out == nil {
				out = eq
			} else {
				out = expression.NewOr(out, eq)
			}
		}
		return out, true
	case expression.Comparer:
		l, ok := x.Left().(expression.Tuple)
		r, ok2 := x.Right().(expression.Tuple)
		if !ok || !ok2 || len(l) < 2 || len(l) != len(r) {
			return nil, false
		}
		switch x.(type) {
		case *expression.Equals:
			return rowAnd(l, r, func(a, b sql.Expression) sql.Expression { return expression.NewEquals(a, b) }), true
		case *expression.NullSafeEquals:
			return rowAnd(l, r, func(a, b sql.Expression) sql.Expression { return expression.NewNullSafeEquals(a, b) }), true
		case *expression.LessThan:
			return rowOrder(l, r, func(a, b sql.Expression) sql.Expression { return expression.NewLessThan(a, b) }, false), true
		case *expression.LessThanOrEqual:
			return rowOrder(l, r, func(a, b sql.Expression) sql.Expression { return expression.NewLessThan(a, b) }, true), true
		case *expression.GreaterThan:
			return rowOrder(l, r, func(a, b sql.Expression) sql.Expression { return expression.NewGreaterThan(a, b) }, false), true
		case *expression.GreaterThanOrEqual:
			return rowOrder(l, r, func(a, b sql.Expression) sql.Expression { return expression.NewGreaterThan(a, b) }, true), true
		}
	case *expression.Not:
		// <> is GMS's NOT (=).
		if eq, ok := x.Child.(*expression.Equals); ok {
			if out, ok := rowComparison(eq); ok {
				return expression.NewNot(out), true
			}
		}
	}
	return nil, false
}

// rowAnd is the AND of cmp over the components of l and r.
func rowAnd(l, r expression.Tuple, cmp func(a, b sql.Expression) sql.Expression) sql.Expression {
	out := cmp(l[0], r[0])
	for i := 1; i < len(l); i++ {
		out = expression.NewAnd(out, cmp(l[i], r[i]))
	}
	return out
}

// rowOrder is the lexicographic strict comparison strict of l and r:
// strict(l0, r0) OR (l0 = r0 AND (strict(l1, r1) OR ...)), whose last
// component's comparison also holds when equal if orEqual.
func rowOrder(l, r expression.Tuple, strict func(a, b sql.Expression) sql.Expression, orEqual bool) sql.Expression {
	n := len(l) - 1
	last := strict(l[n], r[n])
	if orEqual {
		last = expression.NewOr(last, expression.NewEquals(l[n], r[n]))
	}
	out := last
	for i := n - 1; i >= 0; i-- {
		out = expression.NewOr(strict(l[i], r[i]), expression.NewAnd(expression.NewEquals(l[i], r[i]), out))
	}
	return out
}
