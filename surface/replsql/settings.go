package replsql

import (
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
	"petrel/repl/replica"
	"petrel/sqlengine"
	"petrel/surface/sysvar"
)

// Petrel's replication defaults differ from MySQL's where MySQL's are the
// seeds' pain: a replica notices a dead link in 10 s, not 60.
const defaultReplicaNetTimeout = 10

// Settings are the replica's settings, typed: the variables' change
// hooks validate them (surface/sysvar) and node pushes them to the
// replica (Replica.Configure, with semi-sync's switch and the socket's
// options, which other surfaces hold).
type Settings struct {
	// Replica are replica_net_timeout (default 10 s), sync_relay_log
	// (10000), rpl_semi_sync_replica_ack_after (RELAY_WRITE),
	// replica_exec_mode (STRICT), replica_transaction_retries (10),
	// replica_parallel_workers (replica.DefaultParallelWorkers),
	// replica_parallel_type (LOGICAL_CLOCK),
	// replica_preserve_commit_order (ON) and
	// petrel_replica_durable_apply (OFF). SemiSync and TCP are left
	// zero.
	Replica replica.Settings
	// FailoverLagTransactions and FailoverLag are
	// replica_failover_lag_transactions (default 1000) and
	// replica_failover_lag_seconds (default 10 s): failover.go.
	FailoverLagTransactions int64
	FailoverLag             time.Duration
	// SkipStart is skip_replica_start (read-only): a configured replica
	// is not started at boot; default OFF.
	SkipStart bool
}

// Vars are the replica's variables.
type Vars struct {
	set *sysvar.Set[Settings]
	// rep is the replica, once Attach names it: the refusal's check.
	rep *atomic.Pointer[replica.Replica]
}

