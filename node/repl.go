package node

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/base"
	"petrel/repl/replica"
	"petrel/repl/source"
	"petrel/sqlengine"
	"petrel/storage"
)

// Petrel's replication defaults differ from MySQL's where MySQL's are the
// seeds' pain: a replica notices a dead link in 10 s, not 60.
const defaultReplicaNetTimeout = 10

// replVariables defines the replication variables the config may set.
func (n *Node) replVariables() {
	n.netTimeout = sqlengine.AliasVariables([]string{"replica_net_timeout", "slave_net_timeout"},
		types.NewSystemIntType("replica_net_timeout", 1, 31536000, false), int64(defaultReplicaNetTimeout))
	n.semi = semiVariables()
	// MySQL's default; Petrel also syncs within 10 ms of a relay write.
	n.syncRelayLog = sqlengine.AliasVariables([]string{"sync_relay_log"},
		types.NewSystemIntType("sync_relay_log", 0, 4294967295, false), int64(10000))
	// The parallel applier (repl/replica/sched.go). MySQL refuses
	// replica_parallel_type and replica_preserve_commit_order changes
	// while the applier runs (ER_REPLICA_CHANNEL_MUST_STOP, 3081) and
	// takes replica_parallel_workers at the next START REPLICA.
	stopped := func(any) error {
		if n.replica != nil && n.replica.ApplierRunning() {
			return mysql.NewSQLError(3081, "HY000", "%s", replica.ErrApplierRunning.Error())
		}
		return nil
	}
	n.parWorkers = sqlengine.AliasVariables([]string{"replica_parallel_workers", "slave_parallel_workers"},
		types.NewSystemIntType("replica_parallel_workers", 0, 1024, false), int64(replica.DefaultParallelWorkers))
	n.parType = sqlengine.CheckedAliasVariables([]string{"replica_parallel_type", "slave_parallel_type"},
		types.NewSystemEnumType("replica_parallel_type", replica.ParallelDatabase, replica.ParallelLogicalClock), replica.ParallelLogicalClock, stopped)
	n.parPreserve = sqlengine.CheckedAliasVariables([]string{"replica_preserve_commit_order", "slave_preserve_commit_order"},
		types.NewSystemBoolType("replica_preserve_commit_order"), int8(1), stopped)
	// Replicas always log what they apply: the binlog is their commit point.
	sqlengine.AliasVariables([]string{"log_replica_updates", "log_slave_updates"}, types.NewSystemBoolType("log_replica_updates"), int8(1))
	global := sql.GetMysqlScope(sql.SystemVariableScope_Global)
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{
		&sql.MysqlSystemVariable{Name: "skip_replica_start", Scope: global, Type: types.NewSystemBoolType("skip_replica_start"), Default: int8(0)},
		// Accepted from my.cnf files written for MySQL (the seeds' tutorial
		// sets them); Petrel's relay log lives in DATADIR/relay.
		&sql.MysqlSystemVariable{Name: "relay_log", Scope: global, Type: types.NewSystemStringType("relay_log"), Default: "relay"},
		&sql.MysqlSystemVariable{Name: "relay_log_index", Scope: global, Type: types.NewSystemStringType("relay_log_index"), Default: "relay.index"},
		&sql.MysqlSystemVariable{Name: "relay_log_recovery", Scope: global, Type: types.NewSystemBoolType("relay_log_recovery"), Default: int8(1)},
	})
}

func (n *Node) parallel() replica.Parallel {
	w, _ := toInt(n.parWorkers())
	return replica.Parallel{Workers: int(w), Type: strings.ToUpper(fmt.Sprint(n.parType())), PreserveOrder: truthy(n.parPreserve())}
}

func (n *Node) replicaNetTimeout() time.Duration {
	v, _ := toInt(n.netTimeout())
	if v <= 0 {
		v = defaultReplicaNetTimeout
	}
	return time.Duration(v) * time.Second
}

