// Package storage is Petrel's transactional row store on Pebble.
//
// It owns the catalog (databases, tables, indexes, views, triggers), the key
// layout of rows and index entries, row locks, per-statement undo, and the
// commit pipeline. A transaction's writes are buffered in a Pebble batch
// (indexed once the transaction reads it: lazybatch.go; spilled to files
// beside Pebble while it does not: batchspill.go) while its row locks are
// held; at commit the row changes go to a
// CommitSink (the binary log) in commit order, the sink makes the commit
// durable (and, with semi-sync, acknowledged), and only then is the batch
// applied to Pebble, so no other session can see a transaction the sink has
// not accepted. Every batch also records the commit sequence number it
// carries, so recovery can tell which sink records storage already holds.
//
// Invariants:
//   - A transaction's rows, index entries, catalog changes and commit
//     sequence number reach Pebble in one atomic batch, or, when large,
//     in one ingested table file (ingestcommit.go).
//   - Batches are applied in commit-sequence order.
//   - A committed transaction is durable before Commit returns (the sink's
//     fsync, or Pebble's WAL fsync when no durable sink is attached).
//   - With Options.LogIsWAL, storage never holds durably (in sstables) a
//     transaction its sink's log could lose (logwal.go).
package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/internal/base"
	"petrel/internal/charsets"
	"petrel/internal/ratelog"
	"petrel/storage/lock"
)

// Options configures an Engine. Zero values take the defaults noted.
type Options struct {
	// Dir is the Pebble directory. Required.
	Dir string
	// FS is the filesystem; default vfs.Default. Tests pass a crashable
	// in-memory FS.
	FS vfs.FS
	// Logger; default slog.Default().
	Logger *slog.Logger
	// Clock stamps commits and times lock waits; default the wall clock.
	Clock base.Clock
	// LockWaitTimeout is innodb_lock_wait_timeout; default 50s.
	LockWaitTimeout time.Duration
	// MemTableSize; default 2 MiB: small memtables keep range scans over
	// hot, often-updated rows short (fewer versions to step over).
	MemTableSize uint64
	// CacheSize is the block cache (innodb_buffer_pool_size); default
	// DefaultCacheSize().
	CacheSize int64
	// ReserveSize is disk space held back in the file PETREL-RESERVE in Dir
	// (allocated with fallocate where the filesystem has it, so du shows it
	// and ls does not). When a storage write
	// finds the disk full the reserve is released, so Pebble finishes the
	// writes in flight, and writes are refused until ClearWriteError
	// restores it. Default 4 × MemTableSize; negative disables it.
	ReserveSize int64
	// CloseTimeout bounds Close: what has not finished by then (commits in
	// flight, a memtable flush that cannot complete, Pebble's own close)
	// is abandoned and logged, and recovery at the next Open completes it.
	// Default 10s.
	CloseTimeout time.Duration
	// RetryInterval paces Pebble after a failed storage write: its next
	// attempt to create a table file (the retry of a failed flush or
	// compaction) comes no sooner than this after the failure. Default 1s.
	RetryInterval time.Duration
	// LogIsWAL makes the commit sink's log (the binary log) storage's only
	// write-ahead log: Pebble runs without its own WAL and recovery replays
	// the sink's log over what Pebble flushed (see logwal.go). Set it only
	// when a durable sink with recovery is attached before any commit.
	LogIsWAL bool
	// pebbleLSM keeps Pebble's own LSM shape defaults instead of
	// Petrel's (l0CompactionThreshold and its neighbours), for the
	// benchmark that compares them.
	pebbleLSM bool
	// SyncDelay and WriteDelay inject disk latency (slowdisk.go), a lab
	// setting: SyncDelay is added before every fsync Pebble makes and
	// every DelaySync call, WriteDelay before every write. Default 0:
	// none; at most MaxInjectedDelay.
	SyncDelay, WriteDelay time.Duration
}

