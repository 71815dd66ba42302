package storage

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/batchrepr"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/failpoint"
)

// sortTestKey returns a random key from a small universe, so that a
// batch writes many keys more than once: data keys of every length
// around the abbreviation's 11 bytes (equal abbreviations, keys that are
// prefixes of others, zero bytes that look like padding), and keys whose
// abbreviation is 0 or the largest value (metadata, the prefixes of the
// data space, table ids of 65,536 and more, keys above the data space).
func sortTestKey(rng *rand.Rand) []byte {
	tail := func(k []byte, n int) []byte {
		for i := 0; i < n; i++ {
			k = append(k, []byte{0, 1, 0x80, 0xff}[rng.IntN(4)])
		}
		return k
	}
	switch rng.IntN(8) {
	case 0:
		return tail([]byte{0x01}, rng.IntN(4))
	case 1:
		return [][]byte{{}, {spaceData}, {spaceData, 0}, {spaceData, 0, 0}}[rng.IntN(4)]
	case 2:
		return tail([]byte{spaceData, 0, byte(1 + rng.IntN(2)), 0, 7}, rng.IntN(4))
	case 3:
		return tail([]byte{spaceData + 1}, rng.IntN(3))
	default:
		return tail([]byte{spaceData, 0, 0, 0, byte(1 + rng.IntN(2)), byte(rng.IntN(2))}, rng.IntN(14))
	}
}

func dumpDB(t *testing.T, r pebble.Reader) []string {
	t.Helper()
	it, err := r.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []string
	for it.First(); it.Valid(); it.Next() {
		out = append(out, fmt.Sprintf("%x=%x", it.Key(), it.Value()))
	}
	return out
}

