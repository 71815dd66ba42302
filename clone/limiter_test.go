package clone

import (
	"testing"
	"time"
)

// TestPacerRate: at 1 MiB/s, 1 MiB chunks moved back to back are spaced a
// second apart; unlimited never waits; a pause earns no burst.
func TestPacerRate(t *testing.T) {
	var p Pacer
	t0 := time.Unix(1000, 0)
	now := t0
	const mib = 1 << 20
	for i := 0; i < 10; i++ {
		now = now.Add(p.Wait(now, mib, mib))
	}
	// The tenth chunk starts after nine seconds of paid-for transfer.
	if got := now.Sub(t0); got != 9*time.Second {
		t.Fatalf("10 chunks at 1 MiB/s started over %v, want 9s", got)
	}
	if w := p.Wait(now, mib, 0); w != 0 {
		t.Fatalf("unlimited waited %v", w)
	}
	// After an idle minute, the next two chunks are still a second apart.
	now = now.Add(time.Minute)
	if w := p.Wait(now, mib, mib); w != 0 {
		t.Fatalf("first chunk after idling waited %v", w)
	}
	if w := p.Wait(now, mib, mib); w != time.Second {
		t.Fatalf("second chunk after idling waited %v, want 1s", w)
	}
}
