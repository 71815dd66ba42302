package binlogsql

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/internal/mysqlerr"
	"petrel/sqlengine"
	"petrel/storage"
	"petrel/surface/sysvar"
)

// Variables defines the binary log's variables on the server's g, which
// the config file may set before the engine applies it, and returns them.
func Variables(g *sqlengine.Globals, logBin bool, datadir string) *Vars {
	v := &Vars{set: sysvar.New(Settings{})}
	global := sql.GetMysqlScope(sql.SystemVariableScope_Global)
	onOff := func(b bool) int8 {
		if b {
			return 1
		}
		return 0
	}
	g.Add([]sql.SystemVariable{
		&sql.MysqlSystemVariable{Name: "log_bin", Scope: global, Type: types.NewSystemBoolType("log_bin"), Default: onOff(logBin)},
		&sql.MysqlSystemVariable{Name: "log_bin_basename", Scope: global, Type: types.NewSystemStringType("log_bin_basename"), Default: datadir + "/binlog/binlog"},
		&sql.MysqlSystemVariable{Name: "log_bin_index", Scope: global, Type: types.NewSystemStringType("log_bin_index"), Default: datadir + "/binlog/binlog.index"},
		// Write sets are hashed with XXH64 only (MySQL 8.0.26+ has no
		// other choice but OFF, which WRITESET tracking refuses).
		&sql.MysqlSystemVariable{Name: "transaction_write_set_extraction", Scope: global, Type: types.NewSystemEnumType("transaction_write_set_extraction", "XXHASH64"), Default: "XXHASH64"},
		&sql.MysqlSystemVariable{Name: "gtid_mode", Scope: global, Type: types.NewSystemEnumType("gtid_mode", "OFF", "OFF_PERMISSIVE", "ON_PERMISSIVE", "ON"), Default: "ON"},
		&sql.MysqlSystemVariable{Name: "enforce_gtid_consistency", Scope: global, Type: types.NewSystemEnumType("enforce_gtid_consistency", "OFF", "ON", "WARN"), Default: "ON"},
		&sql.MysqlSystemVariable{Name: "binlog_format", Scope: global, Type: types.NewSystemEnumType("binlog_format", "ROW"), Default: "ROW"},
		&sql.MysqlSystemVariable{Name: "binlog_row_image", Scope: global, Type: types.NewSystemEnumType("binlog_row_image", "FULL"), Default: "FULL"},
	}...)
	g.Add(v.settingVariables()...)
	return v
}

