package lock

import (
	"context"
	"fmt"
	"runtime"
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

// TestManyLocksCompact: a transaction's row locks take about 100 bytes
// each (15-byte keys; tables at 70% full), the entry, its key in the
// arena, its table slot and its place in the held list; with the key in
// an array of each entry and the queue a slice they took about 130.
func TestManyLocksCompact(t *testing.T) {
	m := NewManager(Options{})
	ctx := context.Background()
	const n = 180_000
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("t1/pk/%09d", i))
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for i := range keys {
		if err := m.Acquire(ctx, 1, keys[i], 0); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	per := (int64(m1.HeapAlloc) - int64(m0.HeapAlloc)) / n
	t.Logf("%d bytes a lock", per)
	if per > 110 {
		t.Fatalf("%d bytes a lock, want at most 110", per)
	}
	m.ReleaseAll(1)
	runtime.KeepAlive(keys)
}
