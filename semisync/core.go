package semisync

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Core is semi-sync's decision logic, deterministic: no goroutines, no
// channels, no clock. Inputs are method calls carrying the time they
// happen at; outputs are returned values: which waiting commits are
// released and how, whether the source switched to asynchronous or back.
// Tracker is the shell that owns the goroutines, channels and timers.
// Not safe for concurrent use.
type Core struct {
	s        Settings
	replicas map[uint32]*replica // by connection id
	status   bool                // ON: commits wait
	acked    Pos                 // highest position acknowledged by WaitForCount replicas
	waiters  []*waiter           // in arrival order
	maxWait  Pos
	c        Counters
}

type replica struct {
	serverID uint32
	sent     Pos // highest transaction end sent with an ack request
	acked    Pos
	sentAt   map[Pos]time.Time
}

// maxSentAt bounds the send times kept per replica (for net_wait_time).
const maxSentAt = 4096

// WaiterID names a waiting commit; the shell chooses it.
type WaiterID uint64

type waiter struct {
	id       WaiterID
	pos      Pos
	since    time.Time
	deadline time.Time // zero: none (strict)
}

// Released is one waiting commit let go.
type Released struct {
	ID WaiterID
	// Acked: WaitForCount replicas acknowledged it (yes_tx); otherwise
	// the source went asynchronous, or semi-sync was switched off, first
	// (no_tx).
	Acked bool
}

// Decision is what an input changed.
type Decision struct {
	Released    []Released
	SwitchedOff bool // fell back to asynchronous (no_times+1)
	SwitchedOn  bool // back ON: replicas caught up with the log's end
}

func (d *Decision) merge(o Decision) {
	d.Released = append(d.Released, o.Released...)
	d.SwitchedOff = d.SwitchedOff || o.SwitchedOff
	d.SwitchedOn = d.SwitchedOn || o.SwitchedOn
}

// Outcome is what Wait decided at once.
type Outcome int

const (
	// Waiting: the commit waits until a Decision releases its id.
	Waiting Outcome = iota
	// AlreadyAcked: acknowledged before it asked (yes_tx).
	AlreadyAcked
	// Async: the source is asynchronous; the commit does not wait (no_tx).
	Async
	// Disabled: semi-sync is switched off; nothing is counted.
	Disabled
)

func (o Outcome) String() string {
	switch o {
	case AlreadyAcked:
		return "acked"
	case Async:
		return "async"
	case Disabled:
		return "disabled"
	}
	return "waiting"
}

// NewCore starts ON (the status MySQL reports once replicas connect).
func NewCore(s Settings) *Core {
	return &Core{s: s, replicas: map[uint32]*replica{}, status: true}
}

// Configure takes the current settings (they are dynamic). Switching
// semi-sync off releases every waiting commit, unacknowledged.
// Leaving strict mode gives the commits waiting without a deadline one
// from now.
func (c *Core) Configure(s Settings, now time.Time) Decision {
	was := c.s
	c.s = s
	if was.Enabled && !s.Enabled && len(c.waiters) > 0 {
		return c.releaseAll(now)
	}
	if !s.Strict {
		for _, w := range c.waiters {
			if w.deadline.IsZero() {
				w.deadline = now.Add(s.Timeout)
			}
		}
	}
	return Decision{}
}

// AddReplica registers a semi-sync replica's dump.
func (c *Core) AddReplica(connID, serverID uint32) {
	c.replicas[connID] = &replica{serverID: serverID, sentAt: map[Pos]time.Time{}}
	c.c.Clients = uint64(len(c.replicas))
}

// RemoveReplica forgets a dump. Without enough replicas and with
// wait_no_replica OFF the source falls back to asynchronous at once
// (never in strict mode).
func (c *Core) RemoveReplica(connID uint32, now time.Time) Decision {
	delete(c.replicas, connID)
	c.c.Clients = uint64(len(c.replicas))
	if !c.s.WaitNoReplica && !c.s.Strict && len(c.replicas) < c.s.WaitForCount && c.status {
		return c.switchOff(now)
	}
	return Decision{}
}

// Sent records that a dump sent a transaction ending at p with an ack
// request: acks up to p from that replica are valid.
func (c *Core) Sent(connID uint32, p Pos, now time.Time) {
	r := c.replicas[connID]
	if r == nil {
		return
	}
	if r.sent.Less(p) {
		r.sent = p
	}
	if len(r.sentAt) < maxSentAt {
		r.sentAt[p] = now
	}
}

// ErrBadAck is returned for an acknowledgement the replica was never sent.
var ErrBadAck = errors.New("semisync: acknowledgement beyond what was sent")

// Ack records a replica's acknowledgement of everything up to p (acks are
// cumulative; old and repeated ones change nothing) and releases the
// commits it completes. end is the log's durable end: once WaitForCount
// replicas acknowledged it, an asynchronous source switches back ON.
func (c *Core) Ack(connID uint32, p, end Pos, now time.Time) (Decision, error) {
	r := c.replicas[connID]
	if r == nil {
		return Decision{}, fmt.Errorf("semisync: ack from unregistered connection %d", connID)
	}
	if r.sent.Less(p) {
		return Decision{}, fmt.Errorf("%w: replica server_id %d acknowledged %s, was sent up to %s", ErrBadAck, r.serverID, p, r.sent)
	}
	if !r.acked.Less(p) {
		return Decision{}, nil
	}
	r.acked = p
	for q, at := range r.sentAt {
		if !p.Less(q) {
			c.c.NetWaits++
			c.c.NetWaitTime += now.Sub(at)
			delete(r.sentAt, q)
		}
	}
	return c.recompute(end, now), nil
}

