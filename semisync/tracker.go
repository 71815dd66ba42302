// Package semisync is semi-synchronous replication: the source-side
// Tracker (a deterministic core: who acknowledged what, who waits, when to
// fall back to asynchronous and when to switch back) and the wire format
// of acknowledgements. The dump threads (repl/source) feed it what they
// send and what replicas acknowledge; the binary log's commit path waits
// on it.
package semisync

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
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

// Tracker tracks acknowledgements and waiting commits. Safe for concurrent
// use.
type Tracker struct {
	settings func() Settings
	clock    base.Clock
	// end reports the log's durable end (switching back ON needs enough
	// replicas at it).
	end func() Pos

	mu       sync.Mutex
	replicas map[uint32]*replica // by connection id
	status   bool                // ON: commits wait
	acked    Pos                 // highest position acknowledged by WaitForCount replicas
	waiters  []*waiter
	maxWait  Pos
	c        Counters
}

type replica struct {
	serverID uint32
	sent     Pos // highest transaction end sent with an ack request
	acked    Pos
	sentAt   map[Pos]time.Time
}

type waiter struct {
	pos  Pos
	done chan struct{}
	ok   bool
}

// New builds a Tracker. settings is read at every decision.
func New(settings func() Settings, end func() Pos, clock base.Clock) *Tracker {
	if clock == nil {
		clock = base.RealClock{}
	}
	return &Tracker{settings: settings, clock: clock, end: end, replicas: map[uint32]*replica{}, status: true}
}

// AddReplica registers a semi-sync replica's dump.
func (t *Tracker) AddReplica(connID, serverID uint32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.replicas[connID] = &replica{serverID: serverID, sentAt: map[Pos]time.Time{}}
	t.c.Clients = uint64(len(t.replicas))
}

// RemoveReplica forgets a dump; without enough replicas and with
// wait_no_replica OFF the source falls back to asynchronous at once.
func (t *Tracker) RemoveReplica(connID uint32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.replicas, connID)
	t.c.Clients = uint64(len(t.replicas))
	s := t.settings()
	if !s.WaitNoReplica && !s.Strict && len(t.replicas) < s.WaitForCount && t.status {
		t.switchOffLocked()
	}
}

// Sent records that a dump sent a transaction ending at p with an ack
// request: acks up to p from that replica are valid.
func (t *Tracker) Sent(connID uint32, p Pos) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.replicas[connID]
	if r == nil {
		return
	}
	if r.sent.Less(p) {
		r.sent = p
	}
	if len(r.sentAt) < 4096 {
		r.sentAt[p] = t.clock.Now()
	}
}

// ErrBadAck is returned for an acknowledgement the replica was never sent.
var ErrBadAck = errors.New("semisync: acknowledgement beyond what was sent")

// Ack records a replica's acknowledgement of everything up to p (acks
// are cumulative) and releases the commits it completes.
func (t *Tracker) Ack(connID uint32, p Pos) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.replicas[connID]
	if r == nil {
		return fmt.Errorf("semisync: ack from unregistered connection %d", connID)
	}
	if r.sent.Less(p) {
		return fmt.Errorf("%w: replica server_id %d acknowledged %s, was sent up to %s", ErrBadAck, r.serverID, p, r.sent)
	}
	if !r.acked.Less(p) {
		return nil // an old or repeated ack
	}
	r.acked = p
	now := t.clock.Now()
	for q, at := range r.sentAt {
		if !p.Less(q) {
			t.c.NetWaits++
			t.c.NetWaitTime += now.Sub(at)
			delete(r.sentAt, q)
		}
	}
	t.recomputeLocked()
	return nil
}

