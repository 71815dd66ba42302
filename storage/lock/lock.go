// Package lock is Petrel's row lock table: exclusive record locks owned by
// transactions, with FIFO hand-off, wait timeouts and deadlock detection,
// modelled on InnoDB's record locks.
//
// Contract:
//
//   - A lock is named by an arbitrary byte key (the caller's encoded row key)
//     and owned by a transaction id (the owner). Locks are exclusive and
//     re-entrant: an owner that already holds a key gets it again at once.
//     There is no per-key count; one ReleaseAll frees everything.
//   - Locks are released only all at once, by ReleaseAll at commit or
//     rollback (strict two-phase locking). Every owner that called Acquire or
//     TryAcquire must eventually call ReleaseAll, even if it got nothing.
//   - A request for a key held by another owner queues behind it. When the
//     holder releases, the lock is handed directly to the first queued
//     request, so a release wakes exactly one goroutine and later arrivals
//     cannot barge ahead of earlier ones (no thundering herd, no starvation).
//   - A waiting Acquire ends with nil (granted), ErrLockWaitTimeout, ctx.Err(),
//     ErrDeadlock or ErrWaitCancelled. On error the owner keeps every lock it
//     already held; for ErrDeadlock the caller is expected to roll back and
//     call ReleaseAll, as InnoDB does with its deadlock victim.
//   - Deadlocks are detected eagerly. Before a request starts waiting, the
//     waits-for graph (owner -> holder of the key it waits for -> ...) is
//     walked; if the walk returns to the requester, the requester is the
//     victim and gets ErrDeadlock without waiting. A cycle can only be closed
//     by a request that starts waiting (a hand-off gives the lock to an owner
//     that is, at that moment, not waiting for anything), so every deadlock is
//     found by the request that closes it and none is left for the timeout.
//   - Calls for one owner must not overlap, with one exception: ReleaseAll
//     may be called from another goroutine to abort a blocked Acquire (KILL,
//     connection close). That Acquire returns ErrWaitCancelled (or nil, if the
//     lock was handed to it first, in which case ReleaseAll released it again)
//     and once ReleaseAll returns the owner holds nothing. Using the owner id
//     again after ReleaseAll starts a fresh transaction.
//   - Keys are copied; callers may reuse their buffers.
//
// Concurrency design: the key space is split into shards by hash of the key,
// each with its own mutex and table (table.go), so uncontended Acquire and
// ReleaseAll only touch the key's shard and the owner's own state. A global mutex (dlMu)
// serializes the slow path only: starting a wait (with the deadlock walk),
// abandoning a wait, and releasing locks of an owner that is blocked. Holding
// it during the walk makes the walk see a consistent graph: the only changes
// that can happen concurrently are hand-offs, and those cannot add or remove
// an edge of a cycle through blocked owners.
//
// Lock order: dlMu -> shard.mu -> ownerShard.mu -> ownerState.mu. No two
// shard mutexes are ever held together.
package lock

import (
	"context"
	"errors"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"petrel/internal/base"
)

// Errors returned by Acquire.
var (
	// ErrDeadlock: waiting would close a cycle in the waits-for graph. The
	// requester is the victim; it should roll back and call ReleaseAll.
	ErrDeadlock = errors.New("lock: deadlock found when trying to get lock")
	// ErrLockWaitTimeout: the lock was not granted within the wait timeout.
	ErrLockWaitTimeout = errors.New("lock: lock wait timeout exceeded")
	// ErrWaitCancelled: ReleaseAll was called for the owner while it waited
	// (or raced with it).
	ErrWaitCancelled = errors.New("lock: lock wait cancelled by ReleaseAll")
)

// DefaultWaitTimeout is InnoDB's default innodb_lock_wait_timeout.
const DefaultWaitTimeout = 50 * time.Second

const (
	numShards = 64 // power of two; enough to make shard collisions rare at 32 threads
	cacheLine = 64
)

