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

// NewTimer is After with a stop that leaves the timer to fire unseen.
func (c *fakeClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	return c.After(d), func() bool { return true }
}

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

// The decisions are tested from the scenario files (core_test.go); these
// tests cover the shell: a blocked commit is woken by an ack, by its own
// timer (the injected clock), or by its context.

type rig struct {
	clock *fakeClock
	s     Settings
	tr    *Tracker
}

func newRig() *rig {
	r := &rig{clock: &fakeClock{now: time.Unix(1000, 0)},
		s: Settings{Enabled: true, Timeout: 10 * time.Second, WaitPoint: AfterSync, WaitForCount: 1, WaitNoReplica: true}}
	r.tr = New(r.s, func() Pos { return pos(100) }, r.clock)
	return r
}

// wait starts a blocking Wait and returns once it is registered.
func (r *rig) wait(t *testing.T, ctx context.Context, p Pos) chan error {
	t.Helper()
	ch := make(chan error, 1)
	before := r.tr.Snapshot().WaitSessions
	go func() { ch <- r.tr.Wait(ctx, p) }()
	deadline := time.Now().Add(5 * time.Second)
	for r.tr.Snapshot().WaitSessions == before {
		if time.Now().After(deadline) {
			t.Fatal("the commit never started waiting")
		}
		time.Sleep(time.Millisecond)
	}
	return ch
}

func result(t *testing.T, ch chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting commit was not released")
		return nil
	}
}

func pos(off uint64) Pos { return Pos{File: "binlog.000001", Off: off} }

func TestTrackerAckWakesWaiter(t *testing.T) {
	r := newRig()
	r.tr.AddReplica(1, 11)
	r.tr.Sent(1, pos(100))
	ch := r.wait(t, context.Background(), pos(100))
	if err := r.tr.Ack(1, pos(100)); err != nil {
		t.Fatal(err)
	}
	if err := result(t, ch); err != nil {
		t.Fatal(err)
	}
	if c := r.tr.Snapshot(); c.YesTx != 1 || c.WaitSessions != 0 || !c.Status {
		t.Errorf("counters %+v", c)
	}
	if err := r.tr.Ack(1, pos(101)); !errors.Is(err, ErrBadAck) {
		t.Errorf("ack beyond sent: %v", err)
	}
}

func TestTrackerTimerFallsBack(t *testing.T) {
	r := newRig()
	r.tr.AddReplica(1, 11)
	r.tr.Sent(1, pos(100))
	ch := r.wait(t, context.Background(), pos(100))
	r.clock.Advance(11 * time.Second)
	if err := result(t, ch); err != nil {
		t.Fatal(err)
	}
	if c := r.tr.Snapshot(); c.Status || c.NoTimes != 1 || c.NoTx != 1 {
		t.Errorf("after the timeout: %+v", c)
	}
	if r.tr.NetworkDurable() {
		t.Error("asynchronous source still network durable")
	}
}

func TestTrackerContextWithdrawsWaiter(t *testing.T) {
	r := newRig()
	r.s.Strict = true
	r.tr.Configure(r.s)
	if err := r.tr.Admit(); !errors.Is(err, ErrNoReplicas) {
		t.Errorf("strict, no replica: Admit = %v", err)
	}
	r.tr.AddReplica(1, 11)
	ctx, cancel := context.WithCancel(context.Background())
	ch := r.wait(t, ctx, pos(100))
	cancel()
	if err := result(t, ch); !errors.Is(err, context.Canceled) {
		t.Errorf("killed waiter: %v, want context.Canceled", err)
	}
	if c := r.tr.Snapshot(); c.WaitSessions != 0 || c.YesTx != 0 || c.NoTx != 0 || c.TxWaits != 1 {
		t.Errorf("counters %+v", c)
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
