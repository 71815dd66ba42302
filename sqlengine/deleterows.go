package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// keepDeleteRows keeps a DELETE without WHERE a DELETE. GMS's
// processTruncate runs one (on a table without AUTO_INCREMENT, ON DELETE
// triggers or referencing foreign keys) as a truncation, which deletes the
// rows by key range and records no row change: the binlog got an empty
// transaction and a replica kept every row. It also looked the table up
// in the current database, so with none selected `DELETE FROM db.t`
// failed with 1049. MySQL logs such a DELETE as one row event per row
// (ROW format). Run before processTruncate (AlwaysBeforeDefault, the first
// batch of every statement), this rule puts a filter that is always true
// over the table, which processTruncate leaves alone, so the statement
// deletes, counts and logs row by row. A TRUNCATE statement stays a
// truncation (logged as its text, as MySQL's).
func keepDeleteRows(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if ctx == nil || !mentionsDelete(ctx.Query()) {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		d, ok := n.(*plan.DeleteFrom)
		if !ok {
			return n, transform.SameTree, nil
		}
		rt, ok := d.Child.(*plan.ResolvedTable)
		if !ok {
			return n, transform.SameTree, nil
		}
		nn, err := d.WithChildren(plan.NewFilter(expression.NewLiteral(true, types.Boolean), rt))
		if err != nil {
			return n, transform.SameTree, err
		}
		return nn, transform.NewTree, nil
	})
}

// mentionsDelete reports whether q holds the word DELETE in any case (a
// DELETE statement, or a CALL or trigger body that may run one), without
// allocating.
func mentionsDelete(q string) bool {
	for i := 0; i+6 <= len(q); i++ {
		if (q[i] == 'd' || q[i] == 'D') && strings.EqualFold(q[i:i+6], "delete") {
			return true
		}
	}
	return false
}

// truncateNotView refuses TRUNCATE of a view, as MySQL does (1146: a
// view is no table). GMS resolved the view to its table and emptied it.
func (e *Engine) truncateNotView(ctx *sql.Context) error {
	st, err := ast.Parse(ctx.Query())
	if err != nil {
		return nil
	}
	ddl, ok := st.(*ast.DDL)
	if !ok || ddl.Action != ast.TruncateStr {
		return nil
	}
	db := ddl.Table.DbQualifier.String()
	if db == "" {
		db = ctx.GetCurrentDatabase()
	}
	name := ddl.Table.Name.String()
	d := e.store.Catalog().Database(db)
	if d == nil {
		return nil
	}
	for _, v := range d.Def().Views {
		if strings.EqualFold(v.Name, name) {
			return sql.ErrTableNotFound.New(db + "." + name)
		}
	}
	return nil
}
