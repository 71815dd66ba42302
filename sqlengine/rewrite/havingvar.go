package rewrite

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// HavingVariables lets a HAVING clause read user and system variables
// (`HAVING b <> @v`, as mtr's include/ps_query.inc writes): GMS's
// planner resolves every name of a HAVING clause as a column of the
// FROM tables or an alias of the select list, and refused a variable
// with 1054 "Unknown column '@v'". Each variable there becomes the
// scalar subquery (SELECT @v), which GMS plans through its expression
// builder, where variables resolve; its value is the variable's, as
// MySQL reads it (once per statement: a variable does not change
// during the statement's HAVING).
func HavingVariables(stmt ast.Statement) {
	if stmt == nil {
		return
	}
	nodes := []ast.SQLNode{stmt}
	if d, ok := stmt.(*ast.DDL); ok && d.OptSelect != nil {
		// Walk does not enter CREATE TABLE ... AS SELECT's select.
		nodes = append(nodes, d.OptSelect.Select)
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if sel, ok := n.(*ast.Select); ok && sel.Having != nil && sel.Having.Expr != nil {
			havingVariables(sel.Having)
		}
		return true, nil
	}, nodes...)
}

func havingVariables(h *ast.Where) {
	var vars []*ast.ColName
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		switch n := n.(type) {
		case *ast.Subquery:
			return false, nil // planned by the expression builder already
		case *ast.ColName:
			if isVariable(n) {
				vars = append(vars, n)
			}
		}
		return true, nil
	}, h.Expr)
	for _, v := range vars {
		sub := &ast.Subquery{Select: &ast.Select{SelectExprs: ast.SelectExprs{&ast.AliasedExpr{Expr: v}}}}
		h.Expr = ast.ReplaceExpr(h.Expr, v, sub)
	}
}

// isVariable is a name read as @user_var, @@sys_var or @@scope.sys_var.
func isVariable(c *ast.ColName) bool {
	if c.Qualifier.IsEmpty() {
		return strings.HasPrefix(c.Name.String(), "@")
	}
	return c.Qualifier.DbQualifier.IsEmpty() && strings.HasPrefix(c.Qualifier.Name.String(), "@@")
}
