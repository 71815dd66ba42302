package storage

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// TestUndoLogPacksAndTruncates: records read back as written, across
// chunks (one larger than a chunk), after truncations to any length;
// kept in memory, and spilled to a file past undoSpillAt (a truncation
// inside a spilled chunk brings it back, later writes land after it).
func TestUndoLogPacksAndTruncates(t *testing.T) {
	for _, spill := range []bool{false, true} {
		t.Run(fmt.Sprintf("spill=%v", spill), func(t *testing.T) {
			var u undoLog
			fs := vfs.NewMem()
			if spill {
				old := undoSpillAt
				undoSpillAt = 64 << 10
				defer func() { undoSpillAt = old }()
				u.files = &undoFiles{fs: fs, dir: "undo", logf: t.Logf}
			}
			checkUndoLog(t, &u)
			if spill {
				if u.sp == nil || u.sp.failed || len(u.sp.at) < 3 {
					t.Fatalf("nothing spilled")
				}
				if u.mem > undoSpillAt+2*undoChunkMax+2<<20 {
					t.Fatalf("%d bytes of chunks in memory, spilling past %d", u.mem, undoSpillAt)
				}
				name := u.sp.name
				u.release()
				if _, err := fs.Stat(name); err == nil {
					t.Fatalf("spill file %s left after release", name)
				}
			}
		})
	}
}

func checkUndoLog(t *testing.T, u *undoLog) {
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
			g, err := u.at(i)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(g.key, w.key) || !bytes.Equal(g.prev, w.prev) || g.existed != w.existed {
				t.Fatalf("record %d: %q/%d bytes/%v, want %q/%d bytes/%v", i, g.key, len(g.prev), g.existed, w.key, len(w.prev), w.existed)
			}
		}
		// Backwards, as a rollback reads.
		for i := len(want) - 1; i >= 0; i -= 97 {
			if g, err := u.at(i); err != nil || !bytes.Equal(g.key, want[i].key) {
				t.Fatalf("record %d backwards: %q, %v", i, g.key, err)
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
		if err := u.truncate(n); err != nil {
			t.Fatal(err)
		}
		want = want[:n]
		check()
		for i := n; i < n+50; i++ { // writes after a truncation land after it
			r := rec(i + 10000)
			u.add(r.key, r.prev, r.existed)
			want = append(want, r)
		}
		check()
		if err := u.truncate(n); err != nil {
			t.Fatal(err)
		}
		want = want[:n]
	}
}

// TestLargeTransactionsAreCounted: a transaction counts as large (the
// server then bounds the collector's headroom) once its pending writes
// pass LargeTxnBytes (running the OnLargeTxn hook once), and no longer
// once it ends.
func TestLargeTransactionsAreCounted(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	base := LargeTxns()
	// The hook the server bounds the collector's headroom from runs once
	// per transaction that becomes large.
	var hooked atomic.Int64
	OnLargeTxn(func() { hooked.Add(1) })
	defer OnLargeTxn(nil)
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
		if h := hooked.Load(); h != map[bool]int64{false: 1, true: 2}[commit] {
			t.Fatalf("large-transaction hook ran %d times after %v", h, map[bool]string{false: "one", true: "two"}[commit])
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

// TestLargeUndoSpills: a transaction whose undo log passes undoSpillAt
// writes it to a file under petrel-undo; a savepoint's rollback reads it
// back and restores every row, a consistent read inside the transaction
// sees its own writes and the rest from its view, the commit keeps the
// writes after the savepoint, and the file is gone after the commit. A
// file left by a crash is removed when the engine opens.
func TestLargeUndoSpills(t *testing.T) {
	old := undoSpillAt
	undoSpillAt = 64 << 10
	defer func() { undoSpillAt = old }()
	fs := vfs.NewMem()
	e := openTest(t, fs)
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	const n = 3000
	pad := strings.Repeat("x", 60)
	commitWith(t, e, func(ctx context.Context, txn *Txn) error {
		for i := int64(0); i < n; i++ {
			if err := txn.Insert(ctx, tb, sql.Row{i, i, pad}); err != nil {
				return err
			}
		}
		return nil
	})
	spills := UndoSpills()
	txn := e.Begin()
	txn.SetIsolation(RepeatableRead)
	// The view is taken before the writes.
	if _, err := txn.GetRow(ctx, tb, mustPK(t, tb, 0)); err != nil {
		t.Fatal(err)
	}
	update := func(add int64) {
		for i := int64(0); i < n; i++ {
			row, err := txn.GetRow(ctx, tb, mustPK(t, tb, i))
			if err != nil || row == nil {
				t.Fatalf("row %d: %v, %v", i, row, err)
			}
			if err := txn.Update(ctx, tb, row, sql.Row{i, row[1].(int64) + add, pad}); err != nil {
				t.Fatal(err)
			}
		}
	}
	update(1000)
	sp := txn.Savepoint()
	update(1000000)
	if UndoSpills() == spills || txn.undo.sp == nil || txn.undo.sp.failed {
		t.Fatalf("the undo log of %d records did not spill", txn.undo.len())
	}
	name := txn.undo.sp.name
	if _, err := fs.Stat(name); err != nil {
		t.Fatalf("spill file: %v", err)
	}
	if txn.undo.mem > undoSpillAt+2*undoChunkMax {
		t.Fatalf("%d bytes of undo in memory, spilling past %d", txn.undo.mem, undoSpillAt)
	}
	if err := txn.RollbackTo(sp); err != nil {
		t.Fatal(err)
	}
	// Own writes read through the write set, built from the spilled log.
	for _, i := range []int64{0, 1, n / 2, n - 1} {
		row, err := txn.GetRow(ctx, tb, mustPK(t, tb, i))
		if err != nil || row == nil || row[1].(int64) != i+1000 {
			t.Fatalf("row %d after the rollback to the savepoint: %v, %v", i, row, err)
		}
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(name); err == nil {
		t.Fatalf("spill file %s left after the commit", name)
	}
	got := scanAll(t, e)
	for i := int64(0); i < n; i++ {
		if got[i] != i+1000 {
			t.Fatalf("row %d committed as %d, want %d", i, got[i], i+1000)
		}
	}
	// A spill file a crash left is removed at the next open.
	stale := fs.PathJoin("db", undoDirName, "undo-99")
	f, err := fs.Create(stale, vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	if _, err := fs.Stat(stale); err == nil {
		t.Fatal("a stale spill file survived Open")
	}
}
