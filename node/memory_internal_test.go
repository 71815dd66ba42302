package node

import (
	"testing"
	"time"
)

// TestMemReturner: memory goes back to the operating system once a burst
// is over (the live heap stopped growing) and enough of it is free, at
// most once per MinGap.
func TestMemReturner(t *testing.T) {
	const mib = 1 << 20
	r := &memReturner{MinFree: 64 * mib, MinGap: 20 * time.Second}
	t0 := time.Unix(1000, 0)
	steps := []struct {
		at         time.Duration
		live, free int64
		want       bool
	}{
		{0, 100 * mib, 500 * mib, false},  // first sample: no trend yet
		{5, 400 * mib, 500 * mib, false},  // growing: a burst under way
		{10, 300 * mib, 30 * mib, false},  // shrinking, too little free
		{15, 100 * mib, 600 * mib, true},  // over, much free: return
		{20, 90 * mib, 600 * mib, false},  // within MinGap
		{30, 95 * mib, 600 * mib, false},  // growing again
		{40, 95 * mib, 64 * mib, true},    // steady, free at the threshold, gap passed
		{45, 80 * mib, 1000 * mib, false}, // within MinGap
		{60, 80 * mib, 1000 * mib, true},  // gap passed
		{120, 80 * mib, 10 * mib, false},  // nothing to give back
	}
	for i, s := range steps {
		got := r.Tick(t0.Add(s.at*time.Second), memSample{Live: s.live, Free: s.free})
		if got != s.want {
			t.Errorf("step %d (t=%ds live=%d free=%d): return = %v, want %v", i, s.at, s.live/mib, s.free/mib, got, s.want)
		}
	}
}

// TestNewMemReturner: the least free memory worth a return is a
// sixteenth of the budget, at least memReturnAtLeast.
func TestNewMemReturner(t *testing.T) {
	for _, c := range []struct{ limit, want int64 }{
		{0, memReturnAtLeast}, {512 << 20, memReturnAtLeast}, {4 << 30, 256 << 20},
	} {
		if got := newMemReturner(c.limit).MinFree; got != c.want {
			t.Errorf("limit %d: MinFree = %d, want %d", c.limit, got, c.want)
		}
	}
}
