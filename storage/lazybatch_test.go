package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestLazyBatch: a transaction shaped like INSERT ... SELECT (scans of a
// table it does not write, inserts past the target's end, a duplicate of
// a committed row, a savepoint's rollback) never indexes its batch; a
// duplicate of its own row, and a read of the table it wrote, index it
// and see every write. The same steps with lazy batches off give the
// same rows and errors.
func TestLazyBatch(t *testing.T) {
	results := map[bool]string{}
	for _, lazy := range []bool{true, false} {
		t.Run(fmt.Sprintf("lazy=%v", lazy), func(t *testing.T) {
			old := lazyBatches
			lazyBatches = lazy
			defer func() { lazyBatches = old }()
			results[lazy] = lazySteps(t, lazy)
		})
	}
	want := "[dup committed: true dup own: true rows: 302 10001->1 10300->300 5000->7 30000->3]"
	if results[true] != want {
		t.Fatalf("lazy batches: %s, want %s", results[true], want)
	}
	if results[true] != results[false] {
		t.Fatalf("lazy batches changed the outcome:\n lazy: %s\nindexed: %s", results[true], results[false])
	}
}

func lazySteps(t *testing.T, lazy bool) string {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	createKV(t, e)
	kv := e.Catalog().Table("db", "kv")
	txn := e.Begin()
	if _, err := e.Catalog().CreateTable(txn, TableDef{
		Database: "db", Name: "src", PK: []int{0},
		Columns: []ColumnDef{{Name: "id", Type: "bigint", PrimaryKey: true}, {Name: "txn", Type: "bigint"}, {Name: "v", Type: "varchar(64)", Nullable: true}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	src := e.Catalog().Table("db", "src")
	ctx := context.Background()
	commitWith(t, e, func(ctx context.Context, txn *Txn) error {
		for i := int64(1); i <= 300; i++ {
			if err := insertKV(ctx, txn, src, i, i); err != nil {
				return err
			}
		}
		return insertKV(ctx, txn, kv, 5000, 7)
	})
	indexed := e.stats.LazyBatchesIndexed.Load()
	var log []string
	txn = e.Begin()
	defer txn.Rollback()
	// INSERT INTO kv SELECT ... FROM src: the scan reads src, the
	// inserts go past kv's end.
	it, err := txn.Scan(ctx, src, 0, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for {
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			break
		}
		if err := insertKV(ctx, txn, kv, 10000+row[0].(int64), row[1].(int64)); err != nil {
			t.Fatal(err)
		}
	}
	it.Close()
	sp := txn.Savepoint()
	for i := int64(20000); i < 20100; i++ {
		if err := insertKV(ctx, txn, kv, i, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.RollbackTo(sp); err != nil {
		t.Fatal(err)
	}
	// A committed row's key: found without the batch.
	log = append(log, fmt.Sprint("dup committed: ", isDup(insertKV(ctx, txn, kv, 5000, 0), 7)))
	if lazy && (!txn.lazy || e.stats.LazyBatchesIndexed.Load() != indexed) {
		t.Fatalf("batch indexed by an INSERT ... SELECT (lazy %v, %d indexed)", txn.lazy, e.stats.LazyBatchesIndexed.Load()-indexed)
	}
	// Its own row's key: the lock is not new, the batch is read.
	log = append(log, fmt.Sprint("dup own: ", isDup(insertKV(ctx, txn, kv, 10150, 0), 150)))
	if lazy && (txn.lazy || e.stats.LazyBatchesIndexed.Load() != indexed+1) {
		t.Fatalf("batch not indexed by a read of its own key")
	}
	if err := insertKV(ctx, txn, kv, 30000, 3); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, e)
	log = append(log, fmt.Sprint("rows: ", len(got), " 10001->", got[10001], " 10300->", got[10300], " 5000->", got[5000], " 30000->", got[30000]))
	if _, ok := got[20000]; ok {
		t.Fatal("a row rolled back to the savepoint was committed")
	}
	return fmt.Sprint(log)
}