// recomputeLocked finds the position WaitForCount replicas have reached,
// releases waiters up to it, and switches back ON once replicas caught up
// with the log's end.
func (t *Tracker) recomputeLocked() {
	s := t.settings()
	k := s.WaitForCount
	if k < 1 {
		k = 1
	}
	if len(t.replicas) < k {
		return
	}
	acks := make([]Pos, 0, len(t.replicas))
	for _, r := range t.replicas {
		acks = append(acks, r.acked)
	}
	sort.Slice(acks, func(i, j int) bool { return acks[j].Less(acks[i]) })
	kth := acks[k-1]
	if t.acked.Less(kth) {
		t.acked = kth
	}
	if !t.status {
		if end := t.end(); t.acked.Less(end) {
			return
		}
		// Back ON; strict waiters that arrived meanwhile and are now
		// acknowledged are released below, not left for a later ack.
		t.status = true
	}
	keep := t.waiters[:0]
	for _, w := range t.waiters {
		if !t.acked.Less(w.pos) {
			w.ok = true
			close(w.done)
			continue
		}
		keep = append(keep, w)
	}
	t.waiters = keep
}

func (t *Tracker) switchOffLocked() {
	t.status = false
	t.c.NoTimes++
	for _, w := range t.waiters {
		close(w.done) // released unacknowledged
	}
	t.waiters = nil
}

// ErrNoReplicas refuses a commit in strict mode when too few semi-sync
// replicas are connected.
var ErrNoReplicas = errors.New("semi-synchronous replication is strict (rpl_semi_sync_source_strict=ON) and fewer than rpl_semi_sync_source_wait_for_replica_count replicas are connected: the write is refused")

// Admit is asked before a commit is written: in strict mode with too few
// replicas connected it refuses (nothing is written).
func (t *Tracker) Admit() error {
	s := t.settings()
	if !s.Enabled || !s.Strict {
		return nil
	}
	t.mu.Lock()
	n := len(t.replicas)
	t.mu.Unlock()
	if n < max(s.WaitForCount, 1) {
		return ErrNoReplicas
	}
	return nil
}

// Wait blocks until the commit ending at p is acknowledged by
// WaitForCount replicas, or the timeout switches the source to
// asynchronous (then it returns nil, counted as no_tx). In strict mode it
// waits until acknowledged; ctx ending returns its error (the caller must
// not report success).
func (t *Tracker) Wait(ctx context.Context, p Pos) error {
	s := t.settings()
	if !s.Enabled {
		return nil
	}
	t.mu.Lock()
	if !t.status && !s.Strict {
		t.c.NoTx++
		t.mu.Unlock()
		return nil
	}
	if !t.acked.Less(p) {
		t.c.YesTx++
		t.mu.Unlock()
		return nil
	}
	w := &waiter{pos: p, done: make(chan struct{})}
	if p.Less(t.maxWait) {
		t.c.BackTraverse++
	} else {
		t.maxWait = p
	}
	t.waiters = append(t.waiters, w)
	t.c.WaitSessions++
	start := t.clock.Now()
	t.mu.Unlock()

	var timeout <-chan time.Time
	if !s.Strict {
		timeout = t.clock.After(s.Timeout)
	}
	var err error
	select {
	case <-w.done:
	case <-timeout:
		t.mu.Lock()
		select {
		case <-w.done: // released meanwhile
		default:
			if t.status {
				t.switchOffLocked()
			}
		}
		t.mu.Unlock()
	case <-ctx.Done():
		err = ctx.Err()
		t.mu.Lock()
		t.removeLocked(w)
		t.mu.Unlock()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.c.WaitSessions--
	t.c.TxWaits++
	t.c.TxWaitTime += t.clock.Now().Sub(start)
	if err != nil {
		return err
	}
	if w.ok {
		t.c.YesTx++
	} else {
		t.c.NoTx++
	}
	return nil
}

func (t *Tracker) removeLocked(w *waiter) {
	for i, x := range t.waiters {
		if x == w {
			t.waiters = append(t.waiters[:i], t.waiters[i+1:]...)
			return
		}
	}
}

// Snapshot returns the counters.
func (t *Tracker) Snapshot() Counters {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.c
	c.Status = t.status && t.settings().Enabled
	return c
}

// Acked is the position WaitForCount replicas have acknowledged.
func (t *Tracker) Acked() Pos {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.acked
}
