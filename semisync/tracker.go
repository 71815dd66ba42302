// Package semisync is semi-synchronous replication on the source: Core,
// the deterministic decision logic (who acknowledged what, which commits
// wait, when to fall back to asynchronous and when to switch back),
// Tracker, the thin shell that lets commits block on it, and the wire
// format of acknowledgements. The dump threads (repl/source) feed it what
// they send and what replicas acknowledge; the binary log's commit path
// waits on it.
package semisync

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"petrel/internal/base"
)

// Pos is a binary log position: file name and offset. Petrel's file names
// sort in log order.
type Pos struct {
	File string
	Off  uint64
}

// Less orders positions in log order.
func (p Pos) Less(q Pos) bool { return p.File < q.File || p.File == q.File && p.Off < q.Off }

func (p Pos) String() string { return fmt.Sprintf("%s:%d", p.File, p.Off) }

// Wait points (rpl_semi_sync_source_wait_point).
const (
	AfterSync   = "AFTER_SYNC"
	AfterCommit = "AFTER_COMMIT"
)

// Settings are the source's knobs, read at each use (they are dynamic).
type Settings struct {
	Enabled       bool
	Timeout       time.Duration
	WaitPoint     string
	WaitForCount  int
	WaitNoReplica bool
	Strict        bool
}

// Counters are MySQL's Rpl_semi_sync_source_* status figures.
type Counters struct {
	Clients, YesTx, NoTx, NoTimes, TxWaits, WaitSessions, NetWaits, BackTraverse uint64
	TxWaitTime, NetWaitTime                                                      time.Duration
	Status                                                                       bool
}

// Tracker is the shell around Core: it serialises inputs, reads the
// settings and the clock for each, and wakes the commits a Decision
// releases. A waiting commit's own goroutine owns its timer. Safe for
// concurrent use.
type Tracker struct {
	// settings are the ones Configure last gave (read without the mutex).
	settings atomic.Pointer[Settings]
	clock    base.Clock
	// end reports the log's durable end (switching back ON needs enough
	// replicas at it).
	end func() Pos

	mu      sync.Mutex
	core    *Core
	nextID  WaiterID
	waiting map[WaiterID]chan bool // released: true when acknowledged
}

// New builds a Tracker with settings s; Configure changes them.
func New(s Settings, end func() Pos, clock base.Clock) *Tracker {
	if clock == nil {
		clock = base.RealClock{}
	}
	t := &Tracker{clock: clock, end: end, core: NewCore(s), waiting: map[WaiterID]chan bool{}}
	t.settings.Store(&s)
	return t
}

// Configure applies new settings (pushed by the variables' owner when
// one changes): commits waiting under the old ones are released or get
// their deadline as the core decides.
func (t *Tracker) Configure(s Settings) {
	now := t.lock()
	defer t.mu.Unlock()
	t.settings.Store(&s)
	t.apply(t.core.Configure(s, now))
}

// Settings are the tracker's current settings.
func (t *Tracker) Settings() Settings { return *t.settings.Load() }

// lock takes the mutex; the returned time is the input's.
func (t *Tracker) lock() time.Time {
	t.mu.Lock()
	return t.clock.Now()
}

// apply wakes the commits d releases. Caller holds mu.
func (t *Tracker) apply(d Decision) {
	for _, r := range d.Released {
		if ch, ok := t.waiting[r.ID]; ok {
			ch <- r.Acked
			delete(t.waiting, r.ID)
		}
	}
}

// AddReplica registers a semi-sync replica's dump.
func (t *Tracker) AddReplica(connID, serverID uint32) {
	t.lock()
	defer t.mu.Unlock()
	t.core.AddReplica(connID, serverID)
}

// RemoveReplica forgets a dump.
func (t *Tracker) RemoveReplica(connID uint32) {
	now := t.lock()
	defer t.mu.Unlock()
	t.apply(t.core.RemoveReplica(connID, now))
}

// Sent records that a dump sent a transaction ending at p with an ack
// request.
func (t *Tracker) Sent(connID uint32, p Pos) {
	now := t.lock()
	defer t.mu.Unlock()
	t.core.Sent(connID, p, now)
}

// Ack records a replica's acknowledgement of everything up to p and
// releases the commits it completes.
func (t *Tracker) Ack(connID uint32, p Pos) error {
	end := t.end()
	now := t.lock()
	defer t.mu.Unlock()
	d, err := t.core.Ack(connID, p, end, now)
	t.apply(d)
	return err
}

// Admit is asked before a commit is written: in strict mode with too few
// replicas connected it refuses (nothing is written).
func (t *Tracker) Admit() error {
	t.lock()
	defer t.mu.Unlock()
	return t.core.Admit()
}

// Wait blocks until the commit ending at p is acknowledged by
// WaitForCount replicas, or the timeout switches the source to
// asynchronous (then it returns nil, counted as no_tx). In strict mode it
// waits until acknowledged; ctx ending returns its error (the caller must
// not report success).
func (t *Tracker) Wait(ctx context.Context, p Pos) error {
	now := t.lock()
	t.nextID++
	id := t.nextID
	if t.core.Wait(id, p, now) != Waiting {
		t.mu.Unlock()
		return nil
	}
	done := make(chan bool, 1)
	t.waiting[id] = done
	deadline := t.core.Deadline(id)
	t.mu.Unlock()
	for {
		var timeout <-chan time.Time
		if !deadline.IsZero() {
			timeout = t.clock.After(deadline.Sub(t.clock.Now()))
		}
		select {
		case <-done:
			return nil
		case <-timeout:
			now := t.lock()
			t.apply(t.core.Tick(now))
			deadline = t.core.Deadline(id)
			t.mu.Unlock()
		case <-ctx.Done():
			now := t.lock()
			cancelled := t.core.Cancel(id, now)
			delete(t.waiting, id)
			t.mu.Unlock()
			if !cancelled {
				return nil // released meanwhile
			}
			return ctx.Err()
		}
	}
}

// Snapshot returns the counters.
func (t *Tracker) Snapshot() Counters {
	t.lock()
	defer t.mu.Unlock()
	return t.core.Counters()
}

// Acked is the position WaitForCount replicas have acknowledged.
func (t *Tracker) Acked() Pos {
	t.lock()
	defer t.mu.Unlock()
	return t.core.Acked()
}

// NetworkDurable reports whether acknowledgements currently stand in for
// a local fsync (semi-sync ON at AFTER_SYNC).
func (t *Tracker) NetworkDurable() bool {
	t.lock()
	defer t.mu.Unlock()
	return t.core.NetworkDurable()
}
