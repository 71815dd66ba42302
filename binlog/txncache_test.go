package binlog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/failpoint"
	"petrel/storage"
)

// spillRig is a rig whose transaction caches spill past 4 KiB into
// their own directory.
func spillRig(t *testing.T) (*rig, string) {
	t.Helper()
	cache := filepath.Join(t.TempDir(), "cache")
	r, err := tryOpenRig(t, vfs.NewCrashableMem(), filepath.Join(t.TempDir(), "binlog"), rigMode{}, func(o *Options) { o.CacheDir = cache })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.log.Close(); r.store.Close() })
	r.log.SetCacheSize(4096)
	r.createTable(t)
	return r, cache
}

// cacheFiles lists the cache files in dir.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// logRows decodes every row change in the log, in order, as
// "W id v", "U id v>v2" and "D id v".
func logRows(t *testing.T, l *Log) []string {
	t.Helper()
	var out []string
	img := func(row sql.Row) string { return fmt.Sprintf("%d %s", toInt64(row[0]), row[1]) }
	eachRowsEvent(t, l, func(typ byte, re *RowsEvent) {
		switch typ {
		case WriteRowsEventV2:
			for _, a := range re.After {
				out = append(out, "W "+img(a))
			}
		case DeleteRowsEventV2:
			for _, b := range re.Before {
				out = append(out, "D "+img(b))
			}
		case UpdateRowsEventV2:
			for i := range re.After {
				out = append(out, "U "+img(re.Before[i])+">"+fmt.Sprint(re.After[i][1]))
			}
		}
	})
	return out
}

// bigTxn runs, in one transaction of r, inserts of ids 1..n, a statement
// and a savepoint rolled back (each larger than the cache's memory, so
// their truncation cuts the file), updates of ids 1..50 and deletes of
// ids 51..100, and returns the transaction (not committed) with the
// changes it should log, in order.
func bigTxn(t *testing.T, r *rig, n int64) (*storage.Txn, []string) {
	t.Helper()
	ctx := context.Background()
	tb := r.store.Catalog().Table("db", "t")
	txn := r.store.Begin()
	var want []string
	ins := func(from, to int64, keep bool) {
		for id := from; id <= to; id++ {
			if err := txn.Insert(ctx, tb, sql.Row{id, fmt.Sprint("v", id)}); err != nil {
				t.Fatal(err)
			}
			if keep {
				want = append(want, fmt.Sprintf("W %d v%d", id, id))
			}
		}
	}
	txn.StatementBegin()
	ins(1, n/2, true)
	txn.StatementComplete()
	txn.StatementBegin()
	ins(n+1, n+600, false)
	if err := txn.StatementRollback(); err != nil {
		t.Fatal(err)
	}
	txn.StatementBegin()
	ins(n/2+1, n, true)
	txn.StatementComplete()
	sp := txn.Savepoint()
	txn.StatementBegin()
	ins(n+1000, n+1600, false)
	txn.StatementComplete()
	if err := txn.RollbackTo(sp); err != nil {
		t.Fatal(err)
	}
	txn.StatementBegin()
	for id := int64(1); id <= 50; id++ {
		old := sql.Row{id, fmt.Sprint("v", id)}
		if err := txn.Update(ctx, tb, old, sql.Row{id, fmt.Sprint("u", id)}); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("U %d v%d>u%d", id, id, id))
	}
	for id := int64(51); id <= 100; id++ {
		if err := txn.Delete(ctx, tb, sql.Row{id, fmt.Sprint("v", id)}); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("D %d v%d", id, id))
	}
	txn.StatementComplete()
	return txn, want
}

