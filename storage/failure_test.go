package storage

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/base"
)

// countFS counts the table files Pebble really tries to create (it sits
// under the engine's guard, so creations the guard holds back are not
// counted).
type countFS struct {
	vfs.FS
	tables atomic.Int64
}

func (fs *countFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if tableFile(name) {
		fs.tables.Add(1)
	}
	return fs.FS.Create(name, category)
}

// logCount is a slog handler that keeps the error lines.
type logCount struct {
	mu    sync.Mutex
	lines []string
}

func (h *logCount) Enabled(context.Context, slog.Level) bool { return true }
func (h *logCount) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logCount) WithGroup(string) slog.Handler            { return h }
func (h *logCount) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelError {
		return nil
	}
	line := r.Message
	r.Attrs(func(a slog.Attr) bool {
		line += " " + a.String()
		return true
	})
	h.mu.Lock()
	h.lines = append(h.lines, line)
	h.mu.Unlock()
	return nil
}

func (h *logCount) errors() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.lines...)
}

// insertOne commits one row of db.kv.
func insertOne(e *Engine, id int64) error {
	tb := e.Catalog().Table("db", "kv")
	txn := e.Begin()
	if err := txn.Insert(context.Background(), tb, sql.Row{id, id, "x"}); err != nil {
		txn.Rollback()
		return err
	}
	return txn.Commit(context.Background())
}

// wantRefused fails the test unless err refuses a write with class c
// and carries errno.
func wantRefused(t *testing.T, what string, err error, c base.Class, errno syscall.Errno) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: succeeded, want writes refused", what)
	}
	if base.ClassOf(err) != c || !errors.Is(err, errno) {
		t.Fatalf("%s: %v (class %v), want class %v carrying %v", what, err, base.ClassOf(err), c, errno)
	}
}

// closeWithin closes e and fails the test unless Close finished (not
// abandoned) within limit.
func closeWithin(t *testing.T, e *Engine, limit time.Duration) {
	t.Helper()
	start := time.Now()
	err := e.Close()
	took := time.Since(start)
	if errors.Is(err, ErrAbandoned) || took > limit {
		t.Fatalf("Close: %v after %v, want it to finish within %v", err, took, limit)
	}
}

