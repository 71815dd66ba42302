package lock

import (
	"context"
	"encoding/binary"
	"sync/atomic"
	"testing"
)

// One transaction locking one row and committing: the uncontended fast path.
func BenchmarkAcquireReleaseAll(b *testing.B) {
	m := NewManager(Options{})
	ctx := context.Background()
	key := []byte("t1/primary/0000000042")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		owner := uint64(i + 1)
		if err := m.Acquire(ctx, owner, key, 0); err != nil {
			b.Fatal(err)
		}
		m.ReleaseAll(owner)
	}
}

// A transaction locking ten rows (e.g. an UPDATE of a range) then committing.
func BenchmarkAcquire10ReleaseAll(b *testing.B) {
	m := NewManager(Options{})
	ctx := context.Background()
	key := []byte("t1/primary/00000000")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		owner := uint64(i + 1)
		for j := range 10 {
			binary.BigEndian.PutUint32(key[len(key)-4:], uint32(j))
			if err := m.Acquire(ctx, owner, key, 0); err != nil {
				b.Fatal(err)
			}
		}
		m.ReleaseAll(owner)
	}
}

// Parallel transactions on distinct keys: measures shard contention.
func BenchmarkParallelDistinctKeys(b *testing.B) {
	m := NewManager(Options{})
	ctx := context.Background()
	var nextWorker atomic.Uint64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := nextWorker.Add(1)
		key := make([]byte, 16)
		binary.BigEndian.PutUint64(key, w)
		for i := uint64(0); pb.Next(); i++ {
			owner := w<<40 | i
			binary.BigEndian.PutUint64(key[8:], i)
			if err := m.Acquire(ctx, owner, key, 0); err != nil {
				b.Fatal(err)
			}
			m.ReleaseAll(owner)
		}
	})
}

// Parallel transactions all locking one hot row: the queue and hand-off.
func BenchmarkParallelHotKey(b *testing.B) {
	m := NewManager(Options{})
	ctx := context.Background()
	var nextOwner atomic.Uint64
	key := []byte("hot")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			owner := nextOwner.Add(1)
			if err := m.Acquire(ctx, owner, key, 0); err != nil {
				b.Fatal(err)
			}
			m.ReleaseAll(owner)
		}
	})
}

// One transaction locking 300,000 rows nobody else holds, then
// committing (bench/bulk.sh's UPDATE and INSERT: sbtest1's primary keys,
// 11 bytes, and its k_1 entries, 17): the cost of a new lock.
func BenchmarkAcquireNewBulk(b *testing.B) {
	const rows = 300_000
	m := NewManager(Options{})
	ctx := context.Background()
	pk := []byte{2, 0, 0, 0, 9, 0, 1, 0x80, 0, 0, 0}
	sk := []byte{2, 0, 0, 0, 9, 1, 1, 0x80, 0, 0, 0, 1, 0x80, 0, 0, 0, 0}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		owner := uint64(i + 1)
		for r := uint32(0); r < rows; r++ {
			binary.BigEndian.PutUint32(pk[7:], r|0x80000000)
			if _, err := m.AcquireNew(ctx, owner, pk, 0); err != nil {
				b.Fatal(err)
			}
			if r%3 == 0 {
				binary.BigEndian.PutUint32(sk[7:], (r*7919)%rows|0x80000000)
				binary.BigEndian.PutUint32(sk[13:], r|0x80000000)
				if _, err := m.AcquireNew(ctx, owner, sk, 0); err != nil {
					b.Fatal(err)
				}
			}
		}
		m.ReleaseAll(owner)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(rows+rows/3)), "ns/lock")
}