func (o *Options) setDefaults() error {
	if o.Dir == "" {
		return errors.New("storage: Options.Dir is required")
	}
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Clock = base.ClockOr(o.Clock)
	if o.LockWaitTimeout <= 0 {
		o.LockWaitTimeout = 50 * time.Second
	}
	if o.CacheSize <= 0 {
		o.CacheSize = DefaultCacheSize()
	}
	if o.MemTableSize == 0 {
		o.MemTableSize = DefaultMemTableSize
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = 10 * time.Second
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = time.Second
	}
	if o.ReserveSize == 0 {
		o.ReserveSize = 4 * int64(o.MemTableSize)
	}
	for _, d := range []time.Duration{o.SyncDelay, o.WriteDelay} {
		if d < 0 || d > MaxInjectedDelay {
			return fmt.Errorf("storage: an injected disk delay must be between 0 and %v, not %v", MaxInjectedDelay, d)
		}
	}
	return nil
}

// Engine is the storage engine. Safe for concurrent use.
type Engine struct {
	opts  Options
	db    *pebble.DB
	locks *lock.Manager
	cat   *Catalog
	// spans are the tables whose key ranges Pebble writes with zstd
	// (compress.go).
	spans spanPolicies

	nextTxnID atomic.Uint64
	// maxTxnSize is max_binlog_cache_size (txnsize.go); 0: no limit.
	maxTxnSize atomic.Int64

	// commitMu orders sequence assignment and sink.Append.
	commitMu sync.Mutex
	nextSeq  uint64 // guarded by commitMu
	sink     CommitSink

	// turn serialises storage apply in sequence order.
	turn turnstile
	// appliesBegun and appliesEnded count the transaction batches
	// applied to Pebble (applyStart): a reader that saw none in flight
	// and none begun since knows its iterator still shows the latest
	// committed state (lockedread.go).
	appliesBegun, appliesEnded atomic.Uint64

	// Refusing writes (a full disk, or a failed write that left
	// durability uncertain) takes two steps; see refuseWrites. gate, once
	// set, turns new commits away at the sink; writeErr is published to
	// statements and commits once no commit is between sink and storage.
	// fatal is sticky: set by any failure but a full disk (see fail),
	// writes stay refused until a restart. refuseMu orders changes to
	// gate and writeErr; reads are lock-free.
	refuseMu sync.Mutex
	gate     atomic.Pointer[error]
	writeErr atomic.Pointer[error]
	fatal    atomic.Pointer[error]
	// lastIOFailure is when a storage write last failed (Unix
	// nanoseconds; 0: never), which paces Pebble's retries (guardFS).
	lastIOFailure atomic.Int64
	// guarding says Pebble is open and guardFS acts on failures (during
	// pebble.Open its errors are returned as they are).
	guarding atomic.Bool
	// pebbleClosing is closed just before Pebble's Close: table-file
	// creations held back by guardFS fail then.
	pebbleClosing   chan struct{}
	pebbleCloseOnce sync.Once
	// logLimit keeps repeated error lines (Pebble's retries) to one per
	// second per cause.
	logLimit *ratelog.Limiter
	// undoFiles opens large transactions' undo spill files (undospill.go).
	undoFiles *undoFiles
	// popts are Pebble's options (the writer options of ingested index
	// builds, bulkindex.go); nextIngest numbers their files.
	popts      *pebble.Options
	nextIngest atomic.Uint64
	// bg tracks refusals being published in the background; opened says
	// Open has finished (before, no commit can be in flight).
	bg     sync.WaitGroup
	opened atomic.Bool

	// flushSyncer is the sink's FlushSyncer, if any (LogIsWAL); closing is
	// closed when Close starts.
	flushSyncer atomic.Pointer[FlushSyncer]
	// preparer is the sink's Preparer, if any: read by committers before
	// they take commitMu.
	preparer atomic.Pointer[Preparer]
	// cacher is the sink's ChangeCacher, if any (changecache.go).
	cacher    atomic.Pointer[ChangeCacher]
	closing   chan struct{}
	closeOnce sync.Once
	// tasks tracks the background work started by Go, which Close waits
	// for before closing Pebble; tasksMu orders Go against Close's start.
	tasksMu sync.Mutex
	tasks   sync.WaitGroup
	// stopped, once set (StopCommits), turns every new commit away at the
	// sink, before anything is written.
	stopped atomic.Pointer[error]

	// openViews counts the read views (Pebble snapshots) transactions
	// hold (snapshot.go).
	openViews atomic.Int64

	stats Stats
}

