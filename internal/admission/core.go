// Package admission decides how many client transactions execute at
// once: a pure core (events in, decisions out; no goroutines, no clock of
// its own) that the SQL stage's gate (sqlengine/admission.go) drives.
//
// Past a few hundred clients every open transaction holds its read view
// and its row locks for as long as the cores take to get round to it, so
// transactions collide (deadlocks, lock waits) and most of the work done
// is thrown away: at 1000 sysbench clients, two of three read_write
// transactions died as deadlock victims. The core keeps the number of
// transactions executing at once at Limit: a transaction takes a slot with
// its first statement and keeps it until it ends; the others wait, in
// two FIFO queues:
//
//   - a statement of a transaction already open (InTxn) before one that
//     begins a new transaction (New);
//   - a New statement that has waited Kickup is served first (MariaDB's
//     thread_pool_prio_kickup_timer), so it is never starved.
//
// A slot holder that has run nothing for Grace (its client is thinking,
// or gone quiet inside a transaction) does not count against the limit
// until it runs again: the limit bounds transactions at work, not
// connections with a transaction open, so a client idling in a
// transaction cannot stall the others.
package admission

import "time"

// Class is a waiting statement's priority.
type Class int

const (
	// InTxn: a statement of a transaction already open.
	InTxn Class = iota
	// New: a statement that begins a transaction (autocommit included).
	New
)

func (c Class) String() string {
	if c == InTxn {
		return "in-txn"
	}
	return "new"
}

// ID names a slot holder (the gate uses its connection's id).
type ID uint64

// Options are the core's settings.
type Options struct {
	// Limit is how many transactions execute at once; 0: no limit.
	Limit int
	// Kickup is how long a New statement waits before it is served
	// first; 0: never.
	Kickup time.Duration
	// Grace is how long a holder may run nothing and still count against
	// the limit; 0: always counts.
	Grace time.Duration
}

// Stats are the core's counters.
type Stats struct {
	// Holding: slot holders; Idle: those of them not counted (idle for
	// Grace); Waiting: statements queued.
	Holding, Idle, Waiting int
	// Admitted counts slots given at once, Queued statements that waited
	// first, Kicked those served first after Kickup, Cancelled those that
	// gave up waiting.
	Admitted, Queued, Kicked, Cancelled uint64
}

type entry struct {
	id    ID
	since time.Time
}

type holder struct {
	busy  bool
	since time.Time // when it last became idle
	// gen is the core's event count at its last Idle or Busy: an entry
	// of the idle queue with another gen is stale (core-wide, so a new
	// holder of the same id never matches an old entry).
	gen uint64
	// counted: idle for Grace, not counted against the limit.
	counted bool
}

// idleEntry is a holder going idle, in the idle queue.
type idleEntry struct {
	id    ID
	since time.Time
	gen   uint64
}

// Core is the admission state. Not safe for concurrent use.
type Core struct {
	opts    Options
	holders map[ID]*holder
	inTxn   []entry
	fresh   []entry
	stats   Stats
	// idleQ holds holders going idle in the order they did (so by time):
	// those reaching Grace are taken from its front (advance), so that
	// the number not counted is kept, not recounted per statement.
	idleQ   []idleEntry
	uncount int    // holders counted idle
	gens    uint64 // events, for holder.gen
}

// NewCore returns a core with no holders.
func NewCore(o Options) *Core { return &Core{opts: o, holders: map[ID]*holder{}} }

// Options returns the current settings.
func (c *Core) Options() Options { return c.opts }

// Arrive: id asks for a slot at now for a statement of class. True: it
// holds one (busy) until it Leaves; false: it waits until a Leave, Idle,
// Tick or SetLimit names it, or it is Cancelled.
func (c *Core) Arrive(id ID, class Class, now time.Time) bool {
	if c.room(now) > 0 {
		c.hold(id)
		c.stats.Admitted++
		return true
	}
	e := entry{id: id, since: now}
	if class == InTxn {
		c.inTxn = append(c.inTxn, e)
	} else {
		c.fresh = append(c.fresh, e)
	}
	c.stats.Queued++
	return false
}

// Busy: holder id starts a statement.
func (c *Core) Busy(id ID) {
	if h := c.holders[id]; h != nil {
		c.recount(h)
		h.busy = true
	}
}

// Idle: holder id's statement ended at now and it keeps its slot. It may
// let others run once it has been idle for Grace (Tick).
func (c *Core) Idle(id ID, now time.Time) []ID {
	if h := c.holders[id]; h != nil {
		c.recount(h)
		h.busy, h.since = false, now
		if c.opts.Grace > 0 {
			// Entries past the grace time leave as new ones come: the
			// queue holds about one grace time of Idle events.
			c.advance(now)
			c.idleQ = append(c.idleQ, idleEntry{id: id, since: now, gen: h.gen})
		}
	}
	return c.fill(now)
}

