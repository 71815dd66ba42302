package node_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkCompositeKeyLookup times lookups by a whole two-column primary
// key (TPC-C's stock: PRIMARY KEY (s_w_id, s_i_id), 2 warehouses of
// 50,000 items, analysed) over the wire, one connection, text protocol
// (GMS's planner; issue 29): a SELECT, a SELECT ... FOR UPDATE in a
// transaction, and an UPDATE. One op is one lookup. Compare two trees by
// running it in each, interleaved:
//
//	go test ./node -run XXX -bench CompositeKeyLookup -benchtime 1000x -count 1
func BenchmarkCompositeKeyLookup(b *testing.B) {
	const warehouses, items = 2, 50000
	_, db := benchNode(b)
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	exec := func(q string) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			b.Fatal(q, err)
		}
	}
	exec("CREATE DATABASE tpcc")
	exec("CREATE TABLE tpcc.stock (s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity INT NOT NULL, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id))")
	for w := 1; w <= warehouses; w++ {
		for lo := 1; lo <= items; lo += 1000 {
			var sb strings.Builder
			sb.WriteString("INSERT INTO tpcc.stock VALUES ")
			for i := lo; i < lo+1000; i++ {
				if i > lo {
					sb.WriteByte(',')
				}
				fmt.Fprintf(&sb, "(%d, %d, %d, 'stock-data-%d-%d')", i, w, 10+i%91, w, i)
			}
			exec(sb.String())
		}
	}
	exec("ANALYZE TABLE tpcc.stock")
	rng := rand.New(rand.NewPCG(29, 1))
	key := func() (int, int) { return 1 + rng.IntN(warehouses), 1 + rng.IntN(items) }
	b.Run("select", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			w, it := key()
			var q int
			if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT s_quantity FROM tpcc.stock WHERE s_w_id = %d AND s_i_id = %d", w, it)).Scan(&q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("for_update", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			w, it := key()
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			var q int
			if err := tx.QueryRowContext(ctx, fmt.Sprintf("SELECT s_quantity FROM tpcc.stock WHERE s_w_id = %d AND s_i_id = %d FOR UPDATE", w, it)).Scan(&q); err != nil {
				b.Fatal(err)
			}
			if err := tx.Rollback(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("update", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			w, it := key()
			exec(fmt.Sprintf("UPDATE tpcc.stock SET s_quantity = s_quantity + 1 WHERE s_w_id = %d AND s_i_id = %d", w, it))
		}
	})
}
