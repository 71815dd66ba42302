package rewrite

import (
	"fmt"
	"strconv"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/sqlmode"
)

// GROUP BY ... WITH ROLLUP. MySQL adds to a grouped query's rows the
// super-aggregate rows of each prefix of its GROUP BY list: for GROUP BY
// a, b, the rows of GROUP BY a with b NULL, then the grand total with
// both NULL, each after the rows it sums up; GROUPING(b) is 1 in a row
// where b is rolled up. vitess cannot parse WITH ROLLUP and GMS has no
// ROLLUP (1064). The text reaches vitess with a marker call at the end
// of the GROUP BY list (sqlmode/rollup.go); this rewrite turns the
// SELECT into one branch per level under UNION ALL, each grouping by
// its prefix with the rolled-up columns NULL (outside aggregates) and
// GROUPING() a constant, in a derived table whose hidden level columns
// order the rows as MySQL's ROLLUP does, under the statement's own
// ORDER BY and LIMIT when it has them. The level that groups by nothing
// groups by a constant, so that no rows have no total (MySQL's ROLLUP
// of no rows is no rows). Each level reads the table again: n+1 scans
// for n columns.

// Rollup rewrites every SELECT ... WITH ROLLUP in stmt and returns the
// statement (a new one when stmt itself is such a SELECT). A form it
// cannot rewrite is an error (MySQL's 1235, not supported). fresh is
// applied to each SELECT it makes: the parse's other rewrites, which
// ran on the statement before (GROUP BY of a constant, groupconst.go).
func Rollup(stmt ast.Statement, fresh func(ast.Statement) ast.Statement) (ast.Statement, error) {
	if stmt == nil {
		return stmt, nil
	}
	var err error
	fix := func(sel ast.SelectStatement) ast.SelectStatement {
		s, ok := sel.(*ast.Select)
		if !ok || !hasRollup(s) || err != nil {
			return sel
		}
		var out ast.SelectStatement
		out, err = rollupSelect(s, fresh)
		if err != nil {
			return sel
		}
		return out
	}
	if s, ok := stmt.(*ast.Select); ok && hasRollup(s) {
		out, err := rollupSelect(s, fresh)
		if err != nil {
			return nil, err
		}
		stmt = out
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *ast.Subquery:
			x.Select = fix(x.Select)
		case *ast.Insert:
			if sel, ok := x.Rows.(ast.SelectStatement); ok {
				x.Rows = fix(sel)
			}
		case *ast.SetOp:
			x.Left, x.Right = fix(x.Left), fix(x.Right)
		case *ast.DDL:
			if x.ViewSpec != nil && x.ViewSpec.ViewExpr != nil {
				x.ViewSpec.ViewExpr = fix(x.ViewSpec.ViewExpr)
			}
			if x.OptSelect != nil && x.OptSelect.Select != nil {
				// CREATE TABLE ... AS SELECT
				x.OptSelect.Select = fix(x.OptSelect.Select)
			}
		}
		return true, nil
	}, stmt)
	if err != nil {
		return nil, err
	}
	return stmt, nil
}

// hasRollup reports whether s's GROUP BY list ends with the marker.
func hasRollup(s *ast.Select) bool {
	if len(s.GroupBy) == 0 {
		return false
	}
	f, ok := s.GroupBy[len(s.GroupBy)-1].(*ast.FuncExpr)
	return ok && f.Name.EqualString(sqlmode.RollupMarker) && len(f.Exprs) == 0 && f.Qualifier.IsEmpty()
}

func rollupUnsupported(what string) error {
	return mysqlerr.New(mysqlerr.ErNotSupportedYet, "This version of MySQL doesn't yet support '%s with ROLLUP'", what)
}

// rollupCol is a select-list expression of a rolled-up SELECT.
type rollupCol struct {
	expr  ast.Expr
	name  string // the result's column name
	inner string // the derived table's column
}

