package replsql

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/base"
	"petrel/internal/mysqlerr"
	"petrel/repl/replica"
	"petrel/repl/source"
	"petrel/sqlengine"
)

// Unconfigured registers, for a server without the binary log, the
// refusal of the statements that would make it a replica.
func Unconfigured(e *sqlengine.Engine) {
	e.RegisterAdmin(`(?:CHANGE (?:REPLICATION SOURCE|MASTER) TO .*|START (?:REPLICA|SLAVE).*)`, sql.PrivilegeType_Super,
		func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
			return nil, mysqlerr.New(mysqlerr.ErReplicaNotConfigured, "Petrel replicas need the binary log (log_bin=ON): it records the applied GTIDs atomically with the rows")
		})
}

// SourceAdapter is the source's side of sqlengine's replication hooks
// (COM_REGISTER_SLAVE, COM_BINLOG_DUMP).
type SourceAdapter struct{ S *source.Source }

func (a SourceAdapter) Register(r sqlengine.ReplicaInfo) error {
	a.S.Register(source.Replica{ConnID: r.ConnID, ServerID: r.ServerID, Host: r.Host, Port: r.Port, User: r.User, ReplicaUUID: r.ReplicaUUID})
	return nil
}

func (a SourceAdapter) Dump(ctx context.Context, r sqlengine.DumpRequest) error {
	return a.S.Serve(ctx, r.Conn, source.Request{
		ConnID: r.ConnID, ServerID: r.ServerID, File: r.File, Pos: r.Pos,
		AutoPosition: r.AutoPosition, GTIDs: r.GTIDs, HeartbeatPeriod: r.HeartbeatPeriod,
		ChecksumAware: r.ChecksumAware, SemiSync: r.SemiSync, MariaDB: r.MariaDB,
	})
}

func (a SourceAdapter) Disconnected(connID uint32) { a.S.Disconnected(connID) }

// replError maps replica errors to MySQL's codes.
func replError(err error) error {
	switch {
	case err == nil:
		return nil
	case failoverError(err) != nil:
		return failoverError(err)
	case errors.Is(err, replica.ErrNotConfigured):
		return mysqlerr.New(mysqlerr.ErReplicaNotConfigured, "%s", err.Error())
	case errors.As(err, new(*replica.CompressionAlgorithmError)):
		var ce *replica.CompressionAlgorithmError
		errors.As(err, &ce)
		n := mysqlerr.ErChangeSourceWrongCompressionAlgorithm
		if ce.TooMany {
			n = mysqlerr.ErChangeSourceWrongCompressionList
		}
		return mysqlerr.New(n, "%s", err.Error())
	case errors.As(err, new(*replica.CompressionLevelError)):
		return mysqlerr.New(mysqlerr.ErChangeSourceWrongCompressionLevel, "%s", err.Error())
	case errors.As(err, new(*replica.NotSupportedError)):
		return mysqlerr.New(mysqlerr.ErNotSupportedYet, "%s", err.Error())
	case errors.Is(err, replica.ErrAutoPositionConflict):
		return mysqlerr.New(mysqlerr.ErBadReplicaAutoPosition, "%s", err.Error())
	case errors.Is(err, replica.ErrMustStop):
		return mysqlerr.New(mysqlerr.ErReplicaMustStop, "%s", err.Error())
	case base.ClassOf(err) == base.ClassBadInput:
		return mysqlerr.New(mysqlerr.ErWrongArguments, "%s", err.Error())
	}
	return err
}

// threads parses "IO_THREAD, SQL_THREAD" lists (none = both).
func threads(list string) (io, sqlT bool) {
	list = strings.ToUpper(list)
	if strings.TrimSpace(list) == "" {
		return true, true
	}
	return strings.Contains(list, "IO_THREAD"), strings.Contains(list, "SQL_THREAD")
}

