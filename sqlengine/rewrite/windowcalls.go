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
