package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/sqlengine/sysschema"
	"petrel/sqlengine/tablelocks"
)

// performance_schema.metadata_locks, MySQL 8's columns, over the table
// locks (locktables.go): a LOCK TABLES lock is a TABLE lock of type
// SHARED_READ_ONLY (READ) or SHARED_NO_READ_WRITE (WRITE), the global
// read lock a GLOBAL SHARED one, all EXPLICIT and GRANTED. Petrel keeps no
// other metadata locks (a transaction's tables are not locked).
func (e *Engine) registerMetadataLocks() {
	vc := func(name string, n int64, null bool) *sql.Column {
		return &sql.Column{Name: name, Type: types.MustCreateStringWithDefaults(sqltypes.VarChar, n), Nullable: null}
	}
	num := func(name string, null bool) *sql.Column {
		return &sql.Column{Name: name, Type: types.Uint64, Nullable: null}
	}
	sch := sql.Schema{vc("OBJECT_TYPE", 64, false), vc("OBJECT_SCHEMA", 64, true), vc("OBJECT_NAME", 64, true),
		vc("COLUMN_NAME", 64, true), num("OBJECT_INSTANCE_BEGIN", false), vc("LOCK_TYPE", 32, false),
		vc("LOCK_DURATION", 32, false), vc("LOCK_STATUS", 32, false), vc("SOURCE", 64, true),
		num("OWNER_THREAD_ID", true), num("OWNER_EVENT_ID", true)}
	e.RegisterSystemTable(sysschema.Table{Name: "metadata_locks", Schema: sch, Rows: func(*sql.Context) ([]sql.Row, error) {
		var held []tablelocks.Held
		if l := e.tlocks; l.Active() {
			l.mu.Lock()
			held = l.m.Snapshot()
			l.mu.Unlock()
		}
		rows := make([]sql.Row, 0, len(held))
		for i, h := range held {
			thread := uint64(h.Session) + threadIDBase
			if h.Global {
				rows = append(rows, sql.Row{"GLOBAL", nil, nil, nil, uint64(i + 1), "SHARED", "EXPLICIT", "GRANTED", nil, thread, nil})
				continue
			}
			lt := "SHARED_READ_ONLY"
			if h.Mode == tablelocks.Write {
				lt = "SHARED_NO_READ_WRITE"
			}
			rows = append(rows, sql.Row{"TABLE", h.Table.DB, h.Table.Name, nil, uint64(i + 1), lt, "EXPLICIT", "GRANTED", nil, thread, nil})
		}
		return rows, nil
	}})
}