func toInt(v any) (int64, bool) {
	if n, ok := sqlengine.ToInt64(v); ok {
		return n, true
	}
	i, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
	return i, err == nil
}

// openReplication wires the source side (dumps to replicas) and the
// replica side (CHANGE REPLICATION SOURCE, START REPLICA, ...). Both need
// the binary log.
func (n *Node) openReplication() error {
	e := n.sql
	if n.binlog == nil {
		e.RegisterAdmin(`(?:CHANGE (?:REPLICATION SOURCE|MASTER) TO .*|START (?:REPLICA|SLAVE).*)`, sql.PrivilegeType_Super,
			func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
				return nil, mysql.NewSQLError(1200, "HY000", "Petrel replicas need the binary log (log_bin=ON): it records the applied GTIDs atomically with the rows")
			})
		return nil
	}
	sid, err := base.ParseSID(n.meta.ServerUUID)
	if err != nil {
		return err
	}
	n.openSemiSync()
	n.source = source.New(source.Options{Log: n.binlog, ServerID: n.opts.ServerID, ServerUUID: sid, Logger: n.opts.Logger, Clock: n.opts.Clock,
		TCP: replTCP, Semi: n.tracker, SemiEnabled: func() bool { return truthy(n.semi.enabled()) }})
	e.SetReplicationSource(sourceAdapter{n.source})

	n.replica, err = replica.New(replica.Options{
		Datadir: n.opts.Datadir, ServerID: n.opts.ServerID, ServerUUID: n.meta.ServerUUID,
		Store: n.store, Log: n.binlog, Logger: n.opts.Logger, Clock: n.opts.Clock,
		NetTimeout:  n.replicaNetTimeout,
		TCP:         replTCP,
		SemiEnabled: func() bool { return truthy(n.semi.replicaEnabled()) },
		AckAfter:    func() string { return strings.ToUpper(fmt.Sprint(n.semi.ackAfter())) },
		Parallel:    n.parallel,
		SyncRelayLog: func() int64 {
			v, _ := toInt(n.syncRelayLog())
			return v
		},
		ExecDDL: func(ctx context.Context, db, q string, o storage.Origin) error {
			return e.ExecReplicated(ctx, db, q, o)
		},
	})
	if err != nil {
		return fmt.Errorf("node: replica: %w", err)
	}
	n.registerReplSQL()
	return nil
}

// startReplica starts a configured replica at boot (skip_replica_start=OFF).
func (n *Node) startReplica() {
	if n.replica == nil || !n.replica.Configured() || globalUint("skip_replica_start", 0) != 0 {
		return
	}
	if err := n.replica.Start(true, true); err != nil {
		n.opts.Logger.Error("petrel: could not start replication", "error", err)
	}
}

type sourceAdapter struct{ s *source.Source }

func (a sourceAdapter) Register(r sqlengine.ReplicaInfo) error {
	a.s.Register(source.Replica{ConnID: r.ConnID, ServerID: r.ServerID, Host: r.Host, Port: r.Port, User: r.User, ReplicaUUID: r.ReplicaUUID})
	return nil
}

func (a sourceAdapter) Dump(ctx context.Context, r sqlengine.DumpRequest) error {
	return a.s.Serve(ctx, r.Conn, source.Request{
		ConnID: r.ConnID, ServerID: r.ServerID, File: r.File, Pos: r.Pos,
		AutoPosition: r.AutoPosition, GTIDs: r.GTIDs, HeartbeatPeriod: r.HeartbeatPeriod,
		ChecksumAware: r.ChecksumAware, SemiSync: r.SemiSync,
	})
}

func (a sourceAdapter) Disconnected(connID uint32) { a.s.Disconnected(connID) }

// replError maps replica errors to MySQL's codes.
func replError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, replica.ErrNotConfigured):
		return mysql.NewSQLError(1200, "HY000", "%s", err.Error())
	case errors.Is(err, replica.ErrAutoPositionConflict):
		return mysql.NewSQLError(1776, "HY000", "%s", err.Error()) // ER_BAD_REPLICA_AUTO_POSITION
	case errors.Is(err, replica.ErrMustStop):
		return mysql.NewSQLError(1198, "HY000", "%s", err.Error())
	case base.ClassOf(err) == base.ClassBadInput:
		return mysql.NewSQLError(1210, "HY000", "%s", err.Error()) // ER_WRONG_ARGUMENTS
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