// Options configures a Manager. Zero values take the defaults noted.
type Options struct {
	// WaitTimeout bounds how long Acquire waits when called with timeout<=0.
	// Default DefaultWaitTimeout (50s, innodb_lock_wait_timeout).
	WaitTimeout time.Duration
	// Clock is the time source for timeouts and wait-time statistics;
	// default real time. The manager always stops a timer when its wait
	// ends, so a timer never outlives its wait.
	Clock base.Clock
}

// Stats is a snapshot of the lock table counters. The first four mirror
// InnoDB's status variables.
type Stats struct {
	CurrentWaits int64         // Innodb_row_lock_current_waits: requests waiting now
	TotalWaits   int64         // Innodb_row_lock_waits: requests that had to wait
	Deadlocks    int64         // Innodb_deadlocks: requests chosen as deadlock victim
	Timeouts     int64         // waits ended by innodb_lock_wait_timeout
	LocksHeld    int64         // keys locked right now, over all owners
	WaitTime     time.Duration // Innodb_row_lock_time: total time spent waiting
	MaxWaitTime  time.Duration // Innodb_row_lock_time_max: longest single wait
}

// waitState is the fate of a queued request. It is guarded by the mutex of
// the shard of the key waited for, and leaves waiting exactly once.
type waitState uint8

const (
	waiting   waitState = iota
	granted             // handed the lock by the previous holder
	aborted             // left the queue itself: deadlock victim, timeout, ctx
	cancelled           // removed by ReleaseAll of its own owner
)

// waiter is one queued Acquire.
type waiter struct {
	st    *ownerState
	e     *entry        // the lock waited for; immutable
	ch    chan struct{} // buffered(1): signalled once when someone else ends the wait
	state waitState     // guarded by e.shard.mu
}

// entry is one locked key. It exists exactly while the key is held, so
// holder is never nil for an entry in its shard's table.
type entry struct {
	key     string // immutable
	hash    uint64 // immutable: the key's hash (table.go)
	shard   *shard // immutable
	holder  *ownerState
	waiters *[]*waiter // FIFO; nil until a first request waits
}

// An entry is 48 bytes and its key is in its first owner's key arena
// (ownerState.keys), back to back with the owner's other keys (issue 29
// item 4): with the key in a 32-byte array of its own and the queue as a
// slice, an entry was 96 bytes, 96 MB of a 1M-row UPDATE's row locks
// (keys of 15 bytes). The arena and the entries come in chunks, so a
// transaction taking many locks allocates a chunk at a time, and one of
// a single lock allocates nothing (ownerState's first entry and key0).

type shard struct {
	mu    sync.Mutex
	locks table                // the entries, by key (table.go)
	_     [cacheLine - 40]byte // keep shard mutexes on separate cache lines
}

// ownerState is one transaction's lock state.
type ownerState struct {
	id     uint64
	mu     sync.Mutex
	held   []*entry // keys held, for ReleaseAll
	wait   *waiter  // pending wait, if any; read by the deadlock walk
	closed bool     // ReleaseAll started: no more grants or waits
	// free are entries allocated ahead for the owner's new locks, taken
	// only by its own Acquire calls (which never overlap), so without
	// st.mu: a transaction taking many locks allocates them a chunk at a
	// time. An entry handed to another owner keeps its chunk alive; the
	// chunks are small.
	free  []entry
	chunk int // the size of the last chunk
	// first and held0 are the first entry and the first held slots, in
	// the state itself: a transaction of one row lock allocates once.
	first [1]entry
	held0 [4]*entry
	// keys is the free part of the owner's key arena's current chunk,
	// taken as free is; keyChunk the size of the last chunk; key0 the
	// first chunk, in the state itself.
	keys     []byte
	keyChunk int
	key0     [32]byte
}

// maxChunk bounds the entries allocated at once for an owner.
const maxChunk = 128

// maxKeyChunk bounds the key arena's chunks; a key longer than
// maxArenaKey is a string of its own.
const (
	maxKeyChunk = 8 << 10
	maxArenaKey = 256
)

