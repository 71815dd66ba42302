package storage

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/base"
)

// stallFS makes the creation of sstables (a memtable flush) block while
// stalled, as a disk that stopped answering does.
type stallFS struct {
	vfs.FS
	mu      sync.Mutex
	stalled chan struct{} // nil: not stalled; closed on release
	hits    int
}

func (fs *stallFS) stall() {
	fs.mu.Lock()
	fs.stalled = make(chan struct{})
	fs.mu.Unlock()
}

func (fs *stallFS) release() {
	fs.mu.Lock()
	if fs.stalled != nil {
		close(fs.stalled)
		fs.stalled = nil
	}
	fs.mu.Unlock()
}

func (fs *stallFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if strings.HasSuffix(name, ".sst") {
		fs.mu.Lock()
		ch := fs.stalled
		if ch != nil {
			fs.hits++
		}
		fs.mu.Unlock()
		if ch != nil {
			<-ch
		}
	}
	return fs.FS.Create(name, category)
}

func insertRows(t *testing.T, e *Engine, from, to int64) {
	t.Helper()
	tb := e.Catalog().Table("db", "kv")
	for id := from; id <= to; id++ {
		txn := e.Begin()
		if err := txn.Insert(context.Background(), tb, sql.Row{id, id, "x"}); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCloseAbandonsStalledFlush: Close with a memtable flush that cannot
// finish returns ErrAbandoned at its deadline instead of waiting forever
// (issue 13: node.Close -> Engine.Close -> the close flush hung), and what
// was committed is recovered from the WAL by the next Open.
func TestCloseAbandonsStalledFlush(t *testing.T) {
	mem := vfs.NewCrashableMem()
	fs := &stallFS{FS: mem}
	e, err := Open(Options{Dir: "db", FS: fs, Logger: quiet, CloseTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	createKV(t, e)
	insertRows(t, e, 1, 100)
	fs.stall()
	defer fs.release()

	start := time.Now()
	err = e.Close()
	took := time.Since(start)
	if !errors.Is(err, ErrAbandoned) {
		t.Fatalf("Close with a stalled flush: %v, want ErrAbandoned", err)
	}
	if !strings.Contains(err.Error(), "flush") {
		t.Errorf("Close's error %q does not say the flush was abandoned", err)
	}
	if took < 900*time.Millisecond || took > 5*time.Second {
		t.Errorf("Close took %v, want about its 1s deadline", took)
	}
	fs.mu.Lock()
	hits := fs.hits
	fs.mu.Unlock()
	if hits == 0 {
		t.Fatal("the flush never reached the stalled sstable creation")
	}

	// The process would exit now: what a crash leaves is what the synced
	// WAL holds, and that is every commit.
	crashed := mem.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	fs.release()
	e2, err := Open(Options{Dir: "db", FS: crashed, Logger: quiet})
	if err != nil {
		t.Fatalf("open after the abandoned close: %v", err)
	}
	defer e2.Close()
	if rows := scanAll(t, e2); len(rows) != 100 {
		t.Fatalf("%d rows after the abandoned close, want 100", len(rows))
	}
	// The abandoned engine's flush could finish now; close it for good.
	if err := e.db.Close(); err != nil {
		t.Logf("closing the abandoned Pebble: %v", err)
	}
}

// TestStopCommits: after StopCommits a commit fails with ClassShutdown
// before reaching the sink, while commits already in the sink finish; and
// with one stuck in the sink, StopCommits gives up at its deadline.
func TestStopCommits(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	sink := &blockingSink{release: make(chan struct{}), waiting: make(chan struct{}, 1)}
	e.SetSink(sink)
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")

	sink.block.Store(true)
	stuck := make(chan error, 1)
	go func() {
		txn := e.Begin()
		if err := txn.Insert(context.Background(), tb, sql.Row{int64(1), int64(1), "x"}); err != nil {
			stuck <- err
			return
		}
		stuck <- txn.Commit(context.Background())
	}()
	<-sink.waiting
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	err := e.StopCommits(ctx)
	cancel()
	if !errors.Is(err, ErrAbandoned) {
		t.Fatalf("StopCommits with a commit stuck in the sink: %v, want ErrAbandoned", err)
	}

	txn := e.Begin()
	if err := txn.Insert(context.Background(), tb, sql.Row{int64(2), int64(2), "x"}); err != nil {
		t.Fatal(err)
	}
	appended := sink.appended.Load()
	if err := txn.Commit(context.Background()); base.ClassOf(err) != base.ClassShutdown {
		t.Fatalf("commit after StopCommits: %v, want ClassShutdown", err)
	}
	if sink.appended.Load() != appended {
		t.Fatal("a commit after StopCommits reached the sink")
	}
	if e.refusing() {
		t.Fatal("a shutdown refusal counted as a failed write")
	}

	close(sink.release)
	if err := <-stuck; err != nil {
		t.Fatalf("the commit in the sink before StopCommits: %v, want it to finish", err)
	}
	if err := e.StopCommits(context.Background()); err != nil {
		t.Fatalf("StopCommits with nothing in flight: %v", err)
	}
	if rows := scanAll(t, e); len(rows) != 1 || rows[1] != 1 {
		t.Fatalf("rows %v, want only id 1", rows)
	}
}

// blockingSink holds commits in Wait while block is set.
type blockingSink struct {
	block    atomic.Bool
	appended atomic.Int64
	waiting  chan struct{} // one value when a Wait blocks
	release  chan struct{} // closed to let blocked Waits return
}

func (s *blockingSink) Append(*CommitRecord) error { s.appended.Add(1); return nil }
func (s *blockingSink) Durable() bool              { return true }
func (s *blockingSink) Wait(context.Context, *CommitRecord) error {
	if s.block.Load() {
		select {
		case s.waiting <- struct{}{}:
		default:
		}
		<-s.release
	}
	return nil
}

// TestCloseWaitsForBackgroundWork: work started with Go sees Close start
// (its channel closes), Close returns only after it ended and could still
// write metadata, and Go refuses work once Close has started.
func TestCloseWaitsForBackgroundWork(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	started := make(chan struct{})
	var wrote atomic.Bool
	if !e.Go(func(closing <-chan struct{}) {
		close(started)
		<-closing
		time.Sleep(50 * time.Millisecond) // Close must wait for this
		wrote.Store(e.SetMetaSync("bg", []byte("done")) == nil)
	}) {
		t.Fatal("Go refused work on an open engine")
	}
	<-started
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if !wrote.Load() {
		t.Error("the background work's metadata write failed: Close did not wait for it")
	}
	if e.Go(func(<-chan struct{}) { t.Error("ran after Close") }) {
		t.Error("Go accepted work after Close")
	}
}

// TestCloseFlushesBackgroundMetaWithLogAsWAL: with the binary log as the
// write-ahead log, a metadata write from background work after Close
// began (the planner's automatic ANALYZE at shutdown) stops waiting for
// its flush, and that is no failure: Close stops cleanly and its own
// flush makes the write durable. The server used to refuse writes there
// and exit 1 ("closed without flushing").
func TestCloseFlushesBackgroundMetaWithLogAsWAL(t *testing.T) {
	fs := vfs.NewMem()
	e, err := Open(Options{Dir: "db", FS: fs, Logger: quiet, LogIsWAL: true})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	var werr error
	if !e.Go(func(closing <-chan struct{}) {
		close(started)
		<-closing
		werr = e.SetMetaSync("bg", []byte("done"))
	}) {
		t.Fatal("Go refused work on an open engine")
	}
	<-started
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v (the background write: %v)", err, werr)
	}
	if werr != nil && !errors.Is(werr, ErrClosing) {
		t.Errorf("background write: %v, want nil or ErrClosing", werr)
	}
	e, err = Open(Options{Dir: "db", FS: fs, Logger: quiet, LogIsWAL: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if v, err := e.GetMeta("bg"); err != nil || string(v) != "done" {
		t.Errorf("after reopening: %q, %v; want the background write", v, err)
	}
}
