package storage

import (
	"context"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// TestApproxRowsEstimatesLargeTables: a table of 60,000 rows in
// sstables is estimated from their properties, within a tenth of its
// count, without reading it row by row; a table under exactRowsBelow is
// counted exactly; deleted rows leave the estimate.
func TestApproxRowsEstimatesLargeTables(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	createKV(t, e)
	ctx := context.Background()
	tb := e.Catalog().Table("db", "kv")
	const big = 60_000
	w := e.Begin()
	for id := int64(1); id <= big; id++ {
		if err := w.Insert(ctx, tb, sql.Row{id, id % 97, "some value"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.db.Flush(); err != nil {
		t.Fatal(err)
	}
	before := e.stats.RowCounts.Load()
	if n := e.ApproxRows(tb); n < big*9/10 || n > big*11/10 {
		t.Errorf("%d rows estimated for %d", n, big)
	}
	if c := e.stats.RowCounts.Load() - before; c != 0 {
		t.Errorf("the large table was counted row by row (%d counts)", c)
	}

	// A small table: counted.
	w = e.Begin()
	if _, err := e.Catalog().CreateTable(w, TableDef{
		Database: "db", Name: "small", PK: []int{0},
		Columns: []ColumnDef{{Name: "id", Type: "bigint", PrimaryKey: true}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	small := e.Catalog().Table("db", "small")
	w = e.Begin()
	for id := int64(1); id <= 100; id++ {
		if err := w.Insert(ctx, small, sql.Row{id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := e.ApproxRows(small); n != 100 {
		t.Errorf("small table: %d rows, want 100", n)
	}
	if c := e.stats.RowCounts.Load() - before; c != 1 {
		t.Errorf("%d row-by-row counts, want 1 (the small table)", c)
	}

	// The estimate of a span whose rows were deleted and flushed drops.
	w = e.Begin()
	for id := int64(1); id <= big/2; id++ {
		if err := w.Delete(ctx, tb, sql.Row{id, id % 97, "some value"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.db.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := e.db.Compact(ctx, []byte{0}, []byte{0xff}, true); err != nil {
		t.Fatal(err)
	}
	p := indexPrefix(nil, tb.Def.ID, 0)
	if n, ok := e.estimateEntries(p, prefixEnd(p)); !ok || n < big/2*9/10 || n > big/2*11/10 {
		t.Errorf("%d entries estimated after deleting half of %d (ok %v)", n, big, ok)
	}
}