// keyString returns a copy of key in st's key arena (or, when long, a
// copy of its own). An arena chunk is never written where a key was put:
// the strings into it stay as they are, and keep it alive.
func (st *ownerState) keyString(key []byte) string {
	if len(key) == 0 {
		return ""
	}
	if len(key) > maxArenaKey {
		return string(key) // string() copies the caller's buffer
	}
	if len(st.keys) < len(key) {
		if st.keyChunk == 0 {
			st.keys = st.key0[:]
		} else {
			st.keys = make([]byte, min(2*st.keyChunk, maxKeyChunk))
		}
		st.keyChunk = len(st.keys)
		if len(st.keys) < len(key) {
			st.keys = make([]byte, maxArenaKey)
		}
	}
	n := copy(st.keys, key)
	k := unsafe.String(&st.keys[0], n)
	st.keys = st.keys[n:]
	return k
}

// newEntry returns a zero entry for st's next new lock.
func (st *ownerState) newEntry() *entry {
	if len(st.free) == 0 {
		if st.chunk == 0 {
			st.free = st.first[:]
		} else {
			st.free = make([]entry, min(2*st.chunk, maxChunk))
		}
		st.chunk = len(st.free)
	}
	e := &st.free[0]
	st.free = st.free[1:]
	return e
}

type ownerShard struct {
	mu sync.Mutex
	m  map[uint64]*ownerState
	_  [cacheLine - 16]byte
}

// Manager is the lock table. It is safe for concurrent use.
type Manager struct {
	timeout time.Duration
	clock   base.Clock
	seed    maphash.Seed

	shards [numShards]shard
	owners [numShards]ownerShard

	// dlMu serializes the slow path; see the package comment.
	dlMu sync.Mutex

	currentWaits atomic.Int64
	totalWaits   atomic.Int64
	deadlocks    atomic.Int64
	timeouts     atomic.Int64
	waitNanos    atomic.Int64
	maxWaitNanos atomic.Int64

	// waitHook, if set (tests only), is called when a request has been
	// queued and passed the deadlock check, just before it blocks.
	waitHook func(owner uint64)
}

// NewManager returns an empty lock table.
func NewManager(opts Options) *Manager {
	m := &Manager{
		timeout: opts.WaitTimeout,
		clock:   base.ClockOr(opts.Clock),
		seed:    maphash.MakeSeed(),
	}
	if m.timeout <= 0 {
		m.timeout = DefaultWaitTimeout
	}
	for i := range m.owners {
		m.owners[i].m = make(map[uint64]*ownerState)
	}
	return m
}

// shardFor returns key's shard and hash (its low bits pick the shard,
// the others the place in the shard's table).
func (m *Manager) shardFor(key []byte) (*shard, uint64) {
	h := maphash.Bytes(m.seed, key)
	return &m.shards[h&(numShards-1)], h
}

func (m *Manager) ownerShardFor(owner uint64) *ownerShard {
	// Transaction ids are sequential, so the low bits spread them evenly.
	return &m.owners[owner&(numShards-1)]
}

// lookup returns owner's state, creating it if create is set.
func (m *Manager) lookup(owner uint64, create bool) *ownerState {
	os := m.ownerShardFor(owner)
	os.mu.Lock()
	st := os.m[owner]
	if st == nil && create {
		st = &ownerState{id: owner}
		os.m[owner] = st
	}
	os.mu.Unlock()
	return st
}

// Acquire takes an exclusive lock on key for owner. It returns nil at once if
// owner already holds key. If another owner holds it, Acquire waits in FIFO
// order until the lock is handed to it (nil), the timeout passes
// (ErrLockWaitTimeout), ctx is done (ctx.Err()), ReleaseAll(owner) is called
// (ErrWaitCancelled), or, before waiting, if waiting would close a cycle in
// the waits-for graph (ErrDeadlock; owner is the victim). timeout<=0 means
// Options.WaitTimeout. On error owner keeps the locks it already held.
func (m *Manager) Acquire(ctx context.Context, owner uint64, key []byte, timeout time.Duration) error {
	_, err := m.AcquireNew(ctx, owner, key, timeout)
	return err
}

