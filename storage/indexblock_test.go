package storage

import (
	"context"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// TestTablesHaveSingleLevelIndexes: a table the store writes whose index
// is past Pebble's default split size (the 4 KiB block size) keeps a
// single-level index (indexBlockSize), and its rows read back.
func TestTablesHaveSingleLevelIndexes(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	const rows = 30000
	pad := strings.Repeat("p", 60)
	for lo := 0; lo < rows; lo += 5000 {
		txn := e.Begin()
		for id := lo; id < lo+5000; id++ {
			if err := txn.Insert(ctx, tb, sql.Row{int64(id), int64(id), pad}); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.db.Flush(); err != nil {
		t.Fatal(err)
	}
	levels, err := e.db.SSTables(pebble.WithProperties())
	if err != nil {
		t.Fatal(err)
	}
	var big int
	for _, level := range levels {
		for _, f := range level {
			p := f.Properties
			if p.IndexSize <= 4<<10 {
				continue
			}
			big++
			if p.IndexPartitions != 0 || p.TopLevelIndexSize != 0 {
				t.Fatalf("table %s: %d index bytes in %d partitions (top level %d bytes), want one level",
					f.FileNum, p.IndexSize, p.IndexPartitions, p.TopLevelIndexSize)
			}
		}
	}
	if big == 0 {
		t.Fatal("no table with more than 4 KiB of index: the test wrote too little")
	}
	txn := e.Begin()
	defer txn.Rollback()
	for _, id := range []int64{0, 12345, rows - 1} {
		k, _ := tb.PKKeyFromValues([]any{id})
		if r, err := txn.Point(ctx, tb, k); err != nil || r == nil || r[1] != id {
			t.Fatalf("row %d: %v, %v", id, r, err)
		}
	}
}
