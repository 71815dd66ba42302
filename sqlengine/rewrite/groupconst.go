package rewrite

import (
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Constants in GROUP BY. MySQL reads an integer literal in GROUP BY as
// a position in the select list and any other literal (`GROUP BY 'a'`,
// as mtr's include/ps_query.inc writes) as a constant expression: every
// row in one group, no group when there are no rows. GMS v0.20.0 reads
// every literal as a position and refused the others (1105 "expected
// integer order by literal"). Here such a literal is parenthesised, which
// GMS plans as the expression it is; integer literals and `?` (a
// position once bound, in GMS as in MySQL's grammar) are left alone.
func constGroupBy(sel *ast.Select) {
	for i, e := range sel.GroupBy {
		v, ok := e.(*ast.SQLVal)
		if !ok || v.Type == ast.IntVal || v.Type == ast.ValArg {
			continue
		}
		sel.GroupBy[i] = &ast.ParenExpr{Expr: v}
	}
}
