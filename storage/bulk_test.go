package storage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// insertKV inserts row id -> (txn, "v<id>") into db.kv.
func insertKV(ctx context.Context, txn *Txn, tb *Table, id, v int64) error {
	return txn.Insert(ctx, tb, sql.Row{id, v, fmt.Sprint("v", id)})
}

// isDup reports whether err is a duplicate primary key whose existing
// row has the given txn column.
func isDup(err error, txnCol int64) bool {
	var ke interface{ Cause() error }
	if !sql.ErrPrimaryKeyViolation.Is(err) || !errors.As(err, &ke) {
		return false
	}
	uk, ok := ke.Cause().(sql.UniqueKeyError)
	return ok && uk.Existing[1] == txnCol
}

// TestInsertPastTailSkipsChecks: a transaction inserting keys in order
// past the table's last row skips their duplicate checks
// (inserttail.go), and still refuses every duplicate: its own rows, a
// row its own UPDATE moved past the tail, and rows other transactions
// committed after the tail was read, before and while it waited for
// their lock.
func TestInsertPastTailSkipsChecks(t *testing.T) {
	e, tb := kvFixture(t, 1, 2, 3)
	ctx := context.Background()
	txn := e.Begin()
	defer txn.Rollback()
	const n = 200
	for id := int64(10); id < 10+n; id++ {
		if err := insertKV(ctx, txn, tb, id, 0); err != nil {
			t.Fatal(err)
		}
	}
	if !txn.tail.valid || txn.tail.skipped < n-tailAfter-1 {
		t.Fatalf("tail valid %v, %d checks skipped of %d inserts", txn.tail.valid, txn.tail.skipped, n)
	}
	// Its own rows, below the tail and at it.
	for id, v := range map[int64]int64{2: 20, 100: 0, 10 + n - 1: 0} {
		if err := insertKV(ctx, txn, tb, id, 0); !isDup(err, v) {
			t.Fatalf("insert of existing %d: %v, want a duplicate-key error", id, err)
		}
	}
	// An UPDATE of its own moving a row past the tail.
	if err := txn.Update(ctx, tb, sql.Row{int64(50), int64(0), "v50"}, sql.Row{int64(1000), int64(0), "moved"}); err != nil {
		t.Fatal(err)
	}
	if err := insertKV(ctx, txn, tb, 1000, 0); !isDup(err, 0) {
		t.Fatalf("insert of the moved row's key: %v, want a duplicate-key error", err)
	}
	for id := int64(1001); id < 1001+tailAfter+10; id++ {
		if err := insertKV(ctx, txn, tb, id, 0); err != nil {
			t.Fatal(err)
		}
	}
	if !txn.tail.valid {
		t.Fatal("tail stale after the update")
	}
	// Another transaction commits a row past the tail.
	commitWith(t, e, func(ctx context.Context, o *Txn) error { return insertKV(ctx, o, tb, 5000, 7) })
	if err := insertKV(ctx, txn, tb, 5000, 0); !isDup(err, 7) {
		t.Fatalf("insert of a key committed after the tail was read: %v, want a duplicate-key error", err)
	}
	for id := int64(5001); id < 5001+tailAfter+10; id++ {
		if err := insertKV(ctx, txn, tb, id, 0); err != nil {
			t.Fatal(err)
		}
	}
	if !txn.tail.valid {
		t.Fatal("tail not read again after the other commit")
	}
	// Another transaction holds a key past the tail, uncommitted: the
	// insert waits for its lock, then finds its row.
	other := e.Begin()
	if err := insertKV(ctx, other, tb, 9000, 9); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- insertKV(ctx, txn, tb, 9000, 0) }()
	time.Sleep(50 * time.Millisecond)
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !isDup(err, 9) {
		t.Fatalf("insert of a key committed while it waited for the lock: %v, want a duplicate-key error", err)
	}
	// A key another transaction held and rolled back is free.
	other = e.Begin()
	if err := insertKV(ctx, other, tb, 9500, 9); err != nil {
		t.Fatal(err)
	}
	go func() { done <- insertKV(ctx, txn, tb, 9500, 1) }()
	time.Sleep(50 * time.Millisecond)
	other.Rollback()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, e)
	if len(got) != 3+n+(tailAfter+10)+1+(tailAfter+10)+1+1 || got[5000] != 7 || got[9000] != 9 || got[9500] != 1 {
		t.Fatalf("%d rows; 5000 -> %d, 9000 -> %d, 9500 -> %d", len(got), got[5000], got[9000], got[9500])
	}
	if _, ok := got[50]; ok {
		t.Fatal("row 50 still there after it moved")
	}
	if s := e.stats.InsertChecksSkipped.Load(); s < n-tailAfter {
		t.Fatalf("InsertChecksSkipped %d", s)
	}
}

