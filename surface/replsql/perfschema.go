package replsql

import (
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/repl/replica"
	"petrel/sqlengine"
)

// performance_schema's replication applier tables, MySQL 8.0's names and
// columns (the subset Petrel tracks; see docs/COMPATIBILITY.md).

// zeroTime is how GMS holds MySQL's 0000-00-00 00:00:00: a timestamp
// never set.
var zeroTime = time.Unix(-62167219200, 0).UTC()

func ts(t time.Time) any {
	if t.IsZero() {
		return zeroTime
	}
	return t.UTC()
}

func col(name string, t sql.Type, nullable bool) *sql.Column {
	return &sql.Column{Name: name, Type: t, Nullable: nullable}
}

func registerPerfSchema(e *sqlengine.Engine, r *replica.Replica) {
	str := func(n int64) sql.Type { return types.MustCreateStringWithDefaults(sqltypes.VarChar, n) }
	stamp := types.DatetimeMaxPrecision
	state := func(on bool) string {
		if on {
			return "ON"
		}
		return "OFF"
	}
	e.RegisterSystemTable(sqlengine.SystemTable{
		Name: "replication_applier_status_by_worker",
		Schema: sql.Schema{
			col("CHANNEL_NAME", str(64), false),
			col("WORKER_ID", types.Uint64, false),
			col("THREAD_ID", types.Uint64, true),
			col("SERVICE_STATE", str(3), false),
			col("LAST_ERROR_NUMBER", types.Int32, false),
			col("LAST_ERROR_MESSAGE", str(1024), false),
			col("LAST_ERROR_TIMESTAMP", stamp, false),
			col("LAST_APPLIED_TRANSACTION", str(57), true),
			col("LAST_APPLIED_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP", stamp, false),
			col("LAST_APPLIED_TRANSACTION_START_APPLY_TIMESTAMP", stamp, false),
			col("LAST_APPLIED_TRANSACTION_END_APPLY_TIMESTAMP", stamp, false),
			col("APPLYING_TRANSACTION", str(57), true),
			col("APPLYING_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP", stamp, false),
			col("APPLYING_TRANSACTION_START_APPLY_TIMESTAMP", stamp, false),
		},
		Rows: func(*sql.Context) ([]sql.Row, error) {
			var rows []sql.Row
			for _, w := range r.Workers() {
				var thread any
				if w.Running {
					thread = uint64(w.WorkerID)
				}
				rows = append(rows, sql.Row{"", uint64(w.WorkerID), thread, state(w.Running),
					int32(w.LastErrno), w.LastError, ts(w.LastErrAt),
					w.LastApplied, ts(w.LastAppliedOrig), ts(w.LastAppliedStart), ts(w.LastAppliedEnd),
					w.Applying, ts(w.ApplyingOrig), ts(w.ApplyingStart)})
			}
			return rows, nil
		},
	})
	e.RegisterSystemTable(sqlengine.SystemTable{
		Name: "replication_applier_status",
		Schema: sql.Schema{
			col("CHANNEL_NAME", str(64), false),
			col("SERVICE_STATE", str(3), false),
			col("REMAINING_DELAY", types.Uint32, true),
			col("COUNT_TRANSACTIONS_RETRIES", types.Uint64, false),
		},
		Rows: func(*sql.Context) ([]sql.Row, error) {
			if r.Status() == nil {
				return nil, nil // no source configured: no channel
			}
			c := r.CountersSnapshot()
			return []sql.Row{{"", state(c.SQLRunning), nil, c.RetriedTxns}}, nil
		},
	})
}
