package storage

import (
	"context"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// BenchmarkLargeCommit: the commit of one transaction that updated every
// row of a 300,000-row db.kv (id INT PRIMARY KEY, txn INT, v VARCHAR(64),
// KEY(txn)), moving each row's index entry (bench/bulk.sh's UPDATE): its
// batch is Pebble's to sort (pebble) or handed over sorted (sorted,
// sortedcommit.go). Only the Commit call is timed; sort-ms is the time
// sortRepr takes on the same batch (sorted only).
//
//	go test ./storage -run XXX -bench LargeCommit -benchtime 3x
func BenchmarkLargeCommit(b *testing.B) {
	const rows = 300_000
	ctx := context.Background()
	row := func(id, txn int64) sql.Row {
		return sql.Row{int32(id), int32(txn), "ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"}
	}
	for _, mode := range []string{"pebble", "sorted"} {
		b.Run(mode, func(b *testing.B) {
			defer func(v bool) { sortLargeCommits = v }(sortLargeCommits)
			sortLargeCommits = mode == "sorted"
			e, tb := intKV(b)
			defer e.Close()
			load := e.Begin()
			for id := int64(1); id <= rows; id++ {
				if err := load.Insert(ctx, tb, row(id, (id*7919)%rows)); err != nil {
					b.Fatal(err)
				}
			}
			if err := load.Commit(ctx); err != nil {
				b.Fatal(err)
			}
			var sortTime time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				txn := e.Begin()
				for id := int64(1); id <= rows; id++ {
					old := (id*7919 + int64(i)) % rows
					if err := txn.Update(ctx, tb, row(id, old), row(id, old+1)); err != nil {
						b.Fatal(err)
					}
				}
				if mode == "sorted" {
					t0 := time.Now()
					if _, ok := sortRepr(txn.batch.Repr()); !ok {
						b.Fatal("not sortable")
					}
					sortTime += time.Since(t0)
				}
				b.StartTimer()
				if err := txn.Commit(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(sortTime.Milliseconds())/float64(b.N), "sort-ms")
		})
	}
}
