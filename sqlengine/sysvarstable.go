package sqlengine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// information_schema.SYSTEM_VARIABLES, MariaDB's (MySQL has
// performance_schema.variables_info instead): one row per system
// variable with its session and global values, default, scope and type.
// MariaDB's own test suite reads it in its include files (mtr's
// have_innodb.inc asks for have_sanitizer), and MariaDB operators' tools
// do, so Petrel answers it; the columns are MariaDB's first ones and
// READ_ONLY. GMS's information_schema has no way to add a table, so the
// catalog's information_schema is wrapped (infoSchemaPlus).

const systemVariablesTable = "system_variables"

var systemVariablesSchema = sql.Schema{
	{Name: "VARIABLE_NAME", Type: types.MustCreateString(sqltypes.VarChar, 64, sql.Collation_Information_Schema_Default), Source: systemVariablesTable},
	{Name: "SESSION_VALUE", Type: types.LongText, Nullable: true, Source: systemVariablesTable},
	{Name: "GLOBAL_VALUE", Type: types.LongText, Nullable: true, Source: systemVariablesTable},
	{Name: "DEFAULT_VALUE", Type: types.LongText, Nullable: true, Source: systemVariablesTable},
	{Name: "VARIABLE_SCOPE", Type: types.MustCreateString(sqltypes.VarChar, 64, sql.Collation_Information_Schema_Default), Source: systemVariablesTable},
	{Name: "VARIABLE_TYPE", Type: types.MustCreateString(sqltypes.VarChar, 64, sql.Collation_Information_Schema_Default), Source: systemVariablesTable},
	{Name: "READ_ONLY", Type: types.MustCreateString(sqltypes.VarChar, 3, sql.Collation_Information_Schema_Default), Source: systemVariablesTable},
}

// systemVariablesRows reads the registry: globals, and the querying
// session's values.
func systemVariablesRows(ctx *sql.Context, _ sql.Catalog) (sql.RowIter, error) {
	g := procVars.of(ctx)
	globals := g.all()
	names := make([]string, 0, len(globals))
	for n := range globals {
		names = append(names, n)
	}
	sort.Strings(names)
	text := func(v any) any {
		if v == nil {
			return nil
		}
		return fmt.Sprint(v)
	}
	rows := make([]sql.Row, 0, len(names))
	for _, n := range names {
		sv, gv, ok := g.Get(n)
		if !ok {
			continue
		}
		scope, session, global := "GLOBAL", any(nil), text(gv)
		if mv, ok := sv.(*sql.MysqlSystemVariable); ok && mv.Scope != nil && mv.Scope.Type != sql.SystemVariableScope_Global {
			scope = "SESSION"
			if mv.Scope.Type == sql.SystemVariableScope_Session {
				global = nil
			}
			if v, err := ctx.GetSessionVariable(ctx, n); err == nil {
				session = text(v)
			}
		}
		ro := "NO"
		if sv.IsReadOnly() {
			ro = "YES"
		}
		rows = append(rows, sql.Row{strings.ToUpper(n), session, global, text(sv.GetDefault()), scope, variableType(sv.GetType()), ro})
	}
	return sql.RowsToRowIter(rows...), nil
}

// variableType is MariaDB's VARIABLE_TYPE for a registry type.
func variableType(t sql.Type) string {
	name := strings.ToUpper(t.String())
	switch {
	case strings.HasPrefix(name, "SYSTEM_BOOL"):
		return "BOOLEAN"
	case strings.HasPrefix(name, "SYSTEM_ENUM"):
		return "ENUMERATION"
	case strings.HasPrefix(name, "SYSTEM_SET"):
		return "SET"
	case strings.HasPrefix(name, "SYSTEM_UINT"):
		return "BIGINT UNSIGNED"
	case strings.HasPrefix(name, "SYSTEM_INT"):
		return "BIGINT"
	case strings.HasPrefix(name, "SYSTEM_DOUBLE"):
		return "DOUBLE"
	}
	return "VARCHAR"
}

// infoSchemaPlus is information_schema with Petrel's extra tables.
type infoSchemaPlus struct {
	sql.Database
	extra map[string]sql.Table
}

func (d infoSchemaPlus) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	if t, ok := d.extra[strings.ToLower(name)]; ok {
		return t, true, nil
	}
	return d.Database.GetTableInsensitive(ctx, name)
}

func (d infoSchemaPlus) GetTableNames(ctx *sql.Context) ([]string, error) {
	names, err := d.Database.GetTableNames(ctx)
	if err != nil {
		return nil, err
	}
	for n := range d.extra {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// installSystemVariablesTable adds SYSTEM_VARIABLES, SESSION_STATUS and
// GLOBAL_STATUS (statustable.go) to cat's information_schema.
func installSystemVariablesTable(cat *analyzer.Catalog) {
	extra := statusTables()
	extra[systemVariablesTable] = &information_schema.InformationSchemaTable{
		TableName: systemVariablesTable, TableSchema: systemVariablesSchema, Reader: systemVariablesRows,
	}
	cat.InfoSchema = infoSchemaPlus{Database: cat.InfoSchema, extra: extra}
}
