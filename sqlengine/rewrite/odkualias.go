package rewrite

import (
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// INSERT ... VALUES (...) AS new ON DUPLICATE KEY UPDATE c = new.c + c.
// MySQL 8 reads an unqualified column of the update list as the target
// table's (unless it names one of the alias's own column list, `AS
// new(m, n)`); GMS found it in both the table and the alias and failed
// with 1105 "ambiguous column name". ODKUAlias qualifies such columns
// with the target table.
func ODKUAlias(stmt ast.Statement) {
	ins, ok := stmt.(*ast.Insert)
	if !ok || len(ins.OnDup) == 0 {
		return
	}
	av, ok := ins.Rows.(*ast.AliasedValues)
	if !ok || av.As.IsEmpty() {
		return
	}
	own := map[string]bool{} // the alias's column list
	for _, c := range av.Columns {
		own[c.Lowered()] = true
	}
	target := ast.TableName{Name: ins.Table.Name, DbQualifier: ins.Table.DbQualifier}
	for _, u := range ins.OnDup {
		if u == nil || u.Expr == nil {
			continue
		}
		_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
			switch x := n.(type) {
			case *ast.Subquery:
				return false, nil // its own scope
			case *ast.ColName:
				if x.Qualifier.IsEmpty() && !own[x.Name.Lowered()] {
					x.Qualifier = target
				}
			}
			return true, nil
		}, u.Expr)
	}
}