// TestInsertTailOutOfOrder: keys past the tail need not come in order
// (bench/bulk.sh's INSERT ... SELECT writes a.i * 1000 + b.i + 1 with b
// outer): each is checked by its lock, new to the transaction.
func TestInsertTailOutOfOrder(t *testing.T) {
	e, tb := kvFixture(t)
	before := e.stats.InsertChecksSkipped.Load()
	commitWith(t, e, func(ctx context.Context, txn *Txn) error {
		for b := int64(0); b < 20; b++ {
			for a := int64(0); a < 100; a++ {
				if err := insertKV(ctx, txn, tb, a*1000+b+1, a); err != nil {
					return err
				}
			}
		}
		// A key inserted earlier, past the tail.
		if err := insertKV(ctx, txn, tb, 50*1000+7+1, 0); !isDup(err, 50) {
			t.Fatalf("insert of its own row: %v, want a duplicate-key error", err)
		}
		return nil
	})
	// The tail, read after 32 inserts, is 31001: the keys past it from
	// then on skip their read (68 of every 100, less the first 32).
	if n := e.stats.InsertChecksSkipped.Load() - before; n < 1300 {
		t.Fatalf("%d of 2000 checks skipped", n)
	}
	got := scanAll(t, e)
	if len(got) != 2000 || got[99*1000+19+1] != 99 || got[1] != 0 {
		t.Fatalf("%d rows", len(got))
	}
}

// TestInsertTailBacksOff: while other transactions commit between the
// inserts, each tail read goes stale before it spares a read, and the
// next read waits twice as long; every key is still checked.
func TestInsertTailBacksOff(t *testing.T) {
	e, tb := kvFixture(t)
	ctx := context.Background()
	txn := e.Begin()
	defer txn.Rollback()
	for id := int64(1); id <= 1000; id++ {
		if err := insertKV(ctx, txn, tb, id, 0); err != nil {
			t.Fatal(err)
		}
		commitWith(t, e, func(ctx context.Context, o *Txn) error { return insertKV(ctx, o, tb, 2000+id, 1) })
	}
	if txn.tail.skipped != 0 || txn.tail.after < 8*tailAfter {
		t.Fatalf("skipped %d, reads after %d inserts", txn.tail.skipped, txn.tail.after)
	}
	if err := insertKV(ctx, txn, tb, 2500, 0); !isDup(err, 1) {
		t.Fatalf("insert of a committed key: %v, want a duplicate-key error", err)
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, e); len(got) != 2000 {
		t.Fatalf("%d rows, want 2000", len(got))
	}
}

// lockedScan runs fn on each row of a locking scan of db.kv's primary
// key in txn, in key order.
func lockedScan(t *testing.T, txn *Txn, tb *Table, fn func(row sql.Row)) {
	t.Helper()
	it, err := txn.Scan(context.Background(), tb, 0, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for {
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			return
		}
		fn(row)
	}
}

// TestLockedScanKeepsRows: an UPDATE over a locking scan of the primary
// key takes each row from the scan's iterator instead of reading it again
// under its lock (lockedread.go), and writes the right rows.
func TestLockedScanKeepsRows(t *testing.T) {
	ids := make([]int64, 100)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	e, tb := kvFixture(t, ids...)
	before := e.stats.ScanRowsKept.Load()
	commitWith(t, e, func(ctx context.Context, txn *Txn) error {
		txn.SetLockingReads(true)
		lockedScan(t, txn, tb, func(row sql.Row) {
			nr := sql.Row{row[0], row[1].(int64) + 1, row[2]}
			if err := txn.Update(ctx, tb, row, nr); err != nil {
				t.Fatal(err)
			}
		})
		return nil
	})
	if n := e.stats.ScanRowsKept.Load() - before; n != 100 {
		t.Fatalf("%d rows kept from the scan, want 100", n)
	}
	got := scanAll(t, e)
	for _, id := range ids {
		if got[id] != id*10+1 {
			t.Fatalf("row %d: %d, want %d", id, got[id], id*10+1)
		}
	}
}

