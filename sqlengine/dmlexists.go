package sqlengine

import (
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// UPDATE and DELETE with [NOT] EXISTS (SELECT ...): GMS failed every one
// with 1105 "attempted to evaluate uninitialized subquery" (`DELETE FROM
// t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.id = t.id)`, an everyday
// cleanup). Its planner notes a statement's subqueries for its choice
// of analysis, but not an EXISTS: a single-table UPDATE or DELETE with
// no other subquery got the short analysis for statements of one
// table, which never analyses a subquery, and its iterator found the
// EXISTS without a plan. dmlExists, first of that analysis, gives such a
// statement what the full analysis would: its subqueries resolved and
// finalized by GMS's own rules, and the statement marked as reading more
// than its table, so that its columns are indexed for the subqueries'
// scopes.

const dmlExistsRuleID analyzer.RuleId = 1096

var (
	dmlExistsOnce sync.Once
	// GMS's resolveSubqueries and finalizeSubqueries.
	resolveSubqueriesRule, finalizeSubqueriesRule analyzer.RuleFunc
)

// installDMLExistsRule puts dmlExists among the rules GMS runs first for
// every statement, once per process.
func installDMLExistsRule() {
	dmlExistsOnce.Do(func() {
		for _, r := range analyzer.DefaultRules {
			if r.Id.String() == "resolveSubqueries" {
				resolveSubqueriesRule = r.Apply
			}
		}
		for _, r := range analyzer.OnceAfterDefault {
			if r.Id.String() == "finalizeSubqueries" {
				finalizeSubqueriesRule = r.Apply
			}
		}
		if resolveSubqueriesRule == nil || finalizeSubqueriesRule == nil {
			return // a GMS without them: nothing to call
		}
		analyzer.AlwaysBeforeDefault = append(analyzer.AlwaysBeforeDefault, analyzer.Rule{Id: dmlExistsRuleID, Apply: dmlExists})
	})
}

// dmlExists is the rule: n, when it is an UPDATE or DELETE GMS analyses
// as reading its table alone and it holds an EXISTS, with its subqueries
// analysed.
func dmlExists(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	switch x := n.(type) {
	case *plan.Update:
		if !x.HasSingleRel || x.IsJoin || !holdsExists(x) {
			return n, transform.SameTree, nil
		}
		u := *x
		u.HasSingleRel = false
		n = &u
	case *plan.DeleteFrom:
		if !x.RefsSingleRel || x.HasExplicitTargets() || !holdsExists(x) {
			return n, transform.SameTree, nil
		}
		d := *x
		d.RefsSingleRel = false
		n = &d
	default:
		return n, transform.SameTree, nil
	}
	n, _, err := resolveSubqueriesRule(ctx, a, n, scope, sel, qf)
	if err != nil {
		return nil, transform.SameTree, err
	}
	n, _, err = finalizeSubqueriesRule(ctx, a, n, scope, sel, qf)
	if err != nil {
		return nil, transform.SameTree, err
	}
	return n, transform.NewTree, nil
}

// holdsExists reports whether an expression of n's tree is an EXISTS.
func holdsExists(n sql.Node) bool {
	found := false
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		if _, ok := e.(*plan.ExistsSubquery); ok {
			found = true
		}
		return !found
	})
	return found
}
