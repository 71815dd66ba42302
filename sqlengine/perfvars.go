package sqlengine

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/sqlengine/sysschema"
)

// performance_schema's tables of variables, status and threads, the ones
// monitoring tools read (MySQL 8 moved them here from
// information_schema): global_variables and session_variables (what SHOW
// [GLOBAL] VARIABLES shows, booleans as ON/OFF), global_status and
// session_status (what SHOW [GLOBAL] STATUS shows), and threads (one
// foreground thread per client connection, from the process list: its
// user, host, database, command, time in it and running statement).
// Rows are computed at every scan.

// registerPerfSchemaTables registers them.
func (e *Engine) registerPerfSchemaTables() {
	vc := func(name string, n int64) *sql.Column {
		return &sql.Column{Name: name, Type: types.MustCreateStringWithDefaults(sqltypes.VarChar, n), Nullable: false}
	}
	nameValue := func(valueLen int64) sql.Schema {
		return sql.Schema{vc("VARIABLE_NAME", 64), vc("VARIABLE_VALUE", valueLen)}
	}
	e.RegisterSystemTable(sysschema.Table{Name: "global_variables", Schema: nameValue(1024),
		Rows: func(ctx *sql.Context) ([]sql.Row, error) { return variableRows(ctx, true) }})
	e.RegisterSystemTable(sysschema.Table{Name: "session_variables", Schema: nameValue(1024),
		Rows: func(ctx *sql.Context) ([]sql.Row, error) { return variableRows(ctx, false) }})
	e.RegisterSystemTable(sysschema.Table{Name: "global_status", Schema: nameValue(1024),
		Rows: func(ctx *sql.Context) ([]sql.Row, error) { return statusTableRows(ctx, true) }})
	e.RegisterSystemTable(sysschema.Table{Name: "session_status", Schema: nameValue(1024),
		Rows: func(ctx *sql.Context) ([]sql.Row, error) { return statusTableRows(ctx, false) }})
	null := func(c *sql.Column) *sql.Column { c.Nullable = true; return c }
	num := func(name string, t sql.Type) *sql.Column { return &sql.Column{Name: name, Type: t, Nullable: true} }
	e.RegisterSystemTable(sysschema.Table{Name: "threads", Schema: sql.Schema{
		{Name: "THREAD_ID", Type: types.Uint64}, vc("NAME", 128), vc("TYPE", 10),
		num("PROCESSLIST_ID", types.Uint64), null(vc("PROCESSLIST_USER", 32)), null(vc("PROCESSLIST_HOST", 255)),
		null(vc("PROCESSLIST_DB", 64)), null(vc("PROCESSLIST_COMMAND", 16)), num("PROCESSLIST_TIME", types.Int64),
		null(vc("PROCESSLIST_STATE", 64)), num("PROCESSLIST_INFO", types.LongText), num("PARENT_THREAD_ID", types.Uint64),
		null(vc("ROLE", 64)), vc("INSTRUMENTED", 3), vc("HISTORY", 3), null(vc("CONNECTION_TYPE", 16)),
		num("THREAD_OS_ID", types.Uint64), null(vc("RESOURCE_GROUP", 64)),
	}, Rows: e.threadRows})
}

// variableRows is SHOW [GLOBAL] VARIABLES as rows of text.
func variableRows(ctx *sql.Context, global bool) ([]sql.Row, error) {
	var rows []sql.Row
	var err error
	if global {
		rows, err = globalVariableRows(ctx, nil) // the session's server's
	} else {
		rows, err = drain(ctx, plan.NewShowVariables(nil, false))
	}
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		name := fmt.Sprint(r[0])
		r[1] = variableText(name, r[1])
	}
	return rows, nil
}

// variableText is a variable's value as SHOW VARIABLES writes it.
func variableText(name string, v any) string {
	s := valueText(v)
	if sv, _, ok := sql.SystemVariables.GetGlobal(name); ok && isBoolType(sv.GetType()) {
		switch s {
		case "1":
			return "ON"
		case "0":
			return "OFF"
		}
	}
	return s
}

// statusTableRows is SHOW [GLOBAL] STATUS as rows of text, by name.
func statusTableRows(ctx *sql.Context, global bool) ([]sql.Row, error) {
	rows := engineStatusRows(ctx, global)
	for _, r := range rows {
		r[1] = valueText(r[1])
	}
	sort.Slice(rows, func(i, j int) bool { return fmt.Sprint(rows[i][0]) < fmt.Sprint(rows[j][0]) })
	return rows, nil
}

// drain runs a node of GMS's and returns its rows.
func drain(ctx *sql.Context, n sql.Node) ([]sql.Row, error) {
	it, err := rowexec.DefaultBuilder.Build(ctx, n, nil)
	if err != nil {
		return nil, err
	}
	var rows []sql.Row
	for {
		r, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			it.Close(ctx)
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, it.Close(ctx)
}

func valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

// threadIDBase is added to a connection id to make its THREAD_ID
// (MySQL numbers threads apart from connections; tools join on
// PROCESSLIST_ID).
const threadIDBase = 1000

// threadRows is one foreground thread per client connection.
func (e *Engine) threadRows(ctx *sql.Context) ([]sql.Row, error) {
	if e.gms.ProcessList == nil {
		return nil, nil
	}
	procs := e.gms.ProcessList.Processes()
	sort.Slice(procs, func(i, j int) bool { return procs[i].Connection < procs[j].Connection })
	var rows []sql.Row
	for _, p := range procs {
		var db, info, state any
		if p.Database != "" {
			db = p.Database
		}
		if p.Query != "" {
			info = p.Query
			state = "executing"
		}
		host := p.Host
		if i := strings.LastIndexByte(host, ':'); i > 0 {
			host = host[:i]
		}
		rows = append(rows, sql.Row{
			uint64(p.Connection) + threadIDBase, "thread/sql/one_connection", "FOREGROUND",
			uint64(p.Connection), p.User, host, db, strings.TrimPrefix(string(p.Command), "COM_"), int64(p.Seconds()),
			state, info, nil, nil, "YES", "YES", "TCP/IP", nil, "USR_default",
		})
	}
	return rows, nil
}
