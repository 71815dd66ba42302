package storage

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"petrel/internal/base"
)

// heldClock hands every timer to the test, which fires it (or not).
type heldClock struct {
	base.RealClock
	timers chan heldTimer
}

type heldTimer struct {
	d    time.Duration
	fire chan time.Time
}

func newHeldClock() *heldClock { return &heldClock{timers: make(chan heldTimer, 1000)} }

func (c *heldClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := heldTimer{d: d, fire: make(chan time.Time, 1)}
	c.timers <- t
	return t.fire, func() bool { return true }
}

// fireUntil fires every timer clk is asked for until fn returns, checking
// each timer's duration, and returns how many it fired.
func fireUntil(t *testing.T, clk *heldClock, want time.Duration, fn func()) int {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	deadline := time.After(10 * time.Second)
	n := 0
	for {
		select {
		case tm := <-clk.timers:
			if tm.d != want {
				t.Errorf("a timer of %v, want the sync delay %v", tm.d, want)
			}
			n++
			tm.fire <- time.Now()
		case <-done:
			return n
		case <-deadline:
			t.Fatal("the operation did not finish within 10s")
		}
	}
}

// TestSyncDelayEveryCommit: with Options.SyncDelay every durable commit
// waits for an injected delay of exactly that length before its fsync
// (here Pebble's WAL fsync: no sink is attached), and a commit does not
// complete while its delay is held.
func TestSyncDelayEveryCommit(t *testing.T) {
	const delay = 7 * time.Millisecond
	clk := newHeldClock()
	e, err := Open(Options{Dir: "db", FS: vfs.NewMem(), Logger: quiet, Clock: clk, SyncDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if n := fireUntil(t, clk, delay, func() { createKV(t, e) }); n < 1 {
		t.Fatalf("CREATE TABLE synced with %d injected delays, want at least 1", n)
	}
	before := e.Stats().DelayedSyncs
	const commits = 5
	n := fireUntil(t, clk, delay, func() { insertRows(t, e, 1, commits) })
	if n < commits {
		t.Errorf("%d durable commits waited for %d injected delays, want at least one each", commits, n)
	}
	if got := e.Stats().DelayedSyncs - before; got != uint64(n) {
		t.Errorf("DelayedSyncs grew by %d, %d delays were fired", got, n)
	}

	// A held delay holds the commit.
	done := make(chan struct{})
	go func() { defer close(done); insertRows(t, e, commits+1, commits+1) }()
	var tm heldTimer
	select {
	case tm = <-clk.timers:
	case <-time.After(10 * time.Second):
		t.Fatal("the commit asked for no delay")
	}
	select {
	case <-done:
		t.Fatal("the commit completed while its sync delay was held")
	case <-time.After(50 * time.Millisecond):
	}
	tm.fire <- time.Now()
	fireUntil(t, clk, delay, func() { <-done })
	if rows := scanAll(t, e); len(rows) != commits+1 {
		t.Errorf("%d rows after %d commits", len(rows), commits+1)
	}
}

// TestSyncDelayDoesNotHoldClose: a commit waiting for its injected delay
// (a timer that never fires) is released by Close, which completes.
func TestSyncDelayDoesNotHoldClose(t *testing.T) {
	clk := newHeldClock()
	e, err := Open(Options{Dir: "db", FS: vfs.NewMem(), Logger: quiet, Clock: clk, SyncDelay: MaxInjectedDelay, CloseTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	fireUntil(t, clk, MaxInjectedDelay, func() { createKV(t, e) })
	committed := make(chan error, 1)
	go func() {
		txn := e.Begin()
		if err := txn.Insert(context.Background(), e.Catalog().Table("db", "kv"), []any{int64(1), int64(1), "x"}); err != nil {
			committed <- err
			return
		}
		committed <- txn.Commit(context.Background())
	}()
	select {
	case <-clk.timers: // held: never fired
	case <-time.After(10 * time.Second):
		t.Fatal("the commit asked for no delay")
	}
	before := e.Stats().DelayedSyncs
	start := time.Now()
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v with a held sync delay", d)
	}
	select {
	case <-committed: // it completed (or failed at the close): not held
	case <-time.After(5 * time.Second):
		t.Fatal("the commit is still waiting for its sync delay after Close")
	}
	if got := e.Stats().DelayedSyncs; got != before {
		t.Errorf("DelayedSyncs %d after Close cut the delay, want %d", got, before)
	}
}

// TestSyncDelayWallClock: on the wall clock, sequential durable commits
// take at least the injected delay each.
func TestSyncDelayWallClock(t *testing.T) {
	const delay, commits = 5 * time.Millisecond, 10
	e, err := Open(Options{Dir: "db", FS: vfs.NewMem(), Logger: quiet, SyncDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	createKV(t, e)
	before := e.Stats().DelayedSyncs
	start := time.Now()
	insertRows(t, e, 1, commits)
	if d := time.Since(start); d < commits*delay {
		t.Errorf("%d commits took %v with a %v sync delay, want at least %v", commits, d, delay, commits*delay)
	}
	if got := e.Stats().DelayedSyncs - before; got < commits {
		t.Errorf("%d delayed syncs for %d commits", got, commits)
	}
}

// TestSyncDelayBounds: a negative delay or one past MaxInjectedDelay is
// refused at Open.
func TestSyncDelayBounds(t *testing.T) {
	for _, o := range []Options{{SyncDelay: -time.Millisecond}, {SyncDelay: 2 * time.Second}, {WriteDelay: time.Hour}} {
		o.Dir, o.FS, o.Logger = "db", vfs.NewMem(), quiet
		e, err := Open(o)
		if err == nil {
			e.Close()
			t.Errorf("Open with sync delay %v, write delay %v: no error", o.SyncDelay, o.WriteDelay)
		} else if !strings.Contains(err.Error(), "between 0 and 1s") {
			t.Errorf("Open with sync delay %v, write delay %v: %v", o.SyncDelay, o.WriteDelay, err)
		}
	}
}