// TestSpilledTransactionCommitsWhole: a transaction whose cache spilled
// to a file (with a statement and a savepoint rolled back in it) commits
// every row, and the log holds every change in order, the file removed.
func TestSpilledTransactionCommitsWhole(t *testing.T) {
	r, cache := spillRig(t)
	const n = 3000
	txn, want := bigTxn(t, r, n)
	txn.SetCompression(3) // a spilled cache is logged uncompressed
	// The spill file has no name (as MySQL's): nothing in the directory.
	if files := cacheFiles(t, cache); len(files) != 0 {
		t.Fatalf("cache files named during the transaction: %v, want none", files)
	}
	if _, disk := r.log.CacheStats(); disk != 1 {
		t.Fatalf("Binlog_cache_disk_use = %d, want 1", disk)
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if files := cacheFiles(t, cache); len(files) != 0 {
		t.Fatalf("cache files after the commit: %v", files)
	}
	if n := pooledCacheFiles(r.log); n != 1 {
		t.Fatalf("%d spill files kept after the commit, want 1", n)
	}
	got := logRows(t, r.log)
	if !slices.Equal(got, want) {
		t.Fatalf("log has %d changes, want %d; first differences: %v", len(got), len(want), firstDiff(got, want))
	}
	ids := storageIDs(t, r.store)
	var sum int64
	for _, id := range ids {
		sum += id
	}
	if wantSum := int64(n*(n+1)/2 - 5050 + 1275); len(ids) != n-50 || sum != wantSum {
		t.Fatalf("storage has %d rows summing to %d, want %d summing to %d", len(ids), sum, n-50, wantSum)
	}
	// The server goes on: a small transaction after it is logged too.
	if err := insert(r.store, 1<<40); err != nil {
		t.Fatal(err)
	}
	if got := logRows(t, r.log); len(got) != len(want)+1 || got[len(got)-1] != fmt.Sprintf("W %d v%d", int64(1<<40), int64(1<<40)) {
		t.Fatalf("after one more insert the log ends with %v", got[max(len(got)-2, 0):])
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %q vs %q", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d", len(a), len(b))
}

// TestSpilledTransactionRollsBackToNothing: a rolled back spilled
// transaction leaves no row, no log event and no file.
func TestSpilledTransactionRollsBackToNothing(t *testing.T) {
	r, cache := spillRig(t)
	before := r.log.Executed().String()
	txn, _ := bigTxn(t, r, 2000)
	// The spill file has no name (as MySQL's): nothing in the directory.
	if files := cacheFiles(t, cache); len(files) != 0 {
		t.Fatalf("cache files named during the transaction: %v, want none", files)
	}
	if err := txn.Rollback(); err != nil {
		t.Fatal(err)
	}
	if files := cacheFiles(t, cache); len(files) != 0 {
		t.Fatalf("cache files after the rollback: %v", files)
	}
	if n := pooledCacheFiles(r.log); n != 1 {
		t.Fatalf("%d spill files kept after the rollback, want 1", n)
	}
	if got := logRows(t, r.log); len(got) != 0 {
		t.Fatalf("log has %d row changes after the rollback, want 0", len(got))
	}
	if ids := storageIDs(t, r.store); len(ids) != 0 {
		t.Fatalf("storage has %d rows after the rollback", len(ids))
	}
	if after := r.log.Executed().String(); after != before {
		t.Fatalf("gtid_executed moved from %s to %s", before, after)
	}
}

// TestSpilledTransactionCrashIsAllOrNothing: a process crash while a
// spilled transaction commits leaves, after recovery, all its rows (its
// events were whole in the log) or none (the log was cut inside it),
// storage and log in agreement.
func TestSpilledTransactionCrashIsAllOrNothing(t *testing.T) {
	for _, point := range []string{"binlog.afterWrite", "storage.beforeApply"} {
		t.Run(point, func(t *testing.T) {
			r, _ := spillRig(t)
			const n = 2000
			txn, want := bigTxn(t, r, n)
			hold := make(chan struct{})
			hit := make(chan struct{}, 1)
			failpoint.Enable(point, func() error {
				hit <- struct{}{}
				<-hold // the committer "dies" here
				return nil
			})
			defer failpoint.Disable(point)
			done := make(chan error, 1)
			go func() { done <- txn.Commit(context.Background()) }()
			select {
			case <-hit:
			case err := <-done:
				t.Fatalf("the commit ended (%v) before the failpoint", err)
			case <-time.After(20 * time.Second):
				t.Fatal("failpoint never hit")
			}
			whole := takeCrashImage(t, r)
			torn := whole.clone(t)
			failpoint.Disable(point)
			close(hold)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			// The log as written: recovery applies the transaction whole.
			r2, err := whole.open(t, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, ids := logRows(t, r2.log), storageIDs(t, r2.store); !slices.Equal(got, want) || len(ids) != n-50 {
				t.Errorf("whole log: %d changes logged (want %d), %d rows in storage (want %d)", len(got), len(want), len(ids), n-50)
			}
			r2.log.Close()
			r2.store.Close()
			// The log cut inside the transaction: nothing of it survives.
			name := r.log.Files()[len(r.log.Files())-1].Name
			p := filepath.Join(torn.dir, name)
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, st.Size()-int64(len(want))*4); err != nil {
				t.Fatal(err)
			}
			torn.dropTail(t)
			r3, err := torn.open(t, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { r3.log.Close(); r3.store.Close() }()
			if got, ids := logRows(t, r3.log), storageIDs(t, r3.store); len(got) != 0 || len(ids) != 0 {
				t.Errorf("torn log: %d changes logged, %d rows in storage, want none", len(got), len(ids))
			}
		})
	}
}

// pooledCacheFiles is how many spill files the log keeps.
func pooledCacheFiles(l *Log) int {
	l.cachePool.mu.Lock()
	defer l.cachePool.mu.Unlock()
	return len(l.cachePool.files)
}

// TestSpillFileReused: a spill file outlives its transaction: the next
// transaction whose cache spills takes it (what it held before is
// overwritten, its rows logged exactly), none is created for it, and
// closing the log closes the kept files.
func TestSpillFileReused(t *testing.T) {
	r, cache := spillRig(t)
	const n = 3000
	txn, want := bigTxn(t, r, n)
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := pooledCacheFiles(r.log); got != 1 {
		t.Fatalf("%d spill files kept after the first commit, want 1", got)
	}
	// A second, smaller transaction over other ids: it reuses the file,
	// whose tail still holds the first transaction's events.
	ctx := context.Background()
	tb := r.store.Catalog().Table("db", "t")
	txn2 := r.store.Begin()
	for id := int64(n + 1); id <= n+1000; id++ {
		if err := txn2.Insert(ctx, tb, sql.Row{id, fmt.Sprint("w", id)}); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("W %d w%d", id, id))
	}
	if got := pooledCacheFiles(r.log); got != 0 {
		t.Fatalf("%d spill files kept while the second transaction holds one, want 0", got)
	}
	if err := txn2.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, disk := r.log.CacheStats(); disk != 2 {
		t.Fatalf("Binlog_cache_disk_use = %d, want 2", disk)
	}
	if got := logRows(t, r.log); !slices.Equal(got, want) {
		t.Fatalf("log has %d changes, want %d; first differences: %v", len(got), len(want), firstDiff(got, want))
	}
	if files := cacheFiles(t, cache); len(files) != 0 {
		t.Fatalf("cache files named: %v", files)
	}
	if err := r.log.Close(); err != nil {
		t.Fatal(err)
	}
	if got := pooledCacheFiles(r.log); got != 0 {
		t.Fatalf("%d spill files kept after Close", got)
	}
}
