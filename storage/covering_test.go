package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// coverFixture creates db.c (id INT PK, a INT, b SMALLINT UNSIGNED,
// t VARCHAR(20) case-insensitive, m MEDIUMINT NULL, big BIGINT) with
// indexes ia(a), iab(a, b), it(t), im(m), itb(t, b), ip(t(3)).
func coverFixture(t *testing.T) (*Engine, *Table) {
	t.Helper()
	e, err := Open(Options{Dir: "db", FS: vfs.NewMem(), Logger: quiet, LockWaitTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	txn := e.Begin()
	if err := e.Catalog().CreateDatabase(txn, "db", 0); err != nil {
		t.Fatal(err)
	}
	_, err = e.Catalog().CreateTable(txn, TableDef{
		Database: "db", Name: "c", PK: []int{0},
		Columns: []ColumnDef{{Name: "id", Type: "int", PrimaryKey: true}, {Name: "a", Type: "int"},
			{Name: "b", Type: "smallint unsigned"}, {Name: "t", Type: "varchar(20) collate utf8mb4_0900_ai_ci"},
			{Name: "m", Type: "mediumint", Nullable: true}, {Name: "big", Type: "bigint"}},
		Indexes: []IndexDef{{ID: 1, Name: "ia", Columns: []string{"a"}}, {ID: 2, Name: "iab", Columns: []string{"a", "b"}},
			{ID: 3, Name: "it", Columns: []string{"t"}}, {ID: 4, Name: "im", Columns: []string{"m"}},
			{ID: 5, Name: "itb", Columns: []string{"t", "b"}}, {ID: 6, Name: "ip", Columns: []string{"t"}, Prefix: []uint16{3}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e, e.Catalog().Table("db", "c")
}

func randCoverRow(r *rand.Rand, id int32) sql.Row {
	var m any
	if r.IntN(4) > 0 {
		m = int32(r.IntN(1<<24) - 1<<23)
	}
	words := []string{"abc", "ABC", "Ábc", "zeta", "", "abcd"}
	return sql.Row{id, int32(r.IntN(20) - 10), uint16(r.IntN(65536)), words[r.IntN(len(words))], m, r.Int64() - 1<<62}
}

// scanRows returns the rows of a scan of index ix, projected on need.
func scanRows(t *testing.T, txn *Txn, tb *Table, ix uint8, reverse bool, need []int, cover bool) ([]string, bool) {
	t.Helper()
	it, err := txn.Scan(context.Background(), tb, ix, nil, nil, reverse)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	covered := cover && (it.Cover(need) || it.Project(need))
	var out []string
	for {
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			return out, covered
		}
		var p []any
		for _, o := range need {
			p = append(p, row[o])
		}
		out = append(out, fmt.Sprintf("%#v", p))
	}
}

// TestCoveringScanSameRows: a covering scan returns, for the columns it
// was asked for, the same rows in the same order as the plain scan, in
// every index where it applies, forward and reverse, through committed
// changes a snapshot does not see and the transaction's own writes; it
// refuses text, prefix and non-index columns, and locking reads.
func TestCoveringScanSameRows(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	e, tb := coverFixture(t)
	ctx := context.Background()
	rows := map[int32]sql.Row{}
	commitWith(t, e, func(ctx context.Context, txn *Txn) error {
		for id := int32(1); id <= 200; id++ {
			rows[id] = randCoverRow(r, id)
			if err := txn.Insert(ctx, tb, rows[id]); err != nil {
				return err
			}
		}
		return nil
	})
	reader := e.Begin()
	defer reader.Rollback()
	if !reader.StartSnapshot() {
		t.Fatal("no snapshot")
	}
	// Committed after the reader's view: invisible to it.
	change := func(txn *Txn, n int) {
		for i := 0; i < n; i++ {
			id := int32(r.IntN(260) + 1)
			old, ok := rows[id]
			var err error
			switch {
			case !ok:
				rows[id] = randCoverRow(r, id)
				err = txn.Insert(ctx, tb, rows[id])
			case r.IntN(3) == 0:
				delete(rows, id)
				err = txn.Delete(ctx, tb, old)
			default:
				rows[id] = randCoverRow(r, id)
				err = txn.Update(ctx, tb, old, rows[id])
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	commitWith(t, e, func(ctx context.Context, txn *Txn) error { change(txn, 80); return nil })
	// The reader's own writes, over its view.
	change(reader, 40)

	needs := map[uint8][][]int{
		1: {{1}, {0, 1}, {0}, {}},
		2: {{1, 2}, {2}, {0, 2, 1}},
		4: {{4}, {4, 0}},
		5: {{0}},                     // the primary key is in the entry's value
		0: {{3}, {0, 5}, {4, 2}, {}}, // Project: the primary row, decoded in part
	}
	single := e.BeginSingleRead()
	defer single.Rollback()
	for _, txn := range []*Txn{reader, single, e.Begin()} {
		for ix, ns := range needs {
			for _, need := range ns {
				for _, rev := range []bool{false, true} {
					want, _ := scanRows(t, txn, tb, ix, rev, need, false)
					got, covered := scanRows(t, txn, tb, ix, rev, need, true)
					if !covered {
						t.Errorf("index %d need %v: covered %v", ix, need, covered)
					}
					if !slices.Equal(got, want) {
						t.Errorf("index %d need %v reverse %v: covering scan\n%v\nplain scan\n%v", ix, need, rev, got, want)
					}
					if len(want) < 100 {
						t.Errorf("index %d: only %d rows", ix, len(want))
					}
				}
			}
		}
	}
	// Not coverable: text (weights), a prefix, a column outside the index.
	for ix, need := range map[uint8][]int{3: {3}, 6: {3}, 1: {5}, 2: {3}, 5: {2}} { // 5: b comes after t's weights
		if _, covered := scanRows(t, reader, tb, ix, false, need, true); covered {
			t.Errorf("index %d need %v covered", ix, need)
		}
	}
	// The primary index is projected, never covered; locking reads keep
	// the plain path.
	if it, err := reader.Scan(ctx, tb, 0, nil, nil, false); err != nil || it.Cover([]int{0}) {
		t.Errorf("primary scan covered (%v)", err)
	} else {
		it.Close()
	}
	reader.Rollback() // its row locks
	locking := e.Begin()
	defer locking.Rollback()
	locking.SetLockingReads(true)
	if it, err := locking.Scan(ctx, tb, 1, nil, nil, false); err != nil || it.Cover([]int{1}) {
		t.Error("locking read covered")
	}
}
