package rewrite

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// CTEAuth leaves a common table expression's reference to an earlier
// one of its WITH (or to itself, WITH RECURSIVE) out of the privilege
// checks, as MySQL checks privileges on the tables a CTE reads, not on
// the CTE's name. vitess marks the statement's own references to its
// CTEs so, but not those inside the CTEs' definitions: `WITH cte1 AS
// (SELECT a FROM t1), cte2 AS (SELECT cte1.a FROM t1, cte1 ...)` was
// 1142 "SELECT command denied ... for table 'cte1'" for a user with
// SELECT on t1 (mtr's cte_nonrecursive_not_embedded). A name a CTE
// reads before it is defined, or qualified with a database, is a table
// and keeps its check.
func CTEAuth(stmt ast.Statement) {
	if stmt == nil {
		return
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if w, ok := n.(*ast.With); ok && w != nil {
			cteAuth(w)
		}
		return true, nil
	}, stmt)
}

func cteAuth(w *ast.With) {
	var names []string
	for _, cte := range w.Ctes {
		if cte == nil || cte.AliasedTableExpr == nil {
			continue
		}
		if w.Recursive {
			names = append(names, cte.As.String())
		}
		if len(names) > 0 && cte.Expr != nil {
			ast.WalkAuthNodes(cte.Expr, func(node ast.AuthNode, auth ast.AuthInformation) {
				if auth.AuthType != ast.AuthType_SELECT || len(auth.TargetNames) != 2 || auth.TargetNames[0] != "" {
					return
				}
				for _, name := range names {
					if strings.EqualFold(auth.TargetNames[1], name) {
						node.SetAuthType(ast.AuthType_IGNORE)
						return
					}
				}
			})
		}
		if !w.Recursive {
			names = append(names, cte.As.String())
		}
	}
}
