package clonesql

import (
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/clone"
	"petrel/sqlengine"
)

// performance_schema.clone_status and clone_progress, MySQL 8.0's columns:
// empty until a clone runs here, then the last clone (kept across the
// restart that switches it in).

func col(name string, t sql.Type, nullable bool) *sql.Column {
	return &sql.Column{Name: name, Type: t, Nullable: nullable}
}

func stamp(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

func registerPerfSchema(e *sqlengine.Engine, p *clone.Progress) {
	str := func(n int64) sql.Type { return types.MustCreateStringWithDefaults(sqltypes.VarChar, n) }
	ts := types.MustCreateDatetimeType(sqltypes.Timestamp, 3)
	e.RegisterSystemTable(sqlengine.SystemTable{
		Name: "clone_status",
		Schema: sql.Schema{
			col("ID", types.Int32, true),
			col("PID", types.Int32, true),
			col("STATE", str(16), true),
			col("BEGIN_TIME", ts, true),
			col("END_TIME", ts, true),
			col("SOURCE", str(512), true),
			col("DESTINATION", str(512), true),
			col("ERROR_NO", types.Int32, true),
			col("ERROR_MESSAGE", str(512), true),
			col("BINLOG_FILE", str(512), true),
			col("BINLOG_POSITION", types.Int64, true),
			col("GTID_EXECUTED", str(4096), true),
		},
		Rows: func(*sql.Context) ([]sql.Row, error) {
			st := p.Snapshot()
			if st.State == clone.StateNotStarted {
				return nil, nil
			}
			return []sql.Row{{int32(1), int32(0), st.State, stamp(st.Begin), stamp(st.End), st.Source, st.Destination,
				int32(st.ErrNo), st.ErrMsg, st.BinlogFile, int64(st.BinlogPos), st.GTIDs}}, nil
		},
	})
	e.RegisterSystemTable(sqlengine.SystemTable{
		Name: "clone_progress",
		Schema: sql.Schema{
			col("ID", types.Int32, true),
			col("STAGE", str(32), true),
			col("STATE", str(16), true),
			col("BEGIN_TIME", ts, true),
			col("END_TIME", ts, true),
			col("THREADS", types.Int32, true),
			col("ESTIMATE", types.Uint64, true),
			col("DATA", types.Uint64, true),
			col("NETWORK", types.Uint64, true),
			col("DATA_SPEED", types.Uint32, true),
			col("NETWORK_SPEED", types.Uint32, true),
		},
		Rows: func(*sql.Context) ([]sql.Row, error) {
			st := p.Snapshot()
			if st.State == clone.StateNotStarted {
				return nil, nil
			}
			var rows []sql.Row
			for _, s := range st.Stages {
				threads := int32(0)
				if s.State == clone.StateInProgress {
					threads = 1
				}
				speed := uint32(min(s.Speed, 1<<32-1))
				rows = append(rows, sql.Row{int32(1), s.Name, s.State, stamp(s.Begin), stamp(s.End), threads,
					uint64(s.Estimate), uint64(s.Data), uint64(s.Network), speed, speed})
			}
			return rows, nil
		},
	})
}