// recompute finds the position WaitForCount replicas reached, switches
// back ON once that covers the log's end, and releases the waiters it
// covers (strict waiters that arrived while asynchronous included).
func (c *Core) recompute(end Pos, now time.Time) Decision {
	k := max(c.s.WaitForCount, 1)
	if len(c.replicas) < k {
		return Decision{}
	}
	acks := make([]Pos, 0, len(c.replicas))
	for _, r := range c.replicas {
		acks = append(acks, r.acked)
	}
	slices.SortFunc(acks, func(a, b Pos) int {
		switch {
		case b.Less(a):
			return -1
		case a.Less(b):
			return 1
		}
		return 0
	})
	if kth := acks[k-1]; c.acked.Less(kth) {
		c.acked = kth
	}
	var d Decision
	if !c.status {
		if c.acked.Less(end) {
			return d
		}
		c.status, d.SwitchedOn = true, true
	}
	keep := c.waiters[:0]
	for _, w := range c.waiters {
		if !c.acked.Less(w.pos) {
			d.Released = append(d.Released, c.release(w, true, now))
			continue
		}
		keep = append(keep, w)
	}
	clear(c.waiters[len(keep):])
	c.waiters = keep
	return d
}

// ErrNoReplicas refuses a commit in strict mode when too few semi-sync
// replicas are connected.
var ErrNoReplicas = errors.New("semi-synchronous replication is strict (rpl_semi_sync_source_strict=ON) and fewer than rpl_semi_sync_source_wait_for_replica_count replicas are connected: the write is refused")

// Admit is asked before a commit is written: in strict mode with too few
// replicas connected it refuses (nothing is written).
func (c *Core) Admit() error {
	if c.s.Enabled && c.s.Strict && len(c.replicas) < max(c.s.WaitForCount, 1) {
		return ErrNoReplicas
	}
	return nil
}

// Wait is a commit ending at p asking to be acknowledged. Unless the
// outcome is Waiting, it need not wait; if it is, a later Decision
// releases id, or Tick's timeout does (never in strict mode), or Cancel
// withdraws it.
func (c *Core) Wait(id WaiterID, p Pos, now time.Time) Outcome {
	switch {
	case !c.s.Enabled:
		return Disabled
	case !c.status && !c.s.Strict:
		c.c.NoTx++
		return Async
	case !c.acked.Less(p):
		c.c.YesTx++
		return AlreadyAcked
	}
	w := &waiter{id: id, pos: p, since: now}
	if !c.s.Strict {
		w.deadline = now.Add(c.s.Timeout)
	}
	if p.Less(c.maxWait) {
		c.c.BackTraverse++
	} else {
		c.maxWait = p
	}
	c.waiters = append(c.waiters, w)
	c.c.WaitSessions++
	return Waiting
}

// Cancel withdraws a waiting commit (its session was killed): counted as a
// wait, neither acknowledged nor not. It reports whether id was waiting.
func (c *Core) Cancel(id WaiterID, now time.Time) bool {
	for i, w := range c.waiters {
		if w.id == id {
			c.waiters = slices.Delete(c.waiters, i, i+1)
			c.c.WaitSessions--
			c.c.TxWaits++
			c.c.TxWaitTime += now.Sub(w.since)
			return true
		}
	}
	return false
}

// Tick lets time pass: a waiter past its deadline switches the source to
// asynchronous, releasing every waiter.
func (c *Core) Tick(now time.Time) Decision {
	for _, w := range c.waiters {
		if !w.deadline.IsZero() && !now.Before(w.deadline) {
			if c.status {
				return c.switchOff(now)
			}
			return c.releaseAll(now)
		}
	}
	return Decision{}
}

// Deadline is when waiter id times out (zero: never, or not waiting).
func (c *Core) Deadline(id WaiterID) time.Time {
	for _, w := range c.waiters {
		if w.id == id {
			return w.deadline
		}
	}
	return time.Time{}
}

func (c *Core) switchOff(now time.Time) Decision {
	c.status = false
	c.c.NoTimes++
	d := c.releaseAll(now)
	d.SwitchedOff = true
	return d
}

func (c *Core) releaseAll(now time.Time) Decision {
	var d Decision
	for _, w := range c.waiters {
		d.Released = append(d.Released, c.release(w, false, now))
	}
	c.waiters = nil
	return d
}

func (c *Core) release(w *waiter, acked bool, now time.Time) Released {
	c.c.WaitSessions--
	c.c.TxWaits++
	c.c.TxWaitTime += now.Sub(w.since)
	if acked {
		c.c.YesTx++
	} else {
		c.c.NoTx++
	}
	return Released{ID: w.id, Acked: acked}
}

// Counters returns MySQL's status figures.
func (c *Core) Counters() Counters {
	out := c.c
	out.Status = c.status && c.s.Enabled
	return out
}

// Acked is the position WaitForCount replicas have acknowledged.
func (c *Core) Acked() Pos { return c.acked }

// NetworkDurable reports whether acknowledgements currently stand in for
// a local fsync: semi-sync ON at AFTER_SYNC.
func (c *Core) NetworkDurable() bool {
	return c.s.Enabled && c.s.WaitPoint != AfterCommit && c.status
}
