package sqlengine

import (
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/storage"
)

// UPDATE of an updatable view of one table. MySQL updates the view's
// base table's rows the view shows (its WHERE with the UPDATE's), each
// view column its base column; GMS refused every view as an UPDATE's
// target (1142 "table doesn't support UPDATE": mtr's sp-prelocking, a
// function updating a view). A single-table UPDATE whose target is such
// a view (updatableView: one table, plain columns or *) is rewritten,
// once parsed, to update the base table under the view's name; views of
// views are followed. Other views keep GMS's refusal.

// updateThroughViews rewrites st, parsed in ctx's session, when it is an
// UPDATE of an updatable view of one table.
func updateThroughViews(ctx context.Context, st ast.Statement) {
	c, ok := ctx.(*sql.Context)
	if !ok || c == nil {
		return
	}
	up, ok := st.(*ast.Update)
	if !ok || len(up.TableExprs) != 1 {
		return
	}
	at, ok := up.TableExprs[0].(*ast.AliasedTableExpr)
	if !ok {
		return
	}
	s := ctxSession(c)
	if s == nil || s.eng == nil {
		return
	}
	for range 8 { // views of views, as deep as MySQL would follow them
		tn, ok := at.Expr.(ast.TableName)
		if !ok {
			return
		}
		db, view := s.viewNamed(c, tn)
		if view == nil {
			return
		}
		base, cols, ok := s.updatableView(db, view)
		if !ok {
			return
		}
		name := tn.Name.String()
		if !at.As.IsEmpty() {
			name = at.As.String()
		}
		if !renameViewColumns(up, name, cols) {
			return
		}
		if w := viewWhere(view); w != nil {
			if up.Where == nil {
				up.Where = ast.NewWhere(ast.WhereStr, w)
			} else {
				up.Where = ast.NewWhere(ast.WhereStr, &ast.AndExpr{Left: w, Right: &ast.ParenExpr{Expr: up.Where.Expr}})
			}
		}
		if base.DbQualifier.IsEmpty() {
			base.DbQualifier = ast.NewTableIdent(db)
		}
		at.Expr = base
		at.As = ast.NewTableIdent(name)
	}
}

// viewNamed is the view tn names in c's session (its database, the
// current one when tn has none), or nil when tn is a table or nothing.
func (s *Session) viewNamed(c *sql.Context, tn ast.TableName) (string, *storage.ViewDef) {
	db := tn.DbQualifier.String()
	if db == "" {
		db = c.GetCurrentDatabase()
	}
	name := tn.Name.String()
	if db == "" || s.temps[tempKey(db, name)] != nil || s.eng.store.Catalog().Table(db, name) != nil {
		return db, nil
	}
	sd := s.eng.store.Catalog().Database(db)
	if sd == nil {
		return db, nil
	}
	for i, v := range sd.Def().Views {
		if strings.EqualFold(v.Name, name) {
			return db, &sd.Def().Views[i]
		}
	}
	return db, nil
}

// viewWhere is view's WHERE condition, its columns unqualified (the view
// reads one table, which the rewritten UPDATE names by the view's name),
// or nil.
func viewWhere(view *storage.ViewDef) ast.Expr {
	st, err := ast.Parse(view.CreateStmt)
	if err != nil {
		return nil
	}
	d, ok := st.(*ast.DDL)
	if !ok || d.ViewSpec == nil {
		return nil
	}
	sel, ok := d.ViewSpec.ViewExpr.(*ast.Select)
	if !ok || sel.Where == nil {
		return nil
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *ast.Subquery:
			return false, nil
		case *ast.ColName:
			x.Qualifier = ast.TableName{}
		}
		return true, nil
	}, sel.Where.Expr)
	return &ast.ParenExpr{Expr: sel.Where.Expr}
}

// renameViewColumns names up's SET targets and its WHERE and ORDER BY
// columns (unqualified or qualified by the view's name) by their base
// columns; false, up unchanged, when one is not a column of the view.
func renameViewColumns(up *ast.Update, name string, cols []viewColumn) bool {
	var refs []*ast.ColName
	ok := true
	collect := func(n ast.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *ast.Subquery:
			return false, nil // its columns are its own tables'
		case *ast.ColName:
			if q := x.Qualifier.Name.String(); q == "" || strings.EqualFold(q, name) {
				refs = append(refs, x)
			}
		}
		return true, nil
	}
	for _, a := range up.Exprs {
		refs = append(refs, a.Name)
		_ = ast.Walk(collect, a.Expr)
	}
	if up.Where != nil {
		_ = ast.Walk(collect, up.Where.Expr)
	}
	for _, o := range up.OrderBy {
		_ = ast.Walk(collect, o.Expr)
	}
	bases := make([]string, len(refs))
	for i, r := range refs {
		found := false
		for _, c := range cols {
			if strings.EqualFold(c.view, r.Name.String()) {
				bases[i], found = c.base, true
				break
			}
		}
		ok = ok && found
	}
	if !ok {
		return false
	}
	for i, r := range refs {
		r.Name = ast.NewColIdent(bases[i])
	}
	return true
}

// bodyUpdatesThroughViews applies updateThroughViews to the statements of
// st's body when st is a CREATE TRIGGER or PROCEDURE (a stored function
// runs as a hidden procedure), their bodies parsed again when run.
func bodyUpdatesThroughViews(ctx context.Context, st ast.Statement) {
	d, ok := st.(*ast.DDL)
	if !ok {
		return
	}
	var body ast.Statement
	switch {
	case d.TriggerSpec != nil:
		body = d.TriggerSpec.Body
	case d.ProcedureSpec != nil:
		body = d.ProcedureSpec.Body
	}
	if body == nil {
		return
	}
	walkStatements(body, func(n ast.SQLNode) { // routinecond.go
		if up, ok := n.(*ast.Update); ok {
			updateThroughViews(ctx, up)
		}
	})
}
