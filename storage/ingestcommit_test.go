package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// ingestWork is one large transaction over db.kv loaded with rows 1 to
// ingestRows (k = id%97, v "loaded"): every row updated twice, moving
// its index entry each time; rows inserted and deleted in the same
// transaction; committed rows deleted, every other one inserted again.
// 4000 loaded, 1,334 deleted and 667 inserted again, 250 new: 3,583.
func ingestWork(t *testing.T, txn *Txn, tb *Table) {
	ctx := context.Background()
	row := func(id, k int64, v string) sql.Row { return sql.Row{id, k, v} }
	for pass := int64(1); pass <= 2; pass++ {
		for id := int64(1); id <= ingestRows; id++ {
			old := id%97 + pass - 1
			if err := txn.Update(ctx, tb, row(id, old, "loaded"), row(id, old+1, "loaded")); err != nil {
				t.Fatal(err)
			}
		}
	}
	for id := int64(ingestRows + 1); id <= ingestRows+500; id++ {
		if err := txn.Insert(ctx, tb, row(id, 5, "new")); err != nil {
			t.Fatal(err)
		}
	}
	for id := int64(ingestRows + 1); id <= ingestRows+500; id += 2 {
		if err := txn.Delete(ctx, tb, row(id, 5, "new")); err != nil {
			t.Fatal(err)
		}
	}
	for id := int64(1); id <= ingestRows; id += 3 {
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

const ingestRows = 4000

// loadKV creates db.kv and commits rows 1 to ingestRows in small
// transactions (below any large-commit route).
func loadKV(t *testing.T, e *Engine) *Table {
	t.Helper()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	for from := int64(1); from <= ingestRows; from += 100 {
		txn := e.Begin()
		for id := from; id < from+100; id++ {
			if err := txn.Insert(context.Background(), tb, sql.Row{id, id % 97, "loaded"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return tb
}

// withIngestAt sets ingestCommitAt for the test.
func withIngestAt(t *testing.T, n int) {
	old := ingestCommitAt
	ingestCommitAt = n
	t.Cleanup(func() { ingestCommitAt = old })
}

// TestLargeCommitIngested runs one large transaction on two engines, one
// committing it as an ingested table file and one handing Pebble its
// batch as built: both read back the same rows and the same keys and
// values in Pebble (the index entries moved, the meta keys), and so does
// the ingesting engine after a crash right after its commit returned.
func TestLargeCommitIngested(t *testing.T) {
	ctx := context.Background()
	run := func(t *testing.T, ingest bool) (*Engine, *vfs.MemFS) {
		if ingest {
			withIngestAt(t, 64<<10)
		} else {
			withIngestAt(t, 0)
			defer func(v bool) { sortLargeCommits = v }(sortLargeCommits)
			sortLargeCommits = false
		}
		fs := vfs.NewCrashableMem()
		e, err := Open(Options{Dir: "db", FS: fs, Logger: quiet, MemTableSize: 256 << 10})
		if err != nil {
			t.Fatal(err)
		}
		tb := loadKV(t, e)
		txn := e.Begin()
		ingestWork(t, txn, tb)
		size := txn.batch.Len()
		before := CommitIngests()
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if got := CommitIngests() - before; ingest && got != 1 {
			t.Fatalf("%d commits ingested, want 1 (batch of %d bytes)", got, size)
		}
		return e, fs
	}
	ei, fs := run(t, true)
	crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	ep, _ := run(t, false)
	defer ep.Close()
	want := scanAll(t, ep)
	if len(want) != 3583 {
		t.Fatalf("%d rows, want 3583", len(want))
	}
	if got := scanAll(t, ei); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows differ:\ningested: %v\nbatch:    %v", got, want)
	}
	wantKeys := dumpDB(t, ep.db)
	if got := dumpDB(t, ei.db); fmt.Sprint(got) != fmt.Sprint(wantKeys) {
		t.Fatalf("stores differ:\ningested: %v\nbatch:    %v", got, wantKeys)
	}
	ei.Close()
	ec, err := Open(Options{Dir: "db", FS: crashed, Logger: quiet, MemTableSize: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	if got := dumpDB(t, ec.db); fmt.Sprint(got) != fmt.Sprint(wantKeys) {
		t.Fatalf("after a crash, the store differs:\ningested: %v\nbatch:    %v", got, wantKeys)
	}
}

// TestLargeCommitIngestedLogIsWAL: with the binary log as storage's only
// WAL, an ingested commit never becomes durable in storage ahead of an
// earlier commit still in a memtable (which a crash loses, for recovery
// to replay from the log): after a crash, the store holds the large
// commit only if it holds every commit before it. Without such commits
// in memtables (after a flush) the file goes straight to the LSM.
func TestLargeCommitIngestedLogIsWAL(t *testing.T) {
	withIngestAt(t, 64<<10)
	ctx := context.Background()
	for _, flushed := range []bool{false, true} {
		t.Run(fmt.Sprintf("flushed=%v", flushed), func(t *testing.T) {
			fs := vfs.NewCrashableMem()
			e, err := Open(Options{Dir: "db", FS: fs, Logger: quiet, MemTableSize: 256 << 10, LogIsWAL: true})
			if err != nil {
				t.Fatal(err)
			}
			e.SetSink(&failingSink{}) // durable: commits stay in the memtable
			tb := loadKV(t, e)
			if err := e.FlushApplied(); err != nil {
				t.Fatal(err)
			}
			if !flushed {
				insertRows(t, e, 10001, 10010) // in the memtable only
			}
			before := CommitIngests()
			txn := e.Begin()
			ingestWork(t, txn, tb)
			if err := txn.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if got := CommitIngests() - before; got != 1 {
				t.Fatalf("%d commits ingested, want 1", got)
			}
			crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
			e.Close()
			ec, err := Open(Options{Dir: "db", FS: crashed, Logger: quiet, MemTableSize: 256 << 10, LogIsWAL: true})
			if err != nil {
				t.Fatal(err)
			}
			defer ec.Close()
			rows := scanAll(t, ec)
			t.Logf("%d rows after the crash", len(rows))
			large := len(rows) != ingestRows && len(rows) != ingestRows+10
			small := rows[10001] != 0
			switch {
			case flushed && (!large || len(rows) != 3583):
				t.Fatalf("after a flush, the ingested commit is not durable: %d rows, want 3583", len(rows))
			case !flushed && large && !small:
				t.Fatalf("the ingested commit (%d rows) is durable and the commit before it is lost", len(rows))
			}
		})
	}
}
