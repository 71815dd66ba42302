// Package semisyncsql is semi-sync replication's SQL surface: the
// rpl_semi_sync_* system variables (source and replica switches), the
// Rpl_semi_sync_* status variables read from the Tracker, and the
// built-in plugins' statements (INSTALL/UNINSTALL PLUGIN, SHOW PLUGINS),
// registered through sqlengine's extension points. semisync stays a pure
// core; node calls Variables before the config is applied and Register
// once the Tracker exists.
package semisyncsql

import (
	"context"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
	"petrel/semisync"
	"petrel/sqlengine"
	"petrel/surface/sysvar"
)

// Settings are semi-sync's settings, typed: the variables' change hooks
// validate them (surface/sysvar) and push them to their owners.
type Settings struct {
	// Source are the source's (rpl_semi_sync_source_*, with the master
	// spellings), pushed to the Tracker (Tracker.Configure).
	Source semisync.Settings
	// ReplicaEnabled is rpl_semi_sync_replica_enabled, which the replica
	// reads when it connects; default OFF.
	ReplicaEnabled bool
}

// Vars are the semi-sync variables (each under its source/master or
// replica/slave spelling).
type Vars struct{ set *sysvar.Set[Settings] }

// Variables defines the semi-sync variables on the server's g (before the
// config is applied, so the config file can set them).
func Variables(g *sqlengine.Globals) Vars {
	v := Vars{set: sysvar.New(Settings{})}
	b := func(name string) sql.Type { return types.NewSystemBoolType(name) }
	i := func(name string, lo, hi int64) sql.Type { return types.NewSystemIntType(name, lo, hi, false) }
	// alias defines names as spellings of one setting.
	alias := func(names []string, typ sql.Type, def any, apply func(*semisync.Settings, any)) {
		g.CheckedAlias(names, typ, def, v.set.Field(def, func(s *Settings, x any) error { apply(&s.Source, x); return nil }))
	}
	alias([]string{"rpl_semi_sync_source_enabled", "rpl_semi_sync_master_enabled"}, b("rpl_semi_sync_source_enabled"), int8(0),
		func(s *semisync.Settings, x any) { s.Enabled = sysvar.Bool(x) })
	alias([]string{"rpl_semi_sync_source_timeout", "rpl_semi_sync_master_timeout"}, i("rpl_semi_sync_source_timeout", 0, 4294967295), int64(10000),
		func(s *semisync.Settings, x any) { s.Timeout = time.Duration(sysvar.Int(x)) * time.Millisecond })
	alias([]string{"rpl_semi_sync_source_wait_point", "rpl_semi_sync_master_wait_point"}, types.NewSystemEnumType("rpl_semi_sync_source_wait_point", semisync.AfterSync, semisync.AfterCommit), semisync.AfterSync,
		func(s *semisync.Settings, x any) { s.WaitPoint = strings.ToUpper(sysvar.String(x)) })
	alias([]string{"rpl_semi_sync_source_wait_for_replica_count", "rpl_semi_sync_master_wait_for_slave_count"}, i("rpl_semi_sync_source_wait_for_replica_count", 1, 65535), int64(1),
		func(s *semisync.Settings, x any) { s.WaitForCount = int(sysvar.Int(x)) })
	alias([]string{"rpl_semi_sync_source_wait_no_replica", "rpl_semi_sync_master_wait_no_slave"}, b("rpl_semi_sync_source_wait_no_replica"), int8(1),
		func(s *semisync.Settings, x any) { s.WaitNoReplica = sysvar.Bool(x) })
	// Petrel's: never fall back to asynchronous (safety over availability).
	alias([]string{"rpl_semi_sync_source_strict"}, b("rpl_semi_sync_source_strict"), int8(0),
		func(s *semisync.Settings, x any) { s.Strict = sysvar.Bool(x) })
	g.CheckedAlias([]string{"rpl_semi_sync_replica_enabled", "rpl_semi_sync_slave_enabled"}, b("rpl_semi_sync_replica_enabled"), int8(0),
		v.set.Field(int8(0), func(s *Settings, x any) error { s.ReplicaEnabled = sysvar.Bool(x); return nil }))
	g.Alias([]string{"rpl_semi_sync_source_trace_level", "rpl_semi_sync_master_trace_level"}, i("rpl_semi_sync_source_trace_level", 0, 4294967295), int64(32))
	g.Alias([]string{"rpl_semi_sync_replica_trace_level", "rpl_semi_sync_slave_trace_level"}, i("rpl_semi_sync_replica_trace_level", 0, 4294967295), int64(32))
	return v
}

// ReplicaEnabled is rpl_semi_sync_replica_enabled.
func (v Vars) ReplicaEnabled() bool { return v.set.Get().ReplicaEnabled }

// Source returns the source's current settings.
func (v Vars) Source() semisync.Settings { return v.set.Get().Source }

// Push configures owner with the settings now and after every change
// (SET GLOBAL): the tracker takes its settings from there
// (Tracker.Configure) instead of reading the variables on every commit.
func (v Vars) Push(owner func(Settings)) { v.set.Push(owner) }

// Register registers the source's semi-sync status variables (under
// both spellings), the replica's Rpl_semi_sync_replica_status
// (replicaOn: the replica runs with semi-sync on) and the built-in
// plugins' statements.
func Register(e *sqlengine.Engine, t *semisync.Tracker, replicaOn func() bool) {
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
		e.RegisterStatus("Rpl_semi_sync_master_"+name, get)
		e.RegisterStatus("Rpl_semi_sync_source_"+name, get)
	}
	replicaStatus := func() any {
		return onOff(replicaOn())
	}
	e.RegisterStatus("Rpl_semi_sync_slave_status", replicaStatus)
	e.RegisterStatus("Rpl_semi_sync_replica_status", replicaStatus)

	// The plugins are built in: INSTALL PLUGIN succeeds, SHOW PLUGINS lists them.
	plugins := map[string]bool{"rpl_semi_sync_master": true, "rpl_semi_sync_slave": true, "rpl_semi_sync_source": true, "rpl_semi_sync_replica": true}
	e.RegisterAdmin(`INSTALL PLUGIN (\w+) SONAME '([^']*)'`, sql.PrivilegeType_Insert,
		func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			if !plugins[strings.ToLower(m[1])] {
				return nil, mysqlerr.New(mysqlerr.ErCantOpenLibrary, "Can't open shared library '%s' (errno: 2 cannot open shared object file: No such file or directory)", m[2])
			}
			return &sqlengine.AdminResult{}, nil
		})
	e.RegisterAdmin(`UNINSTALL PLUGIN (\w+)`, sql.PrivilegeType_Delete,
		func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			if !plugins[strings.ToLower(m[1])] {
				return nil, mysqlerr.New(mysqlerr.ErSPDoesNotExist, "PLUGIN %s does not exist", m[1])
			}
			return &sqlengine.AdminResult{}, nil
		})
	e.RegisterAdmin(`SHOW PLUGINS`, 0,
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
