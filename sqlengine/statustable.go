package sqlengine

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// information_schema.SESSION_STATUS and GLOBAL_STATUS, MariaDB's (and
// MySQL 5.6's; MySQL 8 has them in performance_schema only, which Petrel
// also answers: perfvars.go): SHOW [GLOBAL] STATUS as a table of
// VARIABLE_NAME (upper case, as MariaDB lists them) and VARIABLE_VALUE
// (text). MariaDB's test suite reads them inside stored procedures
// (mtr's sp-condition-handler); a status MariaDB has and Petrel has not
// (MEMORY_USED) is no row.

const (
	sessionStatusTable = "session_status"
	globalStatusTable  = "global_status"
)

func statusTableSchema(table string) sql.Schema {
	return sql.Schema{
		{Name: "VARIABLE_NAME", Type: types.MustCreateString(sqltypes.VarChar, 64, sql.Collation_Information_Schema_Default), Source: table},
		{Name: "VARIABLE_VALUE", Type: types.MustCreateString(sqltypes.VarChar, 2048, sql.Collation_Information_Schema_Default), Nullable: true, Source: table},
	}
}

// isStatusRows reads SHOW [GLOBAL] STATUS's rows.
func isStatusRows(global bool) func(*sql.Context, sql.Catalog) (sql.RowIter, error) {
	return func(ctx *sql.Context, _ sql.Catalog) (sql.RowIter, error) {
		rows := engineStatusRows(ctx, global) // serverscope.go
		out := make([]sql.Row, 0, len(rows))
		for _, r := range rows {
			var v any
			if r[1] != nil {
				v = fmt.Sprint(r[1])
			}
			out = append(out, sql.Row{strings.ToUpper(r[0].(string)), v})
		}
		return sql.RowsToRowIter(out...), nil
	}
}

// statusTables are the two tables, for infoSchemaPlus.
func statusTables() map[string]sql.Table {
	return map[string]sql.Table{
		sessionStatusTable: &information_schema.InformationSchemaTable{
			TableName: sessionStatusTable, TableSchema: statusTableSchema(sessionStatusTable), Reader: isStatusRows(false),
		},
		globalStatusTable: &information_schema.InformationSchemaTable{
			TableName: globalStatusTable, TableSchema: statusTableSchema(globalStatusTable), Reader: isStatusRows(true),
		},
	}
}