// TestLockedScanSeesLaterCommits: a locking scan returns each row's
// latest committed version, also when another transaction committed it
// after the scan's iterator was opened, or while the scan waited for its
// lock.
func TestLockedScanSeesLaterCommits(t *testing.T) {
	e, tb := kvFixture(t, 1, 2, 3, 4, 5, 6)
	ctx := context.Background()
	txn := e.Begin()
	defer txn.Rollback()
	txn.SetLockingReads(true)
	it, err := txn.Scan(ctx, tb, 0, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	next := func(want int64, wantTxn int64) {
		t.Helper()
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil || row[0] != want || row[1] != wantTxn {
			t.Fatalf("row %v, want id %d txn %d", row, want, wantTxn)
		}
	}
	next(1, 10)
	// Committed after the iterator opened, before the scan reached it.
	commitWith(t, e, func(ctx context.Context, o *Txn) error {
		return o.Update(ctx, tb, sql.Row{int64(3), int64(30), "v3"}, sql.Row{int64(3), int64(333), "v3"})
	})
	// Deleted likewise.
	commitWith(t, e, func(ctx context.Context, o *Txn) error {
		return o.Delete(ctx, tb, sql.Row{int64(4), int64(40), "v4"})
	})
	next(2, 20)
	next(3, 333)
	// Held by another transaction when the scan gets there.
	other := e.Begin()
	if err := other.Update(ctx, tb, sql.Row{int64(5), int64(50), "v5"}, sql.Row{int64(5), int64(555), "v5"}); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		other.Commit(ctx)
	}()
	next(5, 555)
	next(6, 60)
	if row, err := it.Next(); row != nil || err != nil {
		t.Fatalf("after the last row: %v, %v", row, err)
	}
}

