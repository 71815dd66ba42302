package lock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"petrel/internal/base"
)

var bg = context.Background()

// testTimeout bounds every blocking receive in these tests, so a bug shows
// up as a failure rather than a hung test binary.
const testTimeout = 20 * time.Second

func k(s string) []byte { return []byte(s) }

// newHooked returns a manager whose waiters announce on the returned channel
// (by owner id) once they are queued and past the deadlock check. Tests use
// it to sequence goroutines without sleeping.
func newHooked(opts Options) (*Manager, chan uint64) {
	m := NewManager(opts)
	ch := make(chan uint64, 1024)
	m.waitHook = func(owner uint64) { ch <- owner }
	return m, ch
}

func recvOwner(t *testing.T, ch <-chan uint64) uint64 {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(testTimeout):
		t.Fatal("timed out waiting for a waiter to queue")
		return 0
	}
}

func recvErr(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(testTimeout):
		t.Fatal("timed out waiting for Acquire to return")
		return nil
	}
}

func acquireAsync(m *Manager, ctx context.Context, owner uint64, key string, timeout time.Duration) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- m.Acquire(ctx, owner, k(key), timeout) }()
	return ch
}

// checkEmpty asserts the manager has no residual state.
func checkEmpty(t *testing.T, m *Manager) {
	t.Helper()
	st := m.Stats()
	if st.LocksHeld != 0 || st.CurrentWaits != 0 {
		t.Fatalf("residual state: %+v", st)
	}
	for i := range m.owners {
		os := &m.owners[i]
		os.mu.Lock()
		n := len(os.m)
		os.mu.Unlock()
		if n != 0 {
			t.Fatalf("owner shard %d has %d owners left", i, n)
		}
	}
}

func TestReentrant(t *testing.T) {
	m := NewManager(Options{})
	buf := k("row1")
	if err := m.Acquire(bg, 1, buf, 0); err != nil {
		t.Fatal(err)
	}
	copy(buf, "XXXX") // the manager must have copied the key
	if err := m.Acquire(bg, 1, k("row1"), 0); err != nil {
		t.Fatal(err)
	}
	if !m.TryAcquire(1, k("row1")) {
		t.Fatal("TryAcquire by holder failed")
	}
	if m.TryAcquire(2, k("row1")) {
		t.Fatal("TryAcquire by other owner succeeded")
	}
	if _, ok := m.Holder(k("XXXX")); ok {
		t.Fatal("key buffer was not copied")
	}
	if o, ok := m.Holder(k("row1")); !ok || o != 1 {
		t.Fatalf("Holder = %d, %v", o, ok)
	}
	if !m.TryAcquire(1, k("row2")) {
		t.Fatal("TryAcquire of free key failed")
	}
	if got := m.Held(1); got != 2 {
		t.Fatalf("Held = %d, want 2", got)
	}
	if got := m.Stats().LocksHeld; got != 2 {
		t.Fatalf("LocksHeld = %d, want 2", got)
	}
	m.ReleaseAll(1)
	if got := m.Held(1); got != 0 {
		t.Fatalf("Held after ReleaseAll = %d", got)
	}
	if !m.TryAcquire(2, k("row1")) {
		t.Fatal("key not free after ReleaseAll")
	}
	m.ReleaseAll(2)
	m.ReleaseAll(3) // unknown owner: no-op
	checkEmpty(t, m)
	if s := m.Stats(); s.TotalWaits != 0 || s.Deadlocks != 0 {
		t.Fatalf("unexpected stats %+v", s)
	}
}

func TestFIFOHandoff(t *testing.T) {
	m, queued := newHooked(Options{})
	if err := m.Acquire(bg, 1, k("hot"), 0); err != nil {
		t.Fatal(err)
	}
	const n = 6
	results := make([]<-chan error, n+2)
	for o := uint64(2); o < n+2; o++ {
		results[o] = acquireAsync(m, bg, o, "hot", 0)
		if got := recvOwner(t, queued); got != o { // queue strictly in order
			t.Fatalf("queued %d, want %d", got, o)
		}
	}
	if s := m.Stats(); s.CurrentWaits != n || s.TotalWaits != n {
		t.Fatalf("stats %+v", s)
	}
	// Each release hands the lock to exactly the next waiter in FIFO order;
	// nobody else is woken.
	for o := uint64(2); o < n+2; o++ {
		m.ReleaseAll(o - 1)
		if err := recvErr(t, results[o]); err != nil {
			t.Fatalf("owner %d: %v", o, err)
		}
		if h, _ := m.Holder(k("hot")); h != o {
			t.Fatalf("holder %d, want %d", h, o)
		}
		for later := o + 1; later < n+2; later++ {
			select {
			case err := <-results[later]:
				t.Fatalf("owner %d returned early: %v", later, err)
			default:
			}
		}
	}
	m.ReleaseAll(n + 1)
	checkEmpty(t, m)
}