// Stats are cumulative counters, read with Engine.Stats.
type Stats struct {
	Commits      atomic.Uint64
	Rollbacks    atomic.Uint64
	StorageSyncs atomic.Uint64
	// RowsRead counts the rows scans and primary-key lookups returned to
	// their callers (InnoDB's Innodb_rows_read).
	RowsRead atomic.Uint64
	// DelayedSyncs counts the fsyncs Options.SyncDelay slowed.
	DelayedSyncs atomic.Uint64
	// RowCounts counts the tables ApproxRows counted row by row (small
	// ones; larger ones are estimated).
	RowCounts atomic.Uint64
	// ScanRowsKept counts the rows locking scans took from their own
	// iterator instead of reading them again under their lock;
	// InsertChecksSkipped the primary-key duplicate checks of inserts
	// past the table's last key (lockedread.go, inserttail.go).
	ScanRowsKept        atomic.Uint64
	InsertChecksSkipped atomic.Uint64
	// LazyBatchesIndexed counts the transactions' batches indexed when a
	// read needed them (lazybatch.go).
	LazyBatchesIndexed atomic.Uint64
}

// StatsSnapshot is a point-in-time copy of Stats plus lock statistics.
type StatsSnapshot struct {
	Commits, Rollbacks uint64
	StorageSyncs       uint64
	RowsRead           uint64
	DelayedSyncs       uint64
	Locks              lock.Stats
	LastSeq            uint64
}

// DefaultMemTableSize is Options.MemTableSize's default.
const DefaultMemTableSize = 2 << 20

// The shape of the LSM under random updates (TPC-C's stock and customer
// rows, issue 29). With small memtables each flush is a small L0 file
// spanning the whole key range of the hot tables, and Pebble's defaults
// (an L0 compaction once 4 sublevels pile up, into a base level of up to
// 64 MiB) rewrote about the whole base level for every 4 such files:
// compactions took a fifth of the server's CPU under TPC-C. Letting 8
// sublevels gather moves twice the bytes per rewrite, and a base level
// of 8 MiB makes the level L0 merges into small, with the levels below
// it filled by ordinary leveled compactions (BenchmarkRandomUpdates:
// bytes written by compactions per update about a third of the
// defaults'). Reads pay a few more bloom filter probes per point lookup
// (the extra L0 sublevels, one more level). The stop threshold keeps
// Pebble's default ratio to the compaction threshold (3:1), so a burst of
// flushes does not stall commits any sooner than before.
const (
	l0CompactionThreshold = 8
	l0StopWritesThreshold = 24
	lBaseMaxBytes         = 8 << 20
)

// indexBlockSize is the size from which a table's index is split in two
// levels. Pebble's default is the block size (4 KiB), and at 4 KiB data
// blocks every table of more than about 600 KiB got a two-level index:
// each point lookup in a table (TPC-C's reads by primary key probe one
// or more per level) then read the top-level index, then an index
// partition, then the data block, three block cache lookups where a
// single-level index takes two (a sixth of the server's CPU under TPC-C
// went to sstable seeks). Tables here stay below 32 MiB (about 200 KiB
// of index); CockroachDB uses the same 256 KiB. A store written before
// keeps its tables' indexes until compactions rewrite them.
const indexBlockSize = 256 << 10

// MemTableSize is the size Pebble's memtables are allowed to grow to.
func (e *Engine) MemTableSize() uint64 { return e.opts.MemTableSize }

// CacheSize is the block cache's capacity in bytes.
func (e *Engine) CacheSize() int64 { return e.opts.CacheSize }

