package node

import (
	"context"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/binlog"
	"petrel/storage"
	"petrel/surface/sysvar"
)

// Memory budget (issue 29). petrel_memory_limit is what the whole server
// may take: the block cache (innodb_buffer_pool_size), memtables, the
// heap of running statements and connections. The process sets Go's
// soft memory limit from it (cmd/petrel: debug.SetMemoryLimit, unless
// GOMEMLIMIT is set), so the collector works harder instead of letting
// the heap grow past it. The node itself gives the heap a burst left
// behind back to the operating system (memReturner) and reports the
// block cache and the limit as status variables.

// memoryLimitVar is the budget's system variable (global, read-only: the
// process applies it at start-up).
const memoryLimitVar = "petrel_memory_limit"

// DefaultMemoryLimit is petrel_memory_limit's default for a machine
// with mem bytes of RAM: half of it (the rest is the page cache's, which
// Pebble's reads rely on), 0 (no limit) when mem is unknown.
func DefaultMemoryLimit(mem int64) int64 { return mem / 2 }

// maxTxnSizeVar is MySQL's limit on a transaction's binlog cache, which
// Petrel applies to a transaction's pending writes (storage/txnsize.go):
// past it a write fails with 1197 and the transaction is rolled back.
const maxTxnSizeVar = "max_binlog_cache_size"

// mysqlMaxBinlogCache is max_binlog_cache_size's default and largest
// value in MySQL (no limit). Petrel's default is a quarter of
// petrel_memory_limit instead (applyTxnSizeLimit).
const mysqlMaxBinlogCache = uint64(18446744073709547520)

// maxStmtCacheVar bounds MySQL's binlog statement cache, which holds the
// changes of non-transactional tables. Every Petrel table is
// transactional, so nothing is ever held there and the bound is never
// reached; it is kept (MySQL's default and range) because tools set it:
// MariaDB's mysql-test-run will not start without it.
const maxStmtCacheVar = "max_binlog_stmt_cache_size"

// binlogCacheVar is MySQL's binlog_cache_size: the bytes of a
// transaction's binlog events kept in memory; past it the transaction's
// cache spills to a temporary file (binlog/txncache.go).
const binlogCacheVar = "binlog_cache_size"

func (n *Node) memoryVariables(def int64) {
	global := sql.GetMysqlScope(sql.SystemVariableScope_Global)
	n.globals.Add([]sql.SystemVariable{
		sysvar.Global(n.set, &sql.MysqlSystemVariable{Name: binlogCacheVar, Scope: global, Dynamic: true,
			Type: types.NewSystemUintType(binlogCacheVar, 4096, mysqlMaxBinlogCache), Default: uint64(binlog.DefaultCacheSize)},
			func(s *settings, v any) error {
				s.BinlogCacheSize = int64(min(sysvar.Uint(v), math.MaxInt64))
				return nil
			}),
		&sql.MysqlSystemVariable{Name: maxStmtCacheVar, Scope: global, Dynamic: true,
			Type: types.NewSystemUintType(maxStmtCacheVar, 4096, mysqlMaxBinlogCache), Default: mysqlMaxBinlogCache},
		sysvar.Global(n.set, &sql.MysqlSystemVariable{Name: memoryLimitVar, Scope: global,
			Type: types.NewSystemIntType(memoryLimitVar, 0, math.MaxInt64, false), Default: def},
			func(s *settings, v any) error { s.MemoryLimit = sysvar.Int(v); return nil }),
		sysvar.Global(n.set, &sql.MysqlSystemVariable{Name: maxTxnSizeVar, Scope: global, Dynamic: true,
			Type: types.NewSystemUintType(maxTxnSizeVar, 4096, mysqlMaxBinlogCache), Default: mysqlMaxBinlogCache},
			func(s *settings, v any) error { s.MaxTxnSize = txnLimit(sysvar.Uint(v)); return nil }),
	}...)
}

// txnLimit is storage's limit for a max_binlog_cache_size of v.
func txnLimit(v uint64) int64 {
	if v >= mysqlMaxBinlogCache || v > math.MaxInt64 {
		return 0
	}
	return int64(v)
}