func TestNoBargingAfterHandoff(t *testing.T) {
	m, queued := newHooked(Options{})
	m.Acquire(bg, 1, k("a"), 0)
	res := acquireAsync(m, bg, 2, "a", 0)
	recvOwner(t, queued)
	m.ReleaseAll(1)
	// The lock now belongs to owner 2 even if its goroutine has not run yet.
	if m.TryAcquire(3, k("a")) {
		t.Fatal("owner 3 barged ahead of queued owner 2")
	}
	if err := recvErr(t, res); err != nil {
		t.Fatal(err)
	}
	m.ReleaseAll(2)
	m.ReleaseAll(3)
	checkEmpty(t, m)
}

func TestDeadlockTwoOwners(t *testing.T) {
	m, queued := newHooked(Options{})
	must(t, m.Acquire(bg, 1, k("k1"), 0))
	must(t, m.Acquire(bg, 2, k("k2"), 0))
	a := acquireAsync(m, bg, 1, "k2", 0) // 1 waits for 2
	recvOwner(t, queued)
	// 2 -> 1 -> 2 closes the cycle: the requester is the victim, at once.
	if err := m.Acquire(bg, 2, k("k1"), 0); !errors.Is(err, ErrDeadlock) {
		t.Fatalf("got %v, want ErrDeadlock", err)
	}
	if got := m.Held(2); got != 1 {
		t.Fatalf("victim should keep its locks until ReleaseAll; Held = %d", got)
	}
	select {
	case err := <-a:
		t.Fatalf("survivor returned before victim released: %v", err)
	default:
	}
	m.ReleaseAll(2)
	if err := recvErr(t, a); err != nil {
		t.Fatalf("survivor: %v", err)
	}
	if got := m.Held(1); got != 2 {
		t.Fatalf("survivor Held = %d", got)
	}
	if s := m.Stats(); s.Deadlocks != 1 || s.TotalWaits != 1 {
		t.Fatalf("stats %+v", s)
	}
	m.ReleaseAll(1)
	checkEmpty(t, m)
}

// Both requests race; exactly one must be the victim, the other must get
// its lock once the victim rolls back.
func TestDeadlockTwoOwnersRace(t *testing.T) {
	for i := 0; i < 200; i++ {
		m := NewManager(Options{})
		must(t, m.Acquire(bg, 1, k("k1"), 0))
		must(t, m.Acquire(bg, 2, k("k2"), 0))
		start := make(chan struct{})
		type res struct {
			owner uint64
			err   error
		}
		out := make(chan res, 2)
		for _, c := range []struct {
			owner uint64
			key   string
		}{{1, "k2"}, {2, "k1"}} {
			go func() {
				<-start
				err := m.Acquire(bg, c.owner, k(c.key), 0)
				if errors.Is(err, ErrDeadlock) {
					m.ReleaseAll(c.owner) // roll back as a victim must
				}
				out <- res{c.owner, err}
			}()
		}
		close(start)
		var deadlocks, ok int
		var winner uint64
		for j := 0; j < 2; j++ {
			select {
			case r := <-out:
				switch {
				case errors.Is(r.err, ErrDeadlock):
					deadlocks++
				case r.err == nil:
					ok++
					winner = r.owner
				default:
					t.Fatalf("owner %d: %v", r.owner, r.err)
				}
			case <-time.After(testTimeout):
				t.Fatal("undetected deadlock")
			}
		}
		if deadlocks != 1 || ok != 1 {
			t.Fatalf("deadlocks=%d ok=%d", deadlocks, ok)
		}
		if m.Held(winner) != 2 || m.Stats().Deadlocks != 1 {
			t.Fatalf("winner %d Held=%d stats=%+v", winner, m.Held(winner), m.Stats())
		}
		m.ReleaseAll(winner)
		checkEmpty(t, m)
	}
}

