package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/base"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func openTest(t testing.TB, fs vfs.FS) *Engine {
	t.Helper()
	e, err := Open(Options{Dir: "db", FS: fs, Logger: quiet, LockWaitTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// createKV creates db.kv (id BIGINT PRIMARY KEY, txn BIGINT, v VARCHAR(64), KEY(txn)).
func createKV(t testing.TB, e *Engine) {
	t.Helper()
	txn := e.Begin()
	if err := e.Catalog().CreateDatabase(txn, "db", 0); err != nil {
		t.Fatal(err)
	}
	_, err := e.Catalog().CreateTable(txn, TableDef{
		Database: "db", Name: "kv", PK: []int{0},
		Columns: []ColumnDef{{Name: "id", Type: "bigint", PrimaryKey: true}, {Name: "txn", Type: "bigint"}, {Name: "v", Type: "varchar(64)", Nullable: true}},
		Indexes: []IndexDef{{ID: 1, Name: "txn", Columns: []string{"txn"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func scanAll(t *testing.T, e *Engine) map[int64]int64 {
	t.Helper()
	tb := e.Catalog().Table("db", "kv")
	if tb == nil {
		t.Fatal("table db.kv missing")
	}
	txn := e.Begin()
	defer txn.Rollback()
	it, err := txn.Scan(context.Background(), tb, 0, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	out := map[int64]int64{}
	for {
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			return out
		}
		out[row[0].(int64)] = row[1].(int64)
	}
}

// TestCrashKeepsAcknowledgedCommits crashes a crashable in-memory FS at
// random moments under concurrent commits: every commit that returned is
// present after reopening, and every transaction is all-or-nothing.
func TestCrashKeepsAcknowledgedCommits(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for cycle := 0; cycle < 12; cycle++ {
		fs := vfs.NewCrashableMem()
		e := openTest(t, fs)
		createKV(t, e)
		tb := e.Catalog().Table("db", "kv")
		var (
			mu    sync.Mutex
			acked = map[int64]bool{}
			next  atomic.Int64
			stop  atomic.Bool
			wg    sync.WaitGroup
		)
		const perTxn = 3
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					id := next.Add(1)
					txn := e.Begin()
					for i := int64(0); i < perTxn; i++ {
						if err := txn.Insert(context.Background(), tb, sql.Row{id*perTxn + i, id, fmt.Sprint("v", id)}); err != nil {
							t.Error(err)
							return
						}
					}
					if err := txn.Commit(context.Background()); err != nil {
						return // the engine may refuse after the crash clone
					}
					mu.Lock()
					acked[id] = true
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(5+rng.IntN(30)) * time.Millisecond)
		mu.Lock()
		ackedBefore := make(map[int64]bool, len(acked))
		for k := range acked {
			ackedBefore[k] = true
		}
		mu.Unlock()
		crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(100), RNG: rng})
		stop.Store(true)
		wg.Wait()
		e.Close()

		e2 := openTest(t, crashed)
		rows := scanAll(t, e2)
		perTxnSeen := map[int64]int{}
		for _, txnID := range rows {
			perTxnSeen[txnID]++
		}
		for id, n := range perTxnSeen {
			if n != perTxn {
				t.Fatalf("cycle %d: transaction %d has %d of %d rows after crash", cycle, id, n, perTxn)
			}
		}
		for id := range ackedBefore {
			if perTxnSeen[id] != perTxn {
				t.Fatalf("cycle %d: acknowledged transaction %d lost in crash", cycle, id)
			}
		}
		// The secondary index agrees with the rows.
		txn := e2.Begin()
		for id := range perTxnSeen {
			lo, _ := tb.indexKeyPrefixFor(t, 1, id)
			if n := countScan(t, txn, e2.Catalog().Table("db", "kv"), 1, lo, prefixEnd(lo)); n != perTxn {
				t.Fatalf("cycle %d: index has %d entries for txn %d, want %d", cycle, n, id, perTxn)
			}
		}
		txn.Rollback()
		t.Logf("cycle %d: %d acknowledged before crash, %d transactions recovered", cycle, len(ackedBefore), len(perTxnSeen))
		e2.Close()
	}
}

// countScan counts the rows txn.Scan returns for index ix over [lo, hi).
func countScan(t testing.TB, txn *Txn, tb *Table, ix uint8, lo, hi []byte) int {
	t.Helper()
	it, err := txn.Scan(context.Background(), tb, ix, lo, hi, false)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for {
		r, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			return n
		}
		n++
	}
}

// indexKeyPrefixFor builds the key prefix of index ixID for one value.
func (tb *Table) indexKeyPrefixFor(t testing.TB, ixID uint8, v int64) ([]byte, error) {
	for _, ix := range tb.Indexes {
		if ix.Def.ID == ixID {
			row := make(sql.Row, len(tb.Schema))
			row[ix.Ords[0]] = v
			k, plen, _, err := tb.indexKey(ix, row, nil)
			if err != nil {
				t.Fatal(err)
			}
			return k[:plen], nil
		}
	}
	t.Fatalf("no index %d", ixID)
	return nil, nil
}

// TestStorageDiskFullRefusesWrites injects ENOSPC into Pebble's WAL: the
// commit under the failed write hears its outcome is unknown, and later
// writes are refused with a disk-full error (until a restart: Pebble
// cannot write its WAL again), while reads keep working. (Pebble
// makes a batch visible before its WAL sync, so without a durable sink the
// failed transaction may be visible; with the binlog as commit point it
// never is: see TestSinkFailureLeavesNothingVisible.)
func TestStorageDiskFullRefusesWrites(t *testing.T) {
	var full atomic.Bool
	inj := errorfs.InjectorFunc(func(op errorfs.Op) error {
		if full.Load() && (op.Kind == errorfs.OpFileWrite || op.Kind == errorfs.OpFileSync || op.Kind == errorfs.OpFileSyncData || op.Kind == errorfs.OpCreate) {
			return &errFull{}
		}
		return nil
	})
	mem := vfs.NewMem()
	fs := errorfs.Wrap(mem, inj)
	e := openTest(t, fs)
	defer e.Close()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ins := func(id int64) error {
		txn := e.Begin()
		if err := txn.Insert(context.Background(), tb, sql.Row{id, id, "x"}); err != nil {
			txn.Rollback()
			return err
		}
		return txn.Commit(context.Background())
	}
	if err := ins(1); err != nil {
		t.Fatal(err)
	}
	full.Store(true)
	err := ins(2)
	if err == nil {
		t.Fatal("commit on a full disk succeeded")
	}
	// The batch is applied and in the WAL file whose fsync failed: the
	// commit may survive a restart or not, and says so.
	if c := base.ClassOf(err); c != base.ClassOutcomeUnknown || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("class %v for %v, want ClassOutcomeUnknown carrying ENOSPC", c, err)
	}
	full.Store(false)
	rows := scanAll(t, e)
	if _, ok := rows[1]; !ok {
		t.Fatal("earlier row lost")
	}
	if err := ins(3); err == nil || base.ClassOf(err) != base.ClassDiskFull {
		t.Fatalf("write after disk full: %v, want refused with disk full", err)
	}
	if err := e.ClearWriteError(); err == nil {
		t.Fatal("ClearWriteError succeeded after Pebble's WAL failed; want refused until restart")
	}
	if err := ins(4); base.ClassOf(err) != base.ClassDiskFull {
		t.Fatalf("write after space returned: %v, want still refused (Pebble cannot write that WAL again)", err)
	}
}

// failingSink accepts records but fails to make them durable, as a binlog
// on a full disk does.
type failingSink struct{ fail atomic.Bool }

func (s *failingSink) Append(*CommitRecord) error { return nil }
func (s *failingSink) Durable() bool              { return true }
func (s *failingSink) Wait(context.Context, *CommitRecord) error {
	if s.fail.Load() {
		return fmt.Errorf("binlog: write: %w", &errFull{})
	}
	return nil
}

// TestSinkFailureLeavesNothingVisible: when the commit point (the sink)
// cannot make a transaction durable, storage never applies it; the
// committer hears that the outcome is unknown (the sink holds the record,
// which recovery may find durable), never a definite failure; and writes
// are refused, as disk full, until cleared.
func TestSinkFailureLeavesNothingVisible(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	sink := &failingSink{}
	e.SetSink(sink)
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ins := func(id int64) error {
		txn := e.Begin()
		if err := txn.Insert(context.Background(), tb, sql.Row{id, id, "x"}); err != nil {
			txn.Rollback()
			return err
		}
		return txn.Commit(context.Background())
	}
	if err := ins(1); err != nil {
		t.Fatal(err)
	}
	sink.fail.Store(true)
	if err := ins(2); base.ClassOf(err) != base.ClassOutcomeUnknown {
		t.Fatalf("commit with failing sink: %v, want outcome unknown", err)
	}
	rows := scanAll(t, e)
	if _, ok := rows[2]; ok {
		t.Fatal("row of the failed commit is visible")
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	sink.fail.Store(false)
	if err := ins(3); base.ClassOf(err) != base.ClassDiskFull {
		t.Fatalf("write after failure: %v, want refused", err)
	}
	e.ClearWriteError()
	if err := ins(4); err != nil {
		t.Fatalf("write after clearing: %v", err)
	}
	// Sequence numbers stay dense: the failed commit's number was used.
	if got := e.LastSeq(); got != 4 {
		t.Fatalf("last seq %d, want 4 (create, 1, failed 2, 4)", got)
	}
}

type errFull struct{}

func (*errFull) Error() string { return "injected: no space left on device" }
func (*errFull) Is(target error) bool {
	return errors.Is(syscall.ENOSPC, target)
}

// preparingSink fails Prepare for odd ids and records what Append saw.
type preparingSink struct {
	appended []any // rec.Prepared of each appended record
}

func (s *preparingSink) Prepare(rec *CommitRecord) error {
	for _, c := range rec.Changes {
		if c.After != nil && c.After[0].(int64)%2 == 1 {
			return errors.New("cannot encode an odd id")
		}
	}
	rec.Prepared = len(rec.Changes)
	return nil
}
func (s *preparingSink) Append(rec *CommitRecord) error {
	s.appended = append(s.appended, rec.Prepared)
	return nil
}
func (s *preparingSink) Durable() bool                             { return true }
func (s *preparingSink) Wait(context.Context, *CommitRecord) error { return nil }

// TestPrepareFailureFailsOnlyItsTransaction: a sink's Prepare runs before
// the commit turn and hands its work to Append; when it fails, that
// transaction fails with nothing visible and nothing appended, and the
// next commits go on (no sequence number was taken).
func TestPrepareFailureFailsOnlyItsTransaction(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	sink := &preparingSink{}
	e.SetSink(sink)
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ins := func(ids ...int64) error {
		txn := e.Begin()
		for _, id := range ids {
			if err := txn.Insert(context.Background(), tb, sql.Row{id, id, "x"}); err != nil {
				txn.Rollback()
				return err
			}
		}
		return txn.Commit(context.Background())
	}
	if err := ins(2, 4); err != nil {
		t.Fatal(err)
	}
	if err := ins(6, 7); err == nil || base.ClassOf(err) != base.ClassInternal {
		t.Fatalf("commit whose Prepare failed: %v, want an internal error", err)
	}
	if err := ins(8); err != nil {
		t.Fatalf("commit after a failed Prepare: %v", err)
	}
	rows := scanAll(t, e)
	if len(rows) != 3 || rows[6] != 0 || rows[8] != 8 {
		t.Fatalf("rows %v, want ids 2, 4, 8", rows)
	}
	// createKV's DDL, then the two good commits, each with its Prepare's work.
	if fmt.Sprint(sink.appended) != "[0 2 1]" {
		t.Fatalf("Append saw prepared work %v, want [0 2 1]", sink.appended)
	}
	if got := e.LastSeq(); got != 3 {
		t.Fatalf("last seq %d, want 3", got)
	}
}

// TestAbandonedRowIterClosedWithTxn: a row iterator its user never closed
// (a statement that failed half-way) is closed when its transaction ends;
// left open, it kept Pebble from closing (a panic at shutdown). Closing
// it later is harmless and using it is an error.
func TestAbandonedRowIterClosedWithTxn(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	txn := e.Begin()
	for i := int64(1); i <= 3; i++ {
		if err := txn.Insert(ctx, tb, sql.Row{i, i, "v"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// In sstables, so an open iterator holds file references.
	if err := e.db.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, write := range []bool{false, true} {
		txn := e.Begin()
		if write {
			if err := txn.Insert(ctx, tb, sql.Row{int64(9), int64(9), "w"}); err != nil {
				t.Fatal(err)
			}
		}
		it, err := txn.Scan(ctx, tb, 0, nil, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if row, err := it.Next(); err != nil || row == nil {
			t.Fatalf("first row: %v %v", row, err)
		}
		if err := txn.Rollback(); err != nil {
			t.Fatal(err)
		}
		if row, err := it.Next(); err == nil {
			t.Errorf("Next after the transaction ended: %v, want an error", row)
		}
		if err := it.Close(); err != nil {
			t.Errorf("Close after the transaction ended: %v", err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWritesWaitForPipelinedCommit: the replication applier starts a
// transaction's commit and goes on with the next one before the first is
// applied. An UPDATE, DELETE or upsert of the row the first one wrote must
// wait for its lock and then see the row, never find nothing and do
// nothing (a replica once lost such an UPDATE, and its GTID).
func TestWritesWaitForPipelinedCommit(t *testing.T) {
	ctx := context.Background()
	for _, op := range []string{"update", "delete", "upsert"} {
		t.Run(op, func(t *testing.T) {
			e := openTest(t, vfs.NewMem())
			defer e.Close()
			createKV(t, e)
			tb := e.Catalog().Table("db", "kv")
			a := e.Begin()
			if err := a.Insert(ctx, tb, sql.Row{int64(1), int64(1), "a"}); err != nil {
				t.Fatal(err)
			}
			finish, err := a.CommitStart(ctx)
			if err != nil || finish == nil {
				t.Fatalf("CommitStart: %v", err)
			}
			waitsUntil(t, op, "the insert it depends on was applied", 300*time.Millisecond, func() error {
				b := e.Begin()
				var err error
				switch op {
				case "update":
					err = b.Update(ctx, tb, sql.Row{int64(1), int64(1), "a"}, sql.Row{int64(1), int64(2), "b"})
				case "delete":
					err = b.Delete(ctx, tb, sql.Row{int64(1), int64(1), "a"})
				case "upsert":
					err = b.Upsert(ctx, tb, sql.Row{int64(1), int64(2), "b"})
				}
				if err == nil && !b.HasWrites() {
					err = errors.New("the transaction wrote nothing")
				}
				if err == nil {
					return b.Commit(ctx)
				}
				b.Rollback()
				return err
			}, func() error { return finish(ctx) })
			want := map[int64]int64{1: 2}
			if op == "delete" {
				want = map[int64]int64{}
			}
			if got := scanAll(t, e); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("rows %v, want %v", got, want)
			}
		})
	}
}
