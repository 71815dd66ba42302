package wire

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"petrel/internal/mysqlerr"
)

// Packet memory. A statement costs the server several times its size
// while it runs: the packet as received, the query string, the parser's
// copy of a literal, the value it becomes, what storage and the binlog
// encode (a 60 MB literal INSERT allocates about 700 MB). max_allowed_packet
// bounds one statement; petrel_packet_memory_limit bounds them all: every
// client command packet over smallFrame (64 KiB) holds its size in bytes
// of the budget from before its payload is read until the command
// finishes (vitess asks for the next command), summed over all
// connections. A command that does not fit waits, first come first
// served, up to net_read_timeout, without reading its packet (the client
// is held by TCP flow control); one larger than the whole budget, or one
// that waited that long, is refused with ER_OUT_OF_RESOURCES (1041) and
// its connection stays usable. When the budget empties after large
// statements, the heap they left is returned to the operating system.

// PacketMemoryVar is the budget's system variable (global, dynamic).
const PacketMemoryVar = "petrel_packet_memory_limit"

// DefaultPacketMemory is its default: four packets of the default
// max_allowed_packet (64 MiB) at once.
const DefaultPacketMemory = 256 << 20

// returnAfter is how many bytes of large packets must have passed since
// memory was last returned to the operating system before it is again.
const returnAfter = 16 << 20

// packetBudget is the server's packet memory. Safe for concurrent use.
type packetBudget struct {
	mu      sync.Mutex
	held    int64
	waiters []*budgetWaiter // first come first served
	// passed counts bytes released since memory was last returned.
	passed int64

	waits, refused atomic.Uint64
	returning      atomic.Bool
	// returnMemory gives the free heap back to the operating system;
	// debug.FreeOSMemory (tests replace it).
	returnMemory func()
	// gcPercent sets the collector's target; debug.SetGCPercent (tests
	// replace it). While large packets are held the target is at most
	// busyGCPercent; gcSaved is the target to restore (-1: not lowered).
	gcPercent func(int) int
	gcLowered bool
	gcSaved   int
}

// busyGCPercent is the collector's target while large packets are held.
// The server runs at 400 (cmd/petrel): the heap may grow to five times
// what is live before a collection, and a large statement's garbage is
// several times its size.
const busyGCPercent = 100

type budgetWaiter struct {
	n     int64
	ready chan struct{} // closed when granted
}

// acquire reserves n bytes of a budget of limit bytes, waiting until
// deadline, or until done is closed, for others to release enough.
func (b *packetBudget) acquire(n, limit int64, deadline time.Time, done <-chan struct{}) error {
	b.mu.Lock()
	if n > limit {
		b.mu.Unlock()
		b.refused.Add(1)
		return mysqlerr.New(mysqlerr.ErOutOfResources,
			"Out of memory: a %d-byte packet is larger than %s (%d bytes)", n, PacketMemoryVar, limit)
	}
	if len(b.waiters) == 0 && b.held+n <= limit {
		b.held += n
		b.syncGC()
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.waits.Add(1)
	b.syncGC()
	b.mu.Unlock()

	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	var cause error
	select {
	case <-w.ready:
		return nil
	case <-done:
		cause = errClosedByServer
	case <-t.C:
	}
	b.mu.Lock()
	granted := true
	for i, x := range b.waiters {
		if x == w {
			b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
			granted = false
			break
		}
	}
	held := b.held
	b.syncGC()
	b.mu.Unlock()
	if granted {
		// Granted as the wait ended: give it back.
		b.release(n, limit)
	}
	if cause != nil {
		return cause
	}
	b.refused.Add(1)
	// The head of the queue may have been the one that left.
	b.grant(limit)
	return mysqlerr.New(mysqlerr.ErOutOfResources,
		"Out of memory: waited net_read_timeout for %d bytes of %s (%d bytes, %d held by other statements)",
		n, PacketMemoryVar, limit, held)
}

// release returns n bytes and admits the waiters that now fit.
func (b *packetBudget) release(n, limit int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.held -= n
	b.passed += n
	empty := b.held == 0 && len(b.waiters) == 0
	ret := b.passed >= returnAfter && (empty || b.passed >= limit)
	if ret {
		b.passed = 0
	}
	b.syncGC()
	b.mu.Unlock()
	b.grant(limit)
	if ret {
		b.giveBack()
	}
}

// grant admits queued waiters in order while they fit.
func (b *packetBudget) grant(limit int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.waiters) > 0 {
		w := b.waiters[0]
		if b.held+w.n > limit && b.held > 0 {
			return
		}
		b.held += w.n
		b.waiters = b.waiters[1:]
		close(w.ready)
	}
}

// syncGC lowers the collector's target to busyGCPercent while packets
// are held or awaited, and restores it when none are. REQUIRES: b.mu.
func (b *packetBudget) syncGC() {
	busy := b.held > 0 || len(b.waiters) > 0
	if busy == b.gcLowered {
		return
	}
	set := b.gcPercent
	if set == nil {
		set = debug.SetGCPercent
	}
	if busy {
		b.gcSaved = set(busyGCPercent)
		if b.gcSaved < busyGCPercent {
			set(b.gcSaved) // already lower, or off (GOGC): keep it
		}
	} else {
		set(b.gcSaved)
	}
	b.gcLowered = busy
}

// giveBack returns the heap large statements left to the operating
// system, once at a time, in the background: with the collector's target
// at 400% (cmd/petrel) their garbage would otherwise stay resident until
// the heap grew five times past what is live.
func (b *packetBudget) giveBack() {
	if !b.returning.CompareAndSwap(false, true) {
		return
	}
	fn := b.returnMemory
	if fn == nil {
		fn = debug.FreeOSMemory
	}
	go func() {
		defer b.returning.Store(false)
		fn()
	}()
}

// inUse is the bytes held.
func (b *packetBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}

func (g *Gate) packetMemoryLimit() int64 {
	return g.settings.Int(PacketMemoryVar, DefaultPacketMemory)
}

// reserve takes n bytes of packet memory for the current command.
func (c *Conn) reserve(n int64) error {
	if c.gate == nil {
		return nil
	}
	limit := c.gate.packetMemoryLimit()
	deadline := time.Now().Add(time.Duration(c.netReadTimeout.Load()))
	if err := c.gate.budget.acquire(n, limit, deadline, c.done); err != nil {
		return err
	}
	c.heldMu.Lock()
	if c.closed.Load() {
		c.heldMu.Unlock()
		c.gate.budget.release(n, limit)
		return errClosedByServer
	}
	c.held += n
	c.heldMu.Unlock()
	return nil
}

// trimHeld gives back what the command holds beyond size bytes (a
// multi-frame packet reserved max_allowed_packet until its end).
func (c *Conn) trimHeld(size int64) {
	c.heldMu.Lock()
	extra := c.held - size
	if extra <= 0 {
		c.heldMu.Unlock()
		return
	}
	c.held = size
	c.heldMu.Unlock()
	c.gate.budget.release(extra, c.gate.packetMemoryLimit())
}

// releaseHeld gives back the command's packet memory.
func (c *Conn) releaseHeld() {
	c.heldMu.Lock()
	n := c.held
	c.held = 0
	c.heldMu.Unlock()
	if n > 0 && c.gate != nil {
		c.gate.budget.release(n, c.gate.packetMemoryLimit())
	}
}