// TestLockedScanSeesOwnWritesAhead: a locking scan returns the
// transaction's own writes of rows it has not reached yet (the iterator
// shows its batch as it was when it opened), while its writes of rows it
// has passed and of other indexes keep it taking rows from the iterator.
func TestLockedScanSeesOwnWritesAhead(t *testing.T) {
	e, tb := kvFixture(t, 1, 2, 3, 4, 5, 6)
	ctx := context.Background()
	txn := e.Begin()
	defer txn.Rollback()
	txn.SetLockingReads(true)
	var got []string
	before := e.stats.ScanRowsKept.Load()
	lockedScan(t, txn, tb, func(row sql.Row) {
		got = append(got, fmt.Sprint(row[0], ":", row[1]))
		id := row[0].(int64)
		// Its own row, behind the scan (and an entry of index txn).
		if err := txn.Update(ctx, tb, row, sql.Row{id, row[1].(int64) + 1, row[2]}); err != nil {
			t.Fatal(err)
		}
		if id == 2 {
			// Ahead of the scan: row 4 changed, row 5 deleted.
			if err := txn.Update(ctx, tb, sql.Row{int64(4), int64(40), "v4"}, sql.Row{int64(4), int64(444), "v4"}); err != nil {
				t.Fatal(err)
			}
			if err := txn.Delete(ctx, tb, sql.Row{int64(5), int64(50), "v5"}); err != nil {
				t.Fatal(err)
			}
		}
	})
	want := "[1:10 2:20 3:30 4:444 6:60]"
	if fmt.Sprint(got) != want {
		t.Fatalf("scan returned %v, want %s", got, want)
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// Rows 1 and 2 came from the iterator, the rest were read again.
	if n := e.stats.ScanRowsKept.Load() - before; n != 2 {
		t.Fatalf("%d rows kept from the scan, want 2", n)
	}
}

// TestMovedKeysSkippedByLaterScans: within one statement, a scan of an
// index opened after the statement moved entries into its range skips
// them (Halloween problem), a nested statement's moves are forgotten when
// it completes, and an UPDATE over a scan of the primary key never builds
// the lookup of the index entries it moved.
func TestMovedKeysSkippedByLaterScans(t *testing.T) {
	e, tb := kvFixture(t, 1, 2, 3, 4, 5, 6)
	ctx := context.Background()
	txn := e.Begin()
	defer txn.Rollback()
	txn.SetLockingReads(true)
	scanTxn := func(lo, hi int64) (ids []int64) {
		t.Helper()
		l, err := tb.indexKeyPrefixFor(t, 1, lo)
		if err != nil {
			t.Fatal(err)
		}
		h, err := tb.indexKeyPrefixFor(t, 1, hi)
		if err != nil {
			t.Fatal(err)
		}
		it, err := txn.Scan(ctx, tb, 1, l, h, false)
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		for {
			row, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if row == nil {
				return ids
			}
			ids = append(ids, row[0].(int64))
		}
	}
	bump := func(id int64) {
		t.Helper()
		cur, err := txn.GetRowLatest(ctx, tb, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := txn.Update(ctx, tb, cur, sql.Row{id, cur[1].(int64) + 35, cur[2]}); err != nil {
			t.Fatal(err)
		}
	}
	txn.StatementBegin()
	// Rows 1 and 2 (txn 10, 20) move to txn 45 and 55, into the next range.
	for _, id := range scanTxn(0, 25) {
		bump(id)
	}
	if got := fmt.Sprint(scanTxn(25, 1000)); got != "[3 4 5 6]" {
		t.Fatalf("second range of the statement: %v, want [3 4 5 6]", got)
	}
	// A nested statement's moves count while it runs, not after.
	txn.StatementBegin()
	bump(3) // txn 30 -> 65
	if got := fmt.Sprint(scanTxn(61, 1000)); got != "[]" {
		t.Fatalf("nested statement's range: %v, want []", got)
	}
	txn.StatementComplete()
	if got := fmt.Sprint(scanTxn(61, 1000)); got != "[3]" {
		t.Fatalf("after the nested statement: %v, want [3]", got)
	}
	// A second nested statement does not inherit the first one's moves,
	// looked up (row 3) or not (row 4, txn 40 -> 75).
	txn.StatementBegin()
	bump(4)
	txn.StatementComplete()
	txn.StatementBegin()
	if got := fmt.Sprint(scanTxn(61, 1000)); got != "[3 4]" {
		t.Fatalf("second nested statement: %v, want [3 4]", got)
	}
	txn.StatementComplete()
	txn.StatementComplete()
	// The next statement sees every row again.
	txn.StatementBegin()
	if got := fmt.Sprint(scanTxn(0, 1000)); got != "[1 5 2 6 3 4]" {
		t.Fatalf("next statement: %v", got)
	}
	// An UPDATE over the primary key moves index entries it never looks up.
	lockedScan(t, txn, tb, func(row sql.Row) {
		if err := txn.Update(ctx, tb, row, sql.Row{row[0], row[1].(int64) + 1, row[2]}); err != nil {
			t.Fatal(err)
		}
	})
	ms := txn.movedSetOf(tb.IndexKeyPrefix(1), false)
	if ms == nil || ms.pending.len() != 6 || ms.keys != nil {
		t.Fatalf("moved entries of index txn: %+v", ms)
	}
	txn.StatementComplete()
}

// TestConcurrentLockedScansLoseNoUpdate: transactions that each add 1 to
// every row over a locking scan run concurrently with transactions that
// insert rows past the table's end; a scan that takes a row from its
// iterator after another transaction committed a newer version would
// lose that transaction's increment. Every row ends at the number of
// scanning transactions, and every inserted row is there once.
func TestConcurrentLockedScansLoseNoUpdate(t *testing.T) {
	ids := make([]int64, 40)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	e, tb := kvFixture(t, ids...)
	ctx := context.Background()
	const scanners, rounds, inserters = 3, 15, 2
	errs := make(chan error, scanners+inserters)
	var wg sync.WaitGroup
	for g := 0; g < scanners; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				txn := e.Begin()
				txn.SetLockingReads(true)
				it, err := txn.Scan(ctx, tb, 0, nil, nil, false)
				if err != nil {
					errs <- err
					txn.Rollback()
					return
				}
				for {
					row, err := it.Next()
					if err == nil && row != nil && row[0].(int64) <= 40 {
						err = txn.Update(ctx, tb, row, sql.Row{row[0], row[1].(int64) + 1, row[2]})
					}
					if err != nil {
						errs <- err
						txn.Rollback()
						return
					}
					if row == nil {
						break
					}
				}
				if err := txn.Commit(ctx); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for g := 0; g < inserters; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 20 {
				txn := e.Begin()
				for i := range 40 {
					id := int64(1000 + g*100000 + r*100 + i)
					if err := insertKV(ctx, txn, tb, id, 7); err != nil {
						errs <- err
						txn.Rollback()
						return
					}
				}
				if err := txn.Commit(ctx); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := scanAll(t, e)
	for _, id := range ids {
		if got[id] != id*10+scanners*rounds {
			t.Fatalf("row %d: %d, want %d", id, got[id], id*10+scanners*rounds)
		}
	}
	if len(got) != 40+inserters*20*40 {
		t.Fatalf("%d rows, want %d", len(got), 40+inserters*20*40)
	}
}
