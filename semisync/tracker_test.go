package semisync

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeClock fires After channels when Advance passes their deadline.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []fakeTimer
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.timers = append(c.timers, fakeTimer{c.now.Add(d), ch})
	return ch
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	keep := c.timers[:0]
	for _, t := range c.timers {
		if !t.at.After(c.now) {
			t.ch <- c.now
		} else {
			keep = append(keep, t)
		}
	}
	c.timers = keep
}

type rig struct {
	t     *testing.T
	clock *fakeClock
	s     Settings
	end   Pos
	tr    *Tracker
}

func newRig(t *testing.T, count int) *rig {
	r := &rig{t: t, clock: &fakeClock{now: time.Unix(1000, 0)},
		s: Settings{Enabled: true, Timeout: 10 * time.Second, WaitPoint: AfterSync, WaitForCount: count, WaitNoReplica: true}}
	r.tr = New(func() Settings { return r.s }, func() Pos { return r.end }, r.clock)
	return r
}

// wait starts a waiter and returns a channel with its result.
func (r *rig) wait(p Pos) chan error {
	ch := make(chan error, 1)
	go func() { ch <- r.tr.Wait(context.Background(), p) }()
	// Let it register.
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if r.tr.Snapshot().WaitSessions > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return ch
}

func done(ch chan error) bool {
	select {
	case err := <-ch:
		ch <- err
		return true
	case <-time.After(50 * time.Millisecond):
		return false
	}
}

func pos(off uint64) Pos { return Pos{File: "binlog.000001", Off: off} }

func TestTrackerAcksReleaseInOrder(t *testing.T) {
	r := newRig(t, 1)
	r.tr.AddReplica(1, 11)
	r.tr.Sent(1, pos(100))
	r.tr.Sent(1, pos(200))
	w1 := r.wait(pos(100))
	w2 := r.wait(pos(200))
	if err := r.tr.Ack(1, pos(100)); err != nil {
		t.Fatal(err)
	}
	if !done(w1) || done(w2) {
		t.Fatalf("ack 100: w1 done %v, w2 done %v", done(w1), done(w2))
	}
	if err := r.tr.Ack(1, pos(200)); err != nil {
		t.Fatal(err)
	}
	if !done(w2) {
		t.Fatal("ack 200 did not release w2")
	}
	c := r.tr.Snapshot()
	if c.YesTx != 2 || c.NoTx != 0 || !c.Status || c.Clients != 1 || c.WaitSessions != 0 || c.TxWaits != 2 {
		t.Errorf("counters %+v", c)
	}
	// Already acknowledged: no wait at all.
	if err := r.tr.Wait(context.Background(), pos(150)); err != nil {
		t.Fatal(err)
	}
	if c := r.tr.Snapshot(); c.YesTx != 3 || c.TxWaits != 2 {
		t.Errorf("after an acked position: %+v", c)
	}
}

func TestTrackerRejectsAcksBeyondSent(t *testing.T) {
	r := newRig(t, 1)
	r.tr.AddReplica(1, 11)
	r.tr.Sent(1, pos(100))
	if err := r.tr.Ack(1, pos(101)); !errors.Is(err, ErrBadAck) {
		t.Errorf("ack beyond sent: %v", err)
	}
	if err := r.tr.Ack(1, Pos{File: "binlog.000002", Off: 4}); !errors.Is(err, ErrBadAck) {
		t.Errorf("ack in a later file: %v", err)
	}
	if err := r.tr.Ack(2, pos(1)); err == nil {
		t.Error("ack from an unknown connection accepted")
	}
	if r.tr.Acked() != (Pos{}) {
		t.Errorf("bad acks moved the acked position to %s", r.tr.Acked())
	}
}

func TestTrackerNeedsWaitForCountReplicas(t *testing.T) {
	r := newRig(t, 2)
	for id := uint32(1); id <= 3; id++ {
		r.tr.AddReplica(id, 10+id)
		r.tr.Sent(id, pos(500))
	}
	w := r.wait(pos(300))
	r.tr.Ack(1, pos(500))
	if done(w) {
		t.Fatal("one ack of two released the commit")
	}
	r.tr.Ack(3, pos(300))
	if !done(w) {
		t.Fatal("two acks did not release the commit")
	}
	if got := r.tr.Acked(); got != pos(300) {
		t.Errorf("acked %s, want the second-highest ack 300", got)
	}
}

