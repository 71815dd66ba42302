package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Conditions every branch of an OR shares, taken out of it. TPC-H Q19
// writes its join condition and two lineitem conditions into each of
// three OR branches:
//
//	(p_partkey = l_partkey AND l_shipmode IN (...) AND ... ) OR
//	(p_partkey = l_partkey AND l_shipmode IN (...) AND ... ) OR ...
//
// MySQL's optimizer factors them out, so the equality becomes a join
// condition and the lineitem conditions filter lineitem before the join;
// GMS saw no join condition and read every lineitem row against three
// part lookups (23-49x MariaDB's time at SF 0.1). Here, in WHERE and join
// conditions, `(c AND x) OR (c AND y)` becomes `c AND (x OR y)` for the
// conjuncts c found in every branch (compared by their text), and `c`
// alone when a branch has nothing else. The two forms are true, false
// and unknown for the same rows: AND and OR distribute over each other in
// SQL's three-valued logic.

const orFactorRuleID analyzer.RuleId = 1013

func factorOrConditions(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !n.Resolved() {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n.(type) {
		case *plan.Filter, *plan.JoinNode:
		default:
			return n, transform.SameTree, nil
		}
		return transform.OneNodeExpressions(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				if _, ok := e.(*expression.Or); !ok {
					return e, transform.SameTree, nil
				}
				if f := factorOr(e); f != nil {
					return f, transform.NewTree, nil
				}
				return e, transform.SameTree, nil
			})
		})
	})
}

// factorOr returns or with the conjuncts common to all its branches
// taken out; nil when there are none.
func factorOr(or sql.Expression) sql.Expression {
	branches := expression.SplitDisjunction(or)
	conj := make([][]sql.Expression, len(branches))
	for i, b := range branches {
		conj[i] = expression.SplitConjunction(b)
	}
	// common: the first branch's conjuncts present in every other one.
	var common []sql.Expression
	commonText := map[string]bool{}
	for _, c := range conj[0] {
		t := condText(c)
		if commonText[t] || nonDeterministic(c) {
			continue
		}
		inAll := true
		for _, other := range conj[1:] {
			if !hasText(other, t) {
				inAll = false
				break
			}
		}
		if inAll {
			common = append(common, c)
			commonText[t] = true
		}
	}
	if len(common) == 0 {
		return nil
	}
	rest := make([]sql.Expression, 0, len(conj))
	for _, cs := range conj {
		var left []sql.Expression
		for _, c := range cs {
			if !commonText[condText(c)] {
				left = append(left, c)
			}
		}
		if len(left) == 0 {
			// This branch is the common part alone: the OR of the rests
			// is implied.
			return expression.JoinAnd(common...)
		}
		rest = append(rest, expression.JoinAnd(left...))
	}
	return expression.JoinAnd(append(common, expression.JoinOr(rest...))...)
}

// nonDeterministic reports whether e holds an expression that may give
// another value when evaluated again (RAND(), UUID()): taken out of the
// branches it would be evaluated fewer times.
func nonDeterministic(e sql.Expression) bool {
	return transform.InspectExpr(e, func(e sql.Expression) bool {
		if nd, ok := e.(sql.NonDeterministicExpression); ok && nd.IsNonDeterministic() {
			return true
		}
		_, sub := e.(*plan.Subquery)
		return sub
	})
}

// condText is c's text for finding it in other branches; an equality
// reads the same either way round.
func condText(c sql.Expression) string {
	if eq, ok := c.(*expression.Equals); ok {
		l, r := eq.Left().String(), eq.Right().String()
		if r < l {
			l, r = r, l
		}
		return "(" + l + " = " + r + ")"
	}
	return c.String()
}

func hasText(es []sql.Expression, t string) bool {
	for _, e := range es {
		if condText(e) == t {
			return true
		}
	}
	return false
}
