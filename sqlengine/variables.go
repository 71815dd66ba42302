package sqlengine

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/sqlengine/arith"
	"petrel/sqlengine/sqlmode"
	"petrel/sqlengine/wire"
	"petrel/storage"
)

// registerVariables defines Petrel's system variables on g and applies
// the config file's values; e is nil when only the config is checked
// (CheckVariables).
func registerVariables(g *Globals, opts Options, e *Engine) error {
	global := sql.GetMysqlScope(sql.SystemVariableScope_Global)
	both := sql.GetMysqlScope(sql.SystemVariableScope_Both)
	g.Add(
		&sql.MysqlSystemVariable{Name: "version", Scope: global, Type: types.NewSystemStringType("version"), Default: Version},
		// CREATE FUNCTION without DETERMINISTIC, NO SQL or READS SQL DATA
		// is refused (1418) while the binary log is on, unless this is ON.
		&sql.MysqlSystemVariable{Name: "log_bin_trust_function_creators", Scope: global, Dynamic: true, Type: types.NewSystemBoolType("log_bin_trust_function_creators"), Default: int8(0)},
		&sql.MysqlSystemVariable{Name: "version_comment", Scope: global, Type: types.NewSystemStringType("version_comment"), Default: "Petrel"},
		&sql.MysqlSystemVariable{Name: "server_uuid", Scope: global, Type: types.NewSystemStringType("server_uuid"), Default: opts.ServerUUID},
		&sql.MysqlSystemVariable{Name: "server_id", Scope: global, Dynamic: true, Type: types.NewSystemUintType("server_id", 0, 4294967295), Default: uint32(opts.ServerID)},
		// Its global value is pushed to the engine (LockWaitTimeout: the
		// replica's applier reads it for every transaction it applies).
		&sql.MysqlSystemVariable{Name: "innodb_lock_wait_timeout", Scope: both, Dynamic: true, Type: types.NewSystemIntType("innodb_lock_wait_timeout", 1, 1073741824, false), Default: int64(50),
			NotifyChanged: func(_ *sql.Context, scope sql.SystemVariableScope, v sql.SystemVarValue) error {
				if n, ok := arith.ToInt64(v.Val); ok && scope != nil && scope.IsGlobalOnly() && e != nil {
					e.lockWaitSecs.Store(n)
				}
				return nil
			}},
		&sql.MysqlSystemVariable{Name: "default_storage_engine", Scope: both, Dynamic: true, Type: types.NewSystemStringType("default_storage_engine"), Default: "InnoDB"},
		&sql.MysqlSystemVariable{Name: "max_allowed_packet", Scope: both, Dynamic: true, Type: types.NewSystemUintType("max_allowed_packet", 1024, 1073741824), Default: uint64(64 << 20)},
		// MySQL 8.0.27+: '*' is default_authentication_plugin
		// (caching_sha2_password), whose value CREATE USER follows.
		&sql.MysqlSystemVariable{Name: "authentication_policy", Scope: global, Type: types.NewSystemStringType("authentication_policy"), Default: "*,,"},
		&sql.MysqlSystemVariable{Name: "have_ssl", Scope: global, Type: types.NewSystemStringType("have_ssl"), Default: haveSSL(opts)},
		// Petrel's: bytes of large client packets held at once (packetmem.go).
		// The block cache, sized at start-up (Pebble's cannot be resized).
		&sql.MysqlSystemVariable{Name: "innodb_buffer_pool_size", Scope: global, Type: types.NewSystemIntType("innodb_buffer_pool_size", 5<<20, math.MaxInt64, false), Default: storage.DefaultCacheSize()},
		// Pebble's memtable, sized at start-up: MyRocks'
		// rocksdb_write_buffer_size. Larger ones cut a write-heavy
		// replica's compaction work (docs/PERFORMANCE.md, issue 16) and
		// lengthen crash recovery's replay of the binlog.
		&sql.MysqlSystemVariable{Name: "petrel_memtable_size", Scope: global, Type: types.NewSystemIntType("petrel_memtable_size", 1<<20, 1<<30, false), Default: int64(storage.DefaultMemTableSize)},
		// Petrel's: streamed zstd for clients that ask (compressconn.go).
		&sql.MysqlSystemVariable{Name: wire.StreamVar, Scope: global, Dynamic: true, Type: types.NewSystemBoolType(wire.StreamVar), Default: int8(1)},
		&sql.MysqlSystemVariable{Name: wire.PacketMemoryVar, Scope: global, Dynamic: true, Type: types.NewSystemIntType(wire.PacketMemoryVar, 1<<20, 1<<40, false), Default: int64(wire.DefaultPacketMemory)},
	)
	g.Add(admissionVariable(), eventSchedulerVariable(), optimizerSwitchVariable(), maxSPRecursionVariable())
	if v := sqlModeVariable(); v != nil {
		g.Add(v)
	}
	g.Add(readOnlyVariables()...)
	g.Add(diagnosticsVariables()...)
	g.Add(charsetVariables()...)
	registerIsolation(g)
	if err := g.Set(sql.NewEmptyContext(), "server_id", uint64(opts.ServerID)); err != nil {
		return err
	}
	names := make([]string, 0, len(opts.Variables))
	for k := range opts.Variables {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := g.SetFromString(k, opts.Variables[k]); err != nil {
			return err
		}
	}
	return nil
}