// Variables defines the replication variables the config may set on the
// server's g (before it is applied).
func Variables(g *sqlengine.Globals) Vars {
	v := Vars{set: sysvar.New(Settings{}), rep: &atomic.Pointer[replica.Replica]{}}
	// alias defines names as spellings of one setting.
	alias := func(names []string, typ sql.Type, def any, apply func(*Settings, any) error) {
		g.CheckedAlias(names, typ, def, v.set.Field(def, apply))
	}
	// The parallel applier (repl/replica/sched.go). MySQL refuses
	// replica_parallel_type and replica_preserve_commit_order changes
	// while the applier runs (ER_REPLICA_CHANNEL_MUST_STOP, 3081) and
	// takes replica_parallel_workers at the next START REPLICA.
	stopped := func() error {
		if r := v.rep.Load(); r != nil && r.ApplierRunning() {
			return mysqlerr.New(mysqlerr.ErReplicaChannelMustStop, "%s", replica.ErrApplierRunning.Error())
		}
		return nil
	}
	alias([]string{"replica_parallel_workers", "slave_parallel_workers"},
		types.NewSystemIntType("replica_parallel_workers", 0, 1024, false), int64(replica.DefaultParallelWorkers),
		func(s *Settings, x any) error { s.Replica.Parallel.Workers = int(sysvar.Int(x)); return nil })
	alias([]string{"replica_parallel_type", "slave_parallel_type"},
		types.NewSystemEnumType("replica_parallel_type", replica.ParallelDatabase, replica.ParallelLogicalClock), replica.ParallelLogicalClock,
		func(s *Settings, x any) error {
			s.Replica.Parallel.Type = strings.ToUpper(sysvar.String(x))
			return stopped()
		})
	alias([]string{"replica_preserve_commit_order", "slave_preserve_commit_order"},
		types.NewSystemBoolType("replica_preserve_commit_order"), int8(1),
		func(s *Settings, x any) error { s.Replica.Parallel.PreserveOrder = sysvar.Bool(x); return stopped() })
	// How row events that do not match the replica's rows are applied.
	// STRICT, MySQL's default, stops at a row the replica does not hold
	// as the source did (1032, 1062): a replica whose rows diverged says
	// so instead of being quietly overwritten.
	alias([]string{"replica_exec_mode", "slave_exec_mode"},
		types.NewSystemEnumType("replica_exec_mode", "STRICT", "IDEMPOTENT"), "STRICT",
		func(s *Settings, x any) error {
			s.Replica.StrictRows = strings.EqualFold(sysvar.String(x), "STRICT")
			return nil
		})
	// How often a transaction that failed on a row lock is applied
	// again before the applier stops (repl/replica/retry.go).
	alias([]string{"replica_transaction_retries", "slave_transaction_retries"},
		types.NewSystemIntType("replica_transaction_retries", 0, math.MaxInt64, false), int64(10),
		func(s *Settings, x any) error { s.Replica.TransactionRetries = sysvar.Uint(x); return nil })
	alias([]string{"replica_net_timeout", "slave_net_timeout"},
		types.NewSystemIntType("replica_net_timeout", 1, 31536000, false), int64(defaultReplicaNetTimeout),
		func(s *Settings, x any) error {
			s.Replica.NetTimeout = time.Duration(max(sysvar.Int(x), 1)) * time.Second
			return nil
		})
	// Petrel's: when a replica acknowledges (see replica.AckRelayWrite).
	alias([]string{"rpl_semi_sync_replica_ack_after", "rpl_semi_sync_slave_ack_after"},
		types.NewSystemEnumType("rpl_semi_sync_replica_ack_after", replica.AckRelayWrite, replica.AckRelaySync), replica.AckRelayWrite,
		func(s *Settings, x any) error { s.Replica.AckAfter = strings.ToUpper(sysvar.String(x)); return nil })
	// MySQL's default; Petrel also syncs within 10 ms of a relay write.
	alias([]string{"sync_relay_log"},
		types.NewSystemIntType("sync_relay_log", 0, 4294967295, false), int64(10000),
		func(s *Settings, x any) error { s.Replica.SyncRelayLog = sysvar.Int(x); return nil })
	// Petrel's: applied transactions wait for the binlog's fsync, as the
	// source's commits did (MySQL's replica with sync_binlog=1), instead
	// of relying on the relay log, fsynced on receipt, for durability.
	// Read when the applier starts. OFF: the apply path never waits for
	// the disk.
	alias([]string{"petrel_replica_durable_apply"},
		types.NewSystemBoolType("petrel_replica_durable_apply"), int8(0),
		func(s *Settings, x any) error { s.Replica.DurableApply = sysvar.Bool(x); return nil })
	// The lag-switch thresholds (failover.go): a source more than 1000
	// transactions behind another for 10 s is left. A probe and the
	// stream are read a moment apart, so the threshold stays well above
	// what one second of a busy primary commits.
	alias([]string{"replica_failover_lag_transactions"},
		types.NewSystemIntType("replica_failover_lag_transactions", 0, 1<<40, false), int64(1000),
		func(s *Settings, x any) error { s.FailoverLagTransactions = sysvar.Int(x); return nil })
	alias([]string{"replica_failover_lag_seconds"},
		types.NewSystemIntType("replica_failover_lag_seconds", 0, 31536000, false), int64(10),
		func(s *Settings, x any) error { s.FailoverLag = time.Duration(sysvar.Int(x)) * time.Second; return nil })
	// Replicas always log what they apply: the binlog is their commit point.
	g.Alias([]string{"log_replica_updates", "log_slave_updates"}, types.NewSystemBoolType("log_replica_updates"), int8(1))
	global := sql.GetMysqlScope(sql.SystemVariableScope_Global)
	g.Add([]sql.SystemVariable{
		sysvar.Global(v.set, &sql.MysqlSystemVariable{Name: "skip_replica_start", Scope: global, Type: types.NewSystemBoolType("skip_replica_start"), Default: int8(0)},
			func(s *Settings, x any) error { s.SkipStart = sysvar.Bool(x); return nil }),
		// Accepted from my.cnf files written for MySQL (the seeds' tutorial
		// sets them); Petrel's relay log lives in DATADIR/relay.
		&sql.MysqlSystemVariable{Name: "relay_log", Scope: global, Type: types.NewSystemStringType("relay_log"), Default: "relay"},
		&sql.MysqlSystemVariable{Name: "relay_log_index", Scope: global, Type: types.NewSystemStringType("relay_log_index"), Default: "relay.index"},
		&sql.MysqlSystemVariable{Name: "relay_log_recovery", Scope: global, Type: types.NewSystemBoolType("relay_log_recovery"), Default: int8(1)},
	}...)
	return v
}

// Settings returns the current settings.
func (v Vars) Settings() Settings { return v.set.Get() }

// Attach names the replica whose running applier refuses SET GLOBAL
// replica_parallel_type / replica_preserve_commit_order, and gives it
// the lag thresholds.
func (v Vars) Attach(r *replica.Replica) {
	v.rep.Store(r)
	r.SetFailoverLag(func() (int64, time.Duration) {
		s := v.set.Get()
		return s.FailoverLagTransactions, s.FailoverLag
	})
}

// Push configures owner with the settings now and after every change.
func (v Vars) Push(owner func(Settings)) { v.set.Push(owner) }