// applyTxnSizeLimit defaults max_binlog_cache_size, when the option file
// does not set it, to a quarter of petrel_memory_limit (a transaction's
// pending writes cost a few times their size in memory: the batch, undo
// records, row images), then pushes node's settings to storage.
func (n *Node) applyTxnSizeLimit(vars map[string]string) error {
	configured := false
	for k := range vars {
		configured = configured || strings.ReplaceAll(strings.ToLower(k), "-", "_") == maxTxnSizeVar
	}
	if lim := n.MemoryLimit(); !configured && lim > 0 {
		if err := n.globals.SetFromString(maxTxnSizeVar, strconv.FormatInt(max(lim/4, 4096), 10)); err != nil {
			return err
		}
	}
	n.pushSettings()
	return nil
}

// LargeTransactions is how many open transactions of the process hold
// more than storage.LargeTxnBytes of pending writes: the process bounds
// the collector's headroom while there are any (cmd/petrel/gc.go).
func LargeTransactions() int64 { return storage.LargeTxns() }

// OnLargeTransaction makes fn run whenever a transaction of the process
// becomes large (storage.OnLargeTxn).
func OnLargeTransaction(fn func()) { storage.OnLargeTxn(fn) }

// MemoryLimit is petrel_memory_limit in bytes (0: none), which the
// process gives Go's collector as its soft limit.
func (n *Node) MemoryLimit() int64 { return n.set.Get().MemoryLimit }

// registerMemoryStatus adds the block cache's and the heap's status
// variables. The block cache's are Petrel's names and InnoDB's buffer
// pool counters with the same meaning (a Pebble block is a page).
func (n *Node) registerMemoryStatus() {
	st := n.store
	cache := func(f func(storage.CacheStats) int64) func() any {
		return func() any { return uint64(max(f(st.CacheStats()), 0)) }
	}
	n.sql.RegisterStatus("Petrel_block_cache_size", cache(func(s storage.CacheStats) int64 { return s.Capacity }))
	n.sql.RegisterStatus("Petrel_block_cache_bytes", cache(func(s storage.CacheStats) int64 { return s.Bytes }))
	n.sql.RegisterStatus("Petrel_block_cache_blocks", cache(func(s storage.CacheStats) int64 { return s.Blocks }))
	n.sql.RegisterStatus("Petrel_block_cache_hits", cache(func(s storage.CacheStats) int64 { return s.Hits }))
	n.sql.RegisterStatus("Petrel_block_cache_misses", cache(func(s storage.CacheStats) int64 { return s.Misses }))
	n.sql.RegisterStatus("Innodb_buffer_pool_bytes_data", cache(func(s storage.CacheStats) int64 { return s.Bytes }))
	n.sql.RegisterStatus("Innodb_buffer_pool_pages_data", cache(func(s storage.CacheStats) int64 { return s.Blocks }))
	n.sql.RegisterStatus("Innodb_buffer_pool_read_requests", cache(func(s storage.CacheStats) int64 { return s.Hits + s.Misses }))
	n.sql.RegisterStatus("Innodb_buffer_pool_reads", cache(func(s storage.CacheStats) int64 { return s.Misses }))
	n.sql.RegisterStatus("Petrel_memory_limit", func() any { return uint64(n.MemoryLimit()) })
	n.sql.RegisterStatus("Petrel_gc_memory_limit", func() any {
		if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
			return uint64(l)
		}
		return uint64(0)
	})
	n.sql.RegisterStatus("Petrel_memory_returns", func() any { return n.memReturns.Load() })
	n.sql.RegisterStatus("Petrel_undo_spills", func() any { return storage.UndoSpills() })
	n.sql.RegisterStatus("Petrel_index_ingests", func() any { return storage.IndexIngests() })
}

// memSample is the Go heap at one moment (runtime/metrics).
type memSample struct {
	// Objects is the heap's objects, live or garbage not yet collected;
	// Live is what the last collection found live.
	Objects, Live int64
	// Free is heap memory free and still resident.
	Free int64
	// Allocs counts the bytes ever allocated on the heap.
	Allocs int64
}

