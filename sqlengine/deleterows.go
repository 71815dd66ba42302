package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// keepDeleteRows undoes GMS's processTruncate for a DELETE: GMS runs a
// DELETE without WHERE (on a table without AUTO_INCREMENT, ON DELETE
// triggers or referencing foreign keys) as a truncation, which deletes
// the rows by key range and records no row change, so the binlog got an
// empty transaction and a replica kept every row. MySQL logs such a
// DELETE as one row event per row (ROW format); the statement stays a
// DELETE here and is logged so. A TRUNCATE statement stays a truncation
// (logged as its statement text, as MySQL's).
func keepDeleteRows(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if ctx == nil || !deleteStatement(ctx.Query()) {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		t, ok := n.(*plan.Truncate)
		if !ok {
			return n, transform.SameTree, nil
		}
		return plan.NewDeleteFrom(t.Child, nil), transform.NewTree, nil
	})
}

// deleteStatement reports whether q is a DELETE statement.
func deleteStatement(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n(")
	return len(q) >= 6 && strings.EqualFold(q[:6], "delete")
}

// truncateStatement reports whether q is a TRUNCATE statement.
func truncateStatement(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n(")
	return len(q) >= 8 && strings.EqualFold(q[:8], "truncate")
}