// TestDatadirRemovedRefusesWrites is issue 13's case on a real
// filesystem, in the server's configuration (the log is storage's WAL):
// the directory is deleted under a running engine. The first flush that
// needs it fails with ENOENT, and from then on writes are refused with
// that errno until a restart, reads go on from what is open and in
// memory, Pebble makes no further attempt (it used to retry without end,
// two error lines per try), and Close finishes at once instead of waiting
// for a flush that cannot happen.
func TestDatadirRemovedRefusesWrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	fs := &countFS{FS: vfs.Default}
	logs := &logCount{}
	e, err := Open(Options{Dir: dir, FS: fs, Logger: slog.New(logs), LogIsWAL: true, CloseTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e.SetSink(&failingSink{}) // durable, so commits stay in the memtable
	createKV(t, e)
	insertRows(t, e, 1, 50)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	// Commits need no new file until the next flush (the node's watcher
	// notices sooner: see e2e TestDatadirRemoved).
	insertRows(t, e, 51, 60)
	before := fs.tables.Load()
	start := time.Now()
	err = e.FlushApplied() // as PURGE BINARY LOGS does; a full memtable would too
	wantRefused(t, "the flush after the directory was removed", err, base.ClassWritesRefused, syscall.ENOENT)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the failed flush took %v to report", took)
	}
	wantRefused(t, "an insert after the failed flush", insertOne(e, 61), base.ClassWritesRefused, syscall.ENOENT)
	if err := e.ClearWriteError(); err == nil {
		t.Fatal("ClearWriteError succeeded after the directory was removed; want refused until restart")
	}
	if rows := scanAll(t, e); len(rows) != 60 {
		t.Fatalf("%d rows readable after the removal, want 60", len(rows))
	}

	// Idle: no more attempts, and a bounded log, however long it lasts.
	time.Sleep(2 * time.Second)
	if n := fs.tables.Load() - before; n > 1 {
		t.Errorf("Pebble tried to create %d table files after the directory was removed, want 1", n)
	}
	lines := logs.errors()
	if len(lines) > 4 {
		t.Errorf("%d error lines, want at most 4:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if len(lines) == 0 || !strings.Contains(strings.Join(lines, "\n"), "no such file or directory") {
		t.Errorf("the log does not say what failed:\n%s", strings.Join(lines, "\n"))
	}
	wantRefused(t, "an insert two seconds later", insertOne(e, 62), base.ClassWritesRefused, syscall.ENOENT)
	closeWithin(t, e, 3*time.Second)
}

// eioOn returns an injector failing, while on is set, the operations of
// kinds on files whose name ends with suffix, with EIO.
func eioOn(on *atomic.Bool, suffix string, kinds ...errorfs.OpKind) errorfs.Injector {
	return errorfs.InjectorFunc(func(op errorfs.Op) error {
		if !on.Load() || !strings.HasSuffix(op.Path, suffix) {
			return nil
		}
		for _, k := range kinds {
			if op.Kind == k {
				name := "write"
				if k.ReadOrWrite() == errorfs.OpIsRead {
					name = "read"
				}
				return &os.PathError{Op: name, Path: op.Path, Err: syscall.EIO}
			}
		}
		return nil
	})
}

// TestIOErrorOnFlushRefusesWritesUntilRestart: EIO while a memtable is
// written to a table file refuses writes with ER_ERROR_ON_WRITE's class
// and the errno, reads go on, and the refusal stands after the disk
// recovers (only a restart resumes writes: a disk that failed a write
// needs an operator); Pebble stops trying meanwhile. The restart, on the
// same files, has every acknowledged row and none refused.
func TestIOErrorOnFlushRefusesWritesUntilRestart(t *testing.T) {
	mem := vfs.NewCrashableMem()
	var eio atomic.Bool
	fs := &countFS{FS: errorfs.Wrap(mem, eioOn(&eio, ".sst", errorfs.OpFileWrite, errorfs.OpFileWriteAt, errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo))}
	logs := &logCount{}
	e, err := Open(Options{Dir: "db", FS: fs, Logger: slog.New(logs), RetryInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	createKV(t, e)
	insertRows(t, e, 1, 100)
	eio.Store(true)
	wantRefused(t, "a flush whose table file write fails", e.flushWait(), base.ClassWritesRefused, syscall.EIO)
	wantRefused(t, "an insert after the failed flush", insertOne(e, 101), base.ClassWritesRefused, syscall.EIO)
	if rows := scanAll(t, e); len(rows) != 100 {
		t.Fatalf("%d rows readable after the I/O error, want 100", len(rows))
	}

	eio.Store(false) // the disk answers again: writes stay refused
	before := fs.tables.Load()
	time.Sleep(time.Second)
	if err := e.ClearWriteError(); err == nil {
		t.Fatal("ClearWriteError succeeded after an I/O error; want refused until restart")
	}
	wantRefused(t, "an insert after the disk recovered", insertOne(e, 102), base.ClassWritesRefused, syscall.EIO)
	if n := fs.tables.Load() - before; n != 0 {
		t.Errorf("Pebble created %d table files after writes were refused until restart, want none", n)
	}
	if lines := logs.errors(); len(lines) > 4 {
		t.Errorf("%d error lines, want at most 4:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	closeWithin(t, e, 3*time.Second)

	// The restart: only what was synced counts.
	e2, err := Open(Options{Dir: "db", FS: mem.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0}), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	rows := scanAll(t, e2)
	if len(rows) != 100 {
		t.Fatalf("%d rows after the restart, want the 100 acknowledged", len(rows))
	}
	if err := insertOne(e2, 101); err != nil {
		t.Fatalf("insert after the restart: %v", err)
	}
}

// TestWALSyncErrorRefusesWritesUntilRestart: with Pebble's own WAL
// (--skip-log-bin), an fsync of the WAL that fails leaves the commit
// under it in doubt (ClassOutcomeUnknown: its batch is applied and in the
// log file), refuses every later write until restart, and never fsyncs
// again to call something durable; after a crash that keeps only what
// was synced, every acknowledged row is there.
func TestWALSyncErrorRefusesWritesUntilRestart(t *testing.T) {
	mem := vfs.NewCrashableMem()
	var eio atomic.Bool
	fs := errorfs.Wrap(mem, eioOn(&eio, ".log", errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo))
	e, err := Open(Options{Dir: "db", FS: fs, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	createKV(t, e)
	insertRows(t, e, 1, 20)
	eio.Store(true)
	if err := insertOne(e, 21); base.ClassOf(err) != base.ClassOutcomeUnknown {
		t.Fatalf("commit whose WAL fsync fails: %v, want outcome unknown", err)
	}
	eio.Store(false)
	wantRefused(t, "an insert after the failed fsync", insertOne(e, 22), base.ClassWritesRefused, syscall.EIO)
	if err := e.ClearWriteError(); err == nil {
		t.Fatal("ClearWriteError succeeded after a failed fsync; want refused until restart")
	}
	if rows := scanAll(t, e); len(rows) < 20 {
		t.Fatalf("%d rows readable after the failed fsync, want at least the 20 acknowledged", len(rows))
	}
	crashed := mem.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	e.Close()

	e2, err := Open(Options{Dir: "db", FS: crashed, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	rows := scanAll(t, e2)
	for id := int64(1); id <= 20; id++ {
		if _, ok := rows[id]; !ok {
			t.Errorf("acknowledged row %d lost", id)
		}
	}
	if _, ok := rows[22]; ok || len(rows) > 21 {
		t.Errorf("rows %v after the restart: the refused insert 22 is there", rows)
	}
}

// eioSink is a commit sink whose log (storage's WAL, as the binlog is)
// fails its fsync while fail is set.
type eioSink struct{ fail atomic.Bool }

func (s *eioSink) Append(*CommitRecord) error { return nil }
func (s *eioSink) Durable() bool              { return true }
func (s *eioSink) Wait(context.Context, *CommitRecord) error {
	if s.fail.Load() {
		return errors.New("binlog: fsync: input/output error")
	}
	return nil
}
func (s *eioSink) SyncForStorage() error {
	if s.fail.Load() {
		return errors.New("binlog: fsync of binlog.000001 failed; restart the server to recover: input/output error")
	}
	return nil
}

// TestLogSyncFailureStopsFlushes: when the log that is storage's WAL
// fails an fsync, storage must never become durable ahead of it (a later
// flush could write to table files rows the log lost), so no memtable is
// flushed any more and writes are refused until restart.
func TestLogSyncFailureStopsFlushes(t *testing.T) {
	fs := &countFS{FS: vfs.NewMem()}
	e, err := Open(Options{Dir: "db", FS: fs, Logger: quiet, LogIsWAL: true})
	if err != nil {
		t.Fatal(err)
	}
	sink := &eioSink{}
	e.SetSink(sink)
	createKV(t, e)
	insertRows(t, e, 1, 20)
	sink.fail.Store(true)
	if err := insertOne(e, 21); base.ClassOf(err) != base.ClassOutcomeUnknown {
		t.Fatalf("commit whose log fsync fails: %v, want outcome unknown", err)
	}
	before := fs.tables.Load()
	if err := e.FlushApplied(); base.ClassOf(err) != base.ClassWritesRefused {
		t.Fatalf("flush after the log's fsync failed: %v, want writes refused", err)
	}
	if err := insertOne(e, 22); base.ClassOf(err) != base.ClassWritesRefused {
		t.Fatalf("insert after the log's fsync failed: %v, want writes refused", err)
	}
	if n := fs.tables.Load() - before; n != 0 {
		t.Errorf("%d table files created after the log's fsync failed, want none", n)
	}
	if err := e.ClearWriteError(); err == nil {
		t.Fatal("ClearWriteError succeeded after the log's fsync failed")
	}
	closeWithin(t, e, 3*time.Second)
}

// TestDiskFullFlushRetriesPaced: a flush that keeps failing on a full
// disk is retried at most once per RetryInterval (Pebble alone retries at
// once, without end), with one log line per second at most; writes are
// refused with disk full meanwhile, and a caller waiting for the flush
// (PURGE BINARY LOGS, a catalog change) hears disk full after a few
// retries instead of waiting for space. Once space returns the flush,
// still retried in the background, completes and writes resume without a
// restart.
func TestDiskFullFlushRetriesPaced(t *testing.T) {
	var full atomic.Bool
	inj := errorfs.InjectorFunc(func(op errorfs.Op) error {
		if full.Load() && strings.HasSuffix(op.Path, ".sst") && (op.Kind == errorfs.OpCreate || op.Kind == errorfs.OpFileWrite) {
			return &os.PathError{Op: "write", Path: op.Path, Err: syscall.ENOSPC}
		}
		return nil
	})
	fs := &countFS{FS: errorfs.Wrap(vfs.NewMem(), inj)}
	logs := &logCount{}
	const retry = 500 * time.Millisecond
	e, err := Open(Options{Dir: "db", FS: fs, Logger: slog.New(logs), RetryInterval: retry, LogIsWAL: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.SetSink(&failingSink{}) // durable: commits stay in the memtable
	createKV(t, e)
	insertRows(t, e, 1, 50)
	full.Store(true)
	start := time.Now()
	err = e.FlushApplied()
	took := time.Since(start)
	wantRefused(t, "a flush on a full disk", err, base.ClassDiskFull, syscall.ENOSPC)
	if took > flushFullRetries*retry+5*time.Second {
		t.Errorf("the flush on a full disk took %v to give up, want about %v", took, flushFullRetries*retry)
	}
	wantRefused(t, "writes while the flush fails on a full disk", insertOne(e, 51), base.ClassDiskFull, syscall.ENOSPC)
	before, lines := fs.tables.Load(), len(logs.errors())
	time.Sleep(2 * time.Second)
	// Two attempts per retry (vfs.OnDiskFull retries once) every 500 ms.
	if n := fs.tables.Load() - before; n > 12 || n == 0 {
		t.Errorf("%d table-file creations in 2 s on a full disk, want 1 to 12 (retried, once per 500 ms)", n)
	}
	if n := len(logs.errors()) - lines; n > 4 {
		t.Errorf("%d error lines in 2 s, want at most 4 (one per second per cause):\n%s", n, strings.Join(logs.errors(), "\n"))
	}
	t.Logf("flush gave up after %v; in 2 s on a full disk: %d table-file creations, %d error lines", took.Round(time.Millisecond), fs.tables.Load()-before, len(logs.errors())-lines)

	full.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for e.ClearWriteError() != nil && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if err := e.FlushApplied(); err != nil {
		t.Fatalf("flush after space returned: %v", err)
	}
	if err := insertOne(e, 51); err != nil {
		t.Fatalf("insert after space returned: %v", err)
	}
	if rows := scanAll(t, e); len(rows) != 51 {
		t.Fatalf("%d rows, want 51", len(rows))
	}
}

// TestCatalogChangeOnFullDiskIsOutcomeUnknown: with the log as storage's
// WAL a catalog change needs a flush inside its commit; when the disk is
// full the commit is applied (visible) but not durable, so its client
// hears the outcome is unknown, not a definite failure, within a bound,
// and writes are refused as disk full.
func TestCatalogChangeOnFullDiskIsOutcomeUnknown(t *testing.T) {
	var full atomic.Bool
	inj := errorfs.InjectorFunc(func(op errorfs.Op) error {
		if full.Load() && strings.HasSuffix(op.Path, ".sst") && (op.Kind == errorfs.OpCreate || op.Kind == errorfs.OpFileWrite) {
			return &os.PathError{Op: "write", Path: op.Path, Err: syscall.ENOSPC}
		}
		return nil
	})
	e, err := Open(Options{Dir: "db", FS: errorfs.Wrap(vfs.NewMem(), inj), Logger: quiet, RetryInterval: 200 * time.Millisecond, LogIsWAL: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.SetSink(&failingSink{})
	full.Store(true)
	start := time.Now()
	txn := e.Begin()
	if err := e.Catalog().CreateDatabase(txn, "db", 0); err != nil {
		t.Fatal(err)
	}
	err = txn.Commit(context.Background())
	if base.ClassOf(err) != base.ClassOutcomeUnknown || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("CREATE DATABASE on a full disk: %v (class %v), want outcome unknown carrying ENOSPC", err, base.ClassOf(err))
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the catalog change took %v to fail", took)
	}
	if werr := e.WriteError(); base.ClassOf(werr) != base.ClassDiskFull {
		t.Errorf("writes after the failed catalog flush: %v, want refused as disk full", werr)
	}
}

// TestReadIOErrorFailsTheStatement: EIO while reading a table file fails
// the read with ClassStorageIO (ER_GET_ERRNO 1030 for clients) carrying
// the errno, not an unclassified error; it refuses nothing (a failed read
// says nothing about writes), and reads work again once the disk answers.
func TestReadIOErrorFailsTheStatement(t *testing.T) {
	mem := vfs.NewMem()
	var eio atomic.Bool
	fs := errorfs.Wrap(mem, eioOn(&eio, ".sst", errorfs.OpFileReadAt, errorfs.OpFileRead, errorfs.OpOpen))
	e, err := Open(Options{Dir: "db", FS: fs, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	createKV(t, e)
	insertRows(t, e, 1, 100)
	closeWithin(t, e, 5*time.Second) // flushed to table files
	// Reopened with a cache too small to keep a block: every row read
	// goes to a table file.
	e, err = Open(Options{Dir: "db", FS: fs, Logger: quiet, CacheSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	eio.Store(true)
	err = scanErr(e)
	if base.ClassOf(err) != base.ClassStorageIO || !errors.Is(err, syscall.EIO) {
		t.Fatalf("a scan whose table file read fails: %v (class %v), want ClassStorageIO carrying EIO", err, base.ClassOf(err))
	}
	if werr := e.WriteError(); werr != nil {
		t.Fatalf("a failed read refused writes: %v", werr)
	}
	eio.Store(false)
	if rows := scanAll(t, e); len(rows) != 100 {
		t.Fatalf("%d rows after the disk answered again, want 100", len(rows))
	}
	if err := insertOne(e, 101); err != nil {
		t.Fatalf("insert after a failed read: %v", err)
	}
}

// scanErr scans db.kv and returns the first error.
func scanErr(e *Engine) error {
	txn := e.Begin()
	defer txn.Rollback()
	it, err := txn.Scan(context.Background(), e.Catalog().Table("db", "kv"), 0, nil, nil, false)
	if err != nil {
		return err
	}
	for {
		row, err := it.Next()
		if err != nil {
			it.Close()
			return err
		}
		if row == nil {
			return it.Close()
		}
	}
}
