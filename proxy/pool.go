package proxy

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// pool holds each backend's idle connections by account, and caps the
// connections open to each backend: 1000 client sessions share a few
// backend connections, since a session holds one only for the statement
// it runs (or for its transaction, or for good when it pinned state).
// Safe for concurrent use.
type pool struct {
	addrs       []string
	maxConns    int
	idleTimeout time.Duration
	dialTimeout time.Duration
	tls         backendTLS

	// slots[i] holds a token per open connection to backend i.
	slots []chan struct{}
	stats []backendCounters

	mu   sync.Mutex
	idle map[poolKey][]*backendConn
	// all holds every open connection, idle or in use (Close cuts them).
	all map[*backendConn]struct{}
	// wake[i] is closed (and replaced) when a connection to backend i
	// comes back or closes.
	wake    []chan struct{}
	waiters []atomic.Int32
	// held[i] are the connections to backend i that sessions hold
	// between statements (backendConn.lease): steal takes idle ones.
	held []map[*backendConn]struct{}
	// gen[i] changes when slot i's address does (a promotion swapped
	// slots): a connection of an older generation is dropped.
	gen []uint64
}

type poolKey struct {
	backend   int
	user      string
	collation byte
}

// backendCounters are a backend's counters for SHOW SERVERS.
type backendCounters struct {
	queries, errors, inFlight, open atomic.Int64
}

// maxBackends bounds the backends of a proxy (listed and discovered):
// the pool's per-backend state is allocated once, so that sessions read
// it without a lock while backends are added.
const maxBackends = 64

func newPool(addrs []string, maxConns int, idleTimeout, dialTimeout time.Duration) *pool {
	p := &pool{addrs: slices.Clone(addrs), maxConns: maxConns, idleTimeout: idleTimeout, dialTimeout: dialTimeout,
		idle: map[poolKey][]*backendConn{}, all: map[*backendConn]struct{}{}, stats: make([]backendCounters, maxBackends)}
	for range maxBackends {
		p.slots = append(p.slots, make(chan struct{}, maxConns))
		p.wake = append(p.wake, make(chan struct{}))
		p.gen = append(p.gen, 0)
		p.held = append(p.held, map[*backendConn]struct{}{})
	}
	p.waiters = make([]atomic.Int32, maxBackends)
	return p
}

// add adds a backend (discovered) and returns its index.
func (p *pool) add(addr string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.addrs = append(p.addrs, addr)
	return len(p.addrs) - 1
}

// get returns an idle connection of cred's account to backend i, or a
// new one; when the backend has maxConns open it waits (up to wait, or
// until ctx ends) for one to come back or close.
func (p *pool) get(ctx context.Context, i int, cred credential, wait time.Duration) (*backendConn, error) {
	key := poolKey{i, cred.user, cred.collation}
	var timer <-chan time.Time
	for {
		now := time.Now()
		p.mu.Lock()
		var c *backendConn
		for l := p.idle[key]; len(l) > 0 && c == nil; l = p.idle[key] {
			c = l[len(l)-1]
			p.idle[key] = l[:len(l)-1]
			if now.Sub(c.lastUsed) >= p.idleTimeout {
				p.mu.Unlock()
				p.discard(c)
				c = nil
				p.mu.Lock()
			}
		}
		if c != nil {
			p.mu.Unlock()
			return c, nil
		}
		p.waiters[i].Add(1)
		wake, addr, gen := p.wake[i], p.addrs[i], p.gen[i]
		p.mu.Unlock()
		waited := func() { p.waiters[i].Add(-1) }
		select {
		case p.slots[i] <- struct{}{}:
			waited()
			c, err := dialBackend(ctx, addr, i, cred, p.dialTimeout, p.tls)
			if err != nil {
				<-p.slots[i]
				p.notify(i)
				return nil, err
			}
			c.gen = gen
			p.stats[i].open.Add(1)
			p.mu.Lock()
			p.all[c] = struct{}{}
			stale := p.gen[i] != gen
			p.mu.Unlock()
			if stale {
				// The slot changed address while this one dialled.
				p.discard(c)
				return nil, errBackendIO{fmt.Errorf("%s is no longer backend slot %d", addr, i)}
			}
			return c, nil
		default:
		}
		// Full: another account's idle connection makes room, or wait
		// for a connection to come back.
		if p.evictOther(key) {
			waited()
			continue
		}
		if c, room := p.steal(key, gen); room {
			waited()
			if c != nil {
				return c, nil
			}
			continue
		}
		if timer == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-wake:
			waited()
		case <-timer:
			waited()
			return nil, fmt.Errorf("proxy: no connection to %s within %v (%d open)", addr, wait, p.maxConns)
		case <-ctx.Done():
			waited()
			return nil, ctx.Err()
		}
	}
}

// notify wakes the waiters for backend i's connections, if any.
func (p *pool) notify(i int) {
	p.mu.Lock()
	if p.waiters[i].Load() > 0 {
		close(p.wake[i])
		p.wake[i] = make(chan struct{})
	}
	p.mu.Unlock()
}

// waiting reports whether a session waits for a connection to backend i
// (a session then gives back the connection it would hold).
func (p *pool) waiting(i int) bool { return p.waiters[i].Load() > 0 }

// hold records c as held by a session between statements.
func (p *pool) hold(c *backendConn) {
	p.mu.Lock()
	p.held[c.backend][c] = struct{}{}
	p.mu.Unlock()
}

// unhold forgets a held connection (its session gives it back).
func (p *pool) unhold(c *backendConn) {
	p.mu.Lock()
	delete(p.held[c.backend], c)
	p.mu.Unlock()
}

