package sqlengine

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// A placeholder alone in ORDER BY (PREPARE s FROM 'SELECT a, b FROM t1
// ORDER BY ?') is, in MySQL as in MariaDB, read at EXECUTE: an integer
// is a column position (1054 when out of range), anything else a
// constant. GMS reads it so when it binds the cached statement at
// EXECUTE, but the structure check of SQL PREPARE builds the statement
// with no bindings, and there a bare placeholder in ORDER BY failed
// ("bind variable not provided": 1210, mtr's ps_2myisam, ps_3innodb,
// ps_4heap, ps_5merge). COM_STMT_PREPARE checks with no binding
// context and passes.
//
// prepareCheckOrderBy puts such a placeholder in parentheses, an
// expression the check builds without a value, when st is parsed for
// that check: during the session's PREPARE (connState.preparing), by
// ParseWithOptions (GMS parses the statement it caches for EXECUTE with
// ParseOneWithOptions, which keeps it bare).
func prepareCheckOrderBy(ctx context.Context, st ast.Statement) {
	c, ok := ctx.(*sql.Context)
	if !ok || c == nil || st == nil {
		return
	}
	s, ok := c.Session.(*Session)
	if !ok || s.conn == nil || s.conn.preparing == "" || c.Pid() != s.conn.clientPid {
		return
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *ast.Order:
			parenPlaceholder(x)
		case *ast.SetOp: // its ORDER BY, which Walk does not visit
			for _, o := range x.OrderBy {
				parenPlaceholder(o)
			}
		}
		return true, nil
	}, st)
}

func parenPlaceholder(o *ast.Order) {
	if v, ok := o.Expr.(*ast.SQLVal); ok && v.Type == ast.ValArg {
		o.Expr = &ast.ParenExpr{Expr: v}
	}
}
