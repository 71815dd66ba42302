package storage

import (
	"context"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// tempKeys counts the keys in the temporary tables' id range.
func tempKeys(t *testing.T, e *Engine) int {
	t.Helper()
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: tablePrefix(TempTableIDBase), UpperBound: []byte{spaceData + 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for it.First(); it.Valid(); it.Next() {
		n++
	}
	return n
}

// TestTempTableRows: a temporary table's rows are written and read in
// transactions like any table's (a rollback undoes them), a commit of
// temporary rows only goes past the sink (the record the sink sees would
// be empty), DropTempTable deletes them, and an open deletes what a
// stopped server left.
func TestTempTableRows(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	createKV(t, e)
	def := TableDef{Database: "db", Name: "tmp", PK: []int{0},
		Columns: []ColumnDef{{Name: "id", Type: "bigint", PrimaryKey: true}, {Name: "v", Type: "bigint"}},
		Indexes: []IndexDef{{ID: 1, Name: "v", Columns: []string{"v"}}}}
	tb, err := e.Catalog().NewTempTable(def)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Def.ID < TempTableIDBase || !tb.Def.Temporary || e.Catalog().Table("db", "tmp") != nil {
		t.Fatalf("temporary table %d (temporary %v) or in the catalog", tb.Def.ID, tb.Def.Temporary)
	}
	ctx := context.Background()
	sink := &recordingSink{}
	e.SetSink(sink)
	txn := e.Begin()
	for i := int64(1); i <= 3; i++ {
		if err := txn.Insert(ctx, tb, sql.Row{i, i * 10}); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if len(sink.recs) != 0 {
		t.Fatalf("the sink saw %d records of a temporary-only commit", len(sink.recs))
	}
	txn = e.Begin()
	if err := txn.Insert(ctx, tb, sql.Row{int64(4), int64(40)}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := tempKeys(t, e); n != 6 {
		t.Fatalf("%d keys (rows and index entries), want 6 after the rollback", n)
	}
	// A commit with a base table's row too: the sink gets that row only.
	kv := e.Catalog().Table("db", "kv")
	txn = e.Begin()
	if err := txn.Insert(ctx, tb, sql.Row{int64(5), int64(50)}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Insert(ctx, kv, sql.Row{int64(1), int64(1), "x"}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if len(sink.recs) != 1 || len(sink.recs[0].Changes) != 1 || sink.recs[0].Changes[0].Table != kv {
		t.Fatalf("the sink saw %+v, want the base table's one change", sink.recs)
	}
	if err := e.DropTempTable(tb); err != nil {
		t.Fatal(err)
	}
	if n := tempKeys(t, e); n != 0 {
		t.Fatalf("%d keys after DropTempTable", n)
	}
	// Rows a server leaves behind are gone at the next open.
	tb2, err := e.Catalog().NewTempTable(def)
	if err != nil {
		t.Fatal(err)
	}
	txn = e.Begin()
	if err := txn.Insert(ctx, tb2, sql.Row{int64(1), int64(1)}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := tempKeys(t, e); n != 2 {
		t.Fatalf("%d keys before the restart, want 2", n)
	}
	e.Close()
	e = openTest(t, fs)
	defer e.Close()
	if n := tempKeys(t, e); n != 0 {
		t.Fatalf("%d temporary keys after a restart", n)
	}
}

// recordingSink keeps the records it is given.
type recordingSink struct {
	mu   sync.Mutex
	recs []*CommitRecord
}

func (s *recordingSink) Append(rec *CommitRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, rec)
	return nil
}
func (s *recordingSink) Durable() bool                             { return true }
func (s *recordingSink) Wait(context.Context, *CommitRecord) error { return nil }
