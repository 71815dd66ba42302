package sqlengine

import (
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// dbDDLAuth makes CREATE and DROP DATABASE need the CREATE or DROP
// privilege on the database they name, as MySQL does (a grant on db.*
// lets its holder create or drop db), where vitess asks for the global
// privilege: a user granted ALL ON db.* got 1142 for CREATE DATABASE db
// (mtr's read_only, which then expects read_only's 1290).
func dbDDLAuth(st ast.Statement) {
	d, ok := st.(*ast.DBDDL)
	if !ok || d.DBName == "" || d.Auth.TargetType != ast.AuthTargetType_Global {
		return
	}
	if d.Action != ast.CreateStr && d.Action != ast.DropStr {
		return
	}
	d.Auth.TargetType = ast.AuthTargetType_DatabaseIdentifiers
	d.Auth.TargetNames = []string{d.DBName}
}
