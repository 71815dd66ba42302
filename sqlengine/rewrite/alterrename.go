package rewrite

import (
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// ALTER TABLE's RENAME clause. MySQL renames the table after its other
// clauses, wherever RENAME stands (`ALTER TABLE t1 RENAME TO t2, DISABLE
// KEYS` disables t1's keys and renames it); GMS runs the clauses in their
// order, so the clause after the rename found no t1 (1146). And MySQL's
// ALTER TABLE takes a rename to the table's own name as no change (RENAME
// TABLE t1 TO t1 is still 1050), where GMS's rename found t1 existing
// (1050).

// AlterRename moves an ALTER TABLE's table renames after its other
// clauses, and makes a rename to the table's own name a clause that only
// names the table (GMS checks the table exists, 1146, and builds nothing
// for it).
func AlterRename(stmt ast.Statement) {
	at, ok := stmt.(*ast.AlterTable)
	if !ok || len(at.Statements) == 0 {
		return
	}
	var rest, renames []*ast.DDL
	for _, d := range at.Statements {
		if d == nil || d.Action != ast.RenameStr || len(d.ToTables) != 1 {
			rest = append(rest, d)
			continue
		}
		to := d.ToTables[0]
		if to.Name.String() == at.Table.Name.String() &&
			(to.DbQualifier.IsEmpty() || to.DbQualifier.String() == at.Table.DbQualifier.String()) {
			rest = append(rest, &ast.DDL{Action: ast.AlterStr, Table: at.Table, Auth: ast.AuthInformation{
				AuthType:    ast.AuthType_ALTER,
				TargetType:  ast.AuthTargetType_SingleTableIdentifier,
				TargetNames: []string{at.Table.DbQualifier.String(), at.Table.Name.String()},
			}})
			continue
		}
		renames = append(renames, d)
	}
	at.Statements = append(rest, renames...)
}