// AcquireNew is Acquire, also reporting whether the lock is new to owner:
// false when owner held it already before the call. Locks are released
// only all at once (ReleaseAll), so a new lock tells its owner that it has
// not held the key before, and so, under exclusive row locks, that it has
// not written it.
func (m *Manager) AcquireNew(ctx context.Context, owner uint64, key []byte, timeout time.Duration) (bool, error) {
	st := m.lookup(owner, true)
	s, h := m.shardFor(key)
	s.mu.Lock()
	e, free := s.locks.find(h, key)
	if e == nil {
		e = s.grantNewLocked(st, key, h, free)
		s.mu.Unlock()
		return true, m.recordHeld(st, e)
	}
	if e.holder == st {
		s.mu.Unlock()
		return false, nil
	}
	s.mu.Unlock()
	return m.wait(ctx, st, s, h, key, timeout)
}

// TryAcquire takes the lock on key for owner if it is free (or already held
// by owner) and reports whether owner holds it. It never waits, so it can
// never deadlock (NOWAIT semantics).
func (m *Manager) TryAcquire(owner uint64, key []byte) bool {
	st := m.lookup(owner, true)
	s, h := m.shardFor(key)
	s.mu.Lock()
	e, free := s.locks.find(h, key)
	if e == nil {
		e = s.grantNewLocked(st, key, h, free)
		s.mu.Unlock()
		return m.recordHeld(st, e) == nil
	}
	ok := e.holder == st
	s.mu.Unlock()
	return ok
}

// grantNewLocked creates the entry for a free key of hash h, held by st,
// in slot free of the shard's table (find's answer). s.mu is held.
func (s *shard) grantNewLocked(st *ownerState, key []byte, h uint64, free int) *entry {
	e := st.newEntry()
	e.hash, e.shard, e.holder = h, s, st
	e.key = st.keyString(key)
	s.locks.insert(free, e)
	return e
}

// recordHeld adds a freshly granted e to st's held list. The grant and the
// bookkeeping are separate critical sections to keep the shard mutex short;
// if ReleaseAll closed st in between, the grant is undone here so it cannot
// leak.
func (m *Manager) recordHeld(st *ownerState, e *entry) error {
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		s := e.shard
		s.mu.Lock()
		m.releaseLocked(e)
		s.mu.Unlock()
		return ErrWaitCancelled
	}
	if st.held == nil {
		// Room for a transaction's first few locks at once (growing
		// from nil took an allocation at 1, 2, 4 and 8).
		st.held = st.held0[:0]
	}
	st.held = append(st.held, e)
	st.mu.Unlock()
	return nil
}