// TestSortReprSameContents applies random batches of sets and deletions
// (many keys written several times) to two stores holding the same data,
// one as built and one through sortRepr: the stores read back equal, and
// the sorted batch's keys are strictly ascending (Pebble's sort of it is
// then one pass).
func TestSortReprSameContents(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	open := func() *pebble.DB {
		db, err := pebble.Open("", &pebble.Options{FS: vfs.NewMem(), Comparer: comparer, Logger: quietPebble{}})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	a, b := open(), open()
	defer a.Close()
	defer b.Close()
	for round := 0; round < 40; round++ {
		ba, bb := a.NewBatch(), b.NewBatch()
		n := 1 + rng.IntN(3000)
		for i := 0; i < n; i++ {
			k := sortTestKey(rng)
			if rng.IntN(3) == 0 {
				_ = ba.Delete(k, nil)
			} else {
				v := fmt.Appendf(nil, "r%d-%d", round, i)
				_ = ba.Set(k, v, nil)
			}
		}
		sorted, ok := sortRepr(ba.Repr())
		if !ok {
			t.Fatal("a batch of sets and deletions is not sorted")
		}
		var prev []byte
		var count uint32
		for r := batchrepr.Read(sorted); len(r) > 0; count++ {
			_, k, _, ok, err := r.Next()
			if !ok || err != nil {
				t.Fatalf("round %d: sorted batch does not decode: %v", round, err)
			}
			if count > 0 && bytes.Compare(prev, k) >= 0 {
				t.Fatalf("round %d: key %x after %x", round, k, prev)
			}
			prev = k
		}
		if h, _ := batchrepr.ReadHeader(sorted); h.Count != count {
			t.Fatalf("round %d: count %d, %d entries", round, h.Count, count)
		}
		if err := bb.SetRepr(sorted); err != nil {
			t.Fatal(err)
		}
		if err := ba.Commit(pebble.NoSync); err != nil {
			t.Fatal(err)
		}
		if err := bb.Commit(pebble.NoSync); err != nil {
			t.Fatal(err)
		}
		ba.Close()
		bb.Close()
		da, db := dumpDB(t, a), dumpDB(t, b)
		if fmt.Sprint(da) != fmt.Sprint(db) {
			t.Fatalf("round %d (%d writes): stores differ:\nas built: %v\nsorted:   %v", round, n, da, db)
		}
	}
}

// TestSortReprRefusesOtherKinds: a batch with a range deletion, a log
// record or a single deletion is applied as it is.
func TestSortReprRefusesOtherKinds(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	for name, add := range map[string]func(b *pebble.Batch) error{
		"range deletion":  func(b *pebble.Batch) error { return b.DeleteRange([]byte{2}, []byte{3}, nil) },
		"log data":        func(b *pebble.Batch) error { return b.LogData([]byte("x"), nil) },
		"single deletion": func(b *pebble.Batch) error { return b.SingleDelete([]byte{2, 5}, nil) },
	} {
		b := e.db.NewBatch()
		for i := 0; i < 20000; i++ {
			_ = b.Set(fmt.Appendf([]byte{2, 0, 0, 0, 9, 0}, "%08d", i), bytes.Repeat([]byte("v"), 64), nil)
		}
		if err := add(b); err != nil {
			t.Fatal(err)
		}
		if _, ok := sortRepr(b.Repr()); ok {
			t.Errorf("%s: sorted", name)
		}
		if sb := e.sortedBatch(b); sb != nil {
			t.Errorf("%s: sortedBatch made a batch", name)
		}
		b.Close()
	}
}

type quietPebble struct{}

func (quietPebble) Infof(string, ...any)  {}
func (quietPebble) Errorf(string, ...any) {}
func (quietPebble) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

// TestLargeCommitSortedRoute runs one large transaction on two engines,
// one committing through the sorted route and one handing Pebble the
// batch as built: both read back the same table and the same keys and
// values in Pebble, and so does the sorted engine after a crash right
// after its commit returned, with slow WAL fsyncs. The transactions:
//   - mixed: every row updated twice, moving its index entry each time;
//     rows inserted and deleted in the same transaction; committed rows
//     deleted, some of them inserted again;
//   - repeated: a few rows updated many times, so that the sorted batch
//     (each key's last write) is small enough for Pebble to apply it to
//     its memtable, and the commit waits for its WAL fsync (a large
//     batch's is part of its apply).
func TestLargeCommitSortedRoute(t *testing.T) {
	const rows = 4000
	ctx := context.Background()
	row := func(id, k int64, v string) sql.Row { return sql.Row{id, k, v} }
	mixed := func(t *testing.T, txn *Txn, tb *Table) {
		for pass := int64(1); pass <= 2; pass++ {
			for id := int64(1); id <= rows; id++ {
				old := id%97 + pass - 1
				if err := txn.Update(ctx, tb, row(id, old, "loaded"), row(id, old+1, "loaded")); err != nil {
					t.Fatal(err)
				}
			}
		}
		for id := int64(rows + 1); id <= rows+500; id++ { // new rows, half deleted again
			if err := txn.Insert(ctx, tb, row(id, 5, "new")); err != nil {
				t.Fatal(err)
			}
		}
		for id := int64(rows + 1); id <= rows+500; id += 2 {
			if err := txn.Delete(ctx, tb, row(id, 5, "new")); err != nil {
				t.Fatal(err)
			}
		}
		for id := int64(1); id <= rows; id += 3 { // committed rows deleted, every other one inserted again
			if err := txn.Delete(ctx, tb, row(id, id%97+2, "loaded")); err != nil {
				t.Fatal(err)
			}
			if id%2 == 1 {
				if err := txn.Insert(ctx, tb, row(id, 1000+id, "again")); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	repeated := func(t *testing.T, txn *Txn, tb *Table) {
		for pass := 0; pass < 100; pass++ {
			for id := int64(1); id <= 100; id++ {
				old := "loaded"
				if pass > 0 {
					old = fmt.Sprintf("pass %d", pass-1)
				}
				if err := txn.Update(ctx, tb, row(id, id%97, old), row(id, id%97, fmt.Sprintf("pass %d", pass))); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	run := func(t *testing.T, sorted bool, work func(*testing.T, *Txn, *Table)) (*Engine, *vfs.MemFS) {
		defer func(v bool) { sortLargeCommits = v }(sortLargeCommits)
		sortLargeCommits = sorted
		fs := vfs.NewCrashableMem()
		slow := &slowSyncFS{FS: fs}
		e, err := Open(Options{Dir: "db", FS: slow, Logger: quiet, MemTableSize: 256 << 10})
		if err != nil {
			t.Fatal(err)
		}
		createKV(t, e)
		tb := e.Catalog().Table("db", "kv")
		load := e.Begin()
		for id := int64(1); id <= rows; id++ {
			if err := load.Insert(ctx, tb, row(id, id%97, "loaded")); err != nil {
				t.Fatal(err)
			}
		}
		if err := load.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		txn := e.Begin()
		work(t, txn, tb)
		if sorted {
			if uint64(txn.batch.Len()) < e.opts.MemTableSize/2 {
				t.Fatalf("batch of %d bytes is below the sorted route's threshold", txn.batch.Len())
			}
			if _, ok := sortRepr(txn.batch.Repr()); !ok {
				t.Fatal("the transaction's batch is not sortable")
			}
		}
		slow.delay.Store(int64(200 * time.Millisecond))
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		slow.delay.Store(0)
		return e, fs
	}
	for _, tc := range []struct {
		name string
		work func(*testing.T, *Txn, *Table)
		rows int
	}{
		// 4000 loaded, 1,334 of them deleted and 667 inserted again, 250 new.
		{"mixed", mixed, 3583},
		{"repeated", repeated, rows},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es, fs := run(t, true, tc.work)
			crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
			ep, _ := run(t, false, tc.work)
			defer ep.Close()
			wantRows := scanAll(t, ep)
			if len(wantRows) != tc.rows {
				t.Fatalf("%d rows, want %d", len(wantRows), tc.rows)
			}
			if got := scanAll(t, es); fmt.Sprint(got) != fmt.Sprint(wantRows) {
				t.Fatalf("rows differ:\nsorted: %v\npebble: %v", got, wantRows)
			}
			want := dumpDB(t, ep.db)
			if got := dumpDB(t, es.db); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("stores differ:\nsorted: %v\npebble: %v", got, want)
			}
			es.Close()
			ec, err := Open(Options{Dir: "db", FS: crashed, Logger: quiet, MemTableSize: 256 << 10})
			if err != nil {
				t.Fatal(err)
			}
			defer ec.Close()
			if got := dumpDB(t, ec.db); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("after a crash, the store differs:\nsorted: %v\npebble: %v", got, want)
			}
		})
	}
}

// slowSyncFS delays the fsyncs of WAL files by delay (nanoseconds; 0:
// none), before they happen.
type slowSyncFS struct {
	vfs.FS
	delay atomic.Int64
}

func (fs *slowSyncFS) wrap(name string, f vfs.File, err error) (vfs.File, error) {
	if err != nil || !strings.HasSuffix(name, ".log") {
		return f, err
	}
	return &slowSyncFile{File: f, fs: fs}, nil
}

func (fs *slowSyncFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	return fs.wrap(name, f, err)
}

func (fs *slowSyncFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, category)
	return fs.wrap(newname, f, err)
}

type slowSyncFile struct {
	vfs.File
	fs *slowSyncFS
}

func (f *slowSyncFile) wait() { time.Sleep(time.Duration(f.fs.delay.Load())) }

func (f *slowSyncFile) Sync() error { f.wait(); return f.File.Sync() }

func (f *slowSyncFile) SyncData() error { f.wait(); return f.File.SyncData() }

func (f *slowSyncFile) SyncTo(length int64) (bool, error) { f.wait(); return f.File.SyncTo(length) }

// TestLargeCommitDropsItsBatch: once the sorted copy of a large batch is
// made, the transaction lets its own batch go before the copy is applied
// (its memory, as large as the copy's, is not held through the apply and
// the flush), its open row iterators closed first; a small commit applies
// its batch as it is.
func TestLargeCommitDropsItsBatch(t *testing.T) {
	ctx := context.Background()
	e, err := Open(Options{Dir: "db", FS: vfs.NewMem(), Logger: quiet, MemTableSize: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	var txn *Txn
	var heldAtApply bool
	failpoint.Enable("storage.beforeApply", func() error {
		heldAtApply = txn.batch != nil
		return nil
	})
	defer failpoint.Disable("storage.beforeApply")
	for _, n := range []int64{10, 5000} {
		txn = e.Begin()
		for id := int64(1); id <= n; id++ {
			if err := txn.Insert(ctx, tb, sql.Row{id + 10*n, id, strings.Repeat("v", 40)}); err != nil {
				t.Fatal(err)
			}
		}
		it, err := txn.Scan(ctx, tb, 0, nil, nil, false) // left open
		if err != nil {
			t.Fatal(err)
		}
		if _, err := it.Next(); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if large := n > 10; heldAtApply == large {
			t.Fatalf("%d rows: the transaction's batch held at the apply: %v", n, heldAtApply)
		}
	}
	if got := len(scanAll(t, e)); got != 5010 {
		t.Fatalf("%d rows, want 5010", got)
	}
}

// TestRadixSortInPlace: the in-place radix sort orders abbreviations as
// a comparison sort does, for random values over every byte, values
// sharing their high bytes (one table's keys), few distinct values and
// one value, at sizes around its insertion sort's cutoff.
func TestRadixSortInPlace(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 3))
	gens := map[string]func() uint64{
		"random":    func() uint64 { return rng.Uint64() },
		"one table": func() uint64 { return 0x0000_0100_0000_0000 | uint64(rng.IntN(1<<20))<<8 },
		"few":       func() uint64 { return uint64(rng.IntN(5)) << 40 },
		"one":       func() uint64 { return 7 },
	}
	for name, gen := range gens {
		for _, n := range []int{2, 31, 33, 1000, 100_000} {
			a := make([]sortEntry, n)
			for i := range a {
				a[i] = sortEntry{abbr: gen(), start: uint32(i)}
			}
			want := slices.Clone(a)
			slices.SortStableFunc(want, func(x, y sortEntry) int { return cmp.Compare(x.abbr, y.abbr) })
			radixSort(a)
			seen := make([]bool, n)
			for i := range a {
				if a[i].abbr != want[i].abbr {
					t.Fatalf("%s, %d entries: entry %d is %x, want %x", name, n, i, a[i].abbr, want[i].abbr)
				}
				seen[a[i].start] = true
			}
			if slices.Contains(seen, false) {
				t.Fatalf("%s, %d entries: an entry was lost", name, n)
			}
		}
	}
}
