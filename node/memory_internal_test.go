package node

import (
	"testing"
	"time"
)

// TestMemReturner: memory goes back to the operating system once a burst
// is over (the server allocates little) and it allocated or left enough,
// at most once per MinGap; an idle server returns every IdleEvery,
// IdleReturns times after its last activity.
func TestMemReturner(t *testing.T) {
	const mib = 1 << 20
	r := &memReturner{MinFree: 64 * mib, MinGap: 20 * time.Second, IdleEvery: 60 * time.Second, IdleReturns: 2}
	t0 := time.Unix(1000, 0)
	steps := []struct {
		at                          time.Duration
		objects, live, free, allocs int64
		want                        bool
	}{
		{0, 600 * mib, 100 * mib, 300 * mib, 1000 * mib, false},  // first sample: no rate yet
		{5, 700 * mib, 100 * mib, 300 * mib, 2000 * mib, false},  // allocating: a burst under way
		{10, 700 * mib, 100 * mib, 300 * mib, 2008 * mib, true},  // quiet (8 MiB = MinFree/8), 1 GiB allocated
		{15, 120 * mib, 100 * mib, 20 * mib, 2009 * mib, false},  // within MinGap
		{35, 120 * mib, 100 * mib, 20 * mib, 2010 * mib, false},  // quiet, 2 MiB allocated, 40 MiB to reclaim
		{40, 164 * mib, 100 * mib, 0, 2020 * mib, false},         // 10 MiB allocated: not quiet
		{45, 164 * mib, 100 * mib, 0, 2020 * mib, true},          // quiet, 64 MiB of known garbage
		{50, 400 * mib, 100 * mib, 900 * mib, 2021 * mib, false}, // within MinGap
		{65, 400 * mib, 400 * mib, 900 * mib, 2021 * mib, true},  // gap passed, 900 MiB free
		{70, 90 * mib, 90 * mib, 10 * mib, 2021 * mib, false},    // nothing known to give back
		{125, 90 * mib, 90 * mib, 10 * mib, 2021 * mib, true},    // idle 60 s: first idle return
		{185, 90 * mib, 90 * mib, 10 * mib, 2021 * mib, true},    // second
		{245, 90 * mib, 90 * mib, 10 * mib, 2021 * mib, false},   // IdleReturns reached
		{250, 90 * mib, 90 * mib, 10 * mib, 2100 * mib, false},   // activity
		{255, 90 * mib, 90 * mib, 10 * mib, 2101 * mib, true},    // quiet again, 79 MiB allocated since the return
		{320, 30 * mib, 30 * mib, 10 * mib, 2101 * mib, false},   // idle, but the heap is under MinFree
	}
	for i, s := range steps {
		got := r.Tick(t0.Add(s.at*time.Second), memSample{Objects: s.objects, Live: s.live, Free: s.free, Allocs: s.allocs})
		if got != s.want {
			t.Errorf("step %d (t=%ds): return = %v, want %v", i, s.at, got, s.want)
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
