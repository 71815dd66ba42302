package rewrite

import (
	"strconv"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Aggregates in subqueries over a table the enclosing query also reads.
// GMS v0.20.0 names an aggregate by its text after column resolution and
// looks the name up in the enclosing scopes too (planbuilder's
// buildAggregateFunc and scope.getExpr), so in
//
//	SELECT pk, SUM(qty), (SELECT SUM(qty) FROM ps WHERE pk = 2) FROM ps GROUP BY pk
//
// the subquery's SUM(ps.qty) was taken to be the outer query's: the
// subquery lost its own aggregation and answered 20 where MySQL answers
// 1, and `HAVING SUM(qty) > (SELECT SUM(qty) FROM ps)` (TPC-H Q11's
// shape) failed with 1242. Here, at parse time, a subquery that computes
// an aggregate over a table named without an alias that an enclosing
// query also names without one gets that table aliased (ps AS
// ps__sq1), and its references `ps.col` (which MySQL resolves to the
// innermost ps) requalified; unqualified columns resolve to it as
// before. The result's column names are the statement's text, captured
// by the parser, so they do not change.

// aliasSubqueryTables applies that rewrite to stmt.
func AliasSubqueryTables(stmt ast.Statement) {
	sel, ok := stmt.(ast.SelectStatement)
	if !ok || stmt == nil {
		return
	}
	var n int
	aliasInSelect(sel, nil, &n)
}

// aliasInSelect visits a SELECT (or each SELECT of a set operation)
// enclosed by queries naming the tables in outer.
func aliasInSelect(st ast.SelectStatement, outer []map[string]bool, n *int) {
	switch s := st.(type) {
	case *ast.SetOp:
		aliasInSelect(s.Left, outer, n)
		aliasInSelect(s.Right, outer, n)
		return
	case *ast.ParenSelect:
		aliasInSelect(s.Select, outer, n)
		return
	}
	sel, ok := st.(*ast.Select)
	if !ok {
		return
	}
	own := map[string]*ast.AliasedTableExpr{}
	for _, te := range sel.From {
		unaliased(te, own)
	}
	if len(outer) > 0 && hasAggregate(sel) {
		for name, ate := range own {
			if !named(outer, name) {
				continue
			}
			*n++
			alias := ate.Expr.(ast.TableName).Name.String() + "__sq" + strconv.Itoa(*n)
			ate.As = ast.NewTableIdent(alias)
			requalify(sel, name, alias)
			delete(own, name)
		}
	}
	names := map[string]bool{}
	for name := range own {
		names[name] = true
	}
	inner := append(append([]map[string]bool(nil), outer...), names)
	_ = ast.Walk(func(node ast.SQLNode) (bool, error) {
		if sq, ok := node.(*ast.Subquery); ok {
			aliasInSelect(sq.Select, inner, n)
			return false, nil
		}
		return true, nil
	}, sel.SelectExprs, sel.Where, sel.Having, sel.OrderBy, sel.GroupBy)
}

// unaliased collects the tables a FROM item names without an alias, by
// lower-case name.
func unaliased(te ast.TableExpr, out map[string]*ast.AliasedTableExpr) {
	switch t := te.(type) {
	case *ast.AliasedTableExpr:
		if tn, ok := t.Expr.(ast.TableName); ok && t.As.IsEmpty() {
			out[strings.ToLower(tn.Name.String())] = t
		}
	case *ast.JoinTableExpr:
		unaliased(t.LeftExpr, out)
		unaliased(t.RightExpr, out)
	case *ast.ParenTableExpr:
		for _, x := range t.Exprs {
			unaliased(x, out)
		}
	}
}

func named(scopes []map[string]bool, name string) bool {
	for _, s := range scopes {
		if s[name] {
			return true
		}
	}
	return false
}

// hasAggregate reports whether sel itself (not a subquery in it)
// computes an aggregate.
func hasAggregate(sel *ast.Select) bool {
	found := false
	_ = ast.Walk(func(node ast.SQLNode) (bool, error) {
		switch x := node.(type) {
		case *ast.Subquery:
			return false, nil
		case *ast.FuncExpr:
			if x.IsAggregate() && x.Over == nil {
				found = true
			}
		case *ast.GroupConcatExpr:
			found = true
		}
		return !found, nil
	}, sel.SelectExprs, sel.Having, sel.OrderBy)
	return found
}

// requalify points sel's references to table name at alias, down into
// subqueries that do not name a table of that name themselves.
func requalify(sel *ast.Select, name, alias string) {
	var visit func(node ast.SQLNode) (bool, error)
	visit = func(node ast.SQLNode) (bool, error) {
		switch x := node.(type) {
		case *ast.ColName:
			if strings.EqualFold(x.Qualifier.Name.String(), name) && x.Qualifier.DbQualifier.IsEmpty() {
				x.Qualifier = ast.TableName{Name: ast.NewTableIdent(alias)}
			}
		case *ast.Subquery:
			if s, ok := x.Select.(*ast.Select); ok {
				own := map[string]*ast.AliasedTableExpr{}
				for _, te := range s.From {
					unaliased(te, own)
				}
				if _, shadows := own[name]; shadows {
					return false, nil
				}
			}
		}
		return true, nil
	}
	_ = ast.Walk(visit, sel.SelectExprs, sel.Where, sel.Having, sel.OrderBy, sel.GroupBy)
	for _, te := range sel.From {
		if j, ok := te.(*ast.JoinTableExpr); ok {
			_ = ast.Walk(visit, j)
		}
	}
}
