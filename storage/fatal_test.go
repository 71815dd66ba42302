package storage

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/internal/base"
)

// TestPebbleFatalFailsTheEngine: Pebble's Fatalf (a broken invariant, a
// failed MANIFEST or commit write) never exits the process. The engine
// fails as after any failure only a restart recovers from: one error
// line however many Fatalf calls, writes refused (ER_ERROR_ON_WRITE's
// class) with Pebble's message, reads still served; the goroutine that
// called Fatalf goes no further into Pebble (the code after the call
// never runs) and ends when the engine closes; Close returns, saying the
// stop was not clean.
func TestPebbleFatalFailsTheEngine(t *testing.T) {
	logs := &logCount{}
	e, err := Open(Options{Dir: "db", FS: vfs.NewMem(), Logger: slog.New(logs), CloseTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	createKV(t, e)
	insertRows(t, e, 1, 10)

	// Pebble's logger, as Pebble holds it.
	var logger pebble.Logger = quietLogger{e.opts.Logger, e.logLimit, e.pebbleFatal}
	var wg sync.WaitGroup
	var returned sync.Map
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			logger.Fatalf("MANIFEST sync failed: %v", "injected")
			returned.Store(i, true) // must never run
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for e.WriteError() == nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	werr := e.WriteError()
	if werr == nil || base.ClassOf(werr) != base.ClassWritesRefused || !strings.Contains(werr.Error(), "MANIFEST sync failed: injected") {
		t.Fatalf("WriteError after Fatalf = %v, want class WritesRefused naming Pebble's message", werr)
	}
	if err := insertOne(e, 11); err == nil || base.ClassOf(err) != base.ClassWritesRefused {
		t.Errorf("insert after Fatalf: %v, want writes refused", err)
	}
	if rows := scanAll(t, e); len(rows) != 10 {
		t.Errorf("%d rows readable after Fatalf, want 10", len(rows))
	}
	if err := e.ClearWriteError(); err == nil {
		t.Errorf("ClearWriteError after Fatalf succeeded; only a restart recovers")
	}
	time.Sleep(50 * time.Millisecond) // the second caller has certainly reached Fatalf
	if n := len(logs.errors()); n != 1 {
		t.Errorf("%d error lines after two Fatalf calls, want 1: %q", n, logs.errors())
	}
	cerr := e.Close()
	if cerr == nil || !strings.Contains(cerr.Error(), "closed without flushing") {
		t.Errorf("Close after Fatalf: %v, want the unclean-stop error", cerr)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the goroutines that called Fatalf did not end at Close")
	}
	returned.Range(func(k, _ any) bool {
		t.Errorf("Fatalf returned to its caller %v", k)
		return true
	})
}