// rollupSelect is s, whose GROUP BY ends with the marker, as the union
// of its levels.
func rollupSelect(s *ast.Select, fresh func(ast.Statement) ast.Statement) (ast.SelectStatement, error) {
	groups := append(ast.GroupBy(nil), s.GroupBy[:len(s.GroupBy)-1]...)
	if len(groups) == 0 {
		return nil, rollupUnsupported("an empty GROUP BY")
	}
	if s.Into != nil || s.Lock != "" || len(s.Window) > 0 {
		return nil, rollupUnsupported("INTO, a locking read or a WINDOW clause")
	}
	var cols []rollupCol
	for i, se := range s.SelectExprs {
		ae, ok := se.(*ast.AliasedExpr)
		if !ok {
			return nil, rollupUnsupported("SELECT *")
		}
		c := rollupCol{expr: ae.Expr, inner: "__rc" + strconv.Itoa(i)}
		switch {
		case !ae.As.IsEmpty():
			c.name, c.inner = ae.As.String(), ae.As.String()
		case ae.InputExpression != "":
			c.name = ae.InputExpression
		default:
			c.name = ast.String(ae.Expr)
		}
		cols = append(cols, c)
	}
	// GROUP BY 2 and GROUP BY an alias name select-list expressions.
	for i, g := range groups {
		if v, ok := g.(*ast.SQLVal); ok && v.Type == ast.IntVal {
			n, err := strconv.Atoi(string(v.Val))
			if err != nil || n < 1 || n > len(cols) {
				return nil, mysqlerr.New(mysqlerr.ErBadField, "Unknown column '%s' in 'group statement'", string(v.Val))
			}
			groups[i] = cols[n-1].expr
			continue
		}
		if cn, ok := g.(*ast.ColName); ok && cn.Qualifier.IsEmpty() {
			for _, c := range cols {
				if c.inner == c.name && strings.EqualFold(c.name, cn.Name.String()) && !sameExpr(c.expr, g) {
					groups[i] = c.expr
				}
			}
		}
	}
	keys := make([]string, len(groups))
	for i, g := range groups {
		keys[i] = ast.String(g)
	}
	base := ast.String(s) // a fresh copy of s per level, by parsing its text
	var branches []string
	for level := len(groups); level >= 0; level-- {
		copied, err := ast.Parse(base)
		if err != nil {
			return nil, rollupUnsupported(err.Error())
		}
		b, ok := copied.(*ast.Select)
		if !ok {
			return nil, rollupUnsupported("this statement")
		}
		rolled := map[string]bool{}
		for i := level; i < len(groups); i++ {
			rolled[keys[i]] = true
		}
		var list []string
		for i, se := range b.SelectExprs {
			ae := se.(*ast.AliasedExpr)
			list = append(list, ast.String(rolledUp(ae.Expr, rolled, keys))+" AS "+quoteIdent(cols[i].inner))
		}
		for i := range groups {
			g, lvl := ast.String(groups[i]), "0"
			if i >= level {
				g, lvl = "NULL", "1"
			}
			list = append(list, g+" AS "+quoteIdent("__rg"+strconv.Itoa(i)), lvl+" AS "+quoteIdent("__rl"+strconv.Itoa(i)))
		}
		var q strings.Builder
		q.WriteString("SELECT ")
		q.WriteString(strings.Join(list, ", "))
		if len(b.From) > 0 {
			q.WriteString(" FROM ")
			q.WriteString(ast.String(b.From))
		}
		if b.Where != nil && b.Where.Expr != nil {
			q.WriteString(" WHERE ")
			q.WriteString(ast.String(b.Where.Expr))
		}
		q.WriteString(" GROUP BY ")
		if level > 0 {
			q.WriteString(strings.Join(keys[:level], ", "))
		} else {
			// The total groups by a constant: one group of every row,
			// none of no rows (MySQL's ROLLUP of no rows is no rows),
			// and its aggregates typed as the other levels' are.
			q.WriteString("'__rollup'")
		}
		if b.Having != nil && b.Having.Expr != nil {
			q.WriteString(" HAVING ")
			q.WriteString(ast.String(rolledUp(b.Having.Expr, rolled, keys)))
		}
		branches = append(branches, "("+q.String()+")")
	}
	var out strings.Builder
	out.WriteString("SELECT ")
	if s.QueryOpts.Distinct {
		out.WriteString("DISTINCT ")
	}
	for i, c := range cols {
		if i > 0 {
			out.WriteString(", ")
		}
		out.WriteString(quoteIdent("__rollup") + "." + quoteIdent(c.inner) + " AS " + quoteIdent(c.name))
	}
	out.WriteString(" FROM (")
	out.WriteString(strings.Join(branches, " UNION ALL "))
	out.WriteString(") AS ")
	out.WriteString(quoteIdent("__rollup"))
	out.WriteString(" ORDER BY ")
	if len(s.OrderBy) > 0 {
		var order []string
		for _, o := range s.OrderBy {
			name, ok := rollupOrderColumn(o.Expr, cols, keys)
			if !ok {
				return nil, rollupUnsupported("ORDER BY " + ast.String(o.Expr))
			}
			dir := ""
			if strings.EqualFold(o.Direction, ast.DescScr) {
				dir = " DESC"
			}
			order = append(order, name+dir)
		}
		out.WriteString(strings.Join(order, ", "))
	} else {
		var order []string
		for i := range groups {
			order = append(order, quoteIdent("__rollup")+"."+quoteIdent("__rl"+strconv.Itoa(i)), quoteIdent("__rollup")+"."+quoteIdent("__rg"+strconv.Itoa(i)))
		}
		out.WriteString(strings.Join(order, ", "))
	}
	if s.Limit != nil {
		out.WriteString(ast.String(s.Limit))
	}
	st, err := ast.Parse(out.String())
	if err != nil {
		return nil, rollupUnsupported(fmt.Sprintf("this query (%v)", err))
	}
	if fresh != nil {
		st = fresh(st)
	}
	sel, ok := st.(ast.SelectStatement)
	if !ok {
		return nil, rollupUnsupported("this query")
	}
	return sel, nil
}

