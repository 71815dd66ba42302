package node

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/binlog"
	"petrel/internal/mysqlerr"
	"petrel/repl/replica"
	"petrel/semisync"
	"petrel/sqlengine"
)

// semiVars reads the semi-sync variables (each under its source/master or
// replica/slave spelling).
type semiVars struct {
	enabled, timeout, waitPoint, count, noReplica, strict, replicaEnabled, ackAfter func() any
}

// semiVariables defines the semi-sync variables (before the config is
// applied, so the config file can set them).
func semiVariables() semiVars {
	b := func(name string) sql.Type { return types.NewSystemBoolType(name) }
	i := func(name string, lo, hi int64) sql.Type { return types.NewSystemIntType(name, lo, hi, false) }
	v := semiVars{
		enabled:   sqlengine.AliasVariables([]string{"rpl_semi_sync_source_enabled", "rpl_semi_sync_master_enabled"}, b("rpl_semi_sync_source_enabled"), int8(0)),
		timeout:   sqlengine.AliasVariables([]string{"rpl_semi_sync_source_timeout", "rpl_semi_sync_master_timeout"}, i("rpl_semi_sync_source_timeout", 0, 4294967295), int64(10000)),
		waitPoint: sqlengine.AliasVariables([]string{"rpl_semi_sync_source_wait_point", "rpl_semi_sync_master_wait_point"}, types.NewSystemEnumType("rpl_semi_sync_source_wait_point", semisync.AfterSync, semisync.AfterCommit), semisync.AfterSync),
		count:     sqlengine.AliasVariables([]string{"rpl_semi_sync_source_wait_for_replica_count", "rpl_semi_sync_master_wait_for_slave_count"}, i("rpl_semi_sync_source_wait_for_replica_count", 1, 65535), int64(1)),
		noReplica: sqlengine.AliasVariables([]string{"rpl_semi_sync_source_wait_no_replica", "rpl_semi_sync_master_wait_no_slave"}, b("rpl_semi_sync_source_wait_no_replica"), int8(1)),
		// Petrel's: never fall back to asynchronous (safety over availability).
		strict:         sqlengine.AliasVariables([]string{"rpl_semi_sync_source_strict"}, b("rpl_semi_sync_source_strict"), int8(0)),
		replicaEnabled: sqlengine.AliasVariables([]string{"rpl_semi_sync_replica_enabled", "rpl_semi_sync_slave_enabled"}, b("rpl_semi_sync_replica_enabled"), int8(0)),
		// Petrel's: when a replica acknowledges (see replica.AckRelayWrite).
		ackAfter: sqlengine.AliasVariables([]string{"rpl_semi_sync_replica_ack_after", "rpl_semi_sync_slave_ack_after"},
			types.NewSystemEnumType("rpl_semi_sync_replica_ack_after", replica.AckRelayWrite, replica.AckRelaySync), replica.AckRelayWrite),
	}
	sqlengine.AliasVariables([]string{"rpl_semi_sync_source_trace_level", "rpl_semi_sync_master_trace_level"}, i("rpl_semi_sync_source_trace_level", 0, 4294967295), int64(32))
	sqlengine.AliasVariables([]string{"rpl_semi_sync_replica_trace_level", "rpl_semi_sync_slave_trace_level"}, i("rpl_semi_sync_replica_trace_level", 0, 4294967295), int64(32))
	global := sql.GetMysqlScope(sql.SystemVariableScope_Global)
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{
		&sql.MysqlSystemVariable{Name: "init_rpl_role", Scope: global, Type: types.NewSystemEnumType("init_rpl_role", "MASTER", "SLAVE"), Default: "MASTER"},
	})
	return v
}

func truthy(v any) bool {
	n, ok := toInt(v)
	if ok {
		return n != 0
	}
	s := strings.ToUpper(fmt.Sprint(v))
	return s == "ON" || s == "TRUE"
}

func (v semiVars) settings() semisync.Settings {
	ms, _ := toInt(v.timeout())
	cnt, _ := toInt(v.count())
	return semisync.Settings{
		Enabled: truthy(v.enabled()), Timeout: time.Duration(ms) * time.Millisecond,
		WaitPoint: strings.ToUpper(fmt.Sprint(v.waitPoint())), WaitForCount: int(cnt),
		WaitNoReplica: truthy(v.noReplica()), Strict: truthy(v.strict()),
	}
}

// semiWaiter adapts the Tracker to the binary log.
type semiWaiter struct {
	t *semisync.Tracker
	v semiVars
}

func (w semiWaiter) Admit() error { return w.t.Admit() }

func (w semiWaiter) WaitAcked(ctx context.Context, p binlog.Position) error {
	return w.t.Wait(ctx, semisync.Pos{File: p.File, Off: p.Pos})
}

func (w semiWaiter) AfterSync() bool { return w.v.settings().WaitPoint != semisync.AfterCommit }

// NetworkDurable: with semi-sync ON at AFTER_SYNC, a commit returns only
// once a replica holds it durably, so storage need not fsync it too.
func (w semiWaiter) NetworkDurable() bool { return w.t.NetworkDurable() }