// releaseHeld takes back the held connections their sessions left idle
// for longer than d (clients that stopped sending statements) into the
// pool, where other sessions take them and BackendIdleTimeout closes
// them; it returns how many.
func (p *pool) releaseHeld(d time.Duration) int {
	before := time.Now().Add(-d).UnixNano()
	var back []*backendConn
	p.mu.Lock()
	for i := range p.addrs {
		for h := range p.held[i] {
			v := h.lease.Load()
			if v&0xff == leaseIdle && h.heldSince.Load() < before && h.lease.CompareAndSwap(v, leaseTaken) {
				delete(p.held[i], h)
				back = append(back, h)
			}
		}
	}
	p.mu.Unlock()
	for _, c := range back {
		c.lease.Store(0)
		p.put(c)
	}
	return len(back)
}

// steal takes a connection to key's backend that a session holds idle
// between statements: one of key's account (and generation gen) is
// returned for use; another's is closed, which makes room (room reports
// either). The holder finds it gone at its next statement and takes
// another.
func (p *pool) steal(key poolKey, gen uint64) (c *backendConn, room bool) {
	p.mu.Lock()
	for h := range p.held[key.backend] {
		v := h.lease.Load()
		if v&0xff != leaseIdle || !h.lease.CompareAndSwap(v, leaseTaken) {
			continue
		}
		delete(p.held[key.backend], h)
		p.mu.Unlock()
		if h.user == key.user && h.collation == key.collation && h.gen == gen {
			h.lease.Store(0)
			return h, true
		}
		p.discard(h)
		return nil, true
	}
	p.mu.Unlock()
	return nil, false
}

// evictOther closes one idle connection of another account to the same
// backend.
func (p *pool) evictOther(key poolKey) bool {
	p.mu.Lock()
	for k, l := range p.idle {
		if k.backend == key.backend && k != key && len(l) > 0 {
			c := l[0]
			p.idle[k] = l[1:]
			p.mu.Unlock()
			p.discard(c)
			return true
		}
	}
	p.mu.Unlock()
	return false
}

// put returns a clean connection; a broken one is closed.
func (p *pool) put(c *backendConn) {
	if c.broken {
		p.discard(c)
		return
	}
	c.lastUsed = time.Now()
	key := poolKey{c.backend, c.user, c.collation}
	p.mu.Lock()
	if c.gen != p.gen[c.backend] {
		p.mu.Unlock()
		p.discard(c)
		return
	}
	p.idle[key] = append(p.idle[key], c)
	p.mu.Unlock()
	p.notify(c.backend)
}

// discard closes a connection and frees its slot.
func (p *pool) discard(c *backendConn) {
	c.close()
	p.mu.Lock()
	delete(p.all, c)
	delete(p.held[c.backend], c)
	p.mu.Unlock()
	p.stats[c.backend].open.Add(-1)
	<-p.slots[c.backend]
	p.notify(c.backend)
}

// closeIdle closes every idle connection (at shutdown), and those idle
// longer than idleTimeout.
func (p *pool) closeIdle(all bool) {
	now := time.Now()
	var out []*backendConn
	p.mu.Lock()
	for k, l := range p.idle {
		keep := l[:0]
		for _, c := range l {
			if all || now.Sub(c.lastUsed) >= p.idleTimeout {
				out = append(out, c)
			} else {
				keep = append(keep, c)
			}
		}
		p.idle[k] = keep
	}
	p.mu.Unlock()
	for _, c := range out {
		p.discard(c)
	}
}

// cutAll closes the socket of every open connection, in use or not, so
// that a session waiting on a backend ends (at shutdown).
func (p *pool) cutAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.all {
		c.close()
	}
}

// cutBackend closes every connection to backend i, idle or in use: the
// backend stopped answering its checks (down), so a statement waiting on
// it would wait out its deadline. A session whose read was cut before
// any answer reached its client retries it on the primary.
func (p *pool) cutBackend(i int) int {
	var idle []*backendConn
	p.mu.Lock()
	for k, l := range p.idle {
		if k.backend == i {
			idle = append(idle, l...)
			delete(p.idle, k)
		}
	}
	for h := range p.held[i] {
		// Held ones between statements are taken from their sessions.
		if v := h.lease.Load(); v&0xff == leaseIdle && h.lease.CompareAndSwap(v, leaseTaken) {
			delete(p.held[i], h)
			idle = append(idle, h)
		}
	}
	n := 0
	for c := range p.all {
		if c.backend == i {
			c.close()
			n++
		}
	}
	p.mu.Unlock()
	for _, c := range idle {
		p.discard(c)
	}
	return n
}

// swap exchanges slots i and j (a promotion): their addresses and
// counters trade places, and every connection of either is dropped (in
// use ones are cut; their sessions see a failed backend).
func (p *pool) swap(i, j int) {
	p.mu.Lock()
	p.addrs[i], p.addrs[j] = p.addrs[j], p.addrs[i]
	p.gen[i]++
	p.gen[j]++
	for _, f := range []func(*backendCounters) *atomic.Int64{
		func(c *backendCounters) *atomic.Int64 { return &c.queries },
		func(c *backendCounters) *atomic.Int64 { return &c.errors },
	} {
		a, b := f(&p.stats[i]), f(&p.stats[j])
		av := a.Load()
		a.Store(b.Load())
		b.Store(av)
	}
	p.mu.Unlock()
	p.cutBackend(i)
	p.cutBackend(j)
}
