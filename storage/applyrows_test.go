package storage

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// scanIndex returns (txn, id) pairs in the order of index txn: what the
// secondary index holds.
func scanIndex(t *testing.T, e *Engine) string {
	t.Helper()
	tb := e.Catalog().Table("db", "kv")
	txn := e.Begin()
	defer txn.Rollback()
	it, err := txn.Scan(context.Background(), tb, 1, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []string
	for {
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			return fmt.Sprint(out)
		}
		out = append(out, fmt.Sprintf("%d:%d", row[1], row[0]))
	}
}

// TestApplyPatternsWithinOneTransaction runs the replication applier's
// row writes (binlog.ApplyRows: Upsert, Update, Delete) on keys the same
// transaction deleted, re-wrote and rolled back to a savepoint: what the
// transaction reads of its own deletions (Txn.deleted answers for them)
// must be what Pebble would answer, rows and index entries alike.
func TestApplyPatternsWithinOneTransaction(t *testing.T) {
	ctx := context.Background()
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	const many = maxDeletedKeys + 100 // past the bound: the rest read from Pebble
	seed := e.Begin()
	for id := int64(1); id <= many; id++ {
		if err := seed.Insert(ctx, tb, sql.Row{id, id, "v"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := seed.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	txn := e.Begin()
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// DELETE then INSERT of one key (sysbench oltp_write_only's pair).
	step("delete 1", txn.Delete(ctx, tb, sql.Row{int64(1), int64(1), "v"}))
	step("upsert 1", txn.Upsert(ctx, tb, sql.Row{int64(1), int64(100), "new"}))
	// An UPDATE of a row the transaction deleted finds none: a no-op.
	step("delete 2", txn.Delete(ctx, tb, sql.Row{int64(2), int64(2), "v"}))
	step("update 2", txn.Update(ctx, tb, sql.Row{int64(2), int64(2), "v"}, sql.Row{int64(2), int64(200), "x"}))
	step("delete 2 again", txn.Delete(ctx, tb, sql.Row{int64(2), int64(2), "v"}))
	// A deletion rolled back to a savepoint is visible again.
	sp := txn.Savepoint()
	step("delete 3", txn.Delete(ctx, tb, sql.Row{int64(3), int64(3), "v"}))
	step("rollback to savepoint", txn.RollbackTo(sp))
	step("update 3", txn.Update(ctx, tb, sql.Row{int64(3), int64(3), "v"}, sql.Row{int64(3), int64(300), "y"}))
	// Upsert of a new key inserts; of an existing one updates in place.
	step("upsert new", txn.Upsert(ctx, tb, sql.Row{int64(many + 1), int64(1), "n"}))
	step("upsert existing", txn.Upsert(ctx, tb, sql.Row{int64(4), int64(400), "z"}))
	// More deletions than Txn.deleted keeps, then every one re-inserted
	// and the upper half deleted again.
	for id := int64(5); id <= many; id++ {
		step("delete", txn.Delete(ctx, tb, sql.Row{id, id, "v"}))
	}
	for id := int64(5); id <= many; id++ {
		step("upsert", txn.Upsert(ctx, tb, sql.Row{id, id + 1, "w"}))
	}
	for id := int64(many / 2); id <= many; id++ {
		step("delete", txn.Delete(ctx, tb, sql.Row{id, id + 1, "w"}))
	}
	if _, ok, err := txn.get(mustPK(t, tb, int64(many))); err != nil || ok {
		t.Fatalf("the transaction reads its deleted row %d: found %v, %v", many, ok, err)
	}
	if _, ok, err := txn.get(mustPK(t, tb, int64(many/2-1))); err != nil || !ok {
		t.Fatalf("the transaction does not read its re-inserted row %d: found %v, %v", many/2-1, ok, err)
	}
	step("commit", txn.Commit(ctx))

	want := map[int64]int64{1: 100, 3: 300, 4: 400, many + 1: 1}
	for id := int64(5); id < many/2; id++ {
		want[id] = id + 1
	}
	got := scanAll(t, e)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows after commit: %d rows, want %d (%v...)", len(got), len(want), got[1])
	}
	pairs := [][2]int64{}
	for id, v := range want {
		pairs = append(pairs, [2]int64{v, id})
	}
	slices.SortFunc(pairs, func(a, b [2]int64) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	var idx []string
	for _, p := range pairs {
		idx = append(idx, fmt.Sprintf("%d:%d", p[0], p[1]))
	}
	if g, w := scanIndex(t, e), fmt.Sprint(idx); g != w {
		t.Errorf("index txn after commit:\n got %.200s\nwant %.200s", g, w)
	}
}

func mustPK(t *testing.T, tb *Table, id int64) []byte {
	t.Helper()
	k, err := tb.PKKey(nil, sql.Row{id, int64(0), ""})
	if err != nil {
		t.Fatal(err)
	}
	return k
}
