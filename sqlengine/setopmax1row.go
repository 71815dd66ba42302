package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// setOpMax1RowRuleID is setOpMax1Row's rule id, past GMS's and Petrel's
// others.
const setOpMax1RowRuleID analyzer.RuleId = 1771

// setOpMax1Row keeps a UNION, EXCEPT or INTERSECT of single-row reads
// from being sent as a single row. GMS marks a statement as returning at
// most one row when one of its index lookups is by a whole unique key
// (no join, no subquery), and a UNION ALL of two such lookups was then
// refused at its second row: "1105 result max1Row iterator returned more
// than one row" (mtr's include/ps_query.inc: SELECT a FROM t1 WHERE a=1
// UNION ALL SELECT a FROM t1 WHERE a=1 with a the primary key).
func setOpMax1Row(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if qFlags == nil || !qFlags.IsSet(sql.QFlagMax1Row) {
		return n, transform.SameTree, nil
	}
	setOp := false
	transform.Inspect(n, func(c sql.Node) bool {
		if _, ok := c.(*plan.SetOp); ok {
			setOp = true
		}
		return !setOp
	})
	if setOp {
		qFlags.Unset(sql.QFlagMax1Row)
	}
	return n, transform.SameTree, nil
}
