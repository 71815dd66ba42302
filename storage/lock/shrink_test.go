package lock

import (
	"context"
	"fmt"
	"testing"
)

// TestLargeReleaseShrinksTheMaps: after a transaction held 400,000 row
// locks and released them, no shard keeps a table sized for them, and the
// locks of a later owner still work.
func TestLargeReleaseShrinksTheMaps(t *testing.T) {
	m := NewManager(Options{})
	ctx := context.Background()
	const n = 400000
	for i := 0; i < n; i++ {
		if err := m.Acquire(ctx, 1, []byte(fmt.Sprintf("row-%07d", i)), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Acquire(ctx, 2, []byte("other"), 0); err != nil {
		t.Fatal(err)
	}
	peak := 0
	for i := range m.shards {
		peak = max(peak, len(m.shards[i].locks.slots))
	}
	if peak < shrinkFrom {
		t.Fatalf("largest shard table %d slots with %d locks over %d shards, want at least %d", peak, n, numShards, shrinkFrom)
	}
	m.ReleaseAll(1)
	total := 0
	for i := range m.shards {
		s := &m.shards[i]
		total += s.locks.n
		if len(s.locks.slots) >= shrinkFrom {
			t.Errorf("shard %d: %d slots after the release (%d entries), want its table rebuilt", i, len(s.locks.slots), s.locks.n)
		}
	}
	if total != 1 || m.Stats().LocksHeld != 1 {
		t.Fatalf("%d entries (%d held) after the release, want owner 2's one", total, m.Stats().LocksHeld)
	}
	// Owner 2 still holds its lock: owner 3 cannot take it at once.
	ctx3, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.Acquire(ctx3, 3, []byte("other"), 0); err == nil {
		t.Fatal("owner 3 took the lock owner 2 holds")
	}
	m.ReleaseAll(2)
	if err := m.Acquire(ctx, 3, []byte("other"), 0); err != nil {
		t.Fatal(err)
	}
	m.ReleaseAll(3)
}
