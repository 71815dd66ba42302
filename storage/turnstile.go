package storage

import (
	"context"
	"sync"
)

// turnstile runs each commit's storage apply strictly in sequence order.
// It combines: the goroutine whose turn it is runs its own step and then
// the steps of every later sequence already queued, in order, so a burst
// of commits released by one fsync is applied by one goroutine with one
// wake-up per waiter, instead of each waiter being woken to check whether
// its turn has come.
type turnstile struct {
	mu       sync.Mutex
	last     uint64
	queued   map[uint64]*turnStep
	passed   *sync.Cond // waitPassed sleeps here
	watchers int
}

type turnStep struct {
	fn   func()
	done chan struct{}
}

// maxCombined bounds how many queued steps one goroutine runs for others
// before it leaves, so its own client is not held up indefinitely.
const maxCombined = 256

func (t *turnstile) init(last uint64) {
	t.last = last
	t.queued = make(map[uint64]*turnStep)
	t.passed = sync.NewCond(&t.mu)
}

// do runs fn (nil: nothing) at seq's turn, once every sequence before it
// has passed, possibly on another goroutine, and returns after seq passed.
func (t *turnstile) do(seq uint64, fn func()) {
	t.mu.Lock()
	if t.last != seq-1 {
		st := &turnStep{fn: fn, done: make(chan struct{})}
		t.queued[seq] = st
		t.mu.Unlock()
		<-st.done
		return
	}
	t.mu.Unlock()
	if fn != nil {
		fn()
	}
	t.mu.Lock()
	t.last = seq
	for n := 0; n < maxCombined; n++ {
		st, ok := t.queued[t.last+1]
		if !ok {
			break
		}
		delete(t.queued, t.last+1)
		if st.fn != nil {
			t.mu.Unlock()
			st.fn()
			t.mu.Lock()
		}
		t.last++
		close(st.done)
	}
	// A step left queued after maxCombined is next in line: hand it the
	// turn by running the rest of the queue on a fresh goroutine.
	if st, ok := t.queued[t.last+1]; ok {
		delete(t.queued, t.last+1)
		go func(seq uint64) {
			t.do(seq, st.fn)
			close(st.done)
		}(t.last + 1)
	}
	if t.watchers > 0 {
		t.passed.Broadcast()
	}
	t.mu.Unlock()
}

// waitPassed blocks until seq has passed (at once if it has).
func (t *turnstile) waitPassed(seq uint64) {
	t.mu.Lock()
	t.watchers++
	for t.last < seq {
		t.passed.Wait()
	}
	t.watchers--
	t.mu.Unlock()
}

func (t *turnstile) done() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

// waitPassedCtx is waitPassed ending early, with false, when ctx ends.
func (t *turnstile) waitPassedCtx(ctx context.Context, seq uint64) bool {
	stop := context.AfterFunc(ctx, func() {
		t.mu.Lock()
		t.passed.Broadcast()
		t.mu.Unlock()
	})
	defer stop()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.watchers++
	defer func() { t.watchers-- }()
	for t.last < seq {
		if ctx.Err() != nil {
			return false
		}
		t.passed.Wait()
	}
	return true
}
