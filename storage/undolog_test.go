package storage

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// TestUndoLogPacksAndTruncates: records read back as written, across
// chunks (one larger than a chunk), after truncations to any length.
func TestUndoLogPacksAndTruncates(t *testing.T) {
	var u undoLog
	var want []undoRec
	rec := func(i int) undoRec {
		r := undoRec{key: []byte(fmt.Sprintf("key-%d", i)), existed: i%3 != 0}
		if r.existed {
			r.prev = bytes.Repeat([]byte{byte(i)}, i%700)
		}
		if i == 1500 {
			r.prev = bytes.Repeat([]byte{7}, undoChunkMax+10)
		}
		return r
	}
	check := func() {
		t.Helper()
		if u.len() != len(want) {
			t.Fatalf("len %d, want %d", u.len(), len(want))
		}
		for i, w := range want {
			g := u.at(i)
			if !bytes.Equal(g.key, w.key) || !bytes.Equal(g.prev, w.prev) || g.existed != w.existed {
				t.Fatalf("record %d: %q/%d bytes/%v, want %q/%d bytes/%v", i, g.key, len(g.prev), g.existed, w.key, len(w.prev), w.existed)
			}
		}
	}
	for i := 0; i < 4000; i++ {
		r := rec(i)
		u.add(r.key, r.prev, r.existed)
		want = append(want, r)
	}
	check()
	if len(u.chunks) < 3 {
		t.Fatalf("%d chunks for %d records, want several", len(u.chunks), u.len())
	}
	for _, n := range []int{3999, 2500, 1501, 1500, 700, 1, 0} {
		u.truncate(n)
		want = want[:n]
		check()
		for i := n; i < n+50; i++ { // writes after a truncation land after it
			r := rec(i + 10000)
			u.add(r.key, r.prev, r.existed)
			want = append(want, r)
		}
		check()
		u.truncate(n)
		want = want[:n]
	}
}

// TestLargeTransactionsAreCounted: a transaction counts as large (the
// server then bounds the collector's headroom) once its pending writes
// pass LargeTxnBytes, and no longer once it ends.
func TestLargeTransactionsAreCounted(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	base := LargeTxns()
	for _, commit := range []bool{false, true} {
		txn := e.Begin()
		pad := strings.Repeat("p", 64)
		for i := int64(0); txn.PendingSize() <= LargeTxnBytes+1<<20; i++ {
			if err := txn.Insert(ctx, tb, sql.Row{i, i, pad}); err != nil {
				t.Fatal(err)
			}
			if i > 1e6 {
				t.Fatalf("pending writes only %d bytes after %d rows", txn.PendingSize(), i)
			}
		}
		if got := LargeTxns() - base; got != 1 {
			t.Fatalf("%d large transactions counted with one of %d bytes open", got, txn.PendingSize())
		}
		var err error
		if commit {
			err = txn.Commit(ctx)
		} else {
			err = txn.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := LargeTxns() - base; got != 0 {
			t.Fatalf("%d large transactions counted after the end (commit %v)", got, commit)
		}
	}
}
