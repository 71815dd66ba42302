package storage

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Tables created now key text by PAD SPACE ('b' and 'B ' under
// utf8mb4_general_ci share a primary key); a table whose persisted
// definition predates the format (KeyFormat 0) keeps exact keys, so
// its stored rows are still found, across a reopen too.
func TestKeyFormatPadSpace(t *testing.T) {
	fs := vfs.NewMem()
	open := func() *Engine {
		e, err := Open(Options{Dir: "db", FS: fs, Logger: quiet, LockWaitTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	txn := e.Begin()
	if err := e.Catalog().CreateDatabase(txn, "db", 0); err != nil {
		t.Fatal(err)
	}
	def := TableDef{Database: "db", Name: "p", PK: []int{0},
		Columns: []ColumnDef{{Name: "s", Type: "varchar(10) collate utf8mb4_general_ci", PrimaryKey: true}}}
	tb, err := e.Catalog().CreateTable(txn, def)
	if err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if tb.Def.KeyFormat != KeyFormatPadSpace {
		t.Fatalf("new table's key format %d, want %d", tb.Def.KeyFormat, KeyFormatPadSpace)
	}
	k1, _ := tb.PKKeyFromValues([]any{"b"})
	k2, _ := tb.PKKeyFromValues([]any{"B "})
	if !bytes.Equal(k1, k2) {
		t.Fatalf("PAD SPACE keys differ: %x %x", k1, k2)
	}
	old := def
	old.ID = tb.Def.ID
	ot, err := resolveTable(old, nil)
	if err != nil {
		t.Fatal(err)
	}
	o1, _ := ot.PKKeyFromValues([]any{"b"})
	o2, _ := ot.PKKeyFromValues([]any{"B "})
	if bytes.Equal(o1, o2) || !bytes.Equal(o1, k1) {
		t.Fatalf("format 0 keys: %x %x (format 1: %x)", o1, o2, k1)
	}
	e.Close()
	e = open()
	defer e.Close()
	if f := e.Catalog().Table("db", "p").Def.KeyFormat; f != KeyFormatPadSpace {
		t.Fatalf("reopened table's key format %d", f)
	}
}
