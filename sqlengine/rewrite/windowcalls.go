package rewrite

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Window functions GMS's planner does not plan as windows (NTH_VALUE,
// CUME_DIST, BIT_AND, BIT_OR, BIT_XOR OVER ...) written as ROW_NUMBER
// calls naming them: ROW_NUMBER('petrel:nth_value', x, 2) OVER (...). GMS
// plans ROW_NUMBER as a window function and asks Petrel's function
// registry for it first, where functions/windowcalls.go builds the named
// one. ROW_NUMBER takes no argument in MySQL's grammar (and vitess's),
// so no query can write such a call itself. The select list's column
// name is the call as the query wrote it.

// windowCallPrefix is functions.WindowCallPrefix (rewrite may not
// import functions).
const windowCallPrefix = "petrel:"

// windowCall rewrites f, a call with OVER.
func windowCall(f *ast.FuncExpr) {
	name := strings.ToLower(f.Name.String())
	switch name {
	case "nth_value", "cume_dist", "bit_and", "bit_or", "bit_xor":
	default:
		return
	}
	tag := &ast.AliasedExpr{Expr: ast.NewStrVal([]byte(windowCallPrefix + name))}
	f.Exprs = append(ast.SelectExprs{tag}, f.Exprs...)
	f.Name = ast.NewColIdent("row_number")
}

// createSelectNames names the window functions of CREATE TABLE ... AS
// SELECT's select list by their text. Vitess records the text of a
// SELECT's expressions (InputExpression, GMS's column name) but not of
// one inside CREATE TABLE, so GMS named the new column by its plan's
// text, `first_value(t1.b) over ( rows between unbounded preceding and
// unbounded following)`, which is too long for a column: 1105 "invalid
// identifier" (mtr's win_first_last_value). The parse tree's text
// stands in, and arith's renameCreateSelect then names the column by
// the statement's own text, as MySQL does.
func createSelectNames(stmt ast.Statement) {
	d, ok := stmt.(*ast.DDL)
	if !ok || d.OptSelect == nil {
		return
	}
	sel, ok := d.OptSelect.Select.(*ast.Select)
	if !ok {
		return
	}
	for _, se := range sel.SelectExprs {
		a, ok := se.(*ast.AliasedExpr)
		if !ok || !a.As.IsEmpty() || a.InputExpression != "" {
			continue
		}
		if _, col := a.Expr.(*ast.ColName); !col && hasCall(isWindowCall, a.Expr) {
			a.InputExpression = ast.String(a.Expr)
		}
	}
}
