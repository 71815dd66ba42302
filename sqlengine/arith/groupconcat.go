package arith

import (
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GROUP_CONCAT(x, y, ...) of several expressions concatenates them for
// each row, as MySQL's: GMS's took the first alone, so GROUP_CONCAT(a,
// ':', b) listed the a's. At parse time the expressions are written as
// one CONCAT(x, y, ...), which is NULL, and so skipped, when one of them
// is, as MySQL skips such a row.
//
// GROUP_CONCAT(DISTINCT x) without ORDER BY lists its values sorted, as
// MySQL's does (it removes duplicates in a tree ordered by the values,
// and reads the tree in order): GMS kept them in the order the rows
// came, so GROUP_CONCAT(DISTINCT x) over 3, 1, 2, 1 was '3,1,2' where
// MySQL's is '1,2,3'. At parse time such a call is given ORDER BY its
// arguments (the literals among them left out: they order nothing, and
// ORDER BY of a number names a position).

func groupConcatArgs(g *ast.GroupConcatExpr) {
	for _, se := range g.Exprs {
		if _, ok := se.(*ast.AliasedExpr); !ok {
			return
		}
	}
	if g.Distinct != "" && len(g.OrderBy) == 0 {
		for _, se := range g.Exprs {
			x := se.(*ast.AliasedExpr).Expr
			if _, lit := x.(*ast.SQLVal); !lit {
				g.OrderBy = append(g.OrderBy, &ast.Order{Expr: x, Direction: ast.AscScr})
			}
		}
	}
	if len(g.Exprs) > 1 {
		g.Exprs = ast.SelectExprs{&ast.AliasedExpr{Expr: &ast.FuncExpr{Name: ast.NewColIdent("concat"), Exprs: g.Exprs}}}
	}
}
