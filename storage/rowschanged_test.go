package storage

import (
	"context"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// TestRowsChangedCountsKeyChanges: the statistics' change counter moves
// for inserts, deletes and updates of an indexed column, and not for
// updates that leave every indexed column as it was (InnoDB's rule).
func TestRowsChangedCountsKeyChanges(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	write := func(f func(txn *Txn) error) {
		t.Helper()
		txn := e.Begin()
		if err := f(txn); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	sctx := sql.NewEmptyContext()
	write(func(txn *Txn) error { return txn.Insert(sctx, tb, sql.Row{int64(1), int64(10), "a"}) })
	write(func(txn *Txn) error { return txn.Insert(sctx, tb, sql.Row{int64(2), int64(20), "b"}) })
	if n := e.RowsChanged(tb); n != 2 {
		t.Fatalf("after 2 inserts: %d changes", n)
	}
	// v is in no index: not a change for the statistics.
	write(func(txn *Txn) error {
		return txn.Update(sctx, tb, sql.Row{int64(1), int64(10), "a"}, sql.Row{int64(1), int64(10), "a2"})
	})
	if n := e.RowsChanged(tb); n != 2 {
		t.Errorf("after an update of v: %d changes, want 2", n)
	}
	// txn is indexed.
	write(func(txn *Txn) error {
		return txn.Update(sctx, tb, sql.Row{int64(1), int64(10), "a2"}, sql.Row{int64(1), int64(11), "a2"})
	})
	if n := e.RowsChanged(tb); n != 3 {
		t.Errorf("after an update of txn: %d changes, want 3", n)
	}
	write(func(txn *Txn) error { return txn.Delete(sctx, tb, sql.Row{int64(2), int64(20), "b"}) })
	if n := e.RowsChanged(tb); n != 4 {
		t.Errorf("after a delete: %d changes, want 4", n)
	}
}
