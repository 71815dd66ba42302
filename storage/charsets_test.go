package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// TestEightBitCharsetColumnsReopen: a table whose columns name character
// sets GMS lacks (koi8r, latin2; internal/charsets) is created, written,
// and read back in index order after the store is reopened (Open installs
// the sets before the catalog parses its column types; a server with such
// a table failed to start).
func TestEightBitCharsetColumnsReopen(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	ctx := context.Background()
	txn := e.Begin()
	if err := e.Catalog().CreateDatabase(txn, "db", 0); err != nil {
		t.Fatal(err)
	}
	_, err := e.Catalog().CreateTable(txn, TableDef{
		Database: "db", Name: "k", PK: []int{0},
		Columns: []ColumnDef{{Name: "id", Type: "bigint", PrimaryKey: true},
			{Name: "s", Type: "varchar(10) CHARACTER SET koi8r COLLATE koi8r_general_ci", Nullable: true},
			{Name: "l", Type: "varchar(10) CHARACTER SET latin2 COLLATE latin2_general_ci", Nullable: true}},
		Indexes: []IndexDef{{ID: 1, Name: "s", Columns: []string{"s"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tb := e.Catalog().Table("db", "k")
	txn = e.Begin()
	for _, r := range []sql.Row{{int64(1), "Привет", "ą"}, {int64(2), "абв", "Ł"}, {int64(3), "Ёж", "z"}, {int64(4), "АБВГ", "a"}} {
		if err := txn.Insert(ctx, tb, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	e.Close()

	e = openTest(t, fs)
	defer e.Close()
	tb = e.Catalog().Table("db", "k")
	if tb == nil {
		t.Fatal("db.k missing after reopening")
	}
	txn = e.Begin()
	defer txn.Rollback()
	it, err := txn.Scan(ctx, tb, 1, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var got []string
	for {
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			break
		}
		got = append(got, fmt.Sprint(row...))
	}
	// koi8r_general_ci: 'абв' < 'АБВГ' (case-insensitive), 'Ё' after 'Е'.
	if want := "[2абвŁ 4АБВГa 3Ёжz 1Приветą]"; fmt.Sprint(got) != want {
		t.Errorf("index s after reopening: %s, want %s", fmt.Sprint(got), want)
	}
}
