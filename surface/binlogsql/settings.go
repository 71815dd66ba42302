package binlogsql

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/binlog"
	"petrel/surface/sysvar"
)

// Settings are the binary log's global settings, typed: the variables'
// change hooks validate them (surface/sysvar) and push the dynamic ones
// to the open log (Register). MaxSize, TruncateCorrupt and
// TruncateUnapplied act when the log opens (binlog.Options).
type Settings struct {
	// SyncBinlog is sync_binlog: the log fsyncs every SyncBinlog-th commit
	// group, 0 leaves it to the operating system; default 1.
	SyncBinlog int
	// MaxSize is max_binlog_size: a file rotates past it; default 1 GiB.
	MaxSize int64
	// Expire is binlog_expire_logs_seconds: older files are purged at
	// start and at each rotation (0: never); default 30 days.
	Expire time.Duration
	// DependencyTracking is binlog_transaction_dependency_tracking
	// (binlog.TrackCommitOrder, TrackWriteset, TrackWritesetSession);
	// default WRITESET.
	DependencyTracking string
	// DependencyHistorySize is binlog_transaction_dependency_history_size;
	// default binlog.DefaultHistorySize.
	DependencyHistorySize int
	// Compression and CompressionLevel are the global
	// binlog_transaction_compression (default OFF) and
	// binlog_transaction_compression_level_zstd (default 3): the
	// replicated transactions' (a client's take its session's).
	Compression      bool
	CompressionLevel int
	// TruncateCorrupt is binlog_recovery_truncate_corrupt: at start, cut
	// the log at corruption instead of refusing to start; default OFF.
	TruncateCorrupt bool
	// TruncateUnapplied is init_rpl_role=SLAVE: a crashed semi-sync
	// source restarted as a replica (MariaDB's --init-rpl-role) cuts its
	// unapplied, possibly unacknowledged tail instead of committing it;
	// default MASTER (false).
	TruncateUnapplied bool
}

// Vars are the binary log's variables: their settings, and whether any
// scope ever set compression ON (until then no transaction reads its
// session's compression variables).
type Vars struct {
	set            *sysvar.Set[Settings]
	compressionSet atomic.Bool
}

// Settings returns the current settings.
func (v *Vars) Settings() Settings { return v.set.Get() }