// CheckVariables defines Petrel's variables on g and applies vals,
// reporting the first unknown name or bad value (config validation
// before start-up; the values then reach the hooks of the variables
// already defined on g, and g's BufferPoolSize and MemtableSize).
func CheckVariables(g *Globals, vals map[string]string) error {
	return registerVariables(g, Options{ServerUUID: "00000000-0000-0000-0000-000000000000", ServerID: 1, Variables: vals}, nil)
}

// SetFromString sets a global variable from its config-file spelling
// (dashes or underscores, ON/OFF, numbers, strings).
func (g *Globals) SetFromString(name, val string) error {
	name = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "_")
	sv, _, ok := g.Get(name)
	if !ok {
		return fmt.Errorf("unknown variable '%s'", name)
	}
	val = strings.Trim(strings.TrimSpace(val), `"'`)
	if name == "sql_mode" {
		// TRADITIONAL and ANSI stand for their modes (setstmt.go).
		val, _ = sqlmode.ExpandCombined(val)
	}
	var v any = val
	if types.IsInteger(sv.GetType()) || isBoolType(sv.GetType()) {
		switch strings.ToUpper(val) {
		case "ON", "TRUE":
			v = int64(1)
		case "OFF", "FALSE":
			v = int64(0)
		default:
			n, ok := parseSize(val)
			if !ok {
				return fmt.Errorf("variable '%s' can't be set to the value of '%s'", name, val)
			}
			v = n
		}
	}
	// The config file sets start-up values: read-only variables too.
	set, err := charsetLinked(name, v)
	if err != nil {
		return fmt.Errorf("variable '%s' can't be set to the value of '%s': %w", name, val, err)
	}
	if set != nil {
		for _, a := range set {
			if err := g.assign(a.name, a.value); err != nil {
				return fmt.Errorf("variable '%s' can't be set to the value of '%s': %w", name, val, err)
			}
		}
		return nil
	}
	if err := g.assign(name, v); err != nil {
		return fmt.Errorf("variable '%s' can't be set to the value of '%s': %w", name, val, err)
	}
	return nil
}

// parseSize reads an option file's integer: digits with an optional K, M
// or G suffix (powers of 1024), as MySQL's option files take them.
func parseSize(val string) (int64, bool) {
	mult := int64(1)
	if n := len(val); n > 1 {
		switch val[n-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		}
		if mult > 1 {
			val = val[:n-1]
		}
	}
	n, err := strconv.ParseInt(val, 10, 64)
	if err != nil || (n != 0 && (n*mult)/mult != n) {
		return 0, false
	}
	return n * mult, true
}

// BufferPoolSize is innodb_buffer_pool_size, the block cache size storage
// is opened with (the config file's, else storage.DefaultCacheSize()).
func (g *Globals) BufferPoolSize() int64 {
	return g.Int("innodb_buffer_pool_size", storage.DefaultCacheSize())
}

// LockWaitTimeout is innodb_lock_wait_timeout's global value (the
// replica's applier reads it for its row lock waits, as MySQL's does),
// pushed by the variable's hook: no lookup by name.
func (e *Engine) LockWaitTimeout() time.Duration {
	return time.Duration(e.lockWaitSecs.Load()) * time.Second
}

// MemtableSize is petrel_memtable_size, the Pebble memtable size storage
// is opened with (the config file's, else storage.DefaultMemTableSize).
func (g *Globals) MemtableSize() uint64 {
	return uint64(g.Int("petrel_memtable_size", storage.DefaultMemTableSize))
}

func isBoolType(t sql.Type) bool {
	return strings.Contains(strings.ToLower(fmt.Sprintf("%T", t)), "bool")
}

// statusRegistry adds Petrel's status variables to GMS's registry, which
// has no way to add names: it wraps the registry and computes Petrel's
// figures when a SHOW STATUS reads them. It is process-wide, as GMS's
// registry is: GMS reads global status without a session (NewGlobalMap,
// GetGlobal), so it answers from the engine started last and not closed
// (the server's only one; in a test process with several, the newest),
// the fallback the variables' adapter uses too (globals.go). Each engine
// keeps its own variables (Engine.RegisterStatus, StatusSnapshot).
type statusRegistry struct {
	sql.StatusVariableRegistry
	mu      sync.RWMutex
	engines []weak.Pointer[Engine] // open engines, oldest first (weak, as the variables' adapter's)
}

