package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// A trigger that CALLs a procedure committing explicitly or implicitly
// (its DDL, COMMIT, LOCK TABLES: noCommitIn) fails its statement with
// MySQL's 1422 ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG, as MySQL refuses such
// a CALL in a sub-statement. GMS ran the procedure, whose DDL then
// failed with 1105 "unable to get sub statement" (mtr's tablelock). The
// procedure may be created after the trigger, so the check is made when
// a statement firing the trigger is analysed.

const trigCommitRuleID analyzer.RuleId = 1733

// trigCommitRule refuses n when a trigger it fires calls a procedure
// that commits.
func trigCommitRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	var err error
	transform.Inspect(n, func(x sql.Node) bool {
		te, ok := x.(*plan.TriggerExecutor)
		if !ok || err != nil {
			return err == nil
		}
		transform.Inspect(te.Right(), func(y sql.Node) bool {
			c, ok := y.(*plan.Call)
			if !ok || err != nil || c.Procedure == nil {
				return err == nil
			}
			if st, perr := ast.Parse(c.Procedure.CreateProcedureString); perr == nil {
				if d, ok := st.(*ast.DDL); ok && d.ProcedureSpec != nil && d.ProcedureSpec.Body != nil {
					err = noCommitIn(d.ProcedureSpec.Body) // routinecheck.go
				}
			}
			return err == nil
		})
		return err == nil
	})
	return n, transform.SameTree, err
}
