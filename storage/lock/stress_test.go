package lock

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var stressSeed = flag.Uint64("lock.seed", 0, "seed for the randomized lock tests (0: time-based)")

func testSeed(t *testing.T) uint64 {
	seed := *stressSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed=%d (rerun with -args -lock.seed=%d)", seed, seed)
	return seed
}

// watchdog fails loudly, with every goroutine's stack, if the test has not
// finished within d: a hang here means an undetected deadlock or a lost
// wake-up.
func watchdog(d time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(d):
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			fmt.Fprintf(os.Stderr, "lock stress test did not finish within %v:\n%s", d, buf[:n])
			panic("lock stress test hung")
		}
	}()
	return func() { close(done) }
}

// TestStress runs many short transactions that lock random key subsets in
// random order. It checks that no two owners ever hold a key at once, that
// every transaction either commits or is a deadlock victim (the wait timeout
// is far longer than the test, so any timeout means a deadlock went
// undetected), and that it all finishes.
func TestStress(t *testing.T) {
	seed := testSeed(t)
	goroutines, txns, nkeys := 16, 1500, 24
	if testing.Short() {
		txns = 200
	}
	defer watchdog(120 * time.Second)()

	m := NewManager(Options{WaitTimeout: 60 * time.Second})
	var (
		mu      sync.Mutex
		holders = map[string]uint64{}
	)
	var committed, victims, timeouts, other atomic.Int64

	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(g)))
			buf := make([]byte, 0, 16) // reused: the manager must copy keys
			for i := range txns {
				owner := uint64(g*txns + i + 1)
				n := 1 + r.IntN(6)
				mine := map[string]bool{}
				var err error
				for range n {
					key := fmt.Sprintf("key%02d", r.IntN(nkeys))
					buf = append(buf[:0], key...)
					if r.IntN(8) == 0 {
						if !m.TryAcquire(owner, buf) {
							continue // NOWAIT: skip the row
						}
					} else {
						err = m.Acquire(context.Background(), owner, buf, 0)
					}
					copy(buf, "garbage!")
					if err != nil {
						break
					}
					mu.Lock()
					if h, ok := holders[key]; ok && h != owner {
						t.Errorf("key %s held by %d and %d at once", key, h, owner)
					}
					holders[key] = owner
					mu.Unlock()
					mine[key] = true
					if r.IntN(4) == 0 {
						runtime.Gosched() // hold the locks a little longer
					}
				}
				if got := m.Held(owner); got != len(mine) {
					t.Errorf("owner %d: Held = %d, want %d", owner, got, len(mine))
				}
				switch {
				case err == nil:
					committed.Add(1)
				case errors.Is(err, ErrDeadlock):
					victims.Add(1)
				case errors.Is(err, ErrLockWaitTimeout):
					timeouts.Add(1)
				default:
					other.Add(1)
					t.Errorf("owner %d: unexpected error %v", owner, err)
				}
				// Forget our holdings before releasing, so a record in the
				// map always means the lock is really held.
				mu.Lock()
				for key := range mine {
					if holders[key] != owner {
						t.Errorf("key %s: holder record %d, want %d", key, holders[key], owner)
					}
					delete(holders, key)
				}
				mu.Unlock()
				m.ReleaseAll(owner)
			}
		}()
	}
	wg.Wait()

	total := int64(goroutines * txns)
	s := m.Stats()
	t.Logf("txns=%d committed=%d deadlock victims=%d timeouts=%d stats=%+v",
		total, committed.Load(), victims.Load(), timeouts.Load(), s)
	if committed.Load()+victims.Load()+timeouts.Load()+other.Load() != total {
		t.Fatalf("lost transactions")
	}
	if timeouts.Load() != 0 {
		t.Fatalf("%d lock wait timeouts: undetected deadlock", timeouts.Load())
	}
	if s.Deadlocks != victims.Load() {
		t.Fatalf("Stats.Deadlocks=%d, victims=%d", s.Deadlocks, victims.Load())
	}
	if s.TotalWaits == 0 {
		t.Fatalf("stress test produced no contention")
	}
	checkEmpty(t, m)
}

// TestStressKill mixes in ReleaseAll from other goroutines (KILL) and
// context cancellation against blocked waiters, checking that nothing leaks
// and nothing hangs.
func TestStressKill(t *testing.T) {
	seed := testSeed(t)
	goroutines, txns, nkeys := 8, 1000, 6
	if testing.Short() {
		txns = 80
	}
	defer watchdog(120 * time.Second)()
	m := NewManager(Options{WaitTimeout: 60 * time.Second})

	var wg sync.WaitGroup
	var killed, cancelled, deadlocked atomic.Int64
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(g)+1000))
			for i := range txns {
				owner := uint64(g*txns + i + 1)
				ctx, cancel := context.WithCancel(context.Background())
				killer := make(chan struct{})
				mode := r.IntN(4)
				go func() {
					defer close(killer)
					switch mode {
					case 0:
						runtime.Gosched()
						m.ReleaseAll(owner)
					case 1:
						runtime.Gosched()
						cancel()
					}
				}()
			txn:
				for range 1 + r.IntN(4) {
					err := m.Acquire(ctx, owner, fmt.Appendf(nil, "k%d", r.IntN(nkeys)), 0)
					switch {
					case err == nil:
						continue
					case errors.Is(err, ErrWaitCancelled):
						killed.Add(1)
					case errors.Is(err, context.Canceled):
						cancelled.Add(1)
					case errors.Is(err, ErrDeadlock):
						deadlocked.Add(1)
					default:
						t.Errorf("owner %d: %v", owner, err)
					}
					break txn
				}
				<-killer
				cancel()
				m.ReleaseAll(owner)
			}
		}()
	}
	wg.Wait()
	t.Logf("killed=%d cancelled=%d deadlocks=%d stats=%+v", killed.Load(), cancelled.Load(), deadlocked.Load(), m.Stats())
	checkEmpty(t, m)
}
