package storage

import (
	"math/rand"
	"sync"
	"testing"
)

// Steps arriving in any order run in sequence order, each exactly once,
// including bursts longer than one goroutine combines.
func TestTurnstileRunsStepsInOrder(t *testing.T) {
	for _, n := range []int{1, 50, 3 * maxCombined} {
		var ts turnstile
		ts.init(10)
		var order []uint64 // appended only by whoever holds the turn
		seqs := rand.New(rand.NewSource(int64(n))).Perm(n)
		var wg sync.WaitGroup
		for _, i := range seqs {
			seq := uint64(11 + i)
			wg.Add(1)
			go func() {
				defer wg.Done()
				var fn func()
				if seq%7 != 0 { // some steps only pass their turn
					fn = func() { order = append(order, seq) }
				}
				ts.do(seq, fn)
				if ts.done() < seq {
					t.Errorf("do(%d) returned before its turn passed (last %d)", seq, ts.done())
				}
			}()
		}
		wg.Wait()
		if got := ts.done(); got != uint64(10+n) {
			t.Fatalf("n=%d: last passed %d, want %d", n, got, 10+n)
		}
		var want []uint64
		for s := uint64(11); s <= uint64(10+n); s++ {
			if s%7 != 0 {
				want = append(want, s)
			}
		}
		if len(order) != len(want) {
			t.Fatalf("n=%d: %d steps ran, want %d", n, len(order), len(want))
		}
		for i := range want {
			if order[i] != want[i] {
				t.Fatalf("n=%d: step %d ran %d, want %d", n, i, order[i], want[i])
			}
		}
	}
}

func TestTurnstileWaitPassed(t *testing.T) {
	var ts turnstile
	ts.init(0)
	passed := make(chan struct{})
	go func() { ts.waitPassed(2); close(passed) }()
	ts.do(1, nil)
	select {
	case <-passed:
		t.Fatal("waitPassed(2) returned after only 1 passed")
	default:
	}
	ts.do(2, nil)
	<-passed
	ts.waitPassed(1) // already passed: returns at once
}