// memReturner decides when the heap a burst left behind is given back
// to the operating system. Go's scavenger returns free memory on its own
// but only down to about the collector's goal, which at the server's GC
// percent (400, cmd/petrel) is five times the live heap, and garbage is
// only freed by a collection, which an idle server does not run: after a
// burst of connections or a large statement the process would stay that
// large. A return (debug.FreeOSMemory) is a forced collection, so it is
// taken only once the burst is over (the server allocated at most
// MinFree/8 bytes since the last sample) and at most once per MinGap,
// when it pays: MinFree bytes were allocated since the last return, or
// are known garbage or free and resident. Memory storage lets go of later
// without allocating (a committed large batch, after its flush) shows in
// no metric until a collection, so an idle server also returns every
// IdleEvery, IdleReturns times after its last activity (15 s, 4 times:
// within the minute issue 29 allows for the fall back; a forced
// collection of an idle heap costs little).
// A pure decision: no clock or goroutine of its own; not safe for
// concurrent use (one Run loop drives it).
type memReturner struct {
	MinFree     int64
	MinGap      time.Duration
	IdleEvery   time.Duration
	IdleReturns int

	last        time.Time
	prevAllocs  int64
	allocsAtRet int64
	idleRets    int
	sampled     bool
}

// Tick takes a sample at now and reports whether to return memory now.
func (r *memReturner) Tick(now time.Time, s memSample) bool {
	quiet := r.sampled && s.Allocs-r.prevAllocs <= r.MinFree/8
	if !r.sampled {
		r.allocsAtRet = s.Allocs
	}
	r.prevAllocs, r.sampled = s.Allocs, true
	if !quiet {
		r.idleRets = 0
		return false
	}
	since := now.Sub(r.last)
	if !r.last.IsZero() && since < r.MinGap {
		return false
	}
	reclaim := max(s.Objects-s.Live, 0) + s.Free
	burst := s.Allocs-r.allocsAtRet >= r.MinFree || reclaim >= r.MinFree
	idle := !r.last.IsZero() && since >= r.IdleEvery && r.idleRets < r.IdleReturns && s.Objects+s.Free >= r.MinFree
	switch {
	case burst:
		r.idleRets = 0
	case idle:
		r.idleRets++
	default:
		return false
	}
	r.last, r.allocsAtRet = now, s.Allocs
	return true
}

// Memory returner settings: how often the heap is sampled, the least
// time between two returns, and the least free memory worth one (or a
// sixteenth of petrel_memory_limit, if larger).
const (
	memSampleEvery   = 5 * time.Second
	memReturnGap     = 20 * time.Second
	memReturnAtLeast = 64 << 20
	memIdleEvery     = 15 * time.Second
	memIdleReturns   = 4
)

// readMemSample reads the heap from runtime/metrics (no stop-the-world).
func readMemSample() memSample {
	ms := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/gc/heap/allocs:bytes"},
	}
	metrics.Read(ms)
	val := func(i int) int64 {
		if ms[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(min(ms[i].Value.Uint64(), math.MaxInt64))
	}
	return memSample{Objects: val(0), Live: val(1), Free: val(2), Allocs: val(3)}
}

// returnMemory runs the memReturner until ctx ends, sampling every
// memSampleEvery on the node's clock.
func (n *Node) returnMemory(ctx context.Context, r *memReturner, sample func() memSample, free func()) {
	defer close(n.memDone)
	for {
		fired, stop := n.opts.Clock.NewTimer(memSampleEvery)
		select {
		case <-ctx.Done():
			stop()
			return
		case now := <-fired:
			if r.Tick(now, sample()) {
				free()
				n.memReturns.Add(1)
			}
		}
	}
}

// newMemReturner is the node's returner for its memory limit.
func newMemReturner(limit int64) *memReturner {
	return &memReturner{MinFree: max(memReturnAtLeast, limit/16), MinGap: memReturnGap,
		IdleEvery: memIdleEvery, IdleReturns: memIdleReturns}
}
