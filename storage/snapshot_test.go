package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/base"
	"petrel/storage/keys"
)

// kvFixture is db.kv with rows id -> (txn=id*10, v="v<id>") for the ids given.
func kvFixture(t *testing.T, ids ...int64) (*Engine, *Table) {
	t.Helper()
	e := openTest(t, vfs.NewMem())
	t.Cleanup(func() { e.Close() })
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	txn := e.Begin()
	for _, id := range ids {
		if err := txn.Insert(context.Background(), tb, sql.Row{id, id * 10, fmt.Sprint("v", id)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e, tb
}

// commitWith runs fn in a transaction of its own and commits it.
func commitWith(t *testing.T, e *Engine, fn func(ctx context.Context, txn *Txn) error) {
	t.Helper()
	ctx := context.Background()
	txn := e.Begin()
	if err := fn(ctx, txn); err != nil {
		txn.Rollback()
		t.Fatal(err)
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// setV rewrites row id's v column (a current read, as UPDATE's).
func setV(t *testing.T, ctx context.Context, txn *Txn, tb *Table, id int64, v string) error {
	t.Helper()
	old, err := txn.GetRowLatest(ctx, tb, id)
	if err != nil {
		return err
	}
	if old == nil {
		return fmt.Errorf("row %d missing", id)
	}
	nw := slices.Clone(old)
	nw[2] = v
	return txn.Update(ctx, tb, old, nw)
}

// GetRowLatest reads row id with a current read (tests only).
func (t *Txn) GetRowLatest(ctx context.Context, tb *Table, id int64) (sql.Row, error) {
	k, err := tb.PKKeyFromValues([]any{id})
	if err != nil {
		return nil, err
	}
	prev := t.currentReads
	t.currentReads = true
	defer func() { t.currentReads = prev }()
	return t.GetRow(ctx, tb, k)
}

// view lists "id=v" for every row of a primary-key scan (or a scan of
// the txn index, which must give the same rows in the same order, since
// txn = id*10 for rows written by kvFixture and the tests), and checks a
// point read of each row agrees.
func view(t *testing.T, txn *Txn, tb *Table, ix uint8, reverse bool) []string {
	t.Helper()
	ctx := context.Background()
	it, err := txn.Scan(ctx, tb, ix, nil, nil, reverse)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []string
	for {
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			break
		}
		k, _ := tb.PKKeyFromValues([]any{row[0]})
		p, err := txn.Point(ctx, tb, k)
		if err != nil {
			t.Fatal(err)
		}
		if p == nil || p[2] != row[2] {
			t.Errorf("point read of id %v gives %v, the scan gave %v", row[0], p, row)
		}
		out = append(out, fmt.Sprintf("%v=%v", row[0], row[2]))
	}
	if reverse {
		slices.Reverse(out)
	}
	return out
}

func wantView(t *testing.T, what string, txn *Txn, tb *Table, want ...string) {
	t.Helper()
	for _, ix := range []uint8{0, 1} {
		for _, rev := range []bool{false, true} {
			if got := view(t, txn, tb, ix, rev); !slices.Equal(got, want) {
				t.Errorf("%s (index %d, reverse %v): rows %v, want %v", what, ix, rev, got, want)
			}
		}
	}
}

// TestRepeatableReadSnapshot: the first consistent read fixes what every
// later one sees, whatever commits meanwhile; a new transaction sees them.
func TestRepeatableReadSnapshot(t *testing.T) {
	e, tb := kvFixture(t, 1, 2, 3)
	a := e.Begin()
	defer a.Rollback()
	wantView(t, "A's first read", a, tb, "1=v1", "2=v2", "3=v3")
	if !a.HasSnapshot() {
		t.Fatal("no read view after the first consistent read")
	}
	commitWith(t, e, func(ctx context.Context, b *Txn) error {
		if err := setV(t, ctx, b, tb, 1, "B1"); err != nil {
			return err
		}
		if err := b.Insert(ctx, tb, sql.Row{int64(4), int64(40), "B4"}); err != nil {
			return err
		}
		return b.Delete(ctx, tb, sql.Row{int64(3), int64(30), "v3"})
	})
	wantView(t, "A after B's commit", a, tb, "1=v1", "2=v2", "3=v3")
	// A locking read and a current read see B's commit.
	a.SetLockingReads(true)
	if r, err := a.GetRowLatest(context.Background(), tb, 1); err != nil || r[2] != "B1" {
		t.Errorf("current read of row 1 in A: %v, %v; want B1", r, err)
	}
	k, _ := tb.PKKeyFromValues([]any{int64(4)})
	if r, err := a.Point(context.Background(), tb, k); err != nil || r == nil || r[2] != "B4" {
		t.Errorf("locking read of row 4 in A: %v, %v; want B4", r, err)
	}
	a.SetLockingReads(false)
	wantView(t, "A's consistent read after its locking reads", a, tb, "1=v1", "2=v2", "3=v3")
	if err := a.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := e.Begin()
	defer c.Rollback()
	wantView(t, "a transaction begun after B's commit", c, tb, "1=B1", "2=v2", "4=B4")
}

// TestReadCommittedPerStatement: each statement sees the latest commits,
// and one statement sees one state.
func TestReadCommittedPerStatement(t *testing.T) {
	e, tb := kvFixture(t, 1, 2)
	a := e.Begin()
	defer a.Rollback()
	a.SetIsolation(ReadCommitted)
	wantView(t, "A, statement 1", a, tb, "1=v1", "2=v2")
	commitWith(t, e, func(ctx context.Context, b *Txn) error { return setV(t, ctx, b, tb, 2, "B2") })
	wantView(t, "A, still statement 1", a, tb, "1=v1", "2=v2")
	a.NewStatement()
	wantView(t, "A, statement 2", a, tb, "1=v1", "2=B2")
	// The level is fixed once read through: a later SetIsolation is ignored.
	a.SetIsolation(RepeatableRead)
	if a.Isolation() != ReadCommitted {
		t.Errorf("isolation changed to %v after the transaction read", a.Isolation())
	}
	// RR ignores NewStatement.
	r := e.Begin()
	defer r.Rollback()
	wantView(t, "R", r, tb, "1=v1", "2=B2")
	commitWith(t, e, func(ctx context.Context, b *Txn) error { return setV(t, ctx, b, tb, 1, "B1") })
	r.NewStatement()
	wantView(t, "R, next statement", r, tb, "1=v1", "2=B2")
}

// TestConsistentSnapshotAtStart: StartSnapshot fixes the view before any
// read; under READ COMMITTED it is refused (MySQL ignores the clause).
func TestConsistentSnapshotAtStart(t *testing.T) {
	e, tb := kvFixture(t, 1)
	a := e.Begin()
	defer a.Rollback()
	if !a.StartSnapshot() {
		t.Fatal("StartSnapshot refused under REPEATABLE READ")
	}
	commitWith(t, e, func(ctx context.Context, b *Txn) error { return setV(t, ctx, b, tb, 1, "B1") })
	wantView(t, "A after START TRANSACTION WITH CONSISTENT SNAPSHOT then B's commit", a, tb, "1=v1")

	rc := e.Begin()
	defer rc.Rollback()
	rc.SetIsolation(ReadCommitted)
	if rc.StartSnapshot() || rc.HasSnapshot() {
		t.Error("StartSnapshot under READ COMMITTED took a view")
	}
	// Without it, the view is the first read's.
	lazy := e.Begin()
	defer lazy.Rollback()
	commitWith(t, e, func(ctx context.Context, b *Txn) error { return setV(t, ctx, b, tb, 1, "B2") })
	if lazy.HasSnapshot() {
		t.Error("a transaction holds a view before its first read")
	}
	wantView(t, "a transaction whose first read follows the second commit", lazy, tb, "1=B2")
}

// TestOwnWritesOverSnapshot: the transaction's own inserts, updates and
// deletes show over its view, other commits do not, in both directions
// and through the secondary index.
func TestOwnWritesOverSnapshot(t *testing.T) {
	e, tb := kvFixture(t, 1, 2, 3, 4, 5)
	ctx := context.Background()
	a := e.Begin()
	defer a.Rollback()
	wantView(t, "A's first read", a, tb, "1=v1", "2=v2", "3=v3", "4=v4", "5=v5")
	commitWith(t, e, func(ctx context.Context, b *Txn) error {
		if err := setV(t, ctx, b, tb, 1, "B1"); err != nil {
			return err
		}
		if err := b.Insert(ctx, tb, sql.Row{int64(6), int64(60), "B6"}); err != nil {
			return err
		}
		return b.Delete(ctx, tb, sql.Row{int64(5), int64(50), "v5"})
	})
	if err := setV(t, ctx, a, tb, 2, "A2"); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, tb, sql.Row{int64(4), int64(40), "v4"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Insert(ctx, tb, sql.Row{int64(0), int64(0), "A0"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Insert(ctx, tb, sql.Row{int64(7), int64(70), "A7"}); err != nil {
		t.Fatal(err)
	}
	// A's UPDATE of row 1 reads the latest version (B1), as InnoDB's does;
	// afterwards A sees its own write.
	if err := setV(t, ctx, a, tb, 1, "A1"); err != nil {
		t.Fatal(err)
	}
	wantView(t, "A's reads over its own writes", a, tb, "0=A0", "1=A1", "2=A2", "3=v3", "5=v5", "7=A7")
	// A row A deletes and re-inserts is A's.
	if err := a.Delete(ctx, tb, sql.Row{int64(3), int64(30), "v3"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Insert(ctx, tb, sql.Row{int64(3), int64(30), "A3"}); err != nil {
		t.Fatal(err)
	}
	wantView(t, "A after delete and re-insert of row 3", a, tb, "0=A0", "1=A1", "2=A2", "3=A3", "5=v5", "7=A7")
	if err := a.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	c := e.Begin()
	defer c.Rollback()
	wantView(t, "after A's commit", c, tb, "0=A0", "1=A1", "2=A2", "3=A3", "6=B6", "7=A7")
}

// TestRollbackToSavepointRestoresSnapshotView: a write rolled back to a
// savepoint (or a failed statement) leaves the key to the view again, not
// to the latest version the write replaced.
func TestRollbackToSavepointRestoresSnapshotView(t *testing.T) {
	e, tb := kvFixture(t, 1, 2)
	ctx := context.Background()
	a := e.Begin()
	defer a.Rollback()
	wantView(t, "A's first read", a, tb, "1=v1", "2=v2")
	commitWith(t, e, func(ctx context.Context, b *Txn) error {
		if err := setV(t, ctx, b, tb, 1, "B1"); err != nil {
			return err
		}
		return b.Delete(ctx, tb, sql.Row{int64(2), int64(20), "v2"})
	})
	sp := a.Savepoint()
	if err := setV(t, ctx, a, tb, 1, "A1"); err != nil {
		t.Fatal(err)
	}
	if err := a.Insert(ctx, tb, sql.Row{int64(2), int64(20), "A2"}); err != nil {
		t.Fatal(err)
	}
	wantView(t, "A after its writes", a, tb, "1=A1", "2=A2")
	if err := a.RollbackTo(sp); err != nil {
		t.Fatal(err)
	}
	wantView(t, "A after ROLLBACK TO SAVEPOINT", a, tb, "1=v1", "2=v2")
	// Writes on both sides of a savepoint: the earlier one stays.
	if err := setV(t, ctx, a, tb, 1, "A1"); err != nil {
		t.Fatal(err)
	}
	sp = a.Savepoint()
	if err := setV(t, ctx, a, tb, 1, "A1b"); err != nil {
		t.Fatal(err)
	}
	a.StatementBegin()
	if err := a.Insert(ctx, tb, sql.Row{int64(9), int64(90), "A9"}); err != nil {
		t.Fatal(err)
	}
	if err := a.StatementRollback(); err != nil {
		t.Fatal(err)
	}
	wantView(t, "A after a failed statement", a, tb, "1=A1b", "2=v2")
	if err := a.RollbackTo(sp); err != nil {
		t.Fatal(err)
	}
	wantView(t, "A after the second ROLLBACK TO SAVEPOINT", a, tb, "1=A1", "2=v2")
}

// TestSingleReadTakesNoSnapshot: the fast paths' one-read transactions
// read the latest state without a Pebble snapshot.
func TestSingleReadTakesNoSnapshot(t *testing.T) {
	e, tb := kvFixture(t, 1)
	txn := e.BeginSingleRead()
	k, _ := tb.PKKeyFromValues([]any{int64(1)})
	if r, err := txn.Point(context.Background(), tb, k); err != nil || r == nil || r[2] != "v1" {
		t.Fatalf("point read: %v, %v", r, err)
	}
	if txn.HasSnapshot() || e.openViews.Load() != 0 {
		t.Errorf("a single-read transaction took a snapshot (%d open)", e.openViews.Load())
	}
	txn.Rollback()
}

// TestViewsReleased: commit, rollback and failed commits release views.
func TestViewsReleased(t *testing.T) {
	e, tb := kvFixture(t, 1)
	ctx := context.Background()
	for i, end := range []func(*Txn) error{
		func(x *Txn) error { return x.Commit(ctx) },
		func(x *Txn) error { return x.Rollback() },
		func(x *Txn) error {
			if err := setV(t, ctx, x, tb, 1, "x"); err != nil {
				return err
			}
			return x.Commit(ctx)
		},
	} {
		x := e.Begin()
		view(t, x, tb, 0, false)
		if n := e.openViews.Load(); n != 1 {
			t.Errorf("case %d: %d views open during the transaction, want 1", i, n)
		}
		if err := end(x); err != nil {
			t.Fatal(err)
		}
		if n := e.openViews.Load(); n != 0 {
			t.Errorf("case %d: %d views open after the transaction ended, want 0", i, n)
		}
	}
}

// TestTableChangedAfterSnapshot: a table created or rewritten after the
// view was taken is refused with ClassDefChanged (1412), not read empty;
// other tables stay readable.
func TestTableChangedAfterSnapshot(t *testing.T) {
	e, tb := kvFixture(t, 1)
	ctx := context.Background()
	a := e.Begin()
	defer a.Rollback()
	wantView(t, "A", a, tb, "1=v1")
	var kv2 *Table
	commitWith(t, e, func(ctx context.Context, b *Txn) error {
		var err error
		kv2, err = e.Catalog().CreateTable(b, TableDef{
			Database: "db", Name: "kv2", PK: []int{0},
			Columns: []ColumnDef{{Name: "id", Type: "bigint", PrimaryKey: true}, {Name: "txn", Type: "bigint"}, {Name: "v", Type: "varchar(64)", Nullable: true}},
		})
		return err
	})
	commitWith(t, e, func(ctx context.Context, b *Txn) error {
		return b.Insert(ctx, kv2, sql.Row{int64(1), int64(1), "x"})
	})
	_, err := a.Scan(ctx, kv2, 0, nil, nil, false)
	if base.ClassOf(err) != base.ClassDefChanged {
		t.Errorf("scan of a table created after the snapshot: %v, want ClassDefChanged", err)
	}
	k, _ := kv2.PKKeyFromValues([]any{int64(1)})
	if _, err := a.Point(ctx, kv2, k); base.ClassOf(err) != base.ClassDefChanged {
		t.Errorf("point read of a table created after the snapshot: %v, want ClassDefChanged", err)
	}
	wantView(t, "A's read of the unchanged table", a, tb, "1=v1")
	// A locking read of the new table is allowed (latest state).
	a.SetLockingReads(true)
	if r, err := a.Point(ctx, kv2, k); err != nil || r == nil {
		t.Errorf("locking read of the new table: %v, %v", r, err)
	}
	a.SetLockingReads(false)
	// A transaction begun after the DDL reads it.
	c := e.Begin()
	defer c.Rollback()
	if r, err := c.Point(ctx, kv2, k); err != nil || r == nil {
		t.Errorf("new transaction's read of the new table: %v, %v", r, err)
	}
}

// TestSnapshotRandomized checks a transaction's consistent reads against
// a model (its view at the first read plus its own writes) while another
// writer commits random inserts, deletes and updates (moving secondary
// index entries too), over many rounds with savepoint rollbacks: full
// scans both ways through both indexes, and ranges of the secondary index.
func TestSnapshotRandomized(t *testing.T) {
	e, tb := kvFixture(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	type rowState struct {
		v   string
		txn int64 // id*10 + 0..9: the index order is the id order
	}
	committed := map[int64]rowState{}
	const ids = 40
	// A's rows stay locked until A commits: B leaves them alone.
	var aRows map[int64]bool
	mutate := func(txn *Txn, model map[int64]rowState, tag string) {
		for range 1 + rng.IntN(4) {
			id := int64(rng.IntN(ids))
			if tag == "a" {
				aRows[id] = true
			} else if aRows[id] {
				continue
			}
			cur, err := txn.GetRowLatest(ctx, tb, id)
			if err != nil {
				t.Fatal(err)
			}
			st := rowState{v: fmt.Sprintf("%s%d", tag, rng.IntN(1000)), txn: id*10 + int64(rng.IntN(10))}
			switch {
			case cur == nil:
				if err := txn.Insert(ctx, tb, sql.Row{id, st.txn, st.v}); err != nil {
					t.Fatal(err)
				}
				model[id] = st
			case rng.IntN(3) == 0:
				if err := txn.Delete(ctx, tb, cur); err != nil {
					t.Fatal(err)
				}
				delete(model, id)
			default:
				if rng.IntN(2) == 0 {
					st.txn = cur[1].(int64) // the index entry stays
				}
				if err := txn.Update(ctx, tb, cur, sql.Row{id, st.txn, st.v}); err != nil {
					t.Fatal(err)
				}
				model[id] = st
			}
		}
	}
	want := func(m map[int64]rowState, lo, hi int64) []string {
		var out []string
		for id := range int64(ids) {
			if r, ok := m[id]; ok && r.txn >= lo && r.txn < hi {
				out = append(out, fmt.Sprintf("%d=%s@%d", id, r.v, r.txn))
			}
		}
		return out
	}
	ixType := tb.Indexes[0].Types[0]
	scan := func(txn *Txn, ix uint8, lo, hi int64, reverse bool) []string {
		var klo, khi []byte
		if ix == 1 {
			p := tb.IndexKeyPrefix(1)
			klo, _ = keys.AppendValue(slices.Clone(p), ixType, lo)
			khi, _ = keys.AppendValue(slices.Clone(p), ixType, hi)
		}
		it, err := txn.Scan(ctx, tb, ix, klo, khi, reverse)
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		var out []string
		for {
			row, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if row == nil {
				break
			}
			out = append(out, fmt.Sprintf("%v=%v@%v", row[0], row[2], row[1]))
		}
		if reverse {
			slices.Reverse(out)
		}
		return out
	}
	check := func(what string, txn *Txn, m map[int64]rowState) {
		t.Helper()
		for _, rev := range []bool{false, true} {
			if got, w := scan(txn, 0, 0, 0, rev), want(m, -1, 1<<40); !slices.Equal(got, w) {
				t.Errorf("%s, primary scan (reverse %v):\n got  %v\n want %v", what, rev, got, w)
			}
			if got, w := scan(txn, 1, -1, 1<<40, rev), want(m, -1, 1<<40); !slices.Equal(got, w) {
				t.Errorf("%s, index scan (reverse %v):\n got  %v\n want %v", what, rev, got, w)
			}
			lo := int64(rng.IntN(ids * 10))
			hi := lo + int64(rng.IntN(100))
			if got, w := scan(txn, 1, lo, hi, rev), want(m, lo, hi); !slices.Equal(got, w) {
				t.Errorf("%s, index range [%d, %d) (reverse %v):\n got  %v\n want %v", what, lo, hi, rev, got, w)
			}
		}
	}
	copyState := func(m map[int64]rowState) map[int64]rowState {
		out := make(map[int64]rowState, len(m))
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	for round := range 40 {
		a := e.Begin()
		aRows = map[int64]bool{}
		scan(a, 0, 0, 0, false) // the view: committed as of now
		model := copyState(committed)
		for step := range 6 {
			// Another writer commits; A's model ignores it.
			b := e.Begin()
			mutate(b, committed, "b")
			if err := b.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			sp, saved := a.Savepoint(), copyState(model)
			mutate(a, model, "a")
			if rng.IntN(3) == 0 {
				if err := a.RollbackTo(sp); err != nil {
					t.Fatal(err)
				}
				model = saved
			}
			check(fmt.Sprintf("round %d step %d", round, step), a, model)
			if t.Failed() {
				return
			}
		}
		if err := a.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		// A's writes land on top of B's commits: the next round's model.
		c := e.Begin()
		committed = map[int64]rowState{}
		for _, r := range scan(c, 0, 0, 0, false) {
			var id, txn int64
			var v string
			before, after, _ := strings.Cut(r, "@")
			idS, vS, _ := strings.Cut(before, "=")
			fmt.Sscan(idS, &id)
			fmt.Sscan(after, &txn)
			v = vS
			committed[id] = rowState{v: v, txn: txn}
		}
		check(fmt.Sprintf("round %d, new transaction", round), c, committed)
		c.Rollback()
	}
}

// TestViewPointReader: a transaction's point reads through its read view,
// a statement's first by a Get on the view and the others through one
// kept iterator (readGet's pointIt), answer as the view does (a row
// deleted or changed after the view was taken reads as it was; a row
// inserted after it is absent); the iterator is closed at each
// statement's start and at the transaction's end, and after a new
// statement reads the same view again.
func TestViewPointReader(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	key := func(id int64) []byte {
		k, _ := tb.PKKeyFromValues([]any{id})
		return k
	}
	w := e.Begin()
	for id := int64(1); id <= 3; id++ {
		if err := w.Insert(ctx, tb, sql.Row{id, id, "v"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := e.Begin()
	read := func(id int64) sql.Row {
		t.Helper()
		row, err := r.Point(ctx, tb, key(id))
		if err != nil {
			t.Fatal(err)
		}
		return row
	}
	if row := read(1); row == nil || row[2] != "v" {
		t.Fatalf("row 1 = %v", row)
	}
	if r.pointIt != nil {
		t.Fatal("a statement's first point read made an iterator: a Get on the view answers it")
	}
	if row := read(1); row == nil || row[2] != "v" {
		t.Fatalf("row 1 read again = %v", row)
	}
	if r.pointIt == nil {
		t.Fatal("a statement's second point read through the view kept no iterator")
	}
	w = e.Begin()
	if err := w.Delete(ctx, tb, sql.Row{int64(2), int64(2), "v"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Update(ctx, tb, sql.Row{int64(3), int64(3), "v"}, sql.Row{int64(3), int64(3), "w"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Insert(ctx, tb, sql.Row{int64(4), int64(4), "v"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// Each round reads the rows in another order, so that each check is
	// answered by the statement's first read (a Get) in one round and by
	// the iterator in the others.
	checks := []func(round int){
		func(round int) {
			if row := read(2); row == nil {
				t.Fatalf("round %d: row 2, deleted after the view, reads as absent", round)
			}
		},
		func(round int) {
			if row := read(3); row == nil || row[2] != "v" {
				t.Fatalf("round %d: row 3 = %v, want the view's 'v'", round, row)
			}
		},
		func(round int) {
			if row := read(4); row != nil {
				t.Fatalf("round %d: row 4, inserted after the view, reads %v", round, row)
			}
		},
		func(round int) {
			if row := read(9); row != nil {
				t.Fatalf("round %d: row 9 reads %v", round, row)
			}
		},
	}
	for round := range len(checks) {
		for i := range checks {
			checks[(round+i)%len(checks)](round)
		}
		if r.pointIt == nil {
			t.Fatalf("round %d: four reads in a statement kept no iterator", round)
		}
		r.NewStatement()
		if r.pointIt != nil {
			t.Fatalf("round %d: the iterator outlived its statement", round)
		}
	}
	read(1)
	if err := r.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if r.pointIt != nil {
		t.Fatal("the iterator outlived its transaction")
	}
}

// TestViewScanIteratorsKept: a transaction's scans of its read view hand
// their iterators back at Close, and the next scans take them with new
// bounds (two open at once, as a nested loop holds them; forward and
// reverse; ranges before and after the last): each scan answers as the
// view does (rows changed, deleted or inserted after the view read as
// they were), at most maxIdleScanIters stay idle, none past the
// statement's start or the transaction's end, and once the transaction
// has written, its scans see its own writes.
func TestViewScanIteratorsKept(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	key := func(id int64) []byte {
		k, _ := tb.PKKeyFromValues([]any{id})
		return k
	}
	w := e.Begin()
	for id := int64(1); id <= 40; id++ {
		if err := w.Insert(ctx, tb, sql.Row{id, id, "v"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := e.Begin()
	open := func(lo, hi int64, reverse bool) *RowIter {
		t.Helper()
		it, err := r.Scan(ctx, tb, 0, key(lo), key(hi), reverse)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	ids := func(it *RowIter) string {
		t.Helper()
		var out []string
		for {
			row, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if row == nil {
				break
			}
			out = append(out, fmt.Sprintf("%v%v", row[0], row[2]))
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, " ")
	}
	if got := ids(open(1, 4, false)); got != "1v 2v 3v" {
		t.Fatalf("first scan: %s", got)
	}
	if len(r.scanIts) != 1 {
		t.Fatalf("%d idle iterators after one scan, want 1", len(r.scanIts))
	}
	w = e.Begin()
	if err := w.Delete(ctx, tb, sql.Row{int64(11), int64(11), "v"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Update(ctx, tb, sql.Row{int64(12), int64(12), "v"}, sql.Row{int64(12), int64(12), "w"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Insert(ctx, tb, sql.Row{int64(41), int64(41), "v"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 3; round++ {
		outer := open(10, 14, round == 1)
		inner := open(39, 43, false)
		if got := ids(inner); got != "39v 40v" {
			t.Fatalf("round %d: inner scan %s", round, got)
		}
		want := "10v 11v 12v 13v"
		if round == 1 {
			want = "13v 12v 11v 10v"
		}
		if got := ids(outer); got != want {
			t.Fatalf("round %d: outer scan %s, want %s", round, got, want)
		}
		if got := ids(open(2, 3, false)); got != "2v" {
			t.Fatalf("round %d: a range before the last: %s", round, got)
		}
	}
	if n := len(r.scanIts); n != 2 {
		t.Fatalf("%d idle iterators after scans two at a time, want 2", n)
	}
	var six []*RowIter
	for i := 0; i < 6; i++ {
		six = append(six, open(int64(i+1), int64(i+2), false))
	}
	for i, it := range six {
		if got := ids(it); got != fmt.Sprintf("%dv", i+1) {
			t.Fatalf("scan %d of six: %s", i, got)
		}
	}
	if n := len(r.scanIts); n != maxIdleScanIters {
		t.Fatalf("%d idle iterators after six scans, want %d", n, maxIdleScanIters)
	}
	r.NewStatement()
	if len(r.scanIts) != 0 {
		t.Fatal("idle iterators outlived their statement")
	}
	if got := ids(open(11, 13, false)); got != "11v 12v" {
		t.Fatalf("a new statement's scan: %s", got)
	}
	// The transaction's own write shows in its scans.
	if err := r.Update(ctx, tb, sql.Row{int64(12), int64(12), "v"}, sql.Row{int64(12), int64(12), "x"}); err != nil {
		t.Fatal(err)
	}
	if got := ids(open(11, 13, false)); got != "11v 12x" {
		t.Fatalf("a scan after the transaction's write: %s", got)
	}
	if err := r.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if len(r.scanIts) != 0 {
		t.Fatal("idle iterators outlived their transaction")
	}
}