// rollupOrderColumn is the outer query's column an ORDER BY expression
// e of the rolled-up SELECT names: a result column by its name (an
// alias, or the expression's text), a GROUP BY expression by its level
// column, or a position.
func rollupOrderColumn(e ast.Expr, cols []rollupCol, keys []string) (string, bool) {
	if v, ok := e.(*ast.SQLVal); ok && v.Type == ast.IntVal {
		n, err := strconv.Atoi(string(v.Val))
		if err != nil || n < 1 || n > len(cols) {
			return "", false
		}
		return quoteIdent(cols[n-1].name), true
	}
	text := ast.String(e)
	if cn, ok := e.(*ast.ColName); ok && cn.Qualifier.IsEmpty() {
		for _, c := range cols {
			if strings.EqualFold(c.name, cn.Name.String()) {
				return quoteIdent(c.name), true
			}
		}
	}
	for _, c := range cols {
		if strings.EqualFold(c.name, text) || sameExpr(c.expr, e) {
			return quoteIdent(c.name), true
		}
	}
	for i, k := range keys {
		if strings.EqualFold(k, text) {
			return quoteIdent("__rollup") + "." + quoteIdent("__rg"+strconv.Itoa(i)), true
		}
	}
	return "", false
}

// rolledUp is e with the rolled-up GROUP BY expressions (by their text)
// NULL outside aggregates, and GROUPING(...) the bits of its arguments'
// levels (keys are all GROUP BY expressions' texts, in order).
func rolledUp(e ast.Expr, rolled map[string]bool, keys []string) ast.Expr {
	var targets []ast.Expr
	var groupings []*ast.FuncExpr
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *ast.FuncExpr:
			if x.Name.EqualString("grouping") {
				groupings = append(groupings, x)
				return false, nil
			}
			if x.IsAggregate() {
				return false, nil
			}
		case *ast.GroupConcatExpr, *ast.Subquery:
			return false, nil
		}
		if ex, ok := n.(ast.Expr); ok && rolled[ast.String(ex)] {
			targets = append(targets, ex)
			return false, nil
		}
		return true, nil
	}, e)
	for _, t := range targets {
		e = ast.ReplaceExpr(e, t, &ast.NullVal{})
	}
	for _, g := range groupings {
		bits := 0
		for _, a := range g.Exprs {
			bits <<= 1
			if ae, ok := a.(*ast.AliasedExpr); ok && rolled[ast.String(ae.Expr)] {
				bits |= 1
			}
		}
		e = ast.ReplaceExpr(e, g, ast.NewIntVal([]byte(strconv.Itoa(bits))))
	}
	return e
}

// sameExpr reports whether a and b print the same.
func sameExpr(a, b ast.Expr) bool { return ast.String(a) == ast.String(b) }

// quoteIdent is name as a back-quoted identifier.
func quoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
