package storage

import (
	"context"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// BenchmarkRandomUpdates is TPC-C's write pattern on storage: 100,000
// rows of about 330 bytes (stock's size), and transactions that each
// read ten random rows with locking reads and rewrite them, committed
// one after another through 2 MiB memtables. lsm=pebble opens the store
// with Pebble's LSM shape defaults, lsm=petrel with the engine's
// (engine.go, l0CompactionThreshold). compactB/op is the bytes
// compactions wrote per transaction, flushB/op the bytes flushes wrote:
// their ratio is the write amplification compactions add. proc-cpu-ns/op
// is the CPU time of the whole process (compactions run on Pebble's own
// goroutines) per transaction.
//
// go test ./storage -run XXX -bench RandomUpdates -benchtime 30000x -count 5
func BenchmarkRandomUpdates(b *testing.B) {
	for _, pebbleLSM := range []bool{true, false} {
		name := "lsm=petrel"
		if pebbleLSM {
			name = "lsm=pebble"
		}
		b.Run(name, func(b *testing.B) { benchRandomUpdates(b, pebbleLSM) })
	}
}

func benchRandomUpdates(b *testing.B, pebbleLSM bool) {
	const rows = 100000
	e, err := Open(Options{Dir: "db", FS: vfs.NewMem(), Logger: quiet, LockWaitTimeout: 5 * time.Second, pebbleLSM: pebbleLSM})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	tb := createPadded(b, e)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(2, 2))
	for lo := 0; lo < rows; lo += 1000 {
		txn := e.Begin()
		for id := lo; id < lo+1000; id++ {
			if err := txn.Insert(ctx, tb, sql.Row{int64(id), int64(0), randomText(rng, 300)}); err != nil {
				b.Fatal(err)
			}
		}
		if err := txn.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
	key := func(id int) []byte {
		k, _ := tb.PKKeyFromValues([]any{int64(id)})
		return k
	}
	m0 := e.db.Metrics()
	cpu0 := processTime()
	for i := 0; b.Loop(); i++ {
		txn := e.Begin()
		txn.SetLockingReads(true)
		for range 10 {
			r, err := txn.Point(ctx, tb, key(rng.IntN(rows)))
			if err != nil || r == nil {
				b.Fatal(r, err)
			}
			if err := txn.Update(ctx, tb, r, sql.Row{r[0], int64(i), r[2]}); err != nil {
				b.Fatal(err)
			}
		}
		if err := txn.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
	m := e.db.Metrics()
	b.ReportMetric(float64((processTime()-cpu0).Nanoseconds())/float64(b.N), "proc-cpu-ns/op")
	b.ReportMetric(float64(m.Total().TableBytesCompacted-m0.Total().TableBytesCompacted)/float64(b.N), "compactB/op")
	b.ReportMetric(float64(m.Levels[0].TableBytesFlushed-m0.Levels[0].TableBytesFlushed)/float64(b.N), "flushB/op")
}

// processTime is the CPU time the process has used (all threads).
func processTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
