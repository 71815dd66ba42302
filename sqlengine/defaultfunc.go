package sqlengine

import (
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
)

// DEFAULT(col) in a SELECT is the column's default value, as MySQL's
// (SELECT DEFAULT(status) FROM orders). GMS builds DEFAULT(col) as a
// placeholder only INSERT and UPDATE resolve; in a SELECT it panicked
// ("default column is a placeholder node, but Type was called"), and
// the statement failed with 1105. selectDefaults puts the default's
// expression, read from the catalog, in place of DEFAULT(col) in a
// top-level SELECT's select list and WHERE: NULL for a nullable column
// without one, and MySQL's 1364 for a NOT NULL column without one.
func selectDefaults(ctx context.Context, st ast.Statement) error {
	sel, ok := st.(*ast.Select)
	if !ok {
		return nil
	}
	c, ok := ctx.(*sql.Context)
	if !ok || c == nil {
		return nil
	}
	s := ctxSession(c)
	if s == nil || s.eng == nil {
		return nil
	}
	var tables [][2]string // database, table of the FROM list
	for _, te := range sel.From {
		ate, ok := te.(*ast.AliasedTableExpr)
		if !ok {
			continue
		}
		tn, ok := ate.Expr.(ast.TableName)
		if !ok {
			continue
		}
		db := tn.DbQualifier.String()
		if db == "" {
			db = c.GetCurrentDatabase()
		}
		tables = append(tables, [2]string{db, tn.Name.String()})
	}
	var err error
	fix := func(e ast.Expr) ast.Expr {
		if e == nil {
			return nil
		}
		var found []*ast.Default
		_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
			switch x := n.(type) {
			case *ast.Subquery:
				return false, nil
			case *ast.Default:
				if x.ColName != "" {
					found = append(found, x)
				}
			}
			return true, nil
		}, e)
		for _, d := range found {
			repl, ferr := s.columnDefaultExpr(tables, d.ColName)
			if ferr != nil {
				err = ferr
				return e
			}
			if repl != nil {
				e = ast.ReplaceExpr(e, d, repl)
			}
		}
		return e
	}
	for _, se := range sel.SelectExprs {
		if ae, ok := se.(*ast.AliasedExpr); ok {
			ae.Expr = fix(ae.Expr)
		}
	}
	if sel.Where != nil {
		sel.Where.Expr = fix(sel.Where.Expr)
	}
	return err
}

// columnDefaultExpr is the default of column col of the first of
// tables that has it, as an expression; nil when no table has it (GMS
// answers as before).
func (s *Session) columnDefaultExpr(tables [][2]string, col string) (ast.Expr, error) {
	for _, t := range tables {
		tbl := s.eng.store.Catalog().Table(t[0], t[1])
		if tbl == nil {
			continue
		}
		for _, cd := range tbl.Def.Columns {
			if !strings.EqualFold(cd.Name, col) {
				continue
			}
			if cd.Default == "" {
				if cd.Nullable {
					return &ast.NullVal{}, nil
				}
				return nil, mysqlerr.New(mysqlerr.ErNoDefaultForField, "Field '%s' doesn't have a default value", cd.Name)
			}
			st, err := ast.Parse("SELECT " + cd.Default)
			if err != nil {
				return nil, nil
			}
			if sel, ok := st.(*ast.Select); ok && len(sel.SelectExprs) == 1 {
				if ae, ok := sel.SelectExprs[0].(*ast.AliasedExpr); ok {
					return ae.Expr, nil
				}
			}
			return nil, nil
		}
	}
	return nil, nil
}
