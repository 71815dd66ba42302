package rewrite

import (
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
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

const OrFactorRuleID analyzer.RuleId = 1013

func FactorOrConditions(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !n.Resolved() {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n.(type) {
		case *plan.Filter, *plan.JoinNode:
		default:
			return n, transform.SameTree, nil
		}
		n, same, err := transform.OneNodeExpressions(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
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
		if err != nil {
			return nil, transform.SameTree, err
		}
		if f, ok := n.(*plan.Filter); ok {
			if d := withImpliedByTable(f.Expression); d != nil {
				return plan.NewFilter(d, f.Child), transform.NewTree, nil
			}
		}
		return n, same, nil
	})
}

// Conditions on one table implied by an OR over several. TPC-H Q7 asks
// for (n1.n_name = 'JAPAN' AND n2.n_name = 'INDIA') OR (n1.n_name =
// 'INDIA' AND n2.n_name = 'JAPAN'): no branch is one table's, so the OR
// waited above the six-table join (182,801 joined rows for 564). Each
// branch implies its own conditions on n1, so their OR, n1.n_name =
// 'JAPAN' OR n1.n_name = 'INDIA', is a necessary condition, as InnoDB's
// optimizer derives too; added beside the OR (which stays) it is pushed
// down to n1's scan, and the same for n2. Only in a WHERE's top-level
// conjuncts, where a row whose condition is unknown is dropped as one
// whose condition is false (under NOT or in a select list the added
// conjunct could turn unknown into false), and only from comparisons of
// a column with literals of its kind (string with string, number with
// number): evaluating them earlier, on more rows, adds no warning.

// withImpliedByTable returns cond with the implied one-table conditions
// of its top-level ORs added, or nil when there are none.
func withImpliedByTable(cond sql.Expression) sql.Expression {
	conj := expression.SplitConjunction(cond)
	have := map[string]bool{}
	for _, c := range conj {
		have[condText(c)] = true
	}
	var add []sql.Expression
	for _, c := range conj {
		if _, ok := c.(*expression.Or); !ok {
			continue
		}
		branches := expression.SplitDisjunction(c)
		perBranch := make([]map[string][]sql.Expression, len(branches))
		tables := map[string]bool{}
		for i, b := range branches {
			perBranch[i] = map[string][]sql.Expression{}
			for _, bc := range expression.SplitConjunction(b) {
				if t, ok := PlainColumnTest(bc); ok {
					perBranch[i][t] = append(perBranch[i][t], bc)
				}
				tables[columnTables(bc)] = true
			}
		}
		if len(tables) < 2 {
			continue // one table's OR: pushed down as it is
		}
		for t := range perBranch[0] {
			var ors []sql.Expression
			for _, pb := range perBranch {
				if len(pb[t]) == 0 {
					ors = nil
					break
				}
				ors = append(ors, expression.JoinAnd(pb[t]...))
			}
			if ors == nil {
				continue
			}
			d := expression.JoinOr(ors...)
			if k := condText(d); !have[k] {
				have[k] = true
				add = append(add, d)
			}
		}
	}
	if len(add) == 0 {
		return nil
	}
	// A stable order: the plan (and EXPLAIN) must not depend on map order.
	slices.SortFunc(add, func(a, b sql.Expression) int { return strings.Compare(a.String(), b.String()) })
	return expression.JoinAnd(append(conj, add...)...)
}

// columnTables is the table every column e names belongs to ("" when it
// names none; "\x00" when more than one).
func columnTables(e sql.Expression) string {
	t, seen := "", false
	transform.InspectExpr(e, func(x sql.Expression) bool {
		if gf, ok := x.(*expression.GetField); ok {
			name := strings.ToLower(gf.Table())
			if seen && name != t {
				t = "\x00"
				return true
			}
			t, seen = name, true
		}
		return false
	})
	return t
}

// plainColumnTest reports whether e compares one table's column with
// literals of its kind (=, <, <=, >, >=, IN, BETWEEN; string with
// string, number with number), and that table.
func PlainColumnTest(e sql.Expression) (string, bool) {
	switch e.(type) {
	case *expression.Equals, *expression.LessThan, *expression.LessThanOrEqual,
		*expression.GreaterThan, *expression.GreaterThanOrEqual, *expression.InTuple, *expression.HashInTuple, *expression.Between:
	default:
		return "", false
	}
	var col *expression.GetField
	var lits []*expression.Literal
	ok := true
	var walk func(x sql.Expression)
	walk = func(x sql.Expression) {
		switch x := x.(type) {
		case *expression.GetField:
			if col != nil {
				ok = false
			}
			col = x
		case *expression.Literal:
			lits = append(lits, x)
		case expression.Tuple:
			for _, c := range x.Children() {
				walk(c)
			}
		default:
			ok = false
		}
	}
	for _, c := range e.Children() {
		walk(c)
	}
	if !ok || col == nil || len(lits) == 0 || col.Table() == "" {
		return "", false
	}
	text := types.IsText(col.Type())
	num := types.IsNumber(col.Type())
	if !text && !num {
		return "", false
	}
	for _, l := range lits {
		if l.Value() == nil || types.IsText(l.Type()) != text || types.IsNumber(l.Type()) != num {
			return "", false
		}
	}
	return strings.ToLower(col.Table()), true
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
