package storage

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// createPadded creates db.st (id BIGINT PRIMARY KEY, n BIGINT, v
// VARCHAR(400)): rows of about TPC-C stock's size.
func createPadded(t testing.TB, e *Engine) *Table {
	t.Helper()
	txn := e.Begin()
	if err := e.Catalog().CreateDatabase(txn, "db", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Catalog().CreateTable(txn, TableDef{
		Database: "db", Name: "st", PK: []int{0},
		Columns: []ColumnDef{{Name: "id", Type: "bigint", PrimaryKey: true}, {Name: "n", Type: "bigint"}, {Name: "v", Type: "varchar(400)"}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e.Catalog().Table("db", "st")
}

// randomText is n random lowercase letters (about as compressible as
// TPC-C's padding columns).
func randomText(rng *rand.Rand, n int) string {
	var sb strings.Builder
	for range n {
		sb.WriteByte(byte('a' + rng.IntN(26)))
	}
	return sb.String()
}

// TestCompactionShapeKeepsRows writes random updates through many small
// memtables, so that flushes and compactions run with the engine's LSM
// settings (engine.go: L0 threshold, base level size), then reopens the
// store and reads back every row: each row's last written value, no row
// lost or resurrected.
func TestCompactionShapeKeepsRows(t *testing.T) {
	fs := vfs.NewMem()
	open := func() *Engine {
		e, err := Open(Options{Dir: "db", FS: fs, Logger: quiet, LockWaitTimeout: 5 * time.Second, MemTableSize: 256 << 10})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	tb := createPadded(t, e)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 3))
	const rows = 4000
	model := map[int64]string{}
	ids := make([]int64, rows) // the live rows
	for lo := 0; lo < rows; lo += 500 {
		txn := e.Begin()
		for id := lo; id < lo+500; id++ {
			v := randomText(rng, 300)
			if err := txn.Insert(ctx, tb, sql.Row{int64(id), int64(0), v}); err != nil {
				t.Fatal(err)
			}
			model[int64(id)] = v
			ids[id] = int64(id)
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 1500 {
		txn := e.Begin()
		txn.SetLockingReads(true)
		for range 4 {
			slot := rng.IntN(rows)
			id := ids[slot]
			k, err := tb.PKKeyFromValues([]any{id})
			if err != nil {
				t.Fatal(err)
			}
			r, err := txn.Point(ctx, tb, k)
			if err != nil || r == nil || r[2] != model[id] {
				t.Fatalf("update %d: row %d read %v %v", i, id, r, err)
			}
			if i%10 == 9 { // now and then a row goes away
				if err := txn.Delete(ctx, tb, r); err != nil {
					t.Fatal(err)
				}
				delete(model, id)
				id += rows // and another comes
				ids[slot] = id
				r = sql.Row{id, int64(0), ""}
				if err := txn.Insert(ctx, tb, r); err != nil {
					t.Fatal(err)
				}
				model[id] = ""
			}
			v := randomText(rng, 300)
			if err := txn.Update(ctx, tb, r, sql.Row{id, int64(i), v}); err != nil {
				t.Fatal(err)
			}
			model[id] = v
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	m := e.db.Metrics()
	if m.Flush.Count < 10 || m.Compact.Count == 0 {
		t.Fatalf("flushes %d, compactions %d: the test wants many of both", m.Flush.Count, m.Compact.Count)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = open()
	defer e.Close()
	tb = e.Catalog().Table("db", "st")
	txn := e.Begin()
	defer txn.Rollback()
	it, err := txn.Scan(ctx, tb, 0, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for {
		r, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			break
		}
		n++
		if want, ok := model[r[0].(int64)]; !ok || r[2] != want {
			t.Fatalf("row %v after reopen: want %q (present %v)", r[0], want, ok)
		}
	}
	if n != len(model) {
		t.Fatalf("%d rows after reopen, want %d", n, len(model))
	}
}
