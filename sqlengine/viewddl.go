package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// A statement that reads a view is not DDL. GMS's planner resolves a
// view by binding its CREATE VIEW statement with the statement's own
// builder, which marks the statement as DDL (QFlagDDL); a DDL statement
// commits the transaction it runs in, so `START TRANSACTION; INSERT ...;
// SELECT * FROM v; ROLLBACK` kept the INSERT, and a procedure reading a
// view committed its caller's transaction halfway. The mark is taken
// off a statement that is not DDL by its text or by its plan.

const viewDDLRuleID analyzer.RuleId = 1041

func clearViewDDLFlag(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if qFlags == nil || !qFlags.IsSet(sql.QFlagDDL) || plan.IsDDLNode(n) || isDDL(ctx.Query()) {
		return n, transform.SameTree, nil
	}
	switch n.(type) {
	case *plan.TableCopier, *plan.CreateUser, *plan.DropUser, *plan.RenameUser:
		return n, transform.SameTree, nil
	}
	qFlags.Unset(sql.QFlagDDL)
	return n, transform.SameTree, nil
}
