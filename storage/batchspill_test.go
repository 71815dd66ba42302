package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/base"
)

// withSpillAt sets batchSpillAt for the test.
func withSpillAt(t *testing.T, n int) {
	old := batchSpillAt
	batchSpillAt = n
	t.Cleanup(func() { batchSpillAt = old })
}

// spillWork is a large transaction whose batch stays lazy, as an UPDATE
// over a locking scan and an INSERT keep it: every loaded row updated
// over a locking scan (moving its index entry), then new rows.
func spillWork(t *testing.T, txn *Txn, tb *Table) {
	ctx := context.Background()
	txn.SetLockingReads(true)
	lockedScan(t, txn, tb, func(row sql.Row) {
		if err := txn.Update(ctx, tb, row, sql.Row{row[0], row[1].(int64) + 1, row[2]}); err != nil {
			t.Fatal(err)
		}
	})
	txn.SetLockingReads(false)
	for id := int64(ingestRows + 1); id <= ingestRows+1500; id++ {
		if err := txn.Insert(ctx, tb, sql.Row{id, int64(7), "new"}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBatchSpillCommit runs one large transaction on two engines, one
// spilling its batch to files every 16 KiB and one holding it in memory
// and applying it as built: both read back the same rows, keys and
// values (rows inserted and updated in the same transaction, index
// entries moved), the spilling engine also after a crash right after its
// commit; its batch never grew past the spill size plus a row, and its
// files are gone after the commit.
func TestBatchSpillCommit(t *testing.T) {
	ctx := context.Background()
	run := func(t *testing.T, spill bool) (*Engine, *vfs.MemFS) {
		if spill {
			withSpillAt(t, 16<<10)
		} else {
			withSpillAt(t, 0)
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
		before := BatchSpills()
		txn := e.Begin()
		spillWork(t, txn, tb)
		if spill {
			if n := BatchSpills() - before; n < 3 {
				t.Fatalf("%d spills, want at least 3", n)
			}
			if !txn.lazy || txn.batch.Len() > 20<<10 {
				t.Fatalf("batch lazy %v, %d bytes after the spills", txn.lazy, txn.batch.Len())
			}
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		return e, fs
	}
	es, fs := run(t, true)
	crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	ep, _ := run(t, false)
	defer ep.Close()
	want := scanAll(t, ep)
	if len(want) != ingestRows+1500 {
		t.Fatalf("%d rows, want %d", len(want), ingestRows+1500)
	}
	if got := scanAll(t, es); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows differ:\nspilled: %v\nbatch:   %v", got, want)
	}
	wantKeys := dumpDB(t, ep.db)
	if got := dumpDB(t, es.db); fmt.Sprint(got) != fmt.Sprint(wantKeys) {
		t.Fatalf("stores differ:\nspilled: %v\nbatch:   %v", got, wantKeys)
	}
	if left, _ := fs.List(fs.PathJoin("db", ingestDirName)); len(left) != 0 {
		t.Fatalf("files left in %s: %v", ingestDirName, left)
	}
	es.Close()
	ec, err := Open(Options{Dir: "db", FS: crashed, Logger: quiet, MemTableSize: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	if got := dumpDB(t, ec.db); fmt.Sprint(got) != fmt.Sprint(wantKeys) {
		t.Fatal("after a crash, the store differs")
	}
}

// TestBatchSpillReadsAndRollbacks: after its batch spilled, a
// transaction's read of its own writes (a snapshot read of rows it
// updated) sees them, the spilled writes loaded back into its indexed
// batch; a statement rolled back after spills restores the rows it
// changed; a transaction rolled back after spills leaves the rows as
// they were and no file behind.
func TestBatchSpillReadsAndRollbacks(t *testing.T) {
	withSpillAt(t, 16<<10)
	ctx := context.Background()
	e, err := Open(Options{Dir: "db", FS: vfs.NewMem(), Logger: quiet, MemTableSize: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tb := loadKV(t, e)
	loaded := scanAll(t, e)
	noFiles := func(t *testing.T) {
		t.Helper()
		if left, _ := e.opts.FS.List(e.opts.FS.PathJoin("db", ingestDirName)); len(left) != 0 {
			t.Fatalf("files left in %s: %v", ingestDirName, left)
		}
	}

	// Rolled back whole.
	before := BatchSpills()
	txn := e.Begin()
	spillWork(t, txn, tb)
	if BatchSpills() == before {
		t.Fatal("no spill")
	}
	txn.Rollback()
	if got := scanAll(t, e); fmt.Sprint(got) != fmt.Sprint(loaded) {
		t.Fatalf("after a rollback: %d rows, want the %d loaded", len(got), len(loaded))
	}
	noFiles(t)

	check := func(t *testing.T, rows map[int64]int64) {
		t.Helper()
		if len(rows) != ingestRows+2500 {
			t.Fatalf("%d rows, want %d", len(rows), ingestRows+2500)
		}
		for id, k := range rows {
			want := int64(7)
			switch {
			case id <= ingestRows:
				want = loaded[id] + 1
			case id > ingestRows+4000:
				want = 9
			}
			if k != want {
				t.Fatalf("row %d: k %d, want %d", id, k, want)
			}
		}
	}
	for _, readFirst := range []bool{false, true} {
		// A statement rolled back after spills (its own and its
		// predecessor's), then (readFirst) a read of the transaction's own
		// writes, then the commit, and the rows put back.
		txn := e.Begin()
		txn.StatementBegin()
		spillWork(t, txn, tb)
		txn.StatementComplete()
		spilled := len(txn.spill)
		txn.StatementBegin()
		for id := int64(ingestRows + 2001); id <= ingestRows+3000; id++ {
			if err := txn.Insert(ctx, tb, sql.Row{id, int64(3), "gone"}); err != nil {
				t.Fatal(err)
			}
		}
		if spilled == 0 || len(txn.spill) == spilled {
			t.Fatalf("spill files: %d after the first statement, %d in the second", spilled, len(txn.spill))
		}
		if err := txn.StatementRollback(); err != nil {
			t.Fatal(err)
		}
		if !txn.lazy || len(txn.spill) == 0 {
			t.Fatal("the rollback loaded the spilled writes back")
		}
		// A third statement spills the batch holding the rollback's
		// deletions: a later file deletes keys an earlier one sets.
		spilled = len(txn.spill)
		txn.StatementBegin()
		for id := int64(ingestRows + 4001); id <= ingestRows+5000; id++ {
			if err := txn.Insert(ctx, tb, sql.Row{id, int64(9), "late"}); err != nil {
				t.Fatal(err)
			}
		}
		txn.StatementComplete()
		if len(txn.spill) == spilled {
			t.Fatal("the third statement did not spill")
		}
		if readFirst {
			// A snapshot read of the rows written: loads the files back.
			it, err := txn.Scan(ctx, tb, 0, nil, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			read := map[int64]int64{}
			for {
				row, err := it.Next()
				if err != nil {
					t.Fatal(err)
				}
				if row == nil {
					break
				}
				read[row[0].(int64)] = row[1].(int64)
			}
			it.Close()
			check(t, read)
			if txn.lazy || len(txn.spill) != 0 {
				t.Fatalf("after a read of its writes: lazy %v, %d files", txn.lazy, len(txn.spill))
			}
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		check(t, scanAll(t, e))
		noFiles(t)
		// The next round starts from the rows loaded.
		undo := e.Begin()
		for id := int64(ingestRows + 4001); id <= ingestRows+5000; id++ {
			if err := undo.Delete(ctx, tb, sql.Row{id, int64(9), "late"}); err != nil {
				t.Fatal(err)
			}
		}
		for id := int64(1); id <= ingestRows+1500; id++ {
			k := loaded[id] + 1
			if id > ingestRows {
				k = 7
			}
			row := sql.Row{id, k, "loaded"}
			if id > ingestRows {
				row[2] = "new"
				if err := undo.Delete(ctx, tb, row); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := undo.Update(ctx, tb, row, sql.Row{id, loaded[id], "loaded"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := undo.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if got := scanAll(t, e); fmt.Sprint(got) != fmt.Sprint(loaded) {
			t.Fatal("the rows were not put back")
		}
	}
}

// TestBatchSpillCountsTowardTheSizeLimit: the writes a transaction
// spilled count toward max_binlog_cache_size as they did in its batch:
// a transaction spilling every 16 KiB is refused (TxnTooLarge) once its
// writes pass a 64 KiB limit, with at least one spill behind it.
func TestBatchSpillCountsTowardTheSizeLimit(t *testing.T) {
	withSpillAt(t, 16<<10)
	e, err := Open(Options{Dir: "db", FS: vfs.NewMem(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	e.SetMaxTxnSize(64 << 10)
	txn := e.Begin()
	defer txn.Rollback()
	for id := int64(1); ; id++ {
		err := txn.Insert(context.Background(), tb, sql.Row{id, id, "a value of some thirty bytes...."})
		if err == nil {
			if id > 100_000 {
				t.Fatal("no limit after 100,000 rows")
			}
			continue
		}
		if base.ClassOf(err) != base.ClassTxnTooLarge {
			t.Fatalf("row %d: %v, want the transaction too large", id, err)
		}
		if len(txn.spill) == 0 || txn.PendingSize() < 64<<10 || txn.PendingSize() > 80<<10 {
			t.Fatalf("refused at row %d with %d spill files and %d bytes pending", id, len(txn.spill), txn.PendingSize())
		}
		return
	}
}