// Open opens (or creates) the store in opts.Dir.
func Open(opts Options) (*Engine, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	// The catalog's column types may name a character set GMS lacks.
	charsets.Install()
	cache := pebble.NewCache(opts.CacheSize)
	defer cache.Unref()
	e := &Engine{opts: opts, closing: make(chan struct{}), pebbleClosing: make(chan struct{}), logLimit: ratelog.New(time.Second, opts.Clock.Now)}
	e.sink = gatedSink{e: e}
	// Pebble treats a failed WAL or MANIFEST write as fatal (it panics or
	// exits), so a full disk must never reach it: the first ENOSPC releases
	// the reserve and the write is retried once (vfs.OnDiskFull). guardFS
	// sees what fails even so, refuses writes and paces Pebble's retries.
	e.undoFiles = &undoFiles{fs: opts.FS, dir: opts.FS.PathJoin(opts.Dir, undoDirName), logf: func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		e.logLimit.Log(e.opts.Logger, slog.LevelWarn, "undo spill", msg)
	}}
	// Spill files and index builds' table files a crash left behind.
	if err := opts.FS.RemoveAll(e.undoFiles.dir); err != nil {
		return nil, fmt.Errorf("storage: remove %s: %w", e.undoFiles.dir, err)
	}
	if err := opts.FS.RemoveAll(opts.FS.PathJoin(opts.Dir, ingestDirName)); err != nil {
		return nil, fmt.Errorf("storage: remove %s: %w", ingestDirName, err)
	}
	var inner vfs.FS = opts.FS
	if opts.SyncDelay > 0 || opts.WriteDelay > 0 {
		inner = &slowFS{FS: inner, e: e}
	}
	fs := &guardFS{FS: vfs.OnDiskFull(inner, e.onDiskFull), e: e}
	po := &pebble.Options{
		Cache:                       cache,
		Comparer:                    comparer, // abbrev.go
		FS:                          fs,
		MemTableSize:                opts.MemTableSize,
		MemTableStopWritesThreshold: 4,
		Logger:                      quietLogger{opts.Logger, e.logLimit, e.pebbleFatal},
		DisableWAL:                  opts.LogIsWAL,
		EventListener: &pebble.EventListener{
			FlushBegin:      e.beforeFlush,
			BackgroundError: e.backgroundError,
		},
	}
	po.Levels[0].FilterPolicy = bloom.FilterPolicy(10)
	// Single-level indexes (indexBlockSize, inherited by every level).
	po.Levels[0].IndexBlockSize = indexBlockSize
	if !opts.pebbleLSM {
		po.L0CompactionThreshold = l0CompactionThreshold
		po.L0StopWritesThreshold = l0StopWritesThreshold
		po.LBaseMaxBytes = lBaseMaxBytes
	}
	po.ApplyCompressionSettings(compressedLevels)
	po.Experimental.SpanPolicyFunc = e.spans.policy
	po.EnsureDefaults()
	e.popts = po
	db, err := pebble.Open(opts.Dir, po)
	if err != nil {
		return nil, base.Wrap(base.ClassCorrupt, err, "storage: cannot open %s", opts.Dir)
	}
	e.db = db
	e.guarding.Store(true)
	if err := e.checkLogIsWALMarker(); err != nil {
		db.Close()
		return nil, err
	}
	e.locks = lock.NewManager(lock.Options{WaitTimeout: opts.LockWaitTimeout, Clock: opts.Clock})
	seq, err := e.readUint64(metaKey(metaLastSeq))
	if err != nil {
		db.Close()
		return nil, err
	}
	e.nextSeq = seq + 1
	e.turn.init(seq)
	e.cat = newCatalog(e)
	if err := e.cat.load(); err != nil {
		db.Close()
		return nil, err
	}
	if err := e.clearTempTables(); err != nil && classifyWriteErr(err) != base.ClassDiskFull {
		db.Close()
		return nil, base.Wrap(base.ClassInternal, err, "storage: clear temporary tables")
	}
	if err := e.restoreReserve(); err != nil {
		if classifyWriteErr(err) != base.ClassDiskFull {
			db.Close()
			return nil, base.Wrap(base.ClassInternal, err, "storage: create %s", reserveName)
		}
		// Started on a full disk: serve reads; the node's disk-full
		// watcher lets writes in once space returns.
		e.refuseWrites(err)
	}
	e.opened.Store(true)
	return e, nil
}

