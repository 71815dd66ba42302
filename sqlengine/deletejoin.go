package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// A multiple-table DELETE whose target has DELETE triggers (`DELETE t1
// FROM t1, t2 WHERE t1.id = t2.id`): GMS fires triggers for
// single-table DELETEs only and refused it (1105 "delete from with
// explicit target tables does not support triggers"). With one target
// and inner joins only, the statement deletes exactly the target's rows
// for which a joined row exists, so it is parsed as that single-table
// DELETE: `DELETE FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t1.id =
// t2.id)` (the joins' ON conditions joined to the WHERE), which fires
// the triggers once per deleted row, as MySQL does. Left alone: several
// targets, outer joins or USING, the target's table joined to itself,
// and a target without DELETE triggers (GMS's own multiple-table
// DELETE).

// semiJoinDeletes rewrites each such DELETE in st, unqualified names in
// db.
func semiJoinDeletes(ctx *sql.Context, db string, st ast.Statement) {
	if st == nil {
		return
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if d, ok := n.(*ast.Delete); ok {
			semiJoinDelete(ctx, db, d)
		}
		return true, nil
	}, st)
}

func semiJoinDelete(ctx *sql.Context, db string, d *ast.Delete) {
	if len(d.Targets) != 1 || d.OrderBy != nil || d.Limit != nil || len(d.Partitions) > 0 || len(d.Returning) > 0 {
		return
	}
	var leaves []*ast.AliasedTableExpr
	var conds []ast.Expr
	if !innerJoinLeaves(d.TableExprs, &leaves, &conds) {
		return
	}
	target := d.Targets[0]
	at := -1
	for i, l := range leaves {
		tn, ok := l.Expr.(ast.TableName)
		if !ok {
			continue
		}
		named := !l.As.IsEmpty() && target.DbQualifier.IsEmpty() && l.As.String() == target.Name.String()
		named = named || l.As.IsEmpty() && strings.EqualFold(tn.Name.String(), target.Name.String()) &&
			strings.EqualFold(dbOf(tn, db), dbOf(target, db))
		if named {
			if at >= 0 {
				return
			}
			at = i
		}
	}
	if at < 0 {
		return
	}
	tn := leaves[at].Expr.(ast.TableName)
	var others ast.TableExprs
	for i, l := range leaves {
		if i == at {
			continue
		}
		if o, ok := l.Expr.(ast.TableName); ok && strings.EqualFold(o.Name.String(), tn.Name.String()) && strings.EqualFold(dbOf(o, db), dbOf(tn, db)) {
			return // joined to itself: the subquery would read the table it deletes from
		}
		// Read, not deleted from: the privilege checked is SELECT's.
		o := *l
		o.Auth.AuthType = ast.AuthType_SELECT
		others = append(others, &o)
	}
	if !hasDeleteTrigger(ctx, dbOf(tn, db), tn.Name.String()) {
		return
	}
	if d.Where != nil {
		conds = append(conds, d.Where.Expr)
	}
	if alias := leaves[at].As; !alias.IsEmpty() && alias.String() != tn.Name.String() {
		// The target's columns by its table's name: a single-table
		// DELETE takes no alias.
		for _, c := range conds {
			requalify(c, alias.String(), tn)
		}
	}
	var cond ast.Expr
	for _, c := range conds {
		if cond == nil {
			cond = c
		} else {
			cond = &ast.AndExpr{Left: cond, Right: c}
		}
	}
	if len(others) > 0 {
		sel := &ast.Select{SelectExprs: ast.SelectExprs{&ast.AliasedExpr{Expr: ast.NewIntVal([]byte("1"))}}, From: others}
		if cond != nil {
			sel.Where = ast.NewWhere(ast.WhereStr, cond)
		}
		cond = &ast.ExistsExpr{Subquery: &ast.Subquery{Select: sel}}
	}
	d.Targets = nil
	d.TableExprs = ast.TableExprs{&ast.AliasedTableExpr{Expr: tn, Hints: leaves[at].Hints, Auth: leaves[at].Auth}}
	d.Where = nil
	if cond != nil {
		d.Where = ast.NewWhere(ast.WhereStr, cond)
	}
}

// innerJoinLeaves appends te's tables to leaves and its joins' ON
// conditions to conds; false when te holds anything but tables, inner
// (or cross, or STRAIGHT_JOIN) joins with ON or no condition, and
// parentheses.
func innerJoinLeaves(te ast.TableExprs, leaves *[]*ast.AliasedTableExpr, conds *[]ast.Expr) bool {
	for _, e := range te {
		switch x := e.(type) {
		case *ast.AliasedTableExpr:
			*leaves = append(*leaves, x)
		case *ast.ParenTableExpr:
			if !innerJoinLeaves(x.Exprs, leaves, conds) {
				return false
			}
		case *ast.JoinTableExpr:
			if (x.Join != ast.JoinStr && x.Join != ast.StraightJoinStr) || len(x.Condition.Using) > 0 {
				return false
			}
			if !innerJoinLeaves(ast.TableExprs{x.LeftExpr, x.RightExpr}, leaves, conds) {
				return false
			}
			if x.Condition.On != nil {
				*conds = append(*conds, x.Condition.On)
			}
		default:
			return false
		}
	}
	return true
}

// dbOf is tn's database: its qualifier, else db.
func dbOf(tn ast.TableName, db string) string {
	if !tn.DbQualifier.IsEmpty() {
		return tn.DbQualifier.String()
	}
	return db
}

// requalify makes e's columns qualified by alias columns of tn.
func requalify(e ast.Expr, alias string, tn ast.TableName) {
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if c, ok := n.(*ast.ColName); ok && c.Qualifier.DbQualifier.IsEmpty() && c.Qualifier.Name.String() == alias {
			c.Qualifier = ast.TableName{Name: tn.Name, DbQualifier: tn.DbQualifier}
		}
		return true, nil
	}, e)
}

// hasDeleteTrigger reports whether table db.name has a DELETE trigger.
func hasDeleteTrigger(ctx *sql.Context, db, name string) bool {
	s := ctxSession(ctx)
	if s == nil || s.eng == nil {
		return false
	}
	sd := s.eng.store.Catalog().Database(db)
	if sd == nil {
		return false
	}
	for _, tr := range sd.Def().Triggers {
		m := triggerEventRE.FindStringSubmatch(tr.CreateStmt) // triggerdup.go
		if m != nil && strings.EqualFold(m[2], "DELETE") && strings.EqualFold(triggerTable(m[3]), name) {
			return true
		}
	}
	return false
}
