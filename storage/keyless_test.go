package storage

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// createKeyless creates db.k (a BIGINT, b VARCHAR(16)): no primary key,
// rows keyed by hidden ids, found by content.
func createKeyless(t testing.TB, e *Engine, rows ...sql.Row) *Table {
	t.Helper()
	ctx := context.Background()
	txn := e.Begin()
	if err := e.Catalog().CreateDatabase(txn, "db", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Catalog().CreateTable(txn, TableDef{
		Database: "db", Name: "k",
		Columns: []ColumnDef{{Name: "a", Type: "bigint"}, {Name: "b", Type: "varchar(16)", Nullable: true}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tb := e.Catalog().Table("db", "k")
	if !tb.Hidden {
		t.Fatal("db.k has a primary key")
	}
	if len(rows) > 0 {
		txn = e.Begin()
		for _, r := range rows {
			if err := txn.Insert(ctx, tb, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return tb
}

// keylessRows counts db.k's rows by content.
func keylessRows(t *testing.T, e *Engine, tb *Table) map[string]int {
	t.Helper()
	txn := e.Begin()
	defer txn.Rollback()
	p := indexPrefix(nil, tb.Def.ID, 0)
	it, err := txn.newIter(p, prefixEnd(p))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	out := map[string]int{}
	for it.First(); it.Valid(); it.Next() {
		r, err := decodeRow(it.Value(), tb.Schema)
		if err != nil {
			t.Fatal(err)
		}
		out[fmt.Sprint(r)]++
	}
	return out
}

// waitsUntil runs op on its own goroutine and fails the test unless op is
// still waiting after hold, and, once release ran (named event), finishes
// without error within 10 s.
func waitsUntil(t *testing.T, what, event string, hold time.Duration, op, release func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- op() }()
	select {
	case err := <-done:
		t.Fatalf("%s did not wait until %s: %v", what, event, err)
	case <-time.After(hold):
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still waiting after %s", what, event)
	}
}

// TestKeylessDeleteAfterLockWait: two transactions each delete one of two
// identical rows of a keyless table. The second finds the first's row,
// waits for its lock, and once the first commits must go on to the other
// row, not delete the already deleted one again (which left a row behind
// and reported it deleted).
func TestKeylessDeleteAfterLockWait(t *testing.T) {
	ctx := context.Background()
	for _, op := range []string{"delete", "update"} {
		t.Run(op, func(t *testing.T) {
			e := openTest(t, vfs.NewMem())
			defer e.Close()
			row := sql.Row{int64(1), "x"}
			tb := createKeyless(t, e, row, row)
			apply := func(txn *Txn) error {
				if op == "delete" {
					return txn.Delete(ctx, tb, row)
				}
				return txn.Update(ctx, tb, row, sql.Row{int64(2), "y"})
			}
			a := e.Begin()
			if err := apply(a); err != nil {
				t.Fatal(err)
			}
			second := func() error {
				b := e.Begin()
				if err := apply(b); err != nil {
					b.Rollback()
					return err
				}
				return b.Commit(ctx)
			}
			waitsUntil(t, "the second "+op, "the first committed", 200*time.Millisecond, second, func() error { return a.Commit(ctx) })
			want := map[string]int{}
			if op == "update" {
				want = map[string]int{"[2 y]": 2}
			}
			if got := keylessRows(t, e, tb); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("rows %v, want %v", got, want)
			}
		})
	}
}