// errFlushGivenUp is flushUntil's answer when its caller stopped waiting.
var errFlushGivenUp = errors.New("storage: stopped waiting for a memtable flush")

// flushUntil flushes the memtables and waits for the flush, polling
// giveUp: a failing flush (a full disk, a removed directory) is retried by
// Pebble without end. Even starting the flush can wait, for room in a
// full memtable queue, so that too runs on its own goroutine.
func (e *Engine) flushUntil(giveUp func() bool) error {
	if giveUp() {
		return errFlushGivenUp
	}
	type started struct {
		done <-chan struct{}
		err  error
	}
	start := make(chan started, 1)
	go func() {
		done, err := e.db.AsyncFlush()
		start <- started{done, err}
	}()
	var done <-chan struct{}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case s := <-start:
			if s.err != nil {
				return s.err
			}
			done = s.done
		case <-done:
			return nil
		case <-tick.C:
			if giveUp() {
				return errFlushGivenUp
			}
		}
	}
}

// Catalog returns the engine's catalog.
func (e *Engine) Catalog() *Catalog { return e.cat }

// Locks exposes the lock manager (for status variables).
func (e *Engine) Locks() *lock.Manager { return e.locks }

// SetSink installs the commit sink. Call before any commit.
func (e *Engine) SetSink(s CommitSink) {
	e.commitMu.Lock()
	e.sink = gatedSink{e: e, inner: s}
	e.commitMu.Unlock()
	if fs, ok := s.(FlushSyncer); ok {
		e.flushSyncer.Store(&fs)
	} else {
		e.flushSyncer.Store(nil)
	}
	if p, ok := s.(Preparer); ok {
		e.preparer.Store(&p)
	} else {
		e.preparer.Store(nil)
	}
	if c, ok := s.(ChangeCacher); ok {
		e.cacher.Store(&c)
	} else {
		e.cacher.Store(nil)
	}
}

// LastSeq is the sequence number of the last transaction applied to storage.
func (e *Engine) LastSeq() uint64 { return e.turn.done() }

// Stats returns a snapshot of the engine's counters.
func (e *Engine) Stats() StatsSnapshot {
	return StatsSnapshot{
		Commits:      e.stats.Commits.Load(),
		Rollbacks:    e.stats.Rollbacks.Load(),
		StorageSyncs: e.stats.StorageSyncs.Load(),
		RowsRead:     e.stats.RowsRead.Load(),
		DelayedSyncs: e.stats.DelayedSyncs.Load(),
		Locks:        e.locks.Stats(),
		LastSeq:      e.turn.done(),
	}
}

// WriteError reports why writes are refused, or nil.
func (e *Engine) WriteError() error {
	if p := e.writeErr.Load(); p != nil {
		return *p
	}
	return nil
}

// refusing reports whether writes are refused or about to be.
func (e *Engine) refusing() bool { return e.gate.Load() != nil || e.writeErr.Load() != nil }

// refuseWrites refuses writes after err (a failed sink write or fsync, a
// full disk, a failed storage write). New commits are turned away at the
// sink at once; the refusal reaches statements and commits only when every
// commit the sink already accepted has been applied, since a commit that
// failed between sink and storage would be in the binlog but reported
// failed, and would leave a gap in the commit sequence. The caller must
// not hold commitMu or be inside a commit's turn.
func (e *Engine) refuseWrites(err error) {
	if errors.Is(err, ErrClosing) {
		return // nothing failed: Close flushes what was applied
	}
	if classifyWriteErr(err) != base.ClassDiskFull {
		p, _ := e.fail(err)
		e.publishRefusal(p)
		return
	}
	werr := base.Wrap(base.ClassDiskFull, err, "storage: writes refused after a failed commit")
	e.refuseMu.Lock()
	p := e.gate.Load()
	if p == nil {
		p = &werr
		e.gate.Store(p)
		e.opts.Logger.Error("storage: refusing writes", "err", err.Error())
	}
	e.refuseMu.Unlock()
	e.publishRefusal(p)
}