var statusOnce sync.Once
var status *statusRegistry

// statusSet is one engine's computed global status variables.
type statusSet struct {
	mu  sync.RWMutex
	fns map[string]func() any
}

// registerStatus installs the wrapper once per process, points it at e,
// and registers e's own status variables.
func registerStatus(e *Engine) {
	statusOnce.Do(func() {
		status = &statusRegistry{StatusVariableRegistry: sql.StatusVariables}
		sql.StatusVariables = status
	})
	status.mu.Lock()
	status.engines = append(status.engines, weak.Make(e))
	status.mu.Unlock()
	st := e.store
	e.RegisterStatus("Innodb_row_lock_current_waits", func() any { return st.Stats().Locks.CurrentWaits })
	e.RegisterStatus("Innodb_row_lock_waits", func() any { return st.Stats().Locks.TotalWaits })
	// InnoDB reports its wait times in milliseconds.
	e.RegisterStatus("Innodb_row_lock_time", func() any { return st.Stats().Locks.WaitTime.Milliseconds() })
	e.RegisterStatus("Innodb_row_lock_time_max", func() any { return st.Stats().Locks.MaxWaitTime.Milliseconds() })
	e.RegisterStatus("Innodb_row_lock_time_avg", func() any {
		l := st.Stats().Locks
		if l.TotalWaits == 0 {
			return int64(0)
		}
		return l.WaitTime.Milliseconds() / l.TotalWaits
	})
	e.RegisterStatus("Innodb_deadlocks", func() any { return st.Stats().Locks.Deadlocks })
	e.RegisterStatus("Innodb_row_lock_timeouts", func() any { return st.Stats().Locks.Timeouts })
	e.RegisterStatus("Innodb_rows_read", func() any { return st.Stats().RowsRead })
	e.RegisterStatus("Petrel_commits", func() any { return st.Stats().Commits })
	e.RegisterStatus("Petrel_rollbacks", func() any { return st.Stats().Rollbacks })
	e.RegisterStatus("Petrel_storage_syncs", func() any { return st.Stats().StorageSyncs })
	e.RegisterStatus("Petrel_narrow_scans", func() any { return e.prov.narrowScans.Load() })
	e.RegisterStatus("Petrel_prefiltered_rows", func() any { return e.prov.prefilteredRows.Load() })
	e.RegisterStatus("Subquery_cache_hit", func() any { return e.subqueryCache.Hits.Load() })
	e.RegisterStatus("Subquery_cache_miss", func() any { return e.subqueryCache.Misses.Load() })
	e.RegisterStatus("Petrel_subquery_grouped_runs", func() any { return e.subqueryCache.GroupedRuns.Load() })
	e.registerStatementStatus()
	// GMS keeps Uptime at 0.
	started := time.Now()
	uptime := func() any { return uint64(time.Since(started) / time.Second) }
	e.RegisterStatus("Uptime", uptime)
	e.RegisterStatus("Uptime_since_flush_status", uptime)
}

// RegisterStatus adds (or replaces) one of e's computed global status
// variables.
func (e *Engine) RegisterStatus(name string, fn func() any) {
	e.status.mu.Lock()
	if e.status.fns == nil {
		e.status.fns = map[string]func() any{}
	}
	e.status.fns[name] = fn
	e.status.mu.Unlock()
}

// statusFns is a copy of e's status functions.
func (e *Engine) statusFns() map[string]func() any {
	e.status.mu.RLock()
	defer e.status.mu.RUnlock()
	out := make(map[string]func() any, len(e.status.fns))
	for n, fn := range e.status.fns {
		out[n] = fn
	}
	return out
}

// StatusSnapshot returns e's computed global status variables, by MySQL
// name (metrics exporters read them).
func (e *Engine) StatusSnapshot() map[string]any {
	fns := e.statusFns()
	out := make(map[string]any, len(fns))
	for n, fn := range fns {
		out[n] = fn()
	}
	return out
}

// currentFns are the status functions of the engine the adapter answers
// from; none before an engine starts.
func (r *statusRegistry) currentFns() map[string]func() any {
	r.mu.RLock()
	var e *Engine
	for i := len(r.engines) - 1; i >= 0 && e == nil; i-- {
		e = r.engines[i].Value()
	}
	r.mu.RUnlock()
	if e == nil {
		return nil
	}
	return e.statusFns()
}

// detachStatus forgets a closed engine.
func detachStatus(e *Engine) {
	if status == nil {
		return
	}
	status.mu.Lock()
	defer status.mu.Unlock()
	kept := status.engines[:0]
	for _, x := range status.engines {
		if v := x.Value(); v != nil && v != e {
			kept = append(kept, x)
		}
	}
	clear(status.engines[len(kept):])
	status.engines = kept
}

