package replica

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"petrel/binlog"
	"petrel/internal/base"
)

// A relay file is zero-filled ahead of its end while written. Readers see
// only whole transactions; a crash leaves the zeros, and reopening cuts
// them and keeps every synced transaction.
func TestRelayPreallocationAndCrash(t *testing.T) {
	dir := t.TempDir()
	rl, err := openRelay(dir, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	for i := int64(1); i <= n; i++ {
		evs := [][]byte{gtidEvent(t, i), queryEvent("BEGIN"), xidEvent()}
		g, err := binlog.ParseGTID(binlog.Body(evs[0]))
		if err != nil {
			t.Fatal(err)
		}
		if err := rl.append(evs, &g.GTID); err != nil {
			t.Fatal(err)
		}
	}
	if err := rl.sync(); err != nil {
		t.Fatal(err)
	}
	// Nothing appended since: no second fdatasync.
	if err := rl.sync(); err != nil || rl.syncs != 1 {
		t.Fatalf("syncs %d (err %v) after two syncs with one burst between, want 1", rl.syncs, err)
	}
	name, end := rl.current()
	st, err := os.Stat(rl.path(name))
	if err != nil {
		t.Fatal(err)
	}
	if uint64(st.Size()) < end+relayChunk/2 {
		t.Fatalf("relay file is %d bytes for %d written: not preallocated", st.Size(), end)
	}
	if got := rl.space(); got != end {
		t.Fatalf("Relay_Log_Space %d, want %d (zeros do not count)", got, end)
	}

	// A reader limited to the end sees the n transactions and then a
	// clean end, not the zeros.
	rd, err := binlog.OpenReader(rl.path(name))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rd.SetLimit(int64(end))
	tr := binlog.NewTxnReader(rd, name)
	for i := 0; i < n; i++ {
		if _, err := tr.Next(); err != nil {
			t.Fatalf("transaction %d: %v", i+1, err)
		}
	}
	if _, err := tr.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end of the relay log: %v, want EOF", err)
	}
	// The writer goes on; the reader, its limit raised, follows.
	for i := int64(n + 1); i <= 2*n; i++ {
		evs := [][]byte{gtidEvent(t, i), queryEvent("BEGIN"), xidEvent()}
		g, _ := binlog.ParseGTID(binlog.Body(evs[0]))
		if err := rl.append(evs, &g.GTID); err != nil {
			t.Fatal(err)
		}
	}
	_, end = rl.current()
	rd.SetLimit(int64(end))
	for i := n + 1; i <= 2*n; i++ {
		if _, err := tr.Next(); err != nil {
			t.Fatalf("transaction %d after the limit moved: %v", i, err)
		}
	}
	if err := rl.sync(); err != nil {
		t.Fatal(err)
	}

	// Crash: the file is never closed. Reopening cuts the zeros.
	rl2, err := openRelay(dir, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	defer rl2.close()
	if st, err := os.Stat(rl.path(name)); err != nil || uint64(st.Size()) != end {
		t.Fatalf("after reopening, %s is %v bytes (err %v), want %d", name, st.Size(), err, end)
	}
	sid, _ := base.ParseSID(testSource)
	if got := rl2.retrievedSet(); got.Last(sid) != 2*n || !got.Contains(base.GTID{SID: sid, GNO: 1}) {
		t.Fatalf("retrieved %s after the crash, want GNOs 1-%d", got, 2*n)
	}
}

// manualClock fires After channels only when the test says so.
type manualClock struct {
	mu     sync.Mutex
	timers []chan time.Time
}

func (c *manualClock) Now() time.Time { return time.Unix(1000, 0) }

// NewTimer is After with a stop that leaves the timer to fire unseen.
func (c *manualClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	return c.After(d), func() bool { return true }
}

func (c *manualClock) After(time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.timers = append(c.timers, ch)
	return ch
}

// fire expires every pending timer once one is pending.
func (c *manualClock) fire(t *testing.T) {
	t.Helper()
	waitFor(t, "a pending relay sync timer", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.timers) > 0
	})
	c.mu.Lock()
	for _, ch := range c.timers {
		ch <- time.Time{}
	}
	c.timers = nil
	c.mu.Unlock()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// With acknowledgements after the write (RELAY_WRITE), the relay log is
// synced in the background: once the interval after the first write
// expires, or at once when sync_relay_log events wait; never while clean;
// and once more when the syncer stops.
func TestRelayBackgroundSync(t *testing.T) {
	rl, err := openRelay(t.TempDir(), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	defer rl.close()
	if err := rl.sync(); err != nil { // the magic
		t.Fatal(err)
	}
	clock := &manualClock{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rl.runSyncer(ctx, clock, 10*time.Millisecond) }()
	appendTxn := func(gno int64) {
		t.Helper()
		evs := [][]byte{gtidEvent(t, gno), queryEvent("BEGIN"), xidEvent()}
		g, _ := binlog.ParseGTID(binlog.Body(evs[0]))
		if err := rl.append(evs, &g.GTID); err != nil {
			t.Fatal(err)
		}
	}
	base0 := rl.syncCount()

	// Time trigger: a write, then the interval.
	appendTxn(1)
	appendTxn(2)
	time.Sleep(20 * time.Millisecond)
	if n := rl.syncCount(); n != base0 {
		t.Fatalf("synced %d times before the interval expired", n-base0)
	}
	clock.fire(t)
	waitFor(t, "the interval's sync", func() bool { return rl.syncCount() == base0+1 })

	// Count trigger: sync_relay_log=6 events (two transactions of three).
	rl.syncEvery.Store(6)
	appendTxn(3)
	time.Sleep(20 * time.Millisecond)
	if n := rl.syncCount(); n != base0+1 {
		t.Fatalf("synced after 3 of 6 events")
	}
	appendTxn(4)
	waitFor(t, "the sync_relay_log sync", func() bool { return rl.syncCount() == base0+2 })

	// Clean: the timer that may be pending finds nothing to do.
	clock.fire(t)
	time.Sleep(20 * time.Millisecond)
	if n := rl.syncCount(); n != base0+2 {
		t.Fatalf("a clean relay log was synced again (%d syncs)", n-base0)
	}

	// Stopping syncs what is written.
	appendTxn(5)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := rl.syncCount(); n != base0+3 {
		t.Fatalf("stopping the syncer left the relay log unsynced (%d syncs)", n-base0)
	}
}
