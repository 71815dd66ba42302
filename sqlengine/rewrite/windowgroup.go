package rewrite

import (
	"fmt"
	"reflect"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Window functions over grouped rows: `SELECT a, SUM(SUM(b)) OVER (ORDER
// BY a) FROM t GROUP BY a`, `RANK() OVER (ORDER BY COUNT(*))`. MySQL
// computes the windows over the groups, after HAVING. GMS v0.20.0's
// planner builds either the grouping or the windows of a SELECT, never
// both, and the query failed (1105: "unable to find field with index 4
// in row of 2 columns"). Here the grouping moves into a derived table:
//
//	SELECT a, SUM(SUM(b)) OVER (ORDER BY a) FROM t GROUP BY a
//	=> SELECT __pw_c0, SUM(__pw_a0) OVER (ORDER BY __pw_c0)
//	   FROM (SELECT a AS __pw_c0, SUM(b) AS __pw_a0 FROM t GROUP BY a) AS __pw
//
// each aggregate and each column the select list, ORDER BY and the
// windows read computed by the derived table, WHERE, GROUP BY and HAVING
// in it; the select list keeps the text the query wrote as its column
// names. Left as they were (GMS's error) are a select list with * or a
// subquery (which may read the grouped table's columns), a HAVING naming
// a select list alias and a GROUP BY naming a select list position.

// groupedWindows rewrites sel when it groups (GROUP BY, or an aggregate
// outside any window function) and has window functions.
func groupedWindows(sel *ast.Select) {
	if !hasCall(isWindowCall, sel.SelectExprs, sel.OrderBy) || hasCall(aggregateOfWindow, sel.SelectExprs, sel.OrderBy) {
		// A window function in an aggregate is MySQL's error 3593
		// (sqlengine's windowcheck.go).
		return
	}
	if len(sel.GroupBy) == 0 && !hasCall(isAggregateCall, sel.SelectExprs, sel.OrderBy, havingExpr(sel)) {
		return
	}
	aliases := map[string]bool{}
	for _, se := range sel.SelectExprs {
		switch x := se.(type) {
		case *ast.StarExpr:
			return
		case *ast.AliasedExpr:
			if !x.As.IsEmpty() {
				aliases[x.As.Lowered()] = true
			}
		}
	}
	if hasSubquery(sel.SelectExprs, sel.OrderBy, sel.Window) || namesAlias(havingExpr(sel), aliases) {
		return
	}
	for _, e := range sel.GroupBy {
		if v, ok := e.(*ast.SQLVal); ok && (v.Type == ast.IntVal || v.Type == ast.ValArg) {
			return // a position in the select list, which moves
		}
	}
	g := &groupedCols{index: map[string]string{}, made: map[*ast.ColName]bool{}}
	for _, se := range sel.SelectExprs {
		if a, ok := se.(*ast.AliasedExpr); ok {
			if c, ok := a.Expr.(*ast.ColName); ok && a.As.IsEmpty() {
				// A column's result is named by the column (t.a's is a).
				a.As = c.Name
			}
			a.Expr = g.replace(a.Expr, nil)
		}
	}
	for _, o := range sel.OrderBy {
		o.Expr = g.replace(o.Expr, aliases)
	}
	for _, w := range sel.Window {
		for i := range w.PartitionBy {
			w.PartitionBy[i] = g.replace(w.PartitionBy[i], nil)
		}
		for _, o := range w.OrderBy {
			o.Expr = g.replace(o.Expr, nil)
		}
	}
	if len(g.exprs) == 0 {
		g.exprs = append(g.exprs, &ast.AliasedExpr{Expr: ast.NewIntVal([]byte("1")), As: ast.NewColIdent("__pw_one")})
	}
	inner := &ast.Select{SelectExprs: g.exprs, From: sel.From, Where: sel.Where, GroupBy: sel.GroupBy, Having: sel.Having}
	sel.From = ast.TableExprs{&ast.AliasedTableExpr{Expr: &ast.Subquery{Select: inner}, As: ast.NewTableIdent("__pw"), Auth: ast.AuthInformation{AuthType: ast.AuthType_IGNORE}}}
	sel.Where, sel.GroupBy, sel.Having = nil, nil, nil
}

// groupedCols are the derived table's columns: exprs, each named in
// index by its expression's text.
type groupedCols struct {
	exprs ast.SelectExprs
	index map[string]string
	// made are the columns replace wrote: a named window's ORDER BY,
	// inlined into the calls naming it (namedwindow.go), shares their
	// parse tree, and is seen twice.
	made map[*ast.ColName]bool
	aggs int
	cols int
}

// replace is e with its aggregates and columns read from the derived
// table; a column named in keep (ORDER BY's select list aliases) stays.
func (g *groupedCols) replace(e ast.Expr, keep map[string]bool) ast.Expr {
	if out, ok := g.replaced(e, keep); ok {
		return out
	}
	replaceChildren(reflect.ValueOf(e), func(x ast.Expr) (ast.Expr, bool) { return g.replaced(x, keep) })
	return e
}

// replaced is e's derived column when e is an aggregate or a column.
func (g *groupedCols) replaced(e ast.Expr, keep map[string]bool) (ast.Expr, bool) {
	prefix := ""
	switch x := e.(type) {
	case *ast.FuncExpr, *ast.GroupConcatExpr:
		if !isAggregateCall(x) {
			return nil, false
		}
		prefix = "__pw_a"
	case *ast.ColName:
		if g.made[x] || x.Qualifier.IsEmpty() && keep[x.Name.Lowered()] {
			return nil, false
		}
		prefix = "__pw_c"
	default:
		return nil, false
	}
	key := strings.ToLower(ast.String(e))
	name, ok := g.index[key]
	if !ok {
		if prefix == "__pw_a" {
			name = fmt.Sprintf("%s%d", prefix, g.aggs)
			g.aggs++
		} else {
			name = fmt.Sprintf("%s%d", prefix, g.cols)
			g.cols++
		}
		g.index[key] = name
		g.exprs = append(g.exprs, &ast.AliasedExpr{Expr: e, As: ast.NewColIdent(name)})
	}
	c := &ast.ColName{Name: ast.NewColIdent(name)}
	g.made[c] = true
	return c, true
}

var exprType = reflect.TypeOf((*ast.Expr)(nil)).Elem()

// replaceChildren replaces, in the parse tree under v, each expression
// f replaces, and looks under those it does not; subqueries are left
// alone (groupedWindows leaves queries with them).
func replaceChildren(v reflect.Value, f func(ast.Expr) (ast.Expr, bool)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if _, sub := v.Interface().(*ast.Subquery); sub {
			return
		}
		replaceChildren(v.Elem(), f)
	case reflect.Interface:
		if !v.IsNil() {
			replaceChildren(v.Elem(), f)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			replaceField(v.Field(i), f)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			replaceField(v.Index(i), f)
		}
	}
}

