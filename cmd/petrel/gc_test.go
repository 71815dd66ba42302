package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCCeiling(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		limit, live, other, headroom, want int64
	}{
		{4096 * mib, 50 * mib, 20 * mib, 256 * mib, 326 * mib},    // small heap: live + other + headroom
		{4096 * mib, 1500 * mib, 30 * mib, 256 * mib, 1786 * mib}, // large transaction: bounded headroom
		{1024 * mib, 900 * mib, 30 * mib, 256 * mib, 1024 * mib},  // never above petrel_memory_limit
		{0, 100 * mib, -5 * mib, 256 * mib, 356 * mib},            // no limit; negative other counts as 0
		{0, math.MaxInt64 - 10, 100, 256 * mib, math.MaxInt64},    // no overflow
	} {
		if got := gcCeiling(c.limit, c.live, c.other, c.headroom); got != c.want {
			t.Errorf("gcCeiling(%d, %d, %d, %d) = %d MiB, want %d MiB", c.limit, c.live, c.other, c.headroom, got/mib, c.want/mib)
		}
	}
}

// TestGCCeilingApplied: after a collection the hook has set Go's soft
// limit to the live heap plus the headroom, below petrel_memory_limit,
// while a large transaction is open, and to the limit otherwise.
func TestGCCeilingApplied(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	memLimit.Store(1 << 40)
	defer memLimit.Store(0)
	done := make(chan struct{}, 1)
	onEveryGC(func() bool {
		applyGCCeiling(true)
		done <- struct{}{}
		return false // once: the hook must not outlive the test
	})
	deadline := time.After(10 * time.Second)
	for got := false; !got; {
		runtime.GC()
		select {
		case <-done:
			got = true
		case <-deadline:
			t.Fatal("no GC hook call within 10 s")
		case <-time.After(50 * time.Millisecond):
		}
	}
	lim := debug.SetMemoryLimit(-1)
	if lim < gcHeadroom || lim > gcHeadroom+512<<20 {
		t.Errorf("soft limit after a collection = %d MiB, want the headroom (%d MiB) plus a small live heap", lim>>20, gcHeadroom>>20)
	}
	// Without a large transaction the limit is petrel_memory_limit.
	applyGCCeiling(false)
	if lim := debug.SetMemoryLimit(-1); lim != 1<<40 {
		t.Errorf("soft limit without a large transaction = %d, want petrel_memory_limit %d", lim, int64(1<<40))
	}
}
