package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// A trigger or stored function that CALLs a procedure committing
// explicitly or implicitly (its DDL, COMMIT, LOCK TABLES: noCommitIn)
// fails its statement with MySQL's 1422 ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG,
// as MySQL refuses such a CALL in a sub-statement. GMS ran the
// procedure, whose DDL then failed with 1105 "unable to get sub
// statement" in a trigger or "transaction already finished" in a
// function (mtr's tablelock). The procedure may be created after the
// trigger or function, so the check is made when a statement firing the
// trigger, or the CALL a function runs, is analysed.

const trigCommitRuleID analyzer.RuleId = 1733

// trigCommitRule refuses n when a trigger it fires calls a procedure
// that commits, or when n is such a CALL run by a stored function (its
// hidden procedure's statements are analysed one by one as they run).
func trigCommitRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if s, ok := ctx.Session.(*Session); ok && s.fnDepth > 0 {
		if c, ok := n.(*plan.Call); ok {
			return n, transform.SameTree, callCommits(c)
		}
	}
	var err error
	transform.Inspect(n, func(x sql.Node) bool {
		te, ok := x.(*plan.TriggerExecutor)
		if !ok || err != nil {
			return err == nil
		}
		transform.Inspect(te.Right(), func(y sql.Node) bool {
			if c, ok := y.(*plan.Call); ok && err == nil {
				err = callCommits(c)
			}
			return err == nil
		})
		return err == nil
	})
	return n, transform.SameTree, err
}

// callCommits is 1422 when c's procedure commits.
func callCommits(c *plan.Call) error {
	if c.Procedure == nil {
		return nil
	}
	st, err := ast.Parse(c.Procedure.CreateProcedureString)
	if err != nil {
		return nil
	}
	if d, ok := st.(*ast.DDL); ok && d.ProcedureSpec != nil && d.ProcedureSpec.Body != nil {
		return noCommitIn(d.ProcedureSpec.Body) // routinecheck.go
	}
	return nil
}
