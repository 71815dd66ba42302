package clone

import "time"

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
