package rewrite

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Non-deterministic functions in WHERE are evaluated for every row, as
// MySQL does. GMS v0.20.0's simplifyFilters evaluates once, at planning,
// every filter sub-expression that reads no column, RAND() included:
// `WHERE RAND() < 0.5` kept every row or none, and `RAND() <= x` compared
// each row with one number. The rule is wrapped: before it runs, each
// non-deterministic call is hidden in a volatileHold (which reads as a
// column to GMS's evaluability check), and restored after it.

// LIKE is hidden from simplifyFilters too. It rewrites `s LIKE 'AB%'` as
// s >= 'AB' AND s <= 'AB' + byte 255, which under a collation is no
// prefix test: byte 255 weighs as 'ÿ' (as 'y' in utf8mb4_0900_ai_ci), so
// 'ABz' and 'abZ' were not found, and NOT LIKE returned them; and `s
// LIKE 'abc'` as s = 'abc', which under PAD SPACE also holds for 'abc '.
// LIKE stays LIKE (GMS reads no index range from it).

// likePattern reports whether e is a LIKE.
func likePattern(e sql.Expression) bool {
	_, ok := e.(*expression.Like)
	return ok
}

// simplifyFiltersRule is GMS's rule, found by name when the rules are
// installed.
var SimplifyFiltersRule analyzer.RuleFunc

// volatileNames are non-deterministic functions GMS does not mark as
// such (sql.NonDeterministicExpression).
var volatileNames = map[string]bool{
	"rand": true, "uuid": true, "uuid_short": true, "sysdate": true, "sleep": true,
	"random_bytes": true, "get_lock": true, "release_lock": true, "release_all_locks": true,
	"is_free_lock": true, "is_used_lock": true, "benchmark": true, "last_insert_id": true,
	"row_count": true, "found_rows": true,
}

// volatile reports whether e itself (not its children) may give another
// value on each evaluation.
func Volatile(e sql.Expression) bool {
	if nd, ok := e.(sql.NonDeterministicExpression); ok && nd.IsNonDeterministic() {
		if _, sub := e.(*plan.Subquery); !sub {
			return true
		}
	}
	if f, ok := e.(sql.FunctionExpression); ok && volatileNames[strings.ToLower(f.FunctionName())] {
		return true
	}
	return false
}

// simplifyFiltersKeepingVolatile is GMS's simplifyFilters with the
// non-deterministic calls hidden from it.
func SimplifyFiltersKeepingVolatile(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	hidden, same, err := mapVolatile(n, true)
	if err != nil {
		return nil, transform.SameTree, err
	}
	out, same2, err := SimplifyFiltersRule(ctx, a, hidden, scope, sel, qFlags)
	if err != nil {
		return nil, transform.SameTree, err
	}
	if same == transform.SameTree {
		return out, same2, nil
	}
	restored, _, err := mapVolatile(out, false)
	if err != nil {
		return nil, transform.SameTree, err
	}
	return restored, same2, nil
}

// mapVolatile hides (hide) or restores the non-deterministic calls in
// n's expressions, subqueries' included. A hidden call's arguments are
// not walked: they come back with it.
func mapVolatile(n sql.Node, hide bool) (sql.Node, transform.TreeIdentity, error) {
	return MapNodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		return volatileExpr(e, hide)
	})
}

func volatileExpr(e sql.Expression, hide bool) (sql.Expression, transform.TreeIdentity, error) {
	switch x := e.(type) {
	case volatileHold:
		if !hide {
			return x.orig, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	case *plan.Subquery:
		q, same, err := mapVolatile(x.Query, hide)
		if err != nil || same == transform.SameTree {
			return e, transform.SameTree, err
		}
		return x.WithQuery(q), transform.NewTree, nil
	}
	if hide && (Volatile(e) || likePattern(e)) {
		return volatileHold{orig: e}, transform.NewTree, nil
	}
	return MapChildren(e, func(c sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		return volatileExpr(c, hide)
	})
}

// mapNodeExprs applies f to the expressions of every node of n (opaque
// ones too); f decides how deep it goes into each expression.
func MapNodeExprs(n sql.Node, f func(sql.Expression) (sql.Expression, transform.TreeIdentity, error)) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		ex, ok := n.(sql.Expressioner)
		if !ok {
			return n, transform.SameTree, nil
		}
		exprs := ex.Expressions()
		changed := false
		out := make([]sql.Expression, len(exprs))
		for i, e := range exprs {
			ne, same, err := f(e)
			if err != nil {
				return nil, transform.SameTree, err
			}
			out[i] = ne
			changed = changed || same == transform.NewTree
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		nn, err := ex.WithExpressions(out...)
		if err != nil {
			return nil, transform.SameTree, err
		}
		return nn, transform.NewTree, nil
	})
}

// mapChildren applies f to e's children and rebuilds e if any changed.
func MapChildren(e sql.Expression, f func(sql.Expression) (sql.Expression, transform.TreeIdentity, error)) (sql.Expression, transform.TreeIdentity, error) {
	children := e.Children()
	changed := false
	out := make([]sql.Expression, len(children))
	for i, c := range children {
		nc, same, err := f(c)
		if err != nil {
			return nil, transform.SameTree, err
		}
		out[i] = nc
		changed = changed || same == transform.NewTree
	}
	if !changed {
		return e, transform.SameTree, nil
	}
	ne, err := e.WithChildren(out...)
	if err != nil {
		return nil, transform.SameTree, err
	}
	return ne, transform.NewTree, nil
}

// volatileHold stands for a non-deterministic call while simplifyFilters
// runs; its child, an unresolved column, is what tells GMS it cannot be
// evaluated in advance.
type volatileHold struct{ orig sql.Expression }

var _ sql.Expression = volatileHold{}

func (v volatileHold) Resolved() bool   { return true }
func (v volatileHold) String() string   { return v.orig.String() }
func (v volatileHold) Type() sql.Type   { return v.orig.Type() }
func (v volatileHold) IsNullable() bool { return v.orig.IsNullable() }
func (v volatileHold) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	return v.orig.Eval(ctx, row)
}
func (v volatileHold) Children() []sql.Expression {
	return []sql.Expression{expression.NewUnresolvedColumn("")}
}
func (v volatileHold) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return v, nil
}