// publishRefusal makes the gate's refusal p visible to WriteError once the
// commits already sequenced have passed storage, unless writes were
// allowed again meanwhile.
func (e *Engine) publishRefusal(p *error) {
	e.commitMu.Lock()
	last := e.nextSeq - 1
	e.commitMu.Unlock()
	e.turn.waitPassed(last)
	e.refuseMu.Lock()
	if e.gate.Load() == p {
		e.writeErr.Store(p)
	}
	e.refuseMu.Unlock()
}

// RestoreReserve allocates the disk-space reserve again if a full disk
// released it (a no-op when it is whole). A caller deciding whether space
// is back restores the reserve first and then probes for room beyond it:
// the reserve's own bytes are not free space.
func (e *Engine) RestoreReserve() error {
	if err := e.restoreReserve(); err != nil {
		return base.Wrap(classifyWriteErr(err), err, "storage: restore %s", reserveName)
	}
	return nil
}

// ClearWriteError lets writes resume (after an operator freed disk space).
// It first restores the disk-space reserve, and refuses while that fails
// or after a failure only a restart recovers from (Fail).
func (e *Engine) ClearWriteError() error {
	if p := e.fatal.Load(); p != nil {
		return *p
	}
	if err := e.restoreReserve(); err != nil {
		return base.Wrap(classifyWriteErr(err), err, "storage: restore %s", reserveName)
	}
	e.refuseMu.Lock()
	if e.fatal.Load() == nil {
		e.gate.Store(nil)
		e.writeErr.Store(nil)
	}
	e.refuseMu.Unlock()
	return nil
}

// gatedSink is the sink commits see: it turns appends away once writes are
// refused (Append runs under commitMu, in commit order) and passes
// everything else to the real sink, if any.
type gatedSink struct {
	e     *Engine
	inner CommitSink // nil: no sink
}

func (g gatedSink) Append(rec *CommitRecord) error {
	if p := g.e.stopped.Load(); p != nil {
		return *p
	}
	if p := g.e.gate.Load(); p != nil {
		return *p
	}
	if g.inner == nil {
		return nil
	}
	return g.inner.Append(rec)
}

func (g gatedSink) Wait(ctx context.Context, rec *CommitRecord) error {
	if g.inner == nil {
		return nil
	}
	return g.inner.Wait(ctx, rec)
}

func (g gatedSink) Durable() bool { return g.inner != nil && g.inner.Durable() }

// reserveName is the disk-space reserve file in Options.Dir.
const reserveName = "PETREL-RESERVE"