// settingVariables defines the variables of Settings.
func (v *Vars) settingVariables() []sql.SystemVariable {
	global := sql.GetMysqlScope(sql.SystemVariableScope_Global)
	both := sql.GetMysqlScope(sql.SystemVariableScope_Both)
	def := func(sv *sql.MysqlSystemVariable, apply func(*Settings, any) error) sql.SystemVariable {
		return sysvar.Global(v.set, sv, apply)
	}
	compression := def(&sql.MysqlSystemVariable{Name: "binlog_transaction_compression", Scope: both, Dynamic: true,
		Type: types.NewSystemBoolType("binlog_transaction_compression"), Default: int8(0)},
		func(s *Settings, x any) error { s.Compression = sysvar.Bool(x); return nil }).(*sql.MysqlSystemVariable)
	globalHook := compression.NotifyChanged
	compression.NotifyChanged = func(ctx *sql.Context, scope sql.SystemVariableScope, x sql.SystemVarValue) error {
		if sysvar.Bool(x.Val) {
			v.compressionSet.Store(true)
		}
		return globalHook(ctx, scope, x)
	}
	return []sql.SystemVariable{
		def(&sql.MysqlSystemVariable{Name: "sync_binlog", Scope: global, Dynamic: true, Type: types.NewSystemUintType("sync_binlog", 0, 4294967295), Default: uint64(1)},
			func(s *Settings, x any) error { s.SyncBinlog = int(sysvar.Uint(x)); return nil }),
		// GMS's definitions, given the hook.
		def(&sql.MysqlSystemVariable{Name: "max_binlog_size", Scope: global, Dynamic: true, Type: types.NewSystemUintType("max_binlog_size", 4096, 1073741824), Default: int64(1073741824)},
			func(s *Settings, x any) error { s.MaxSize = int64(sysvar.Uint(x)); return nil }),
		def(&sql.MysqlSystemVariable{Name: "binlog_expire_logs_seconds", Scope: global, Dynamic: true, Type: types.NewSystemIntType("binlog_expire_logs_seconds", 0, 4294967295, false), Default: int64(2592000)},
			func(s *Settings, x any) error { s.Expire = time.Duration(sysvar.Int(x)) * time.Second; return nil }),
		// Dependency tracking (binlog/writeset.go): the last_committed of
		// every GTID event, which parallel replicas schedule on.
		def(&sql.MysqlSystemVariable{Name: "binlog_transaction_dependency_tracking", Scope: global, Dynamic: true,
			Type:    types.NewSystemEnumType("binlog_transaction_dependency_tracking", binlog.TrackCommitOrder, binlog.TrackWriteset, binlog.TrackWritesetSession),
			Default: binlog.TrackWriteset},
			func(s *Settings, x any) (err error) {
				s.DependencyTracking, err = binlog.ParseTracking(sysvar.String(x))
				return err
			}),
		def(&sql.MysqlSystemVariable{Name: "binlog_transaction_dependency_history_size", Scope: global, Dynamic: true,
			Type: types.NewSystemIntType("binlog_transaction_dependency_history_size", 1, 1000000, false), Default: int64(binlog.DefaultHistorySize)},
			func(s *Settings, x any) error { s.DependencyHistorySize = int(sysvar.Int(x)); return nil }),
		// Binary log transaction compression (compression.go).
		compression,
		def(&sql.MysqlSystemVariable{Name: "binlog_transaction_compression_level_zstd", Scope: both, Dynamic: true,
			Type: types.NewSystemIntType("binlog_transaction_compression_level_zstd", 1, 22, false), Default: int64(binlog.DefaultCompressionLevel)},
			func(s *Settings, x any) error { s.CompressionLevel = int(sysvar.Int(x)); return nil }),
		// Petrel's: read-only, it acts only when the server starts.
		def(&sql.MysqlSystemVariable{Name: "binlog_recovery_truncate_corrupt", Scope: global, Type: types.NewSystemBoolType("binlog_recovery_truncate_corrupt"), Default: int8(0)},
			func(s *Settings, x any) error { s.TruncateCorrupt = sysvar.Bool(x); return nil }),
		def(&sql.MysqlSystemVariable{Name: "init_rpl_role", Scope: global, Type: types.NewSystemEnumType("init_rpl_role", "MASTER", "SLAVE"), Default: "MASTER"},
			func(s *Settings, x any) error {
				s.TruncateUnapplied = strings.EqualFold(sysvar.String(x), "SLAVE")
				return nil
			}),
	}
}

// logOwner is the settings' owner: the open log.
type logOwner interface {
	SetSyncBinlog(n int)
	SetDependencyTracking(mode string) error
	SetDependencyHistorySize(n int)
	SetReplicaCompression(level int)
}

// configure pushes the settings to the open log, each one when it
// changed (setting sync_binlog restarts its count of groups, the
// dependency settings their history), and the expiry age to expire.
func (v *Vars) configure(l logOwner, expire *atomic.Int64) {
	var last *Settings
	v.set.Push(func(s Settings) {
		if last == nil || s.SyncBinlog != last.SyncBinlog {
			l.SetSyncBinlog(s.SyncBinlog)
		}
		if last == nil || s.DependencyTracking != last.DependencyTracking {
			_ = l.SetDependencyTracking(s.DependencyTracking) // validated when set
		}
		if last == nil || s.DependencyHistorySize != last.DependencyHistorySize {
			l.SetDependencyHistorySize(s.DependencyHistorySize)
		}
		level := 0
		if s.Compression {
			level = s.CompressionLevel
		}
		l.SetReplicaCompression(level)
		expire.Store(int64(s.Expire))
		last = &s
	})
}
