package clone

import (
	"context"
	"sync"
	"time"
)

// Pacer spaces transfers so that they average at most a given rate
// (clone_max_data_bandwidth). A pure struct: the caller passes the time
// and sleeps for what Wait returns. Not safe for concurrent use.
type Pacer struct {
	// next is when the bytes let through so far have been paid for.
	next time.Time
}

// Wait records n bytes about to move at now under rate bytes per second
// (<= 0: unlimited) and returns how long to wait before moving them. Idle
// time earns no credit beyond one burst of n bytes: a transfer resumed
// after a pause does not run unpaced to catch up.
func (p *Pacer) Wait(now time.Time, n int64, rate int64) time.Duration {
	if rate <= 0 {
		p.next = time.Time{}
		return 0
	}
	cost := time.Duration(float64(n) / float64(rate) * float64(time.Second))
	if p.next.Before(now) {
		p.next = now
	}
	wait := p.next.Sub(now)
	p.next = p.next.Add(cost)
	return wait
}

// sharedPacer is a Pacer several goroutines pace through together (the
// donor's clones, a recipient's data connections).
type sharedPacer struct {
	mu sync.Mutex
	p  Pacer
}

// wait sleeps until n bytes may move at rate (<= 0: at once), or until
// ctx ends.
func (s *sharedPacer) wait(ctx context.Context, now time.Time, n, rate int64) error {
	s.mu.Lock()
	w := s.p.Wait(now, n, rate)
	s.mu.Unlock()
	if w <= 0 {
		return nil
	}
	t := time.NewTimer(w)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