func TestDeadlockThreeCycle(t *testing.T) {
	m, queued := newHooked(Options{})
	must(t, m.Acquire(bg, 1, k("k1"), 0))
	must(t, m.Acquire(bg, 2, k("k2"), 0))
	must(t, m.Acquire(bg, 3, k("k3"), 0))
	a := acquireAsync(m, bg, 1, "k2", 0) // 1 -> 2
	recvOwner(t, queued)
	b := acquireAsync(m, bg, 2, "k3", 0) // 2 -> 3
	recvOwner(t, queued)
	// An unrelated waiter on k1 must not be mistaken for part of the cycle.
	d := acquireAsync(m, bg, 4, "k1", 0) // 4 -> 1 -> 2 -> 3
	recvOwner(t, queued)
	if err := m.Acquire(bg, 3, k("k1"), 0); !errors.Is(err, ErrDeadlock) { // 3 -> 1 closes it
		t.Fatalf("got %v, want ErrDeadlock", err)
	}
	m.ReleaseAll(3)
	if err := recvErr(t, b); err != nil {
		t.Fatal(err)
	}
	m.ReleaseAll(2)
	if err := recvErr(t, a); err != nil {
		t.Fatal(err)
	}
	m.ReleaseAll(1)
	if err := recvErr(t, d); err != nil {
		t.Fatal(err)
	}
	m.ReleaseAll(4)
	if s := m.Stats(); s.Deadlocks != 1 || s.TotalWaits != 3 {
		t.Fatalf("stats %+v", s)
	}
	checkEmpty(t, m)
}

