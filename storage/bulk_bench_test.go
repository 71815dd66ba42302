package storage

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// BenchmarkBulkStatements: the storage side of bench/bulk.sh's statements
// on db.kv (id INT PRIMARY KEY, txn INT, v VARCHAR(64), KEY(txn)),
// bulkRows rows per transaction:
//   - insert: one transaction inserting bulkRows new rows in the order of
//     the INSERT ... SELECT's cross join (a.i * 1000 + b.i + 1, b outer),
//     then its commit;
//   - update: one transaction updating every row of a bulkRows-row table
//     over a locking scan (txn = txn + 1, which moves its index entry),
//     then its commit;
//   - addindex-ingest, addindex-batch: ADD INDEX on v of a bulkRows-row
//     table (v distinct, 63 characters) and its commit, built as an
//     ingested table file (bulkindex.go) and through the batch; each
//     round then drops the index again (not measured).
//
// Reports the process's CPU per row (user+system, compactions included)
// beside the wall time.
//
//	go test ./storage -run XXX -bench BulkStatements -count 5
func BenchmarkBulkStatements(b *testing.B) {
	const bulkRows = 100_000
	ctx := context.Background()
	row := func(id, txn int64) sql.Row {
		return sql.Row{int32(id), int32(txn), "ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"}
	}
	b.Run("insert", func(b *testing.B) {
		e, tb := intKV(b)
		defer e.Close()
		cpu0 := processTime()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			base := int64(i) * 1_000_000
			txn := e.Begin()
			for bi := int64(0); bi < 1000; bi++ {
				for a := int64(0); a < bulkRows/1000; a++ {
					if err := txn.Insert(ctx, tb, row(base+a*1000+bi+1, (a*7919+bi)%bulkRows)); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := txn.Commit(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64((processTime()-cpu0).Nanoseconds())/float64(b.N*bulkRows), "cpu-ns/row")
	})
	for _, route := range []struct {
		name string
		at   int
	}{{"addindex-ingest", 1}, {"addindex-batch", 1 << 40}} {
		b.Run(route.name, func(b *testing.B) {
			defer func(v int) { bulkIndexAt = v }(bulkIndexAt)
			bulkIndexAt = route.at
			e, tb := intKV(b)
			defer e.Close()
			load := e.Begin()
			for id := int64(1); id <= bulkRows; id++ {
				v := fmt.Sprintf("%063d", (id*7919)%bulkRows)
				if err := load.Insert(ctx, tb, sql.Row{int32(id), int32(id), v}); err != nil {
					b.Fatal(err)
				}
			}
			if err := load.Commit(ctx); err != nil {
				b.Fatal(err)
			}
			var cpu time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cpu0 := processTime()
				txn := e.Begin()
				nt, err := e.Catalog().AlterTable(txn, tb, func(d *TableDef) error {
					d.Indexes = append(d.Indexes, IndexDef{ID: 2, Name: "v", Columns: []string{"v"}})
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				if err := txn.BuildIndex(ctx, nt, nt.Indexes[1]); err != nil {
					b.Fatal(err)
				}
				if err := txn.Commit(ctx); err != nil {
					b.Fatal(err)
				}
				cpu += processTime() - cpu0
				b.StopTimer()
				txn = e.Begin()
				if tb, err = e.Catalog().AlterTable(txn, nt, func(d *TableDef) error {
					d.Indexes = d.Indexes[:1]
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				if err := txn.DropIndexData(nt, nt.Indexes[1]); err != nil {
					b.Fatal(err)
				}
				if err := txn.Commit(ctx); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*bulkRows), "cpu-ns/row")
		})
	}
	b.Run("update", func(b *testing.B) {
		e, tb := intKV(b)
		defer e.Close()
		load := e.Begin()
		for id := int64(1); id <= bulkRows; id++ {
			if err := load.Insert(ctx, tb, row(id, (id*7919)%bulkRows)); err != nil {
				b.Fatal(err)
			}
		}
		if err := load.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		cpu0 := processTime()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			txn := e.Begin()
			txn.SetLockingReads(true)
			it, err := txn.Scan(ctx, tb, 0, nil, nil, false)
			if err != nil {
				b.Fatal(err)
			}
			for {
				r, err := it.Next()
				if err != nil {
					b.Fatal(err)
				}
				if r == nil {
					break
				}
				nr := sql.Row{r[0], r[1].(int32) + 1, r[2]}
				if err := txn.Update(ctx, tb, r, nr); err != nil {
					b.Fatal(err)
				}
			}
			it.Close()
			if err := txn.Commit(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64((processTime()-cpu0).Nanoseconds())/float64(b.N*bulkRows), "cpu-ns/row")
	})
}

// intKV opens an engine with db.kv of INT columns (sysbench's and TPC-C's
// key type).
func intKV(b *testing.B) (*Engine, *Table) {
	e := openTest(b, vfs.NewMem())
	txn := e.Begin()
	if err := e.Catalog().CreateDatabase(txn, "db", 0); err != nil {
		b.Fatal(err)
	}
	_, err := e.Catalog().CreateTable(txn, TableDef{
		Database: "db", Name: "kv", PK: []int{0},
		Columns: []ColumnDef{{Name: "id", Type: "int", PrimaryKey: true}, {Name: "txn", Type: "int"}, {Name: "v", Type: "varchar(64)", Nullable: true}},
		Indexes: []IndexDef{{ID: 1, Name: "txn", Columns: []string{"txn"}}},
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := txn.Commit(context.Background()); err != nil {
		b.Fatal(err)
	}
	return e, e.Catalog().Table("db", "kv")
}