func (r *statusRegistry) NewSessionMap() map[string]sql.StatusVarValue {
	m := r.StatusVariableRegistry.NewSessionMap()
	compressionStatus(m)
	return m
}

func (r *statusRegistry) NewGlobalMap() map[string]sql.StatusVarValue {
	return r.globalMap(r.currentFns())
}

// globalMap is GMS's global status (its process-wide counters) with the
// computed variables fns.
func (r *statusRegistry) globalMap(fns map[string]func() any) map[string]sql.StatusVarValue {
	m := r.StatusVariableRegistry.NewGlobalMap()
	for name, fn := range fns {
		m[name] = &sql.ImmutableStatusVarValue{
			Var: &sql.MySQLStatusVariable{Name: name, Scope: sql.StatusVariableScope_Global, Type: types.Uint64, Default: uint64(0)},
			Val: fn(),
		}
	}
	return m
}

func (r *statusRegistry) GetGlobal(name string) (sql.StatusVariable, interface{}, bool) {
	for n, fn := range r.currentFns() {
		if strings.EqualFold(n, name) {
			return &sql.MySQLStatusVariable{Name: n, Scope: sql.StatusVariableScope_Global, Type: types.Uint64}, fn(), true
		}
	}
	return r.StatusVariableRegistry.GetGlobal(name)
}

// Alias defines global variables on g that are spellings of one
// setting (replica_net_timeout / slave_net_timeout, the rpl_semi_sync
// source/master pairs): setting any sets all, reading any reads the shared
// value. It returns the current value's reader.
func (g *Globals) Alias(names []string, typ sql.Type, def any) func() any {
	return g.CheckedAlias(names, typ, def, nil)
}

// CheckedAlias is Alias whose SET GLOBAL asks check first: an error
// refuses the change (the option file's values are set before anything
// runs, so check sees them too).
func (g *Globals) CheckedAlias(names []string, typ sql.Type, def any, check func(v any) error) func() any {
	var mu sync.Mutex
	cur := def
	global := sql.GetMysqlScope(sql.SystemVariableScope_Global)
	notify := func(_ *sql.Context, _ sql.SystemVariableScope, v sql.SystemVarValue) error {
		if check != nil {
			if err := check(v.Val); err != nil {
				return err
			}
		}
		mu.Lock()
		cur = v.Val
		mu.Unlock()
		return nil
	}
	read := func() any {
		mu.Lock()
		defer mu.Unlock()
		return cur
	}
	vars := make([]sql.SystemVariable, 0, len(names))
	for _, n := range names {
		vars = append(vars, &sql.MysqlSystemVariable{Name: n, Scope: global, Dynamic: true, Type: typ, Default: def, NotifyChanged: notify})
	}
	g.Add(vars...)
	for _, n := range names {
		g.Live(n, read)
	}
	return read
}

// truthy reads a boolean variable's value (1, ON, TRUE).
func truthy(v any) bool {
	if n, ok := varInt(v); ok {
		return n != 0
	}
	s := strings.ToUpper(fmt.Sprint(v))
	return s == "ON" || s == "TRUE"
}

// varInt reads a variable's value as an integer.
func varInt(v any) (int64, bool) {
	if n, ok := arith.ToInt64(v); ok {
		return n, true
	}
	i, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
	return i, err == nil
}

// globalSettings is the wire layer's reader of an engine's global
// variables (wire.Settings).
type globalSettings struct{ g *Globals }

func (s globalSettings) Int(name string, def int64) int64 { return s.g.Int(name, def) }
func (s globalSettings) Bool(name string) bool            { return s.g.Bool(name) }
func (s globalSettings) String(name, def string) string   { return s.g.String(name, def) }

// MySQLDefaultSQLMode is MySQL 8's default sql_mode. GMS's default lacks
// NO_ZERO_IN_DATE, NO_ZERO_DATE and ERROR_FOR_DIVISION_BY_ZERO, so a new
// server stored '0000-00-00' in a DATE column and the NULL of `5 / 0`
// in an INSERT, where MySQL refuses both (1292, 1365). Petrel honours
// every flag of it (docs/COMPATIBILITY.md).
const MySQLDefaultSQLMode = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// sqlModeVariable is GMS's sql_mode with MySQL's default; nil when GMS
// defines it differently than expected.
func sqlModeVariable() sql.SystemVariable {
	sv, _, ok := sql.SystemVariables.GetGlobal("sql_mode")
	if !ok {
		return nil
	}
	mv, ok := sv.(*sql.MysqlSystemVariable)
	if !ok {
		return nil
	}
	c := *mv
	c.Default = MySQLDefaultSQLMode
	return &c
}