func TestNoFalseDeadlockOnChain(t *testing.T) {
	m, queued := newHooked(Options{})
	// A long chain 2 -> 1, 3 -> 2, ..., n -> n-1 with no cycle.
	const n = 100
	for o := uint64(1); o <= n; o++ {
		must(t, m.Acquire(bg, o, k(fmt.Sprint("c", o)), 0))
	}
	var res []<-chan error
	for o := uint64(2); o <= n; o++ {
		res = append(res, acquireAsync(m, bg, o, fmt.Sprint("c", o-1), 0))
		recvOwner(t, queued)
	}
	// Closing it from the tail is a cycle of length n.
	if err := m.Acquire(bg, 1, k(fmt.Sprint("c", n)), 0); !errors.Is(err, ErrDeadlock) {
		t.Fatalf("got %v, want ErrDeadlock", err)
	}
	// A fresh owner waiting on the tail is not in a cycle.
	extra := acquireAsync(m, bg, n+1, fmt.Sprint("c", n), 0)
	recvOwner(t, queued)
	for o := uint64(1); o <= n; o++ {
		m.ReleaseAll(o)
		if o < n {
			if err := recvErr(t, res[o-1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := recvErr(t, extra); err != nil {
		t.Fatal(err)
	}
	m.ReleaseAll(n + 1)
	checkEmpty(t, m)
}

// fakeClock hands each timer to the test, which fires it explicitly.
type fakeClock struct {
	timers chan *fakeTimer
}

type fakeTimer struct {
	d  time.Duration
	c  chan time.Time
	mu sync.Mutex
	// stopped is set by the manager's stop call.
	stopped bool
}

func newFakeClock() *fakeClock { return &fakeClock{timers: make(chan *fakeTimer, 64)} }

func (f *fakeClock) clock() base.Clock { return f }

func (f *fakeClock) Now() time.Time                       { return time.Unix(0, 0) }
func (f *fakeClock) After(time.Duration) <-chan time.Time { panic("lock: After is not used") }
func (f *fakeClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	ft := &fakeTimer{d: d, c: make(chan time.Time, 1)}
	f.timers <- ft
	return ft.c, func() bool {
		ft.mu.Lock()
		defer ft.mu.Unlock()
		was := !ft.stopped
		ft.stopped = true
		return was
	}
}

func (f *fakeClock) next(t *testing.T) *fakeTimer {
	t.Helper()
	select {
	case ft := <-f.timers:
		return ft
	case <-time.After(testTimeout):
		t.Fatal("no timer created")
		return nil
	}
}

func (ft *fakeTimer) isStopped() bool {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return ft.stopped
}

func TestTimeout(t *testing.T) {
	clk := newFakeClock()
	m := NewManager(Options{WaitTimeout: 7 * time.Second, Clock: clk.clock()})
	must(t, m.Acquire(bg, 1, k("a"), 0))
	must(t, m.Acquire(bg, 2, k("b"), 0))

	res := acquireAsync(m, bg, 2, "a", 0)
	ft := clk.next(t)
	if ft.d != 7*time.Second {
		t.Fatalf("timeout<=0 should use Options.WaitTimeout, got %v", ft.d)
	}
	ft.c <- time.Time{}
	if err := recvErr(t, res); !errors.Is(err, ErrLockWaitTimeout) {
		t.Fatalf("got %v, want ErrLockWaitTimeout", err)
	}
	if !ft.isStopped() {
		t.Fatal("timer not stopped")
	}
	if got := m.Held(2); got != 1 {
		t.Fatalf("timed-out owner must keep its locks; Held = %d", got)
	}

	// Explicit timeout; the timed-out request left the queue, so the next
	// release goes to the later waiter.
	res3 := acquireAsync(m, bg, 3, "a", 3*time.Second)
	ft3 := clk.next(t)
	if ft3.d != 3*time.Second {
		t.Fatalf("timer %v, want 3s", ft3.d)
	}
	m.ReleaseAll(1)
	if err := recvErr(t, res3); err != nil {
		t.Fatal(err)
	}
	if !ft3.isStopped() {
		t.Fatal("timer not stopped after grant")
	}
	s := m.Stats()
	if s.Timeouts != 1 || s.TotalWaits != 2 || s.CurrentWaits != 0 {
		t.Fatalf("stats %+v", s)
	}
	m.ReleaseAll(2)
	m.ReleaseAll(3)
	checkEmpty(t, m)
}

func TestTimeoutRealClock(t *testing.T) {
	m := NewManager(Options{})
	must(t, m.Acquire(bg, 1, k("a"), 0))
	start := time.Now()
	if err := m.Acquire(bg, 2, k("a"), 20*time.Millisecond); !errors.Is(err, ErrLockWaitTimeout) {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Fatalf("returned after %v", d)
	}
	if s := m.Stats(); s.WaitTime < 20*time.Millisecond || s.MaxWaitTime < 20*time.Millisecond {
		t.Fatalf("wait time not recorded: %+v", s)
	}
	m.ReleaseAll(1)
	m.ReleaseAll(2)
	checkEmpty(t, m)
}

func TestContextCancel(t *testing.T) {
	m, queued := newHooked(Options{})
	must(t, m.Acquire(bg, 1, k("a"), 0))
	ctx, cancel := context.WithCancel(bg)
	res := acquireAsync(m, ctx, 2, "a", 0)
	recvOwner(t, queued)
	cancel()
	if err := recvErr(t, res); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	// An already-done context fails without queueing.
	if err := m.Acquire(ctx, 3, k("a"), 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	// ...but does not stop an uncontended acquire (no wait is needed).
	must(t, m.Acquire(ctx, 3, k("free"), 0))
	m.ReleaseAll(1)
	if _, ok := m.Holder(k("a")); ok {
		t.Fatal("cancelled waiter was granted the lock")
	}
	if s := m.Stats(); s.Timeouts != 0 {
		t.Fatalf("stats %+v", s)
	}
	m.ReleaseAll(2)
	m.ReleaseAll(3)
	checkEmpty(t, m)
}

func TestReleaseAllWakesWaiters(t *testing.T) {
	m, queued := newHooked(Options{})
	keys := []string{"a", "b", "c", "d"}
	for _, key := range keys {
		must(t, m.Acquire(bg, 1, k(key), 0))
	}
	var res []<-chan error
	for i, key := range keys {
		res = append(res, acquireAsync(m, bg, uint64(10+i), key, 0))
		recvOwner(t, queued)
	}
	m.ReleaseAll(1)
	for i, r := range res {
		if err := recvErr(t, r); err != nil {
			t.Fatal(err)
		}
		if h, _ := m.Holder(k(keys[i])); h != uint64(10+i) {
			t.Fatalf("holder of %s = %d", keys[i], h)
		}
		m.ReleaseAll(uint64(10 + i))
	}
	checkEmpty(t, m)
}

func TestReleaseAllCancelsOwnWait(t *testing.T) {
	m, queued := newHooked(Options{})
	must(t, m.Acquire(bg, 1, k("a"), 0))
	must(t, m.Acquire(bg, 2, k("b"), 0))
	res := acquireAsync(m, bg, 2, "a", 0)
	recvOwner(t, queued)
	res3 := acquireAsync(m, bg, 3, "b", 0) // waits for 2's lock
	recvOwner(t, queued)
	m.ReleaseAll(2) // e.g. KILL from another session
	if err := recvErr(t, res); !errors.Is(err, ErrWaitCancelled) {
		t.Fatalf("got %v, want ErrWaitCancelled", err)
	}
	if err := recvErr(t, res3); err != nil {
		t.Fatal(err)
	}
	if got := m.Held(2); got != 0 {
		t.Fatalf("Held = %d", got)
	}
	m.ReleaseAll(1)
	if _, ok := m.Holder(k("a")); ok {
		t.Fatal("cancelled waiter was granted the lock")
	}
	m.ReleaseAll(3)
	checkEmpty(t, m)
}

// ReleaseAll of a waiter racing with the hand-off to it: whichever wins, the
// owner ends up holding nothing and no lock leaks.
func TestReleaseAllRacesHandoff(t *testing.T) {
	for i := 0; i < 500; i++ {
		m, queued := newHooked(Options{})
		must(t, m.Acquire(bg, 1, k("a"), 0))
		res := acquireAsync(m, bg, 2, "a", 0)
		recvOwner(t, queued)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); m.ReleaseAll(1) }()
		go func() { defer wg.Done(); m.ReleaseAll(2) }()
		wg.Wait()
		if err := recvErr(t, res); err != nil && !errors.Is(err, ErrWaitCancelled) {
			t.Fatal(err)
		}
		checkEmpty(t, m)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestEntryKeys: a lock's key is the manager's own copy, in its owner's
// key arena up to maxArenaKey bytes (across the arena's chunks) and a
// string beyond, so the caller may reuse its buffer; ten short keys and
// their release cost one allocation each plus the owner's state and its
// list of held keys.
func TestEntryKeys(t *testing.T) {
	m := NewManager(Options{})
	for _, n := range []int{1, 31, 32, 33, 200, maxArenaKey, maxArenaKey + 1, 1000} {
		var bufs [][]byte
		var want []string
		for k := 0; k < 40; k++ { // past the first chunks of the arena
			buf := make([]byte, n)
			for i := range buf {
				buf[i] = byte('a' + (i+k)%26)
			}
			buf[0] = byte(k)
			bufs, want = append(bufs, buf), append(want, string(buf))
			if err := m.Acquire(bg, 1, buf, time.Second); err != nil {
				t.Fatal(err)
			}
		}
		for _, buf := range bufs {
			for i := range buf {
				buf[i] = 'X' // the caller's buffer, reused
			}
		}
		for k, w := range want {
			if owner, ok := m.Holder([]byte(w)); !ok || owner != 1 {
				t.Fatalf("%d-byte key %d: holder %d, %v after the caller's buffer changed", n, k, owner, ok)
			}
			if m.TryAcquire(2, []byte(w)) {
				t.Fatalf("%d-byte key %d: another owner took it", n, k)
			}
		}
		if _, ok := m.Holder(bufs[0]); ok {
			t.Fatalf("%d-byte key: the changed buffer's key is held", n)
		}
		if got := m.Held(1); got != len(want) {
			t.Fatalf("%d-byte keys: %d held, want %d", n, got, len(want))
		}
		m.ReleaseAll(1)
		for k, w := range want {
			if !m.TryAcquire(2, []byte(w)) {
				t.Fatalf("%d-byte key %d: not free after the release", n, k)
			}
		}
		m.ReleaseAll(2)
	}
	key := []byte("t1/primary/000000000000000000")
	owner := uint64(10)
	n := testing.AllocsPerRun(50, func() {
		owner++
		for j := range 10 {
			key[len(key)-1] = byte('0' + j)
			if err := m.Acquire(bg, owner, key, time.Second); err != nil {
				t.Fatal(err)
			}
		}
		m.ReleaseAll(owner)
	})
	if n > 14 {
		t.Fatalf("ten locks and their release: %v allocations, want at most 14 (entries, owner state, held list, map growth)", n)
	}
}

// TestAcquireNewReportsFirstGrant: AcquireNew says whether the owner held
// the lock before the call: true for a free key and for one granted after
// a wait, false for a key the owner holds already (storage's insert tail
// relies on it).
func TestAcquireNewReportsFirstGrant(t *testing.T) {
	m, queued := newHooked(Options{})
	isNew, err := m.AcquireNew(bg, 1, k("a"), 0)
	if err != nil || !isNew {
		t.Fatalf("free key: new %v, %v", isNew, err)
	}
	if isNew, err = m.AcquireNew(bg, 1, k("a"), 0); err != nil || isNew {
		t.Fatalf("held key: new %v, %v", isNew, err)
	}
	type res struct {
		isNew bool
		err   error
	}
	ch := make(chan res, 1)
	go func() {
		n, err := m.AcquireNew(bg, 2, k("a"), 0)
		ch <- res{n, err}
	}()
	recvOwner(t, queued)
	m.ReleaseAll(1)
	select {
	case r := <-ch:
		if r.err != nil || !r.isNew {
			t.Fatalf("after a wait: new %v, %v", r.isNew, r.err)
		}
	case <-time.After(testTimeout):
		t.Fatal("waiter not granted")
	}
	if isNew, err = m.AcquireNew(bg, 2, k("a"), 0); err != nil || isNew {
		t.Fatalf("held after a wait: new %v, %v", isNew, err)
	}
	m.ReleaseAll(2)
	checkEmpty(t, m)
}
