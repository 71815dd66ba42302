package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// BenchmarkReadViews compares reads through a read view (a Pebble
// snapshot taken at the first read, as REPEATABLE READ and autocommit
// statements through the planner do) with reads of the latest state (as
// before read views, and as the fast paths' single-read transactions
// still do), while one writer commits updates in the background:
//   - point: a transaction of one point read (sysbench point_select);
//   - txn: ten point reads and a 100-row range scan in one transaction
//     (the reads of sysbench read_write);
//   - overlay: the same after the transaction wrote four rows, so its
//     reads merge its own writes over the snapshot.
//
// go test ./storage -run XXX -bench ReadViews -count 5
// (PETREL_BENCH_QUIET=1 for no background writer)
func BenchmarkReadViews(b *testing.B) {
	const rows = 10000
	e := openTest(b, vfs.NewMem())
	defer e.Close()
	createKV(b, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	for lo := 0; lo < rows; lo += 1000 {
		txn := e.Begin()
		for id := lo; id < lo+1000; id++ {
			if err := txn.Insert(ctx, tb, sql.Row{int64(id), int64(id), "v"}); err != nil {
				b.Fatal(err)
			}
		}
		if err := txn.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
	// Start from a compacted store, not from the load's L0 files.
	if err := e.db.Compact(ctx, []byte{0}, []byte{0xff}, false); err != nil {
		b.Fatal(err)
	}
	key := func(id int) []byte {
		k, _ := tb.PKKeyFromValues([]any{int64(id)})
		return k
	}
	// The background writer, about 2000 commits a second (PETREL_BENCH_QUIET=1: none).
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if os.Getenv("PETREL_BENCH_QUIET") == "1" {
			return
		}
		rng := rand.New(rand.NewPCG(7, 7))
		for i := 0; !stop.Load(); i++ {
			time.Sleep(500 * time.Microsecond)
			txn := e.Begin()
			id := rows + rng.IntN(rows) // rows the readers do not touch
			if err := txn.Upsert(ctx, tb, sql.Row{int64(id), int64(i), fmt.Sprint(i)}); err != nil {
				panic(err)
			}
			if err := txn.Commit(ctx); err != nil {
				panic(err)
			}
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()

	begin := func(latest bool) *Txn {
		if latest {
			return e.BeginSingleRead() // no snapshot: the old reads
		}
		return e.Begin()
	}
	modes := []struct {
		name   string
		latest bool
	}{{"latest", true}, {"snapshot", false}}
	for _, m := range modes {
		b.Run("point/"+m.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			defer threadCPU(b)()
			for b.Loop() {
				txn := begin(m.latest)
				if r, err := txn.Point(ctx, tb, key(rng.IntN(rows))); err != nil || r == nil {
					b.Fatal(r, err)
				}
				txn.Rollback()
			}
		})
	}
	for _, m := range modes {
		b.Run("txn/"+m.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(2, 2))
			defer threadCPU(b)()
			for b.Loop() {
				txn := begin(m.latest)
				benchReads(b, txn, tb, key, rng, rows)
				txn.Rollback()
			}
		})
	}
	for _, m := range modes {
		b.Run("overlay/"+m.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 3))
			defer threadCPU(b)()
			for b.Loop() {
				txn := begin(m.latest)
				txn.Point(ctx, tb, key(0)) // take the view first
				for i := range 4 {
					id := int64(rng.IntN(rows))
					if err := txn.Update(ctx, tb, sql.Row{id, id, "v"}, sql.Row{id, id, fmt.Sprint("w", i)}); err != nil {
						b.Fatal(err)
					}
				}
				benchReads(b, txn, tb, key, rng, rows)
				txn.Rollback()
			}
		})
	}
}

// threadCPU measures the CPU time of the benchmark's own thread per
// operation (the host is shared: wall time there measures the neighbours
// as much as the code). Call the returned func after the loop.
func threadCPU(b *testing.B) func() {
	runtime.LockOSThread()
	start := threadTime()
	return func() {
		d := threadTime() - start
		runtime.UnlockOSThread()
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func threadTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchReads(b *testing.B, txn *Txn, tb *Table, key func(int) []byte, rng *rand.Rand, rows int) {
	ctx := context.Background()
	for range 10 {
		if r, err := txn.Point(ctx, tb, key(rng.IntN(rows))); err != nil || r == nil {
			b.Fatal(r, err)
		}
	}
	lo := rng.IntN(rows - 100)
	if n := countScan(b, txn, tb, 0, key(lo), key(lo+100)); n != 100 {
		b.Fatalf("scan: %d rows", n)
	}
}

// BenchmarkViewLookups is a join's inner side through a read view: in
// one transaction, 200 point reads of random primary keys (a lookup join
// into the primary key, one Txn.Point per outer row) and a 200-entry
// range of a secondary index with each entry's row read by its primary
// key (a lookup on a non-covering index); "statements" is ten statements
// of one point read each. The store is compacted and
// then overwritten in part, so reads go through the memtable and more
// than one level, as a served table's do.
//
// go test ./storage -run XXX -bench ViewLookups -count 5
func BenchmarkViewLookups(b *testing.B) {
	const rows = 10000
	e := openTest(b, vfs.NewMem())
	defer e.Close()
	createKV(b, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	load := func(from, step int) {
		for lo := from; lo < rows; lo += 1000 {
			txn := e.Begin()
			for id := lo; id < min(lo+1000, rows); id += step {
				if err := txn.Upsert(ctx, tb, sql.Row{int64(id), int64(id), "v"}); err != nil {
					b.Fatal(err)
				}
			}
			if err := txn.Commit(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	load(0, 1)
	if err := e.db.Compact(ctx, []byte{0}, []byte{0xff}, false); err != nil {
		b.Fatal(err)
	}
	load(0, 7) // a seventh of the rows again, above the compacted level
	key := func(id int) []byte {
		k, _ := tb.PKKeyFromValues([]any{int64(id)})
		return k
	}
	b.Run("point", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(4, 4))
		defer threadCPU(b)()
		for b.Loop() {
			txn := e.Begin()
			for range 200 {
				if r, err := txn.Point(ctx, tb, key(rng.IntN(rows))); err != nil || r == nil {
					b.Fatal(r, err)
				}
			}
			txn.Rollback()
		}
	})
	b.Run("statements", func(b *testing.B) {
		// Ten statements of one point read each, in one transaction
		// (TPC-C's PAYMENT and ORDER_STATUS selects by primary key).
		rng := rand.New(rand.NewPCG(6, 6))
		defer threadCPU(b)()
		for b.Loop() {
			txn := e.Begin()
			for range 10 {
				txn.NewStatement()
				if r, err := txn.Point(ctx, tb, key(rng.IntN(rows))); err != nil || r == nil {
					b.Fatal(r, err)
				}
			}
			txn.Rollback()
		}
	})
	b.Run("secondary", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(5, 5))
		lo := func(v int) []byte {
			k, _ := tb.indexKeyPrefixFor(b, 1, int64(v))
			return k
		}
		defer threadCPU(b)()
		for b.Loop() {
			txn := e.Begin()
			from := rng.IntN(rows - 200)
			if n := countScan(b, txn, tb, 1, lo(from), lo(from+200)); n != 200 {
				b.Fatalf("secondary range: %d rows", n)
			}
			txn.Rollback()
		}
	})
}