func TestTrackerTimeoutFallsBackAndRecovers(t *testing.T) {
	r := newRig(t, 1)
	r.tr.AddReplica(1, 11)
	r.tr.Sent(1, pos(100))
	w1 := r.wait(pos(100))
	w2 := r.wait(pos(100))
	r.clock.Advance(9 * time.Second)
	if done(w1) {
		t.Fatal("released before the timeout")
	}
	r.clock.Advance(2 * time.Second)
	if !done(w1) || !done(w2) {
		t.Fatal("timeout did not release every waiter")
	}
	c := r.tr.Snapshot()
	if c.Status || c.NoTimes != 1 || c.NoTx != 2 || c.YesTx != 0 {
		t.Errorf("after timeout: %+v", c)
	}
	// Asynchronous now: commits do not wait.
	if err := r.tr.Wait(context.Background(), pos(200)); err != nil || r.tr.Snapshot().NoTx != 3 {
		t.Errorf("async commit: %v, %+v", err, r.tr.Snapshot())
	}
	// The replica catches up with the log's end: back ON.
	r.end = pos(200)
	r.tr.Sent(1, pos(200))
	r.tr.Ack(1, pos(150))
	if r.tr.Snapshot().Status {
		t.Fatal("switched ON before the replica reached the end of the log")
	}
	r.tr.Ack(1, pos(200))
	if !r.tr.Snapshot().Status {
		t.Fatal("did not switch back ON when the replica reached the end of the log")
	}
	w3 := r.wait(pos(300))
	if done(w3) {
		t.Fatal("after switching back ON, commits must wait again")
	}
	r.tr.Sent(1, pos(300))
	r.tr.Ack(1, pos(300))
	if !done(w3) {
		t.Fatal("ack did not release")
	}
}

func TestTrackerStrictNeverFallsBack(t *testing.T) {
	r := newRig(t, 1)
	r.s.Strict = true
	if err := r.tr.Admit(); !errors.Is(err, ErrNoReplicas) {
		t.Errorf("strict, no replica: Admit = %v", err)
	}
	r.tr.AddReplica(1, 11)
	if err := r.tr.Admit(); err != nil {
		t.Errorf("strict, one replica: Admit = %v", err)
	}
	r.tr.Sent(1, pos(100))
	w := r.wait(pos(100))
	r.clock.Advance(time.Hour)
	if done(w) {
		t.Fatal("strict mode timed out")
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	go func() { ch <- r.tr.Wait(ctx, pos(100)) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	if err := <-ch; !errors.Is(err, context.Canceled) {
		t.Errorf("killed waiter: %v, want context.Canceled", err)
	}
	r.tr.Ack(1, pos(100))
	if !done(w) {
		t.Fatal("ack did not release the strict waiter")
	}
	if c := r.tr.Snapshot(); c.NoTimes != 0 || !c.Status {
		t.Errorf("strict: %+v", c)
	}
}

// A strict waiter that arrived while the source was asynchronous is
// released by the acknowledgement that switches semi-sync back ON, not
// left waiting for a later one.
func TestTrackerStrictWaiterReleasedWhenSwitchingOn(t *testing.T) {
	r := newRig(t, 1)
	r.tr.AddReplica(1, 11)
	r.tr.Sent(1, pos(100))
	w0 := r.wait(pos(100))
	r.clock.Advance(11 * time.Second) // falls back
	if !done(w0) || r.tr.Snapshot().Status {
		t.Fatal("timeout did not switch the source to asynchronous")
	}
	r.s.Strict = true
	r.end = pos(200)
	r.tr.Sent(1, pos(200))
	w := r.wait(pos(200))
	if done(w) {
		t.Fatal("strict commit did not wait while the source was asynchronous")
	}
	r.tr.Ack(1, pos(200)) // reaches the end of the log: back ON
	if !r.tr.Snapshot().Status {
		t.Fatal("did not switch back ON")
	}
	if !done(w) {
		t.Fatal("the acknowledgement that switched semi-sync ON did not release the strict waiter it covers")
	}
	if c := r.tr.Snapshot(); c.YesTx != 1 || c.WaitSessions != 0 {
		t.Errorf("counters %+v", c)
	}
}

func TestTrackerWaitNoReplicaOff(t *testing.T) {
	r := newRig(t, 1)
	r.s.WaitNoReplica = false
	r.tr.AddReplica(1, 11)
	r.tr.Sent(1, pos(100))
	w := r.wait(pos(100))
	r.tr.RemoveReplica(1)
	if !done(w) {
		t.Fatal("losing the last replica with wait_no_replica=OFF did not release the waiter")
	}
	if c := r.tr.Snapshot(); c.Status || c.NoTimes != 1 || c.Clients != 0 {
		t.Errorf("%+v", c)
	}
}

func TestAckWire(t *testing.T) {
	p := Pos{File: "binlog.000007", Off: 123456}
	got, err := ParseAck(EncodeAck(p))
	if err != nil || got != p {
		t.Fatalf("round trip: %v %v", got, err)
	}
	for _, bad := range [][]byte{nil, {Magic}, {0x00, 1, 2, 3, 4, 5, 6, 7, 8, 'x'}, append(EncodeAck(pos(1))[:9], 0x01)} {
		if _, err := ParseAck(bad); err == nil {
			t.Errorf("ParseAck(%x) accepted", bad)
		}
	}
}

func FuzzParseAck(f *testing.F) {
	f.Add(EncodeAck(pos(1)))
	f.Fuzz(func(t *testing.T, b []byte) {
		if p, err := ParseAck(b); err == nil {
			if q, err := ParseAck(EncodeAck(p)); err != nil || q != p {
				t.Fatalf("re-encode %v: %v %v", p, q, err)
			}
		}
	})
}
