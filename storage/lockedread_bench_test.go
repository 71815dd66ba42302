package storage

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// BenchmarkLockedPoint is the storage side of TPC-C's NEW_ORDER and
// PAYMENT: in one transaction, ten locking point reads of random primary
// keys (SELECT ... FOR UPDATE, the reads of UPDATE: lock, then the latest
// version), each followed in "update" by the row's rewrite, so that the
// later reads go through the transaction's batch. The store is compacted
// and then overwritten in part, so reads go through the memtable and
// more than one level. "insert" is a transaction of ten INSERTs of new
// keys. allocs/op and cpu-ns/op are per transaction.
//
// go test ./storage -run XXX -bench LockedPoint -benchmem -count 5
func BenchmarkLockedPoint(b *testing.B) {
	const rows = 10000
	e := openTest(b, vfs.NewMem())
	defer e.Close()
	createKV(b, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	load := func(step int) {
		for lo := 0; lo < rows; lo += 1000 {
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
	load(1)
	if err := e.db.Compact(ctx, []byte{0}, []byte{0xff}, false); err != nil {
		b.Fatal(err)
	}
	load(7)
	key := func(id int) []byte {
		k, _ := tb.PKKeyFromValues([]any{int64(id)})
		return k
	}
	b.Run("insert", func(b *testing.B) {
		// Ten new rows (NEW_ORDER's order lines): each INSERT locks its
		// key and checks it is free.
		defer threadCPU(b)()
		for b.Loop() {
			txn := e.Begin()
			for id := range 10 {
				if err := txn.Insert(ctx, tb, sql.Row{int64(rows + id), int64(id), "n"}); err != nil {
					b.Fatal(err)
				}
			}
			txn.Rollback()
		}
	})
	for _, write := range []bool{false, true} {
		name := "read"
		if write {
			name = "update"
		}
		b.Run(name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(6, 6))
			defer threadCPU(b)()
			for b.Loop() {
				txn := e.Begin()
				txn.SetLockingReads(true)
				for range 10 {
					id := rng.IntN(rows)
					r, err := txn.Point(ctx, tb, key(id))
					if err != nil || r == nil || r[0] != int64(id) {
						b.Fatal(r, err)
					}
					if write {
						if err := txn.Update(ctx, tb, r, sql.Row{r[0], r[1], "w"}); err != nil {
							b.Fatal(err)
						}
					}
				}
				txn.Rollback()
			}
		})
	}
}