func (n *Node) registerReplSQL() {
	e, r, src := n.sql, n.replica, n.source
	ok := func() (*sqlengine.AdminResult, error) { return &sqlengine.AdminResult{}, nil }
	e.RegisterAdmin(`CHANGE (?:REPLICATION SOURCE|MASTER) TO (.+?)(?: FOR CHANNEL '')?`, sql.PrivilegeType_Super,
		func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			opts, err := replica.ParseOptions(m[1])
			if err != nil {
				return nil, mysql.NewSQLError(1064, "42000", "You have an error in your SQL syntax: %s", err.Error())
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
					sqlengine.Str(strconv.Itoa(int(rp.Port))), sqlengine.Str(strconv.FormatUint(uint64(n.opts.ServerID), 10)),
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
	sqlengine.RegisterStatus("Replica_receive_lag", lag(func() (float64, bool) { v, ok, _, _ := r.Lags(); return v, ok }))
	sqlengine.RegisterStatus("Replica_apply_lag", lag(func() (float64, bool) { _, _, v, ok := r.Lags(); return v, ok }))
	onOff := func(b bool) string {
		if b {
			return "ON"
		}
		return "OFF"
	}
	sqlengine.RegisterStatus("Replica_running", func() any { c := r.CountersSnapshot(); return onOff(c.IORunning && c.SQLRunning) })
	sqlengine.RegisterStatus("Slave_running", func() any { c := r.CountersSnapshot(); return onOff(c.IORunning && c.SQLRunning) })
	sqlengine.RegisterStatus("Slave_received_heartbeats", func() any { return r.CountersSnapshot().Heartbeats })
	sqlengine.RegisterStatus("Replica_received_heartbeats", func() any { return r.CountersSnapshot().Heartbeats })
	sqlengine.RegisterStatus("Replica_received_transactions", func() any { return r.CountersSnapshot().ReceivedTxns })
	sqlengine.RegisterStatus("Replica_applied_transactions", func() any { return r.CountersSnapshot().AppliedTxns })
	// The parallel applier's scheduler (repl/replica/sched.go).
	sqlengine.RegisterStatus("Petrel_replica_parallel_workers", func() any { return r.CountersSnapshot().ParallelWorkers })
	sqlengine.RegisterStatus("Petrel_replica_waits_dependency", func() any { return r.CountersSnapshot().Waits.Dependency })
	sqlengine.RegisterStatus("Petrel_replica_waits_barrier", func() any { return r.CountersSnapshot().Waits.Barrier })
	sqlengine.RegisterStatus("Petrel_replica_waits_workers", func() any { return r.CountersSnapshot().Waits.Workers })
	sqlengine.RegisterStatus("Petrel_replica_waits_commit_order", func() any { return r.CountersSnapshot().Waits.CommitOrder })
	sqlengine.RegisterStatus("Petrel_replica_serialised_intervals", func() any { return r.CountersSnapshot().Waits.Serialised })
	sqlengine.RegisterStatus("Petrel_replica_writeset_scheduled", func() any { return r.CountersSnapshot().Waits.ByWriteset })
	sqlengine.RegisterStatus("Replica_connects", func() any { return r.CountersSnapshot().Connects })
	sqlengine.RegisterStatus("Petrel_relay_log_syncs", func() any { return r.CountersSnapshot().RelaySyncs })
	sqlengine.RegisterStatus("Petrel_semi_sync_replica_acks", func() any { return r.CountersSnapshot().AcksSent })
	sqlengine.RegisterStatus("Replicas_connected", func() any { return uint64(len(src.Replicas())) })
}

func replicaStatusColumns() []string { return replica.StatusColumns }