// Register pushes the settings to the open log (now and at every SET
// GLOBAL), and registers its statements, live variables and status
// variables; old files expire at start and at each rotation
// (binlog_expire_logs_seconds).
func (v *Vars) Register(e *sqlengine.Engine, l *binlog.Log, store *storage.Engine, clock base.Clock, logger *slog.Logger) {
	var expireAfter atomic.Int64
	v.configure(l, &expireAfter)
	e.Globals().Live("gtid_executed", func() any { return l.Executed().String() })
	e.Globals().Live("gtid_purged", func() any { return l.Purged().String() })
	e.RegisterStatus("Binlog_commits", func() any { c, _, _ := l.StatsSnapshot(); return c })
	e.RegisterStatus("Binlog_group_commits", func() any { _, g, _ := l.StatsSnapshot(); return g })
	e.RegisterStatus("Binlog_bytes_written", func() any { _, _, b := l.StatsSnapshot(); return b })
	v.registerCompression(e, l)

	showLogs := func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
		res := &sqlengine.AdminResult{Columns: []string{"Log_name", "File_size", "Encrypted"}}
		for _, f := range l.Files() {
			res.Rows = append(res.Rows, []*string{sqlengine.Str(f.Name), sqlengine.Str(strconv.FormatInt(f.Size, 10)), sqlengine.Str("No")})
		}
		return res, nil
	}
	e.RegisterAdmin(`SHOW (?:BINARY|MASTER) LOGS`, sql.PrivilegeType_ReplicationClient, showLogs)
	status := func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
		p := l.Current()
		return &sqlengine.AdminResult{
			Columns: []string{"File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB", "Executed_Gtid_Set"},
			Rows:    [][]*string{{sqlengine.Str(p.File), sqlengine.Str(strconv.FormatUint(p.Pos, 10)), sqlengine.Str(""), sqlengine.Str(""), sqlengine.Str(l.Executed().String())}},
		}, nil
	}
	e.RegisterAdmin(`SHOW MASTER STATUS`, sql.PrivilegeType_ReplicationClient, status)
	e.RegisterAdmin(`SHOW BINARY LOG STATUS`, sql.PrivilegeType_ReplicationClient, status)
	e.RegisterAdmin(`SHOW BINLOG EVENTS(?: IN '([^']*)')?(?: FROM (\d+))?(?: LIMIT (?:(\d+) ?, ?)?(\d+))?`, sql.PrivilegeType_ReplicationSlave,
		func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			file := m[1]
			if file == "" {
				file = l.Files()[0].Name
			}
			path, ok := l.Path(file)
			if !ok {
				return nil, mysqlerr.New(mysqlerr.ErErrorWhenExecuting, "Error when executing command SHOW BINLOG EVENTS: Could not find target log (%s)", file)
			}
			from, _ := strconv.ParseUint(m[2], 10, 64)
			offset, _ := strconv.Atoi(m[3])
			limit := -1
			if m[4] != "" {
				limit, _ = strconv.Atoi(m[4])
			}
			evs, err := binlog.DescribeEvents(path, file, from, offset, limit)
			if err != nil {
				return nil, err
			}
			res := &sqlengine.AdminResult{Columns: []string{"Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info"}}
			for _, ev := range evs {
				res.Rows = append(res.Rows, []*string{sqlengine.Str(file), sqlengine.Str(strconv.FormatUint(ev.Pos, 10)), sqlengine.Str(ev.Type),
					sqlengine.Str(strconv.FormatUint(uint64(ev.ServerID), 10)), sqlengine.Str(strconv.FormatUint(ev.EndPos, 10)), sqlengine.Str(ev.Info)})
			}
			return res, nil
		})
	// FLUSH LOGS closes and reopens every log: of Petrel's, only the
	// binary log is a file (its own messages go to stderr), so it
	// rotates the binary log as FLUSH BINARY LOGS does, and FLUSH ERROR,
	// GENERAL, SLOW or ENGINE LOGS have nothing to reopen.
	e.RegisterAdmin(`FLUSH (?:NO_WRITE_TO_BINLOG |LOCAL )?(?:BINARY )?LOGS`, sql.PrivilegeType_Reload,
		func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
			return &sqlengine.AdminResult{}, l.Rotate()
		})
	registerOtherLogFlushes(e)
	e.RegisterAdmin(`PURGE (?:BINARY|MASTER) LOGS TO '([^']*)'`, sql.PrivilegeType_Super,
		func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			return &sqlengine.AdminResult{}, l.PurgeTo(m[1])
		})
	e.RegisterAdmin(`PURGE (?:BINARY|MASTER) LOGS BEFORE '([^']*)'`, sql.PrivilegeType_Super,
		func(_ context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			t, err := time.ParseInLocation("2006-01-02 15:04:05", strings.TrimSpace(m[1]), time.Local)
			if err != nil {
				if t, err = time.ParseInLocation("2006-01-02", strings.TrimSpace(m[1]), time.Local); err != nil {
					return nil, mysqlerr.New(mysqlerr.ErWrongValue, "Incorrect DATETIME value: '%s'", m[1])
				}
			}
			return &sqlengine.AdminResult{}, l.PurgeBefore(t)
		})
	e.RegisterAdmin(`RESET (?:MASTER|BINARY LOGS AND GTIDS)`, sql.PrivilegeType_Reload,
		func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
			return &sqlengine.AdminResult{}, store.WithCommitsPaused(func() error {
				// The log is storage's WAL: what it holds must be in
				// storage's sstables before it is deleted.
				if err := store.FlushLogged(); err != nil {
					return err
				}
				if err := l.Reset(); err != nil {
					return err
				}
				p := l.Current()
				return store.SetSinkPos(binlog.EncodeSinkPos(p.File, p.Pos, 0))
			})
		})
	e.RegisterAdmin(`SELECT WAIT_FOR_EXECUTED_GTID_SET\(\s*'([^']*)'\s*(?:,\s*([0-9.]+)\s*)?\)`, 0,
		func(ctx context.Context, _ *sqlengine.Session, m []string) (*sqlengine.AdminResult, error) {
			want, err := base.ParseGTIDSet(m[1])
			if err != nil {
				return nil, mysqlerr.New(mysqlerr.ErMalformedGTIDSet, "Malformed GTID set specification '%s'.", m[1])
			}
			timeout := time.Duration(0)
			if m[2] != "" {
				if timeout, err = sqlengine.ParseSeconds(m[2]); err != nil {
					return nil, err
				}
			}
			res := "0"
			if !l.WaitExecuted(ctx, want, timeout) {
				res = "1"
			}
			return &sqlengine.AdminResult{Columns: []string{fmt.Sprintf("WAIT_FOR_EXECUTED_GTID_SET('%s'%s)", m[1], optArg(m[2]))}, Rows: [][]*string{{sqlengine.Str(res)}}}, nil
		})
	expire := func() {
		if age := time.Duration(expireAfter.Load()); age > 0 {
			if err := l.PurgeBefore(clock.Now().Add(-age)); err != nil {
				logger.Warn("binlog: expiring old logs", "err", err)
			}
		}
	}
	expire()
	l.OnRotate(expire)
}

func optArg(s string) string {
	if s == "" {
		return ""
	}
	return ", " + s
}

// registerOtherLogFlushes: FLUSH ERROR, GENERAL, SLOW or ENGINE LOGS
// have nothing to reopen (Petrel's messages go to stderr).
func registerOtherLogFlushes(e *sqlengine.Engine) {
	e.RegisterAdmin(`FLUSH (?:NO_WRITE_TO_BINLOG |LOCAL )?(?:ERROR|GENERAL|SLOW|ENGINE) LOGS`, sql.PrivilegeType_Reload,
		func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
			return &sqlengine.AdminResult{}, nil
		})
}

// RegisterLogFlushesWithoutLog answers FLUSH [BINARY | ERROR | ...] LOGS
// on a server without a binary log: nothing to rotate or reopen, OK, as
// MySQL's with log_bin off (it was 1105 'logs not supported', and
// logrotate's `mysqladmin flush-logs` failed).
func RegisterLogFlushesWithoutLog(e *sqlengine.Engine) {
	e.RegisterAdmin(`FLUSH (?:NO_WRITE_TO_BINLOG |LOCAL )?(?:BINARY )?LOGS`, sql.PrivilegeType_Reload,
		func(context.Context, *sqlengine.Session, []string) (*sqlengine.AdminResult, error) {
			return &sqlengine.AdminResult{}, nil
		})
	registerOtherLogFlushes(e)
}