// wait is Acquire's slow path: queue behind the holder unless that would
// deadlock, then block.
func (m *Manager) wait(ctx context.Context, st *ownerState, s *shard, h uint64, key []byte, timeout time.Duration) (isNew bool, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if timeout <= 0 {
		timeout = m.timeout
	}

	m.dlMu.Lock()
	s.mu.Lock()
	// The lock may have changed hands while no mutex was held.
	e, free := s.locks.find(h, key)
	if e == nil {
		e = s.grantNewLocked(st, key, h, free)
		s.mu.Unlock()
		m.dlMu.Unlock()
		return true, m.recordHeld(st, e)
	}
	if e.holder == st { // cannot happen without overlapping calls for st; be safe
		s.mu.Unlock()
		m.dlMu.Unlock()
		return false, nil
	}
	w := &waiter{st: st, e: e, ch: make(chan struct{}, 1)}
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		s.mu.Unlock()
		m.dlMu.Unlock()
		return false, ErrWaitCancelled
	}
	st.wait = w
	st.mu.Unlock()
	if e.waiters == nil {
		e.waiters = new([]*waiter)
	}
	*e.waiters = append(*e.waiters, w)
	holder := e.holder
	s.mu.Unlock()

	if m.closesCycle(st, holder) {
		// Victim: leave the queue without waiting. Under dlMu nobody else
		// can end the wait except a hand-off, which the state check catches.
		s.mu.Lock()
		state := w.state
		if state == waiting {
			dequeueLocked(w)
			w.state = aborted
		}
		s.mu.Unlock()
		m.dlMu.Unlock()
		switch state {
		case granted:
			return true, nil
		case cancelled:
			return false, ErrWaitCancelled
		}
		m.deadlocks.Add(1)
		return false, ErrDeadlock
	}
	m.dlMu.Unlock()

	m.totalWaits.Add(1)
	m.currentWaits.Add(1)
	defer m.currentWaits.Add(-1)
	if m.waitHook != nil {
		m.waitHook(st.id)
	}

	start := m.clock.Now()
	timerC, stop := m.clock.NewTimer(timeout)
	select {
	case <-w.ch:
	case <-timerC:
		err = ErrLockWaitTimeout
	case <-ctx.Done():
		err = ctx.Err()
	}
	stop()
	m.recordWaitTime(m.clock.Now().Sub(start))

	var state waitState
	if err == nil {
		// Signalled: the state was settled before the signal, but ReleaseAll
		// may since have turned a grant into a cancellation.
		s.mu.Lock()
		state = w.state
		s.mu.Unlock()
	} else {
		// Timer or ctx: leave the queue unless a grant beat us to it. dlMu
		// keeps the deadlock walk from seeing a half-removed edge.
		m.dlMu.Lock()
		s.mu.Lock()
		state = w.state
		if state == waiting {
			dequeueLocked(w)
			w.state = aborted
		}
		s.mu.Unlock()
		m.dlMu.Unlock()
	}
	switch state {
	case granted:
		return true, nil // a grant wins over a simultaneous timeout: the lock is held
	case cancelled:
		return false, ErrWaitCancelled
	}
	if err == ErrLockWaitTimeout {
		m.timeouts.Add(1)
	}
	return false, err
}

func (m *Manager) recordWaitTime(d time.Duration) {
	if d < 0 {
		d = 0
	}
	n := int64(d)
	m.waitNanos.Add(n)
	for {
		old := m.maxWaitNanos.Load()
		if n <= old || m.maxWaitNanos.CompareAndSwap(old, n) {
			return
		}
	}
}

// closesCycle reports whether me waiting for a key held by holder closes a
// cycle: it follows holder -> the key holder waits for -> its holder ...
// Each owner waits for at most one key and each key has one holder, so the
// graph out of holder is a single path; it either ends at an owner that is
// not waiting, or reaches me (deadlock), or (defensively; it should not
// happen) loops without me. Called with dlMu held and no other mutex.
func (m *Manager) closesCycle(me, holder *ownerState) bool {
	var seen map[*ownerState]struct{}
	cur := holder
	for steps := 0; cur != nil; steps++ {
		if cur == me {
			return true
		}
		if steps >= 64 {
			// Long chains are rare; only then pay for cycle detection that
			// does not involve me.
			if seen == nil {
				seen = make(map[*ownerState]struct{})
			}
			if _, ok := seen[cur]; ok {
				return false
			}
			seen[cur] = struct{}{}
		}
		cur.mu.Lock()
		w := cur.wait
		cur.mu.Unlock()
		if w == nil {
			return false
		}
		s := w.e.shard
		s.mu.Lock()
		var next *ownerState
		if w.state == waiting {
			next = w.e.holder
		}
		s.mu.Unlock()
		cur = next
	}
	return false
}

// dequeueLocked removes a waiting w from its entry's queue and clears its
// owner's pending wait. w.e.shard.mu is held.
func dequeueLocked(w *waiter) {
	q := *w.e.waiters
	for i, x := range q {
		if x == w {
			copy(q[i:], q[i+1:])
			q[len(q)-1] = nil
			*w.e.waiters = q[:len(q)-1]
			break
		}
	}
	w.st.mu.Lock()
	if w.st.wait == w {
		w.st.wait = nil
	}
	w.st.mu.Unlock()
}

