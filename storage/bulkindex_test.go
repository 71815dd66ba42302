package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

const bulkRows = 3000

// fillKV inserts bulkRows rows into db.kv: txn = id % 7, v = "v<id % 100>".
func fillKV(t *testing.T, e *Engine) *Table {
	t.Helper()
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	txn := e.Begin()
	for id := 0; id < bulkRows; id++ {
		if err := txn.Insert(ctx, tb, sql.Row{int64(id), int64(id % 7), fmt.Sprintf("v%d", id%100)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return tb
}

// addIndexV adds index v_ix (v) to db.kv in txn and builds it; it
// returns the new table and the index.
func addIndexV(t *testing.T, e *Engine, txn *Txn) (*Table, *Index) {
	t.Helper()
	tb := e.Catalog().Table("db", "kv")
	nt, err := e.Catalog().AlterTable(txn, tb, func(d *TableDef) error {
		next := uint8(1)
		for _, ix := range d.Indexes {
			if ix.ID >= next {
				next = ix.ID + 1
			}
		}
		d.Indexes = append(d.Indexes, IndexDef{ID: next, Name: "v_ix", Columns: []string{"v"}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ix := nt.Indexes[len(nt.Indexes)-1]
	if err := txn.BuildIndex(context.Background(), nt, ix); err != nil {
		t.Fatal(err)
	}
	return nt, ix
}

// spanCount counts Pebble's keys under index ix of tb.
func spanCount(t *testing.T, e *Engine, tb *Table, ix *Index) int {
	t.Helper()
	p := indexPrefix(nil, tb.Def.ID, ix.Def.ID)
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)})
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

// checkClean runs CHECK TABLE's consistency check of db.kv: every row
// with its entries in every index, and no entry without its row.
func checkClean(t *testing.T, e *Engine) {
	t.Helper()
	tb := e.Catalog().Table("db", "kv")
	rows, problems, err := e.CheckTable(context.Background(), tb)
	if err != nil || len(problems) > 0 || rows != bulkRows {
		t.Fatalf("CHECK TABLE: %d rows, problems %v, err %v; want %d rows, none", rows, problems, err, bulkRows)
	}
}

// ingestFiles lists the index builds' table files waiting in the store.
func ingestFiles(t *testing.T, fs vfs.FS) []string {
	t.Helper()
	names, err := fs.List(fs.PathJoin("db", ingestDirName))
	if err != nil {
		return nil
	}
	return names
}

// TestBulkIndexIngested: a non-unique index whose entries pass the
// threshold is built as a table file and ingested at commit, with the
// binary log as the WAL and with Pebble's own. Its entries are those
// CHECK TABLE recomputes, before and after a restart; the file is gone
// from the waiting directory.
func TestBulkIndexIngested(t *testing.T) {
	defer func(v int) { bulkIndexAt = v }(bulkIndexAt)
	defer func(v int) { bulkChunk = v }(bulkChunk)
	bulkIndexAt = 1
	for _, c := range []struct {
		logIsWAL bool
		chunk    int
	}{{false, 256 << 20}, {true, 256 << 20}, {true, 16 << 10}} {
		logIsWAL := c.logIsWAL
		bulkChunk = c.chunk
		t.Run(fmt.Sprintf("logIsWAL=%v,chunk=%d", logIsWAL, c.chunk), func(t *testing.T) {
			fs := vfs.NewMem()
			open := func() *Engine {
				e, err := Open(Options{Dir: "db", FS: fs, Logger: quiet, LogIsWAL: logIsWAL})
				if err != nil {
					t.Fatal(err)
				}
				return e
			}
			e := open()
			createKV(t, e)
			fillKV(t, e)
			before := IndexIngests()
			txn := e.Begin()
			tb, ix := addIndexV(t, e, txn)
			if len(txn.bulk) != 1 {
				t.Fatalf("%d builds pending, want 1 (the ingested route)", len(txn.bulk))
			}
			if files := len(txn.bulk[0].paths); (c.chunk < 1<<20) != (files > 1) {
				t.Fatalf("%d files written during the build with chunks of %d bytes", files, c.chunk)
			}
			if err := txn.Commit(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := IndexIngests() - before; got != 1 {
				t.Fatalf("%d builds ingested, want 1", got)
			}
			if n := spanCount(t, e, tb, ix); n != bulkRows {
				t.Fatalf("%d entries, want %d", n, bulkRows)
			}
			if f := ingestFiles(t, fs); len(f) != 0 {
				t.Errorf("files left waiting: %v", f)
			}
			checkClean(t, e)
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			e = open()
			defer e.Close()
			tb = e.Catalog().Table("db", "kv")
			if n := spanCount(t, e, tb, tb.Indexes[len(tb.Indexes)-1]); n != bulkRows {
				t.Fatalf("after a restart: %d entries, want %d", n, bulkRows)
			}
			checkClean(t, e)
		})
	}
}

// TestBulkIndexReadOwnAndRollback: a read of the new index inside the
// building transaction sees its entries (they move to the batch); a
// rolled-back build leaves no entries and no file.
func TestBulkIndexReadOwnAndRollback(t *testing.T) {
	defer func(v int) { bulkIndexAt = v }(bulkIndexAt)
	bulkIndexAt = 1
	fs := vfs.NewMem()
	e := openTest(t, fs)
	defer e.Close()
	createKV(t, e)
	fillKV(t, e)
	txn := e.Begin()
	tb, ix := addIndexV(t, e, txn)
	if err := txn.writeBulk(); err != nil { // as a commit would, first
		t.Fatal(err)
	}
	if f := ingestFiles(t, fs); len(f) != 1 {
		t.Fatalf("files waiting: %v, want 1", f)
	}
	if err := txn.Rollback(); err != nil {
		t.Fatal(err)
	}
	if f := ingestFiles(t, fs); len(f) != 0 {
		t.Errorf("files left after rollback: %v", f)
	}
	if n := spanCount(t, e, tb, ix); n != 0 {
		t.Errorf("%d entries after rollback, want 0", n)
	}

	txn = e.Begin()
	tb, ix = addIndexV(t, e, txn)
	p := indexPrefix(nil, tb.Def.ID, ix.Def.ID)
	it, err := txn.newIter(p, prefixEnd(p))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for it.First(); it.Valid(); it.Next() {
		n++
	}
	it.Close()
	if n != bulkRows || len(txn.bulk) != 0 {
		t.Fatalf("own read: %d entries, %d builds pending; want %d, 0", n, len(txn.bulk), bulkRows)
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkClean(t, e)
}

// TestBulkIndexOverStaleEntries: entries a crash left under the new
// index's id (ingested, the catalog change lost) are deleted by the next
// build of that id, which goes through the batch; and a build after
// DROP INDEX of the same id is ingested over the dropped entries'
// deletion.
func TestBulkIndexOverStaleEntries(t *testing.T) {
	defer func(v int) { bulkIndexAt = v }(bulkIndexAt)
	bulkIndexAt = 1
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	createKV(t, e)
	fillKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	stale := indexPrefix(nil, tb.Def.ID, 2)
	for i := 0; i < 50; i++ {
		if err := e.db.Set(append(append([]byte(nil), stale...), byte(i), 0xff), nil, pebble.Sync); err != nil {
			t.Fatal(err)
		}
	}
	before := IndexIngests()
	txn := e.Begin()
	tb, ix := addIndexV(t, e, txn)
	if ix.Def.ID != 2 {
		t.Fatalf("index id %d, want 2", ix.Def.ID)
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if IndexIngests() != before {
		t.Error("a build over stale entries was ingested")
	}
	if n := spanCount(t, e, tb, ix); n != bulkRows {
		t.Fatalf("%d entries, want %d (the stale ones deleted)", n, bulkRows)
	}
	checkClean(t, e)

	txn = e.Begin()
	nt, err := e.Catalog().AlterTable(txn, tb, func(d *TableDef) error {
		d.Indexes = d.Indexes[:len(d.Indexes)-1]
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := txn.DropIndexData(tb, ix); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	_ = nt
	txn = e.Begin()
	tb, ix = addIndexV(t, e, txn)
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if IndexIngests() != before+1 {
		t.Errorf("%d builds ingested, want 1", IndexIngests()-before)
	}
	if n := spanCount(t, e, tb, ix); n != bulkRows {
		t.Fatalf("after DROP and ADD: %d entries, want %d", n, bulkRows)
	}
	checkClean(t, e)
}
