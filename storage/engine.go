// Package storage is Petrel's transactional row store on Pebble.
//
// It owns the catalog (databases, tables, indexes, views, triggers), the key
// layout of rows and index entries, row locks, per-statement undo, and the
// commit pipeline. A transaction's writes are buffered in a Pebble indexed
// batch while its row locks are held; at commit the row changes go to a
// CommitSink (the binary log) in commit order, the sink makes the commit
// durable (and, with semi-sync, acknowledged), and only then is the batch
// applied to Pebble, so no other session can see a transaction the sink has
// not accepted. Every batch also records the commit sequence number it
// carries, so recovery can tell which sink records storage already holds.
//
// Invariants:
//   - A transaction's rows, index entries, catalog changes and commit
//     sequence number reach Pebble in one atomic batch.
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
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/internal/base"
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
	// CacheSize is the block cache (innodb_buffer_pool_size); default 256 MiB.
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
	// LogIsWAL makes the commit sink's log (the binary log) storage's only
	// write-ahead log: Pebble runs without its own WAL and recovery replays
	// the sink's log over what Pebble flushed (see logwal.go). Set it only
	// when a durable sink with recovery is attached before any commit.
	LogIsWAL bool
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
		o.CacheSize = 256 << 20
	}
	if o.MemTableSize == 0 {
		o.MemTableSize = 2 << 20
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = 10 * time.Second
	}
	if o.ReserveSize == 0 {
		o.ReserveSize = 4 * int64(o.MemTableSize)
	}
	return nil
}

// Engine is the storage engine. Safe for concurrent use.
type Engine struct {
	opts  Options
	db    *pebble.DB
	locks *lock.Manager
	cat   *Catalog

	nextTxnID atomic.Uint64

	// commitMu orders sequence assignment and sink.Append.
	commitMu sync.Mutex
	nextSeq  uint64 // guarded by commitMu
	sink     CommitSink

	// turn serialises storage apply in sequence order.
	turn turnstile

	// Refusing writes (a full disk, or a failed sink write that left
	// durability uncertain) takes two steps; see refuseWrites. gate, once
	// set, turns new commits away at the sink; writeErr is published to
	// statements and commits once no commit is between sink and storage.
	// walErr is sticky: Pebble cannot write again after its WAL failed.
	// refuseMu orders changes to gate and writeErr; reads are lock-free.
	refuseMu sync.Mutex
	gate     atomic.Pointer[error]
	writeErr atomic.Pointer[error]
	walErr   atomic.Pointer[error]
	// bg tracks refusals being published in the background; opened says
	// Open has finished (before, no commit can be in flight).
	bg     sync.WaitGroup
	opened atomic.Bool

	// flushSyncer is the sink's FlushSyncer, if any (LogIsWAL); closing is
	// closed when Close starts.
	flushSyncer atomic.Pointer[FlushSyncer]
	// preparer is the sink's Preparer, if any: read by committers before
	// they take commitMu.
	preparer  atomic.Pointer[Preparer]
	closing   chan struct{}
	closeOnce sync.Once
	// stopped, once set (StopCommits), turns every new commit away at the
	// sink, before anything is written.
	stopped atomic.Pointer[error]

	stats Stats
}

// Stats are cumulative counters, read with Engine.Stats.
type Stats struct {
	Commits      atomic.Uint64
	Rollbacks    atomic.Uint64
	StorageSyncs atomic.Uint64
}

// StatsSnapshot is a point-in-time copy of Stats plus lock statistics.
type StatsSnapshot struct {
	Commits, Rollbacks uint64
	StorageSyncs       uint64
	Locks              lock.Stats
	LastSeq            uint64
}

// Open opens (or creates) the store in opts.Dir.
func Open(opts Options) (*Engine, error) {
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	cache := pebble.NewCache(opts.CacheSize)
	defer cache.Unref()
	e := &Engine{opts: opts, closing: make(chan struct{})}
	e.sink = gatedSink{e: e}
	// Pebble treats a failed WAL or MANIFEST write as fatal (it panics or
	// exits), so a full disk must never reach it: the first ENOSPC releases
	// the reserve and the write is retried once (vfs.OnDiskFull). walWatchFS
	// sees what fails even so.
	fs := &walWatchFS{FS: vfs.OnDiskFull(opts.FS, e.onDiskFull), failed: e.walFailed}
	po := &pebble.Options{
		Cache:                       cache,
		FS:                          fs,
		MemTableSize:                opts.MemTableSize,
		MemTableStopWritesThreshold: 4,
		Logger:                      quietLogger{opts.Logger},
		DisableWAL:                  opts.LogIsWAL,
		EventListener:               &pebble.EventListener{FlushBegin: e.beforeFlush},
	}
	po.Levels[0].FilterPolicy = bloom.FilterPolicy(10)
	po.EnsureDefaults()
	db, err := pebble.Open(opts.Dir, po)
	if err != nil {
		return nil, base.Wrap(base.ClassCorrupt, err, "storage: cannot open %s", opts.Dir)
	}
	e.db = db
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
}

