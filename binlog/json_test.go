package binlog

import (
	"context"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/storage"
)

// JSON is logged as text and comes back as the same JSON document when
// the log is replayed into storage.
func TestJSONRoundTripsThroughTheLog(t *testing.T) {
	fs := vfs.NewCrashableMem()
	dir := t.TempDir()
	r := openRig(t, fs, dir)
	txn := r.store.Begin()
	if err := r.store.Catalog().CreateDatabase(txn, "db", 0); err != nil {
		t.Fatal(err)
	}
	tb, err := r.store.Catalog().CreateTable(txn, storage.TableDef{Database: "db", Name: "j", PK: []int{0},
		Columns: []storage.ColumnDef{{Name: "id", Type: "int", PrimaryKey: true}, {Name: "doc", Type: "json", Nullable: true}}})
	if err != nil {
		t.Fatal(err)
	}
	txn.LogQuery("db", "CREATE TABLE j (id INT PRIMARY KEY, doc JSON)")
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := sql.NewEmptyContext()
	doc, _, err := types.JSON.Convert(ctx, `{"a": [1, 2.5, "x"], "b": null, "c": {"d": true}}`)
	if err != nil {
		t.Fatal(err)
	}
	txn = r.store.Begin()
	if err := txn.Insert(context.Background(), tb, sql.Row{int32(1), doc}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Insert(context.Background(), tb, sql.Row{int32(2), nil}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Crash before storage synced anything: recovery replays from the log.
	crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	copyDir(t, dir, dir+"2")
	r2 := openRig(t, crashed, dir+"2")
	defer r2.log.Close()
	tb2 := r2.store.Catalog().Table("db", "j")
	rt := r2.store.Begin()
	defer rt.Rollback()
	k, _ := tb2.PKKeyFromValues([]any{int32(1)})
	row, err := rt.Point(context.Background(), tb2, k)
	if err != nil || row == nil {
		t.Fatalf("row 1 after replay: %v %v", row, err)
	}
	if c, err := types.JSON.Compare(ctx, row[1], doc); err != nil || c != 0 {
		t.Fatalf("JSON after replay %v, want %v (%v)", row[1], doc, err)
	}
}