// restoreReserve allocates the reserve file (a no-op when it is whole).
func (e *Engine) restoreReserve() error {
	size := e.opts.ReserveSize
	if size <= 0 {
		return nil
	}
	fs := e.opts.FS
	f, err := fs.OpenReadWrite(fs.PathJoin(e.opts.Dir, reserveName), vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	err = f.Preallocate(0, size)
	if err != nil && !errors.Is(err, syscall.ENOSPC) {
		// No fallocate on this filesystem: write the bytes, unless an
		// earlier run did.
		if fi, serr := f.Stat(); serr == nil && fi.Size() >= size {
			err = nil
		} else {
			err = writeZeros(f, size)
		}
	}
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

func writeZeros(f vfs.File, size int64) error {
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; off += int64(len(buf)) {
		n := min(int64(len(buf)), size-off)
		if _, err := f.WriteAt(buf[:n], off); err != nil {
			return err
		}
	}
	return nil
}

// onDiskFull runs when a Pebble write gets ENOSPC, with Pebble's writes
// paused until it returns: it frees the reserve (on the unwrapped FS) for
// the retry and refuses writes. Publishing the refusal waits for commits
// in flight, which need Pebble, so it happens in the background.
func (e *Engine) onDiskFull() {
	fs := e.opts.FS
	if err := fs.Remove(fs.PathJoin(e.opts.Dir, reserveName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		e.opts.Logger.Error("storage: cannot release the disk-space reserve", "err", err.Error())
	}
	e.diskFull("storage: disk full: released the space reserve; refusing writes")
}

// diskFull refuses writes until space is freed (ClearWriteError), unless
// they are refused already, logging msg. Safe inside Pebble.
func (e *Engine) diskFull(msg string) {
	werr := base.Wrap(base.ClassDiskFull, syscall.ENOSPC, "storage: disk full; writes refused until space is freed")
	e.refuseMu.Lock()
	first := e.gate.CompareAndSwap(nil, &werr)
	e.refuseMu.Unlock()
	if !first {
		return
	}
	e.opts.Logger.Error(msg, "reserve", e.opts.ReserveSize)
	e.publishInBackground(&werr)
}

// Fail refuses writes until the server is restarted, because of err:
// something the caller found makes storage's writes impossible or
// untrustworthy (the node's watcher: the datadir was removed). Pebble
// writes no new file from then on. Safe to call more than once and from
// any goroutine; the first cause is kept.
func (e *Engine) Fail(err error) {
	if p, first := e.fail(err); first {
		e.publishInBackground(p)
	}
}

// fail makes writes refused until restart after err and returns the
// refusal (the first one, if there were several). Only a full disk can
// clear by itself; any other failed write needs an operator, and after a
// failed fsync nothing written since the last good one can be trusted
// (the kernel may have dropped the pages, as PostgreSQL learnt in 2018,
// "fsyncgate"), so only a restart, whose recovery reads back what is on
// disk, resumes writes. A failed write to Pebble's WAL is fatal too,
// whatever the errno: Pebble cannot append to or rotate that log again.
// The caller publishes the refusal (publishRefusal, or
// publishInBackground from inside Pebble); first says this call set it.
func (e *Engine) fail(err error) (p *error, first bool) {
	var werr error
	if b := (*base.Error)(nil); errors.As(err, &b) && b.Class == base.ClassWritesRefused {
		werr = err // already says what happened and what to do
	} else {
		werr = base.Wrap(classifyWriteErr(err), err, "storage: writes refused until the server is restarted")
	}
	e.refuseMu.Lock()
	first = e.fatal.CompareAndSwap(nil, &werr)
	p = e.fatal.Load()
	e.gate.Store(p)
	e.refuseMu.Unlock()
	if first {
		e.opts.Logger.Error("storage: refusing writes until restart", "err", err.Error())
	}
	return p, first
}

// Go runs fn on its own goroutine as the engine's background work (the
// planner's statistics): fn is given a channel closed when Close starts,
// and must return soon after it is; Close waits for fn before closing
// Pebble. Go reports false, and does not run fn, once Close has started.
func (e *Engine) Go(fn func(closing <-chan struct{})) bool {
	e.tasksMu.Lock()
	defer e.tasksMu.Unlock()
	select {
	case <-e.closing:
		return false
	default:
	}
	e.tasks.Add(1)
	go func() {
		defer e.tasks.Done()
		fn(e.closing)
	}()
	return true
}

// publishInBackground publishes the refusal p for callers inside Pebble,
// whose writes the commits in flight still need.
func (e *Engine) publishInBackground(p *error) {
	if !e.opened.Load() {
		e.refuseMu.Lock()
		if e.gate.Load() == p {
			e.writeErr.Store(p)
		}
		e.refuseMu.Unlock()
		return
	}
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		e.publishRefusal(p)
	}()
}

func classifyWriteErr(err error) base.Class {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return base.ClassDiskFull
	}
	if c := base.ClassOf(err); c != base.ClassInternal {
		return c
	}
	return base.ClassWritesRefused
}

func (e *Engine) readUint64(key []byte) (uint64, error) {
	v, closer, err := e.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, base.Wrap(base.ClassCorrupt, err, "storage: read %q", key)
	}
	defer closer.Close()
	if len(v) != 8 {
		return 0, base.Errorf(base.ClassCorrupt, "storage: key %q holds %d bytes, want 8", key, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// GetMeta reads a metadata blob stored by SetMetaSync (nil if absent).
func (e *Engine) GetMeta(name string) ([]byte, error) {
	v, closer, err := e.db.Get(metaKey(metaBlob, name))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, base.Wrap(base.ClassCorrupt, err, "storage: read meta %s", name)
	}
	defer closer.Close()
	return append([]byte(nil), v...), nil
}

// SetMetaSync durably stores a metadata blob outside any transaction
// (users and grants, persisted variables).
func (e *Engine) SetMetaSync(name string, value []byte) error {
	if err := e.WriteError(); err != nil {
		return err
	}
	if err := e.durableSet(metaKey(metaBlob, name), value); err != nil {
		e.refuseWrites(err)
		return base.Wrap(classifyWriteErr(err), err, "storage: write meta %s", name)
	}
	return nil
}

// backgroundError is Pebble's report of a failed flush or compaction,
// which it retries: the retry is paced (guardFS) and the log line limited
// to one per second per cause, with the count of lines held back.
func (e *Engine) backgroundError(err error) {
	e.lastIOFailure.Store(e.opts.Clock.Now().UnixNano())
	e.logLimit.Log(e.opts.Logger, slog.LevelError, ratelog.Cause("pebble: background error", err), "pebble: background error", "err", err.Error())
}

// quietLogger routes Pebble's chatter to slog at debug level, and its
// errors at error level, at most one per second per cause. Its Fatalf
// never exits the process: see Engine.pebbleFatal.
type quietLogger struct {
	l     *slog.Logger
	limit *ratelog.Limiter
	fatal func(msg string)
}

func (q quietLogger) Infof(format string, args ...any) {
	if q.l.Enabled(context.Background(), slog.LevelDebug) {
		q.l.Debug(fmt.Sprintf("pebble: "+format, args...))
	}
}

func (q quietLogger) Errorf(format string, args ...any) {
	var cause error
	for _, a := range args {
		if err, ok := a.(error); ok {
			cause = err
			break
		}
	}
	q.limit.Log(q.l, slog.LevelError, ratelog.Cause("pebble: "+format, cause), fmt.Sprintf("pebble: "+format, args...))
}

func (q quietLogger) Fatalf(format string, args ...any) { q.fatal(fmt.Sprintf(format, args...)) }

// pebbleFatal is Pebble's Fatalf: an invariant broken or a WAL, MANIFEST
// or commit-pipeline write failed. Pebble's own logger exits the process
// there, and its callers do not expect Fatalf to return (they would go on
// in the state that failed). So the engine fails as for any failure only
// a restart recovers from (fail: logged once, writes refused with
// ER_ERROR_ON_WRITE, reads still served), and the calling goroutine goes
// no further: it waits until Pebble is being closed, then ends
// (runtime.Goexit, running its deferred calls, which release Pebble's
// locks). Close is then not clean and is bounded by its deadline (a close
// that waits for the stopped goroutine is abandoned, ErrAbandoned); the
// next start recovers from the log.
func (e *Engine) pebbleFatal(msg string) {
	err := base.Errorf(base.ClassWritesRefused, "storage: Pebble stopped on a fatal error (%s); writes refused until the server is restarted", msg)
	if p, first := e.fail(err); first {
		e.publishInBackground(p)
	}
	<-e.pebbleClosing
	runtime.Goexit()
}

// DirHasData reports whether dir exists and holds a Pebble store.
func DirHasData(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "CURRENT"))
	if err == nil {
		return true
	}
	ms, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*"))
	return len(ms) > 0
}