// replaceField replaces or looks under one field or element.
func replaceField(fv reflect.Value, f func(ast.Expr) (ast.Expr, bool)) {
	if !fv.CanSet() {
		return
	}
	if fv.Type() == exprType && !fv.IsNil() {
		if out, ok := f(fv.Interface().(ast.Expr)); ok {
			fv.Set(reflect.ValueOf(out))
			return
		}
	}
	replaceChildren(fv, f)
}

func havingExpr(sel *ast.Select) ast.SQLNode {
	if sel.Having == nil {
		return nil
	}
	return sel.Having.Expr
}

// isWindowCall: a call with OVER.
func isWindowCall(n ast.SQLNode) bool {
	f, ok := n.(*ast.FuncExpr)
	return ok && f.Over != nil
}

// aggregateNames are the aggregate functions (without OVER).
var aggregateNames = map[string]bool{
	"avg": true, "bit_and": true, "bit_or": true, "bit_xor": true, "count": true,
	"json_arrayagg": true, "json_objectagg": true, "max": true, "min": true,
	"std": true, "stddev": true, "stddev_pop": true, "stddev_samp": true, "sum": true,
	"var_pop": true, "var_samp": true, "variance": true,
}

// isAggregateCall: an aggregate function's call, not over a window.
func isAggregateCall(n ast.SQLNode) bool {
	switch x := n.(type) {
	case *ast.GroupConcatExpr:
		return true
	case *ast.FuncExpr:
		return x.Over == nil && x.Qualifier.IsEmpty() && aggregateNames[x.Name.Lowered()]
	}
	return false
}

// aggregateOfWindow: an aggregate's call with a window function in its
// arguments.
func aggregateOfWindow(n ast.SQLNode) bool {
	if !isAggregateCall(n) {
		return false
	}
	if g, ok := n.(*ast.GroupConcatExpr); ok {
		return hasCall(isWindowCall, g.Exprs)
	}
	return hasCall(isWindowCall, n.(*ast.FuncExpr).Exprs)
}

// hasCall: a call is in nodes (outside subqueries).
func hasCall(is func(ast.SQLNode) bool, nodes ...ast.SQLNode) bool {
	found := false
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if _, sub := n.(*ast.Subquery); sub {
			return false, nil
		}
		if is(n) {
			found = true
		}
		return !found, nil
	}, nodes...)
	return found
}

// hasSubquery: a subquery is in nodes.
func hasSubquery(nodes ...ast.SQLNode) bool {
	found := false
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if _, sub := n.(*ast.Subquery); sub {
			found = true
		}
		return !found, nil
	}, nodes...)
	return found
}

// namesAlias: an unqualified column of e is one of aliases.
func namesAlias(e ast.SQLNode, aliases map[string]bool) bool {
	found := false
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if c, ok := n.(*ast.ColName); ok && c.Qualifier.IsEmpty() && aliases[c.Name.Lowered()] {
			found = true
		}
		return !found, nil
	}, e)
	return found
}