// openSemiSync builds the tracker and plugs it into the log; the source
// and replica read the switches from it.
func (n *Node) openSemiSync() {
	v := n.semi
	n.tracker = semisync.New(v.settings, func() semisync.Pos {
		p := n.binlog.SyncedPosition()
		return semisync.Pos{File: p.File, Off: p.Pos}
	}, n.opts.Clock)
	n.binlog.SetCommitWaiter(semiWaiter{t: n.tracker, v: v})
	n.registerSemiSyncSQL()
}

func (n *Node) registerSemiSyncSQL() {
	t, v := n.tracker, n.semi
	onOff := func(b bool) string {
		if b {
			return "ON"
		}
		return "OFF"
	}
	us := func(d time.Duration) uint64 { return uint64(d / time.Microsecond) }
	avg := func(d time.Duration, n uint64) uint64 {
		if n == 0 {
			return 0
		}
		return us(d) / n
	}
	counters := map[string]func(semisync.Counters) any{
		"clients":               func(c semisync.Counters) any { return c.Clients },
		"status":                func(c semisync.Counters) any { return onOff(c.Status) },
		"yes_tx":                func(c semisync.Counters) any { return c.YesTx },
		"no_tx":                 func(c semisync.Counters) any { return c.NoTx },
		"no_times":              func(c semisync.Counters) any { return c.NoTimes },
		"tx_waits":              func(c semisync.Counters) any { return c.TxWaits },
		"tx_wait_time":          func(c semisync.Counters) any { return us(c.TxWaitTime) },
		"tx_avg_wait_time":      func(c semisync.Counters) any { return avg(c.TxWaitTime, c.TxWaits) },
		"wait_sessions":         func(c semisync.Counters) any { return c.WaitSessions },
		"net_waits":             func(c semisync.Counters) any { return c.NetWaits },
		"net_wait_time":         func(c semisync.Counters) any { return us(c.NetWaitTime) },
		"net_avg_wait_time":     func(c semisync.Counters) any { return avg(c.NetWaitTime, c.NetWaits) },
		"wait_pos_backtraverse": func(c semisync.Counters) any { return c.BackTraverse },
		"timefunc_failures":     func(semisync.Counters) any { return uint64(0) },
	}
	for name, f := range counters {
		f := f
		get := func() any { return f(t.Snapshot()) }
		sqlengine.RegisterStatus("Rpl_semi_sync_master_"+name, get)
		sqlengine.RegisterStatus("Rpl_semi_sync_source_"+name, get)
	}
	replicaStatus := func() any {
		return onOff(n.replica != nil && truthy(v.replicaEnabled()) && n.replica.CountersSnapshot().SemiSync)
	}
	sqlengine.RegisterStatus("Rpl_semi_sync_slave_status", replicaStatus)
	sqlengine.RegisterStatus("Rpl_semi_sync_replica_status", replicaStatus)

	// The plugins are built in: INSTALL PLUGIN succeeds, SHOW PLUGINS lists them.
	plugins := map[string]bool{"rpl_semi_sync_master": true, "rpl_semi_sync_slave": true, "rpl_semi_sync_source": true, "rpl_semi_sync_replica": true}
	n.sql.RegisterAdmin(`INSTALL PLUGIN (\w+) SONAME '([^']*)'`, sql.PrivilegeType_Insert,
		func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			if !plugins[strings.ToLower(m[1])] {
				return nil, mysql.NewSQLError(mysqlerr.ErCantOpenLibrary, mysqlerr.State(mysqlerr.ErCantOpenLibrary), "Can't open shared library '%s' (errno: 2 cannot open shared object file: No such file or directory)", m[2])
			}
			return &sqlengine.AdminResult{}, nil
		})
	n.sql.RegisterAdmin(`UNINSTALL PLUGIN (\w+)`, sql.PrivilegeType_Delete,
		func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			if !plugins[strings.ToLower(m[1])] {
				return nil, mysql.NewSQLError(mysqlerr.ErSPDoesNotExist, mysqlerr.State(mysqlerr.ErSPDoesNotExist), "PLUGIN %s does not exist", m[1])
			}
			return &sqlengine.AdminResult{}, nil
		})
	n.sql.RegisterAdmin(`SHOW PLUGINS`, 0,
		func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
			res := &sqlengine.AdminResult{Columns: []string{"Name", "Status", "Type", "Library", "License"}}
			row := func(name, typ, lib string) {
				l := (*string)(nil)
				if lib != "" {
					l = sqlengine.Str(lib)
				}
				res.Rows = append(res.Rows, []*string{sqlengine.Str(name), sqlengine.Str("ACTIVE"), sqlengine.Str(typ), l, sqlengine.Str("GPL")})
			}
			row("binlog", "STORAGE ENGINE", "")
			row("mysql_native_password", "AUTHENTICATION", "")
			row("InnoDB", "STORAGE ENGINE", "")
			row("rpl_semi_sync_source", "REPLICATION", "semisync_source.so")
			row("rpl_semi_sync_replica", "REPLICATION", "semisync_replica.so")
			row("rpl_semi_sync_master", "REPLICATION", "semisync_master.so")
			row("rpl_semi_sync_slave", "REPLICATION", "semisync_slave.so")
			return res, nil
		})
}
