package sqlengine

import (
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/storage"
)

// INSERT and REPLACE into an updatable view of one table. MySQL writes
// the view's base table, each view column its column (CREATE VIEW v AS
// SELECT a, b AS c FROM t: INSERT INTO v (c) VALUES (1) stores t.b);
// GMS refused every view as an INSERT's target (1105 "expected insert
// destination to be resolved or unresolved table"). A statement whose
// target is such a view (its SELECT one table, plain columns or *, no
// DISTINCT, GROUP BY, HAVING, LIMIT or UNION) is rewritten, once parsed,
// to name the base table and its columns; views of views are followed.
// Other views keep GMS's refusal.

// insertIntoViews rewrites st, parsed in ctx's session, when it is an
// INSERT or REPLACE into an updatable view of one table.
func insertIntoViews(ctx context.Context, st ast.Statement) {
	c, ok := ctx.(*sql.Context)
	if !ok || c == nil {
		return
	}
	ins, ok := st.(*ast.Insert)
	if !ok {
		return
	}
	s := ctxSession(c)
	if s == nil || s.eng == nil {
		return
	}
	for range 8 { // views of views, as deep as MySQL would follow them
		db, view := s.viewNamed(c, ins.Table) // viewupdate.go
		if view == nil {
			return
		}
		base, cols, ok := s.updatableView(db, view)
		if !ok || !mapInsertColumns(ins, cols) {
			return
		}
		if base.DbQualifier.IsEmpty() {
			base.DbQualifier = ast.NewTableIdent(db)
		}
		ins.Table = base
	}
}

// viewColumn is one column of an updatable view: its name in the view
// and in the base table.
type viewColumn struct{ view, base string }

// updatableView reads view, of database db: its base table and columns
// when it is a view of one table's plain columns.
func (s *Session) updatableView(db string, view *storage.ViewDef) (ast.TableName, []viewColumn, bool) {
	st, err := ast.Parse(view.CreateStmt)
	if err != nil {
		return ast.TableName{}, nil, false
	}
	d, ok := st.(*ast.DDL)
	if !ok || d.ViewSpec == nil || d.ViewSpec.CheckOption != ast.ViewCheckOptionUnspecified {
		return ast.TableName{}, nil, false
	}
	sel, ok := d.ViewSpec.ViewExpr.(*ast.Select)
	if !ok || sel.QueryOpts.Distinct || len(sel.GroupBy) > 0 || sel.Having != nil || sel.Limit != nil || sel.With != nil ||
		len(sel.Window) > 0 || len(sel.From) != 1 {
		return ast.TableName{}, nil, false
	}
	at, ok := sel.From[0].(*ast.AliasedTableExpr)
	if !ok {
		return ast.TableName{}, nil, false
	}
	base, ok := at.Expr.(ast.TableName)
	if !ok {
		return ast.TableName{}, nil, false
	}
	var cols []viewColumn
	for _, e := range sel.SelectExprs {
		switch x := e.(type) {
		case *ast.StarExpr:
			bdb := db
			if !base.DbQualifier.IsEmpty() {
				bdb = base.DbQualifier.String()
			}
			var names []string
			if r := s.temps[tempKey(bdb, base.Name.String())]; r != nil {
				return ast.TableName{}, nil, false
			} else if t := s.eng.store.Catalog().Table(bdb, base.Name.String()); t != nil {
				for _, c := range t.Def.Columns {
					names = append(names, c.Name)
				}
			} else {
				return ast.TableName{}, nil, false
			}
			for _, n := range names {
				cols = append(cols, viewColumn{view: n, base: n})
			}
		case *ast.AliasedExpr:
			cn, ok := x.Expr.(*ast.ColName)
			if !ok {
				return ast.TableName{}, nil, false
			}
			v := cn.Name.String()
			if !x.As.IsEmpty() {
				v = x.As.String()
			}
			cols = append(cols, viewColumn{view: v, base: cn.Name.String()})
		default:
			return ast.TableName{}, nil, false
		}
	}
	if len(d.ViewSpec.Columns) > 0 {
		if len(d.ViewSpec.Columns) != len(cols) {
			return ast.TableName{}, nil, false
		}
		for i, c := range d.ViewSpec.Columns {
			cols[i].view = c.String()
		}
	}
	return base, cols, true
}

// mapInsertColumns names ins's columns (all the view's when it names
// none) and its ON DUPLICATE KEY UPDATE targets by their base columns;
// false, ins unchanged, when one is not a column of the view.
func mapInsertColumns(ins *ast.Insert, cols []viewColumn) bool {
	find := func(name string) (string, bool) {
		for _, c := range cols {
			if strings.EqualFold(c.view, name) {
				return c.base, true
			}
		}
		return "", false
	}
	var out ast.Columns
	if len(ins.Columns) == 0 {
		for _, c := range cols {
			out = append(out, ast.NewColIdent(c.base))
		}
	} else {
		for _, c := range ins.Columns {
			b, ok := find(c.String())
			if !ok {
				return false
			}
			out = append(out, ast.NewColIdent(b))
		}
	}
	dup := make(ast.AssignmentExprs, len(ins.OnDup))
	for i, u := range ins.OnDup {
		b, ok := find(u.Name.Name.String())
		if !ok {
			return false
		}
		nu := *u
		nu.Name = &ast.ColName{Name: ast.NewColIdent(b)}
		dup[i] = &nu
	}
	ins.Columns = out
	if len(dup) > 0 {
		ins.OnDup = ast.OnDup(dup)
	}
	return true
}

// bodyInsertsIntoViews applies insertIntoViews to the statements of st's
// body when st is a CREATE TRIGGER (its body is parsed again each time
// the trigger is planned, by the routine parser).
func bodyInsertsIntoViews(ctx context.Context, st ast.Statement) {
	d, ok := st.(*ast.DDL)
	if !ok || d.TriggerSpec == nil || d.TriggerSpec.Body == nil {
		return
	}
	walkStatements(d.TriggerSpec.Body, func(n ast.SQLNode) { // routinecond.go
		if ins, ok := n.(*ast.Insert); ok {
			insertIntoViews(ctx, ins)
		}
	})
}
