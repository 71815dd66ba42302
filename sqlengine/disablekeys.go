package sqlengine

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// ALTER TABLE ... DISABLE KEYS / ENABLE KEYS on a table whose engine
// has no such option (InnoDB's, so Petrel's) changes nothing and notes
// 1031, as MySQL does; GMS warned 1235 "not supported yet".

// disableKeys answers n when it is DISABLE KEYS or ENABLE KEYS.
func disableKeys(ctx *sql.Context, n *plan.AlterIndex) (sql.RowIter, bool) {
	if n.Action != plan.IndexAction_DisableEnableKeys {
		return nil, false
	}
	ctx.Session.Warn(&sql.Warning{Level: "Note", Code: 1031,
		Message: fmt.Sprintf("Table storage engine for '%s' doesn't have this option", n.Table.Name())})
	return sql.RowsToRowIter(sql.NewRow(types.NewOkResult(0))), true
}