// LastSeq is the sequence number of the last transaction applied to storage.
func (e *Engine) LastSeq() uint64 { return e.turn.done() }

// Stats returns a snapshot of the engine's counters.
func (e *Engine) Stats() StatsSnapshot {
	return StatsSnapshot{
		Commits:      e.stats.Commits.Load(),
		Rollbacks:    e.stats.Rollbacks.Load(),
		StorageSyncs: e.stats.StorageSyncs.Load(),
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
	werr := base.Wrap(classifyWriteErr(err), err, "storage: writes refused after a failed commit")
	e.refuseMu.Lock()
	p := e.gate.Load()
	if p == nil {
		p = &werr
		e.gate.Store(p)
		e.opts.Logger.Error("storage: refusing writes", "err", err)
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

// ClearWriteError lets writes resume (after an operator freed disk space).
// It first restores the disk-space reserve, and refuses while that fails
// or after Pebble's write-ahead log failed (only a restart recovers then).
func (e *Engine) ClearWriteError() error {
	if p := e.walErr.Load(); p != nil {
		return *p
	}
	if err := e.restoreReserve(); err != nil {
		return base.Wrap(classifyWriteErr(err), err, "storage: restore %s", reserveName)
	}
	e.refuseMu.Lock()
	if e.walErr.Load() == nil {
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
		e.opts.Logger.Error("storage: cannot release the disk-space reserve", "err", err)
	}
	werr := base.Wrap(base.ClassDiskFull, syscall.ENOSPC, "storage: disk full; writes refused until space is freed")
	e.refuseMu.Lock()
	first := e.gate.CompareAndSwap(nil, &werr)
	e.refuseMu.Unlock()
	if !first {
		return
	}
	e.opts.Logger.Error("storage: disk full: released the space reserve; refusing writes", "reserve", e.opts.ReserveSize)
	e.publishInBackground(&werr)
}

// walFailed records that a write to Pebble's write-ahead log failed even
// after the reserve was released. Pebble cannot append to or rotate that
// log again (it panics), so writes stay refused until a restart, which
// recovers from the log on disk and the binlog.
func (e *Engine) walFailed(err error) {
	werr := base.Wrap(classifyWriteErr(err), err, "storage: the write-ahead log failed; restart the server to resume writes")
	if !e.walErr.CompareAndSwap(nil, &werr) {
		return
	}
	e.opts.Logger.Error("storage: write-ahead log write failed; writes refused until restart", "err", err)
	e.refuseMu.Lock()
	e.gate.Store(&werr)
	e.refuseMu.Unlock()
	e.publishInBackground(&werr)
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

// walWatchFS reports errors of write-ahead-log writes that reach Pebble.
type walWatchFS struct {
	vfs.FS
	failed func(error)
}

func (fs *walWatchFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	return fs.watch(f, category), err
}

func (fs *walWatchFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	return fs.watch(f, category), err
}

func (fs *walWatchFS) Unwrap() vfs.FS { return fs.FS }

func (fs *walWatchFS) watch(f vfs.File, category vfs.DiskWriteCategory) vfs.File {
	if f == nil || category != "pebble-wal" {
		return f
	}
	return &walFile{File: f, failed: fs.failed}
}

type walFile struct {
	vfs.File
	failed func(error)
}

func (f *walFile) check(err error) error {
	if err != nil {
		f.failed(err)
	}
	return err
}

func (f *walFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	return n, f.check(err)
}

func (f *walFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	return n, f.check(err)
}

func (f *walFile) Sync() error     { return f.check(f.File.Sync()) }
func (f *walFile) SyncData() error { return f.check(f.File.SyncData()) }
func (f *walFile) Close() error    { return f.check(f.File.Close()) }

func (f *walFile) SyncTo(length int64) (bool, error) {
	full, err := f.File.SyncTo(length)
	return full, f.check(err)
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

// quietLogger routes Pebble's chatter to slog at debug level.
type quietLogger struct{ l *slog.Logger }

func (q quietLogger) Infof(format string, args ...any) {
	q.l.Debug(fmt.Sprintf("pebble: "+format, args...))
}
func (q quietLogger) Errorf(format string, args ...any) {
	q.l.Error(fmt.Sprintf("pebble: "+format, args...))
}
func (q quietLogger) Fatalf(format string, args ...any) {
	q.l.Error(fmt.Sprintf("pebble: "+format, args...))
	os.Exit(1)
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
