package storage

import (
	"context"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// TestCheckTableFindsDamage: CheckTable passes a sound table and names
// each kind of damage written under it straight into Pebble: a missing
// index entry, an index entry for a value no row has, an entry naming
// the wrong row, a row that does not decode.
func TestCheckTableFindsDamage(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, want string
		damage     func(e *Engine, tb *Table) error
	}{
		{"sound", "", nil},
		{"index entry missing", "has 9 entries for 10 rows", func(e *Engine, tb *Table) error {
			k, err := tb.indexKeyPrefixFor(t, 1, 30)
			if err != nil {
				return err
			}
			return e.db.DeleteRange(k, prefixEnd(k), pebble.Sync)
		}},
		{"index entry for another value", "differ from the ones its rows call for", func(e *Engine, tb *Table) error {
			old, err := tb.indexKeyPrefixFor(t, 1, 30)
			if err != nil {
				return err
			}
			it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: old, UpperBound: prefixEnd(old)})
			if err != nil {
				return err
			}
			defer it.Close()
			if !it.First() {
				t.Fatal("no entry to move")
			}
			suffix := append([]byte(nil), it.Value()...)
			moved, err := tb.indexKeyPrefixFor(t, 1, 31)
			if err != nil {
				return err
			}
			b := e.db.NewBatch()
			_ = b.Delete(it.Key(), nil)
			_ = b.Set(append(moved, suffix...), suffix, nil)
			return b.Commit(pebble.Sync)
		}},
		{"row that does not decode", "does not decode", func(e *Engine, tb *Table) error {
			it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: indexPrefix(nil, tb.Def.ID, 0), UpperBound: prefixEnd(indexPrefix(nil, tb.Def.ID, 0))})
			if err != nil {
				return err
			}
			defer it.Close()
			if !it.First() || !it.Next() {
				t.Fatal("no second row")
			}
			k := append([]byte(nil), it.Key()...)
			return e.db.Set(k, []byte{0xff, 0xff, 0xff}, pebble.Sync)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := openTest(t, vfs.NewMem())
			defer e.Close()
			createKV(t, e)
			tb := e.Catalog().Table("db", "kv")
			txn := e.Begin()
			for i := int64(1); i <= 10; i++ {
				if err := txn.Insert(ctx, tb, sql.Row{i, i * 10, "v"}); err != nil {
					t.Fatal(err)
				}
			}
			if err := txn.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if tc.damage != nil {
				if err := tc.damage(e, tb); err != nil {
					t.Fatal(err)
				}
			}
			rows, problems, err := e.CheckTable(ctx, tb)
			if err != nil {
				t.Fatal(err)
			}
			if rows != 10 {
				t.Fatalf("read %d rows, want 10", rows)
			}
			got := strings.Join(problems, "; ")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("problems %q, want %q", got, tc.want)
			}
		})
	}
}
