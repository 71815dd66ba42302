package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// TestLockedReadsSeeOwnWrites drives one transaction through random
// locking reads, updates, deletes, inserts, locked scans and savepoint
// rollbacks of a few rows, and checks every read and the committed table
// against a model: the values kept from locked reads (lockedread.go) never
// hide the transaction's own later writes or undo.
func TestLockedReadsSeeOwnWrites(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	const rows = 24 // more than lockedReadSlots
	model := map[int64]int64{}
	load := e.Begin()
	for id := int64(0); id < rows; id += 2 {
		if err := load.Insert(ctx, tb, sql.Row{id, id * 10, "v"}); err != nil {
			t.Fatal(err)
		}
		model[id] = id * 10
	}
	if err := load.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	key := func(id int64) []byte {
		k, err := tb.PKKeyFromValues([]any{id})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	rng := rand.New(rand.NewPCG(29, 29))
	lastRead := map[int64]sql.Row{} // rows read earlier, some stale
	for round := range 20 {
		txn := e.Begin()
		txn.SetLockingReads(true)
		cur := map[int64]int64{}
		for k, v := range model {
			cur[k] = v
		}
		var saved map[int64]int64
		var mark Mark
		for step := range 200 {
			id := int64(rng.IntN(rows))
			where := fmt.Sprintf("round %d step %d id %d", round, step, id)
			want, exists := cur[id]
			switch op := rng.IntN(10); {
			case op < 4: // locking point read
				r, err := txn.Point(ctx, tb, key(id))
				if err != nil {
					t.Fatal(where, err)
				}
				if (r != nil) != exists || (exists && r[1] != want) {
					t.Fatalf("%s: read %v, want %d (exists %v)", where, r, want, exists)
				}
			case op < 6: // update through the row read (as the fast path does)
				r, err := txn.Point(ctx, tb, key(id))
				if err != nil {
					t.Fatal(where, err)
				}
				if r == nil {
					continue
				}
				if stale := lastRead[id]; stale != nil && step%3 == 0 {
					r = stale // UpdateRead must see it is not the stored row
				}
				lastRead[id] = r
				nv := int64(rng.IntN(1000))
				update := txn.Update
				if step%2 == 0 {
					update = txn.UpdateRead
				}
				if err := update(ctx, tb, r, sql.Row{id, nv, "u"}); err != nil {
					t.Fatal(where, err)
				}
				cur[id] = nv
			case op < 7:
				if err := txn.Delete(ctx, tb, sql.Row{id, want, "v"}); err != nil {
					t.Fatal(where, err)
				}
				delete(cur, id)
			case op < 8:
				err := txn.Insert(ctx, tb, sql.Row{id, id, "i"})
				if exists != (err != nil) {
					t.Fatalf("%s: insert over a row that exists=%v: %v", where, exists, err)
				}
				if !exists {
					cur[id] = id
				}
			case op < 9: // a locked scan of every row
				if n := countScan(t, txn, tb, 0, nil, nil); n != len(cur) {
					t.Fatalf("%s: locked scan saw %d rows, want %d", where, n, len(cur))
				}
			default: // savepoint, or back to it
				if saved == nil {
					mark = txn.Savepoint()
					saved = map[int64]int64{}
					for k, v := range cur {
						saved[k] = v
					}
				} else {
					if err := txn.RollbackTo(mark); err != nil {
						t.Fatal(where, err)
					}
					cur, saved = saved, nil
				}
			}
		}
		if round%2 == 0 {
			if err := txn.Rollback(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		model = cur
	}
	got := scanAll(t, e)
	if len(got) != len(model) {
		t.Fatalf("table has %d rows, model %d", len(got), len(model))
	}
	for k, v := range model {
		if got[k] != v {
			t.Fatalf("row %d: %d, want %d", k, got[k], v)
		}
	}
	// The secondary index holds one entry per row: an update that took a
	// stale row for the stored one would have left the old entry behind.
	check := e.Begin()
	defer check.Rollback()
	if n := countScan(t, check, tb, 1, nil, nil); n != len(model) {
		t.Fatalf("index txn has %d entries, table %d rows", n, len(model))
	}
}

// TestUpdateReadBeforeImage checks the row UpdateRead records as the
// change's before image (and from which it finds the index entries to
// drop): the row the locking read returned, taken as it is when it is
// the decoded kept value, and the stored row, decoded, when the caller's
// row is stale (the row was written since) or was not read.
func TestUpdateReadBeforeImage(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	txn := e.Begin()
	for id := int64(1); id <= 3; id++ {
		if err := txn.Insert(ctx, tb, sql.Row{id, id * 10, "v"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	key := func(id int64) []byte {
		k, _ := tb.PKKeyFromValues([]any{id})
		return k
	}
	txn = e.Begin()
	txn.SetLockingReads(true)
	r1, err := txn.Point(ctx, tb, key(1))
	if err != nil || r1 == nil {
		t.Fatal(r1, err)
	}
	if err := txn.UpdateRead(ctx, tb, r1, sql.Row{int64(1), int64(11), "a"}); err != nil {
		t.Fatal(err)
	}
	// Row 2 read, then written by Update: the row read is stale.
	r2, err := txn.Point(ctx, tb, key(2))
	if err != nil || r2 == nil {
		t.Fatal(r2, err)
	}
	if err := txn.Update(ctx, tb, r2, sql.Row{int64(2), int64(21), "b"}); err != nil {
		t.Fatal(err)
	}
	if err := txn.UpdateRead(ctx, tb, r2, sql.Row{int64(2), int64(22), "c"}); err != nil {
		t.Fatal(err)
	}
	// Row 3 never read: the caller's row is only its values.
	r3 := sql.Row{int64(3), int64(30), "v"}
	if err := txn.UpdateRead(ctx, tb, r3, sql.Row{int64(3), int64(33), "d"}); err != nil {
		t.Fatal(err)
	}
	ch := txn.Changes()
	if len(ch) != 4 {
		t.Fatalf("%d changes, want 4", len(ch))
	}
	want := []sql.Row{{int64(1), int64(10), "v"}, {int64(2), int64(20), "v"}, {int64(2), int64(21), "b"}, {int64(3), int64(30), "v"}}
	for i, c := range ch {
		if fmt.Sprint(c.Before) != fmt.Sprint(want[i]) {
			t.Fatalf("change %d: before %v, want %v", i, c.Before, want[i])
		}
	}
	if &ch[0].Before[0] != &r1[0] {
		t.Fatal("row 1: the before image was decoded again, not taken from the locking read")
	}
	if &ch[2].Before[0] == &r2[0] || &ch[3].Before[0] == &r3[0] {
		t.Fatal("a stale or unread row was taken as the stored row")
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, e); got[1] != 11 || got[2] != 22 || got[3] != 33 {
		t.Fatalf("committed %v", got)
	}
	check := e.Begin()
	defer check.Rollback()
	if n := countScan(t, check, tb, 1, nil, nil); n != 3 {
		t.Fatalf("index txn has %d entries, want 3", n)
	}
}

// TestLockedReadKeptUntilOwnWrite checks what a kept value answers: an
// UPDATE after a locking read of the same row reads nothing from Pebble
// again (the slot answers), and any write of the row drops the slot.
func TestLockedReadKeptUntilOwnWrite(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	txn := e.Begin()
	for id := int64(1); id <= 3; id++ {
		if err := txn.Insert(ctx, tb, sql.Row{id, id, "v"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	k1, _ := tb.PKKeyFromValues([]any{int64(1)})
	k2, _ := tb.PKKeyFromValues([]any{int64(2)})
	txn = e.Begin()
	defer txn.Rollback()
	txn.SetLockingReads(true)
	r1, err := txn.Point(ctx, tb, k1)
	if err != nil || r1 == nil {
		t.Fatal(r1, err)
	}
	r2, err := txn.Point(ctx, tb, k2)
	if err != nil || r2 == nil {
		t.Fatal(r2, err)
	}
	valid := func(k []byte) bool {
		for _, s := range txn.lockedReads.slots {
			if s.mark == txn.batchMark() && string(s.key) == string(k) {
				return true
			}
		}
		return false
	}
	if !valid(k1) || !valid(k2) {
		t.Fatalf("after two locked reads: row 1 kept %v, row 2 kept %v; want both", valid(k1), valid(k2))
	}
	if err := txn.Update(ctx, tb, r1, sql.Row{int64(1), int64(100), "u"}); err != nil {
		t.Fatal(err)
	}
	if valid(k1) || !valid(k2) {
		t.Fatalf("after updating row 1: row 1 kept %v (want false), row 2 kept %v (want true)", valid(k1), valid(k2))
	}
	if r, err := txn.Point(ctx, tb, k1); err != nil || r == nil || r[1] != int64(100) {
		t.Fatalf("row 1 after its update: %v %v, want txn 100", r, err)
	}
	if err := txn.Update(ctx, tb, r2, sql.Row{int64(2), int64(200), "u"}); err != nil {
		t.Fatal(err)
	}
	if r, err := txn.Point(ctx, tb, k2); err != nil || r == nil || r[1] != int64(200) {
		t.Fatalf("row 2 after its update: %v %v, want txn 200", r, err)
	}
	// A write the slots are not told about (a catalog write) leaves them stale.
	if err := txn.PutMeta("x", []byte("y")); err != nil {
		t.Fatal(err)
	}
	if valid(k1) || valid(k2) {
		t.Fatal("kept values still valid after a write of another kind")
	}
}