// releaseLocked releases e held by its holder: it is handed to the first
// waiter if there is one, otherwise the entry is dropped. e.shard.mu is held.
func (m *Manager) releaseLocked(e *entry) {
	if e.waiters == nil || len(*e.waiters) == 0 {
		e.shard.locks.remove(e)
		e.holder = nil
		return
	}
	q := *e.waiters
	w := q[0]
	copy(q, q[1:])
	q[len(q)-1] = nil
	*e.waiters = q[:len(q)-1]

	// Direct hand-off: the new holder is recorded before it even wakes up,
	// so nobody can slip in between, and only this one goroutine is woken.
	e.holder = w.st
	w.state = granted
	w.st.mu.Lock()
	w.st.held = append(w.st.held, e)
	if w.st.wait == w {
		w.st.wait = nil
	}
	w.st.mu.Unlock()
	w.ch <- struct{}{} // buffered and signalled at most once: never blocks
}

func (m *Manager) releaseList(held []*entry) {
	for _, e := range held {
		s := e.shard
		s.mu.Lock()
		m.releaseLocked(e)
		s.mu.Unlock()
	}
}

// ReleaseAll releases every lock held by owner, handing each to its first
// waiter, and cancels owner's pending wait if there is one (that Acquire
// returns ErrWaitCancelled). Afterwards owner holds nothing and its id may
// be used again.
func (m *Manager) ReleaseAll(owner uint64) {
	os := m.ownerShardFor(owner)
	os.mu.Lock()
	st := os.m[owner]
	if st != nil {
		delete(os.m, owner)
	}
	os.mu.Unlock()
	if st == nil {
		return
	}
	// Loop because cancelling a pending wait may find that the lock was just
	// handed to it, which adds one more entry to st.held. Once st is closed
	// and both lists are empty nothing can add to them again.
	for {
		st.mu.Lock()
		st.closed = true
		held := st.held
		st.held = nil
		w := st.wait
		st.mu.Unlock()

		if w == nil {
			if len(held) == 0 {
				return
			}
			// The common case (commit/rollback): owner is not waiting, so it
			// is not on any path the deadlock walk could be following.
			m.releaseList(held)
			continue
		}
		// owner is blocked, so it may be an interior node of a concurrent
		// deadlock walk: change its edges only under dlMu.
		m.dlMu.Lock()
		s := w.e.shard
		s.mu.Lock()
		switch w.state {
		case waiting:
			dequeueLocked(w)
			w.state = cancelled
			w.ch <- struct{}{}
		case granted:
			// Handed over before we got here: the entry is now in st.held
			// and is released on the next iteration.
			w.state = cancelled
		}
		s.mu.Unlock()
		m.releaseList(held)
		m.dlMu.Unlock()
	}
}

// Held returns the number of keys owner holds.
func (m *Manager) Held(owner uint64) int {
	st := m.lookup(owner, false)
	if st == nil {
		return 0
	}
	st.mu.Lock()
	n := len(st.held)
	st.mu.Unlock()
	return n
}

// Holder returns the owner holding key, if any (for diagnostics such as
// performance_schema.data_locks).
func (m *Manager) Holder(key []byte) (owner uint64, ok bool) {
	s, h := m.shardFor(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, _ := s.locks.find(h, key); e != nil {
		return e.holder.id, true
	}
	return 0, false
}

// Stats returns a snapshot of the counters. LocksHeld is summed shard by
// shard, so under concurrent load it is approximate.
func (m *Manager) Stats() Stats {
	var held int64
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		held += int64(s.locks.n)
		s.mu.Unlock()
	}
	return Stats{
		CurrentWaits: m.currentWaits.Load(),
		TotalWaits:   m.totalWaits.Load(),
		Deadlocks:    m.deadlocks.Load(),
		Timeouts:     m.timeouts.Load(),
		LocksHeld:    held,
		WaitTime:     time.Duration(m.waitNanos.Load()),
		MaxWaitTime:  time.Duration(m.maxWaitNanos.Load()),
	}
}