// recount: h's idle time is over (or starts again); it counts against
// the limit, and its entry in the idle queue is stale.
func (c *Core) recount(h *holder) {
	if h.counted {
		h.counted = false
		c.uncount--
	}
	c.gens++
	h.gen = c.gens
}

// Leave: holder id gives its slot back at now. The statements returned
// run now, in order.
func (c *Core) Leave(id ID, now time.Time) []ID {
	if h := c.holders[id]; h != nil {
		c.recount(h)
		delete(c.holders, id)
	}
	return c.fill(now)
}

// hold makes id a busy holder.
func (c *Core) hold(id ID) {
	if h := c.holders[id]; h != nil {
		c.recount(h) // a holder asking again (the gate does not; kept exact)
	}
	c.gens++
	c.holders[id] = &holder{busy: true, gen: c.gens}
}

// advance marks the holders idle for Grace at now as not counted.
func (c *Core) advance(now time.Time) {
	for len(c.idleQ) > 0 {
		e := c.idleQ[0]
		if now.Sub(e.since) < c.opts.Grace {
			return
		}
		c.idleQ = c.idleQ[1:]
		if h := c.holders[e.id]; h != nil && h.gen == e.gen && !h.busy && !h.counted {
			h.counted = true
			c.uncount++
		}
	}
	if cap(c.idleQ) > 64 && len(c.idleQ) == 0 {
		c.idleQ = nil // let a long queue's array go
	}
}

// NextTick is when a Tick may next let a waiting statement run (a holder
// reaching Grace idle); ok=false when none can before another event
// (nothing waits, or no holder is idle).
func (c *Core) NextTick(now time.Time) (at time.Time, ok bool) {
	if len(c.inTxn)+len(c.fresh) == 0 {
		return time.Time{}, false
	}
	c.advance(now)
	for _, e := range c.idleQ {
		if h := c.holders[e.id]; h != nil && h.gen == e.gen && !h.busy {
			return e.since.Add(c.opts.Grace), true
		}
	}
	return time.Time{}, false
}

// Tick: time passed; holders idle for Grace may let waiting statements
// run.
func (c *Core) Tick(now time.Time) []ID { return c.fill(now) }

// SetLimit changes the limit; a higher one (or none) lets waiting
// statements run, returned in order. A lower one takes effect as holders
// leave.
func (c *Core) SetLimit(limit int, now time.Time) []ID {
	c.opts.Limit = limit
	return c.fill(now)
}

// Cancel: waiting statement id gave up. False when it was not waiting
// (it already holds a slot and must Leave).
func (c *Core) Cancel(id ID) bool {
	for _, q := range []*[]entry{&c.inTxn, &c.fresh} {
		for i, e := range *q {
			if e.id == id {
				*q = append((*q)[:i], (*q)[i+1:]...)
				c.stats.Cancelled++
				return true
			}
		}
	}
	return false
}

// Stats returns the counters at now.
func (c *Core) Stats(now time.Time) Stats {
	s := c.stats
	s.Holding, s.Idle, s.Waiting = len(c.holders), c.idle(now), len(c.inTxn)+len(c.fresh)
	return s
}

// idle counts the holders idle for Grace.
func (c *Core) idle(now time.Time) int {
	if c.opts.Grace <= 0 {
		return 0
	}
	c.advance(now)
	return c.uncount
}

// room is how many more may hold a slot now.
func (c *Core) room(now time.Time) int {
	if c.opts.Limit <= 0 {
		return 1 << 30
	}
	return c.opts.Limit - (len(c.holders) - c.idle(now))
}

// fill lets waiting statements run while there is room: kicked-up New
// ones first (they have waited longest), then InTxn, then New.
func (c *Core) fill(now time.Time) []ID {
	if len(c.inTxn)+len(c.fresh) == 0 {
		return nil
	}
	var out []ID
	for room := c.room(now); room > 0 && len(c.inTxn)+len(c.fresh) > 0; room-- {
		var e entry
		switch {
		case len(c.fresh) > 0 && c.opts.Kickup > 0 && now.Sub(c.fresh[0].since) >= c.opts.Kickup:
			e, c.fresh = c.fresh[0], c.fresh[1:]
			c.stats.Kicked++
		case len(c.inTxn) > 0:
			e, c.inTxn = c.inTxn[0], c.inTxn[1:]
		default:
			e, c.fresh = c.fresh[0], c.fresh[1:]
		}
		c.hold(e.id)
		out = append(out, e.id)
	}
	return out
}
