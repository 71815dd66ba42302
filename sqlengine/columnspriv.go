package sqlengine

import (
	"context"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// mysql.columns_priv, MySQL 8's grant table for column privileges, which
// GMS's mysql database (mysql_db.MySQLDb, GMS's own type, not wrappable
// from the catalog) lacks. Petrel grants no column privileges, so the
// table is always empty: a read of mysql.columns_priv is a read of an
// empty derived table with MySQL 8's columns, and a DELETE of it deletes
// nothing. Scripts that clean the grant tables (mtr's read_only,
// trigger_notembedded) stop at 1146 otherwise. Unqualified references
// under USE mysql are not covered (the current database is not known at
// parse time).

// columnsPrivDeletePattern is DELETE FROM mysql.columns_priv with any
// WHERE/ORDER BY/LIMIT: the table has no rows to delete.
const columnsPrivDeletePattern = "DELETE (?:LOW_PRIORITY |QUICK |IGNORE )*FROM `?mysql`?\\.`?columns_priv`?(?: .*)?"

func (e *Engine) deleteColumnsPriv(context.Context, *Session, []string) (*AdminResult, error) {
	return &AdminResult{}, nil
}

// columnsPrivSelect is MySQL 8's columns_priv columns, no rows.
const columnsPrivSelect = "SELECT CAST('' AS CHAR(255)) AS Host, CAST('' AS CHAR(64)) AS Db, CAST('' AS CHAR(32)) AS User, " +
	"CAST('' AS CHAR(64)) AS Table_name, CAST('' AS CHAR(64)) AS Column_name, CAST(NULL AS DATETIME) AS `Timestamp`, " +
	"CAST('' AS CHAR(31)) AS Column_priv FROM dual WHERE FALSE"

// columnsPrivReads replaces each mysql.columns_priv in st's FROM clauses
// with the empty derived table, under the name it was read as.
func columnsPrivReads(st ast.Statement) {
	if st == nil {
		return
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		at, ok := n.(*ast.AliasedTableExpr)
		if !ok {
			return true, nil
		}
		tn, ok := at.Expr.(ast.TableName)
		if !ok || !strings.EqualFold(tn.DbQualifier.String(), "mysql") || !strings.EqualFold(tn.Name.String(), "columns_priv") {
			return true, nil
		}
		sub, err := ast.Parse(columnsPrivSelect)
		if err != nil {
			return false, err
		}
		at.Expr = &ast.Subquery{Select: sub.(ast.SelectStatement)}
		if at.As.IsEmpty() {
			at.As = ast.NewTableIdent(tn.Name.String())
		}
		return false, nil
	}, st)
}
