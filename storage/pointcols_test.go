package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/shopspring/decimal"
)

// TestPointColumns checks what PointColumns decodes: the wanted columns
// as Point has them and nil for the rest, for consistent and current
// reads (own writes included); a locking read gives the whole row; a
// missing row is nil; a want of the wrong length is an error.
func TestPointColumns(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	tb := createCustomer(t, e, 20)
	ctx := context.Background()
	key := func(id int) []byte {
		k, err := tb.PKKeyFromValues([]any{int32(1), int32(1), int32(id)})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	want := make([]bool, len(tb.Schema))
	want[5], want[15], want[20] = true, true, true // c_last, c_discount, c_data
	check := func(what string, got, full []any, wantAll bool) {
		t.Helper()
		if len(got) != len(full) {
			t.Fatalf("%s: %d columns, want %d", what, len(got), len(full))
		}
		for i := range full {
			exp := full[i]
			if !wantAll && !want[i] {
				exp = nil
			}
			if fmt.Sprint(got[i]) != fmt.Sprint(exp) {
				t.Fatalf("%s: column %d is %v, want %v", what, i, got[i], exp)
			}
		}
	}
	txn := e.Begin()
	defer txn.Rollback()
	full, err := txn.Point(ctx, tb, key(3))
	if err != nil || full == nil {
		t.Fatal(full, err)
	}
	got, err := txn.PointColumns(ctx, tb, key(3), want)
	if err != nil {
		t.Fatal(err)
	}
	check("consistent read", got, full, false)
	if d, ok := got[15].(decimal.Decimal); !ok || d.String() != "0.1234" {
		t.Fatalf("c_discount %#v", got[15])
	}
	// The transaction's own write, read back through its view.
	txn.SetLockingReads(true)
	old, err := txn.Point(ctx, tb, key(4))
	if err != nil || old == nil {
		t.Fatal(old, err)
	}
	full4 := append([]any{int32(4)}, full[1:]...) // rows 3 and 4 differ only in c_id
	check("locking read", old, full4, true)
	nw := old.Copy()
	nw[5] = "CHANGED"
	if err := txn.UpdateRead(ctx, tb, old, nw); err != nil {
		t.Fatal(err)
	}
	lockedGot, err := txn.PointColumns(ctx, tb, key(4), want)
	if err != nil {
		t.Fatal(err)
	}
	check("locking read with want", lockedGot, nw, true)
	txn.SetLockingReads(false)
	got, err = txn.PointColumns(ctx, tb, key(4), want)
	if err != nil {
		t.Fatal(err)
	}
	check("own write", got, nw, false)
	txn.SetCurrentReads(true)
	got, err = txn.PointColumns(ctx, tb, key(4), want)
	if err != nil {
		t.Fatal(err)
	}
	check("current read", got, nw, false)
	txn.SetCurrentReads(false)
	if r, err := txn.PointColumns(ctx, tb, key(99), want); r != nil || err != nil {
		t.Fatalf("missing row: %v, %v", r, err)
	}
	if r, err := txn.PointColumns(ctx, tb, key(3), want[:3]); err == nil {
		t.Fatalf("a want of 3 flags for %d columns: %v, no error", len(tb.Schema), r)
	}
}

// TestKeyOneAllocation: a primary key of integer columns is built in one
// allocation (indexPrefix's keyCap), and indexPrefixLen is the prefix's
// length.
func TestKeyOneAllocation(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	tb := createCustomer(t, e, 1)
	if n := len(indexPrefix(nil, tb.Def.ID, 3)); n != indexPrefixLen {
		t.Fatalf("index prefix of %d bytes, indexPrefixLen %d", n, indexPrefixLen)
	}
	row := make([]any, len(tb.Schema))
	row[0], row[1], row[2] = int32(3000), int32(10), int32(4)
	var key []byte
	n := testing.AllocsPerRun(100, func() {
		var err error
		if key, err = tb.PKKey(nil, row); err != nil {
			t.Fatal(err)
		}
	})
	want, err := tb.PKKeyFromValues([]any{int32(4), int32(10), int32(3000)})
	if err != nil || string(key) != string(want) {
		t.Fatalf("PKKey %x, PKKeyFromValues %x (%v)", key, want, err)
	}
	if n != 1 {
		t.Fatalf("PKKey of three INT columns: %v allocations, want 1", n)
	}
}
