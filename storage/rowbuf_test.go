package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// TestEncodeRowBufferReused: a transaction's inserts and updates encode
// rows into one scratch buffer, which the batch copies: rows of random
// sizes (the buffer grows and is reused shorter) read back as written,
// in the transaction and after its commit, and a row's update allocates
// no new encoding.
func TestEncodeRowBufferReused(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 4))
	ctx := context.Background()
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	txn := e.Begin()
	want := map[int64]sql.Row{}
	for id := int64(1); id <= 500; id++ {
		r := sql.Row{id, id % 7, strings.Repeat(fmt.Sprint(id%10), rng.IntN(64))}
		if err := txn.Insert(ctx, tb, r); err != nil {
			t.Fatal(err)
		}
		want[id] = r
	}
	for id := int64(1); id <= 500; id += 3 {
		r := sql.Row{id, id%7 + 1, strings.Repeat("u", rng.IntN(64))}
		if err := txn.Update(ctx, tb, want[id], r); err != nil {
			t.Fatal(err)
		}
		want[id] = r
	}
	check := func(txn *Txn, when string) {
		t.Helper()
		for id, w := range want {
			got, err := txn.GetRow(ctx, tb, mustPK(t, tb, id))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Fatalf("%s: row %d reads %v, want %v", when, id, got, w)
			}
		}
	}
	check(txn, "in the transaction")
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := e.Begin()
	check(r, "after the commit")
	r.Rollback()

	// Updates of one row: the encoding allocates nothing (Update still
	// decodes the old row, builds keys, records the change and its undo).
	long := strings.Repeat("x", 60)
	txn = e.Begin()
	defer txn.Rollback()
	old := want[1]
	i := int64(0)
	allocs := testing.AllocsPerRun(200, func() {
		i++
		nr := sql.Row{int64(1), int64(1), long}
		if i%2 == 0 {
			nr[2] = long[:59]
		}
		if err := txn.Update(ctx, tb, old, nr); err != nil {
			t.Fatal(err)
		}
		old = nr
	})
	if allocs > 12 {
		t.Fatalf("%.1f allocations per update, want at most 12 (14 with a new encoding per row)", allocs)
	}
}