// Register registers the replica's statements (CHANGE REPLICATION
// SOURCE, START/STOP/RESET REPLICA, SHOW REPLICA STATUS), the source's
// (SHOW REPLICAS) and both sides' status variables.
func Register(e *sqlengine.Engine, r *replica.Replica, src *source.Source, serverID uint32) {
	ok := func() (*sqlengine.AdminResult, error) { return &sqlengine.AdminResult{}, nil }
	registerPerfSchema(e, r)
	registerConnectionConfig(e, r)
	e.RegisterAdmin(`CHANGE (?:REPLICATION SOURCE|MASTER) TO (.+?)(?: FOR CHANNEL '')?`, sql.PrivilegeType_Super,
		func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			opts, err := replica.ParseOptions(m[1])
			if err != nil {
				return nil, mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax: %s", err.Error())
			}
			if err := replError(r.Change(opts)); err != nil {
				return nil, err
			}
			return ok()
		})
	e.RegisterAdmin(`START (?:REPLICA|SLAVE)((?: ?,? ?(?:IO_THREAD|SQL_THREAD))*)(?: FOR CHANNEL '')?`, sql.PrivilegeType_Super,
		func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			io, st := threads(m[1])
			if err := replError(r.Start(io, st)); err != nil {
				return nil, err
			}
			return ok()
		})
	e.RegisterAdmin(`STOP (?:REPLICA|SLAVE)((?: ?,? ?(?:IO_THREAD|SQL_THREAD))*)(?: FOR CHANNEL '')?`, sql.PrivilegeType_Super,
		func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			io, st := threads(m[1])
			if err := replError(r.Stop(io, st)); err != nil {
				return nil, err
			}
			return ok()
		})
	e.RegisterAdmin(`RESET (?:REPLICA|SLAVE)( ALL)?(?: FOR CHANNEL '')?`, sql.PrivilegeType_Reload,
		func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			if err := replError(r.Reset(m[1] != "")); err != nil {
				return nil, err
			}
			return ok()
		})
	e.RegisterAdmin(`SHOW (REPLICA|SLAVE) STATUS(?: FOR CHANNEL '')?`, sql.PrivilegeType_ReplicationClient,
		func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			legacy := strings.EqualFold(m[1], "SLAVE")
			res := &sqlengine.AdminResult{}
			for _, c := range replica.StatusColumns {
				if legacy {
					c = replica.LegacyName(c)
				}
				res.Columns = append(res.Columns, c)
			}
			if row := r.Status(); row != nil {
				res.Rows = [][]*string{row}
			}
			return res, nil
		})
	hosts := func(legacy bool) sqlengine.AdminFunc {
		return func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
			cols := []string{"Server_Id", "Host", "Port", "Source_Id", "Replica_UUID"}
			if legacy {
				cols = []string{"Server_id", "Host", "Port", "Master_id", "Slave_UUID"}
			}
			res := &sqlengine.AdminResult{Columns: cols}
			for _, rp := range src.Replicas() {
				res.Rows = append(res.Rows, []*string{
					sqlengine.Str(strconv.FormatUint(uint64(rp.ServerID), 10)), sqlengine.Str(rp.Host),
					sqlengine.Str(strconv.Itoa(int(rp.Port))), sqlengine.Str(strconv.FormatUint(uint64(serverID), 10)),
					sqlengine.Str(rp.ReplicaUUID),
				})
			}
			return res, nil
		}
	}
	e.RegisterAdmin(`SHOW REPLICAS`, sql.PrivilegeType_ReplicationSlave, hosts(false))
	e.RegisterAdmin(`SHOW SLAVE HOSTS`, sql.PrivilegeType_ReplicationSlave, hosts(true))

	lag := func(get func() (float64, bool)) func() any {
		return func() any {
			if v, ok := get(); ok {
				return strconv.FormatFloat(v, 'f', 3, 64)
			}
			return nil
		}
	}
	e.RegisterStatus("Replica_receive_lag", lag(func() (float64, bool) { v, ok, _, _ := r.Lags(); return v, ok }))
	e.RegisterStatus("Replica_apply_lag", lag(func() (float64, bool) { _, _, v, ok := r.Lags(); return v, ok }))
	onOff := func(b bool) string {
		if b {
			return "ON"
		}
		return "OFF"
	}
	e.RegisterStatus("Replica_running", func() any { c := r.CountersSnapshot(); return onOff(c.IORunning && c.SQLRunning) })
	e.RegisterStatus("Slave_running", func() any { c := r.CountersSnapshot(); return onOff(c.IORunning && c.SQLRunning) })
	e.RegisterStatus("Slave_received_heartbeats", func() any { return r.CountersSnapshot().Heartbeats })
	e.RegisterStatus("Replica_received_heartbeats", func() any { return r.CountersSnapshot().Heartbeats })
	e.RegisterStatus("Replica_received_transactions", func() any { return r.CountersSnapshot().ReceivedTxns })
	e.RegisterStatus("Replica_applied_transactions", func() any { return r.CountersSnapshot().AppliedTxns })
	// MariaDB's name (MySQL 8 moved it to performance_schema's
	// replication_applier_status.COUNT_TRANSACTIONS_RETRIES).
	e.RegisterStatus("Slave_retried_transactions", func() any { return r.CountersSnapshot().RetriedTxns })
	e.RegisterStatus("Replica_retried_transactions", func() any { return r.CountersSnapshot().RetriedTxns })
	// The parallel applier's scheduler (repl/replica/sched.go).
	e.RegisterStatus("Petrel_replica_parallel_workers", func() any { return r.CountersSnapshot().ParallelWorkers })
	e.RegisterStatus("Petrel_replica_waits_dependency", func() any { return r.CountersSnapshot().Waits.Dependency })
	e.RegisterStatus("Petrel_replica_waits_barrier", func() any { return r.CountersSnapshot().Waits.Barrier })
	e.RegisterStatus("Petrel_replica_waits_workers", func() any { return r.CountersSnapshot().Waits.Workers })
	e.RegisterStatus("Petrel_replica_waits_commit_order", func() any { return r.CountersSnapshot().Waits.CommitOrder })
	e.RegisterStatus("Petrel_replica_serialised_intervals", func() any { return r.CountersSnapshot().Waits.Serialised })
	e.RegisterStatus("Petrel_replica_writeset_scheduled", func() any { return r.CountersSnapshot().Waits.ByWriteset })
	e.RegisterStatus("Replica_connects", func() any { return r.CountersSnapshot().Connects })
	e.RegisterStatus("Petrel_relay_log_syncs", func() any { return r.CountersSnapshot().RelaySyncs })
	e.RegisterStatus("Petrel_semi_sync_replica_acks", func() any { return r.CountersSnapshot().AcksSent })
	e.RegisterStatus("Replicas_connected", func() any { return uint64(len(src.Replicas())) })
	registerFailover(e, r)
}
