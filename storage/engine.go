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
package storage

import (
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
	// LockWaitTimeout is innodb_lock_wait_timeout; default 50s.
	LockWaitTimeout time.Duration
	// MemTableSize; default 64 MiB.
	MemTableSize uint64
	// CacheSize is the block cache (innodb_buffer_pool_size); default 256 MiB.
	CacheSize int64
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
	if o.LockWaitTimeout <= 0 {
		o.LockWaitTimeout = 50 * time.Second
	}
	if o.CacheSize <= 0 {
		o.CacheSize = 256 << 20
	}
	if o.MemTableSize == 0 {
		o.MemTableSize = 8 << 20
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

	// writeErr, once set, refuses further writes (a full disk or a failed
	// sink write left durability uncertain).
	writeErr atomic.Pointer[error]

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
	po := &pebble.Options{
		Cache:                       cache,
		FS:                          opts.FS,
		MemTableSize:                opts.MemTableSize,
		MemTableStopWritesThreshold: 4,
		Logger:                      quietLogger{opts.Logger},
	}
	po.Levels[0].FilterPolicy = bloom.FilterPolicy(10)
	po.EnsureDefaults()
	db, err := pebble.Open(opts.Dir, po)
	if err != nil {
		return nil, base.Wrap(base.ClassCorrupt, err, "storage: cannot open %s", opts.Dir)
	}
	e := &Engine{opts: opts, db: db}
	e.locks = lock.NewManager(lock.Options{WaitTimeout: opts.LockWaitTimeout})
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
	return e, nil
}

// Close flushes memtables (so a clean stop leaves nothing that only the
// WAL holds) and closes the engine. Open transactions must be finished
// first.
func (e *Engine) Close() error {
	var ferr error
	if e.WriteError() == nil {
		// Pebble cannot flush after a failed WAL write; skip it then.
		ferr = e.db.Flush()
	}
	if err := e.db.Close(); err != nil {
		return err
	}
	return ferr
}

// Catalog returns the engine's catalog.
func (e *Engine) Catalog() *Catalog { return e.cat }

// Locks exposes the lock manager (for status variables).
func (e *Engine) Locks() *lock.Manager { return e.locks }

// SetSink installs the commit sink. Call before any commit.
func (e *Engine) SetSink(s CommitSink) {
	e.commitMu.Lock()
	e.sink = s
	e.commitMu.Unlock()
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

func (e *Engine) refuseWrites(err error) {
	werr := base.Wrap(classifyWriteErr(err), err, "storage: writes refused after a failed commit")
	e.writeErr.CompareAndSwap(nil, &werr)
	e.opts.Logger.Error("storage: refusing writes", "err", err)
}

// ClearWriteError lets writes resume (after an operator freed disk space).
func (e *Engine) ClearWriteError() { e.writeErr.Store(nil) }

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
	if err := e.db.Set(metaKey(metaBlob, name), value, pebble.Sync); err != nil {
		e.refuseWrites(err)
		return base.Wrap(classifyWriteErr(err), err, "storage: write meta %s", name)
	}
	return nil
}

// turnstile lets goroutines proceed strictly in sequence order.
type turnstile struct {
	mu   sync.Mutex
	cond *sync.Cond
	last uint64
}

func (t *turnstile) init(last uint64) {
	t.last = last
	t.cond = sync.NewCond(&t.mu)
}

// wait blocks until every sequence before seq has passed.
func (t *turnstile) wait(seq uint64) {
	t.mu.Lock()
	for t.last != seq-1 {
		t.cond.Wait()
	}
	t.mu.Unlock()
}

// pass marks seq as passed and wakes the next.
func (t *turnstile) pass(seq uint64) {
	t.mu.Lock()
	t.last = seq
	t.mu.Unlock()
	t.cond.Broadcast()
}

func (t *turnstile) done() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
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
