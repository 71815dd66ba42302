package storage

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"
)

// createCustomer creates db.customer as go-tpc's TPC-C schema has it (21
// columns, four DECIMALs, a 500-byte c_data, a secondary index on the
// name) and loads rows customers of one district.
func createCustomer(t testing.TB, e *Engine, rows int) *Table {
	t.Helper()
	ctx := context.Background()
	txn := e.Begin()
	if err := e.Catalog().CreateDatabase(txn, "db", 0); err != nil {
		t.Fatal(err)
	}
	cols := []ColumnDef{
		{Name: "c_id", Type: "int", PrimaryKey: true}, {Name: "c_d_id", Type: "int", PrimaryKey: true},
		{Name: "c_w_id", Type: "int", PrimaryKey: true}, {Name: "c_first", Type: "varchar(16)"},
		{Name: "c_middle", Type: "char(2)"}, {Name: "c_last", Type: "varchar(16)"},
		{Name: "c_street_1", Type: "varchar(20)"}, {Name: "c_street_2", Type: "varchar(20)"},
		{Name: "c_city", Type: "varchar(20)"}, {Name: "c_state", Type: "char(2)"},
		{Name: "c_zip", Type: "char(9)"}, {Name: "c_phone", Type: "char(16)"},
		{Name: "c_since", Type: "datetime"}, {Name: "c_credit", Type: "char(2)"},
		{Name: "c_credit_lim", Type: "decimal(12,2)"}, {Name: "c_discount", Type: "decimal(4,4)"},
		{Name: "c_balance", Type: "decimal(12,2)"}, {Name: "c_ytd_payment", Type: "decimal(12,2)"},
		{Name: "c_payment_cnt", Type: "int"}, {Name: "c_delivery_cnt", Type: "int"},
		{Name: "c_data", Type: "varchar(500)"},
	}
	if _, err := e.Catalog().CreateTable(txn, TableDef{
		Database: "db", Name: "customer", PK: []int{2, 1, 0}, Columns: cols,
		Indexes: []IndexDef{{ID: 1, Name: "idx_customer", Columns: []string{"c_w_id", "c_d_id", "c_last", "c_first"}}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tb := e.Catalog().Table("db", "customer")
	since := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	data := strings.Repeat("tpcc-customer-data-", 27)[:500]
	for lo := 1; lo <= rows; lo += 1000 {
		txn := e.Begin()
		for id := lo; id < min(lo+1000, rows+1); id++ {
			row := sql.Row{int32(id), int32(1), int32(1), "first" + data[:6], "OE", "BARBARBAR", "street one", "street two",
				"city", "CA", "123456789", "0123456789012345", since, "GC", decimal.New(5000000, -2),
				decimal.New(1234, -4), decimal.New(-1000, -2), decimal.New(1000, -2), int32(1), int32(0), data}
			if err := txn.Insert(ctx, tb, row); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return tb
}

// BenchmarkCustomerRow is TPC-C's customer row in storage. "payment": in
// one transaction, ten locking reads of random customers, each rewritten
// with its balance, year-to-date payment and payment count changed, as
// PAYMENT's UPDATE fast path does (benchUpdate: UpdateRead, the row read
// handed back); unchanged DECIMALs are encoded again. "select": ten
// consistent reads of random customers for three of their 21 columns,
// NEW_ORDER's customer read (benchPoint: PointColumns). allocs/op and
// cpu-ns/op are per transaction.
//
// go test ./storage -run XXX -bench CustomerRow -benchmem -count 5
func BenchmarkCustomerRow(b *testing.B) {
	const rows = 3000
	e := openTest(b, vfs.NewMem())
	defer e.Close()
	tb := createCustomer(b, e, rows)
	ctx := context.Background()
	key := func(id int) []byte {
		k, err := tb.PKKeyFromValues([]any{int32(1), int32(1), int32(id)})
		if err != nil {
			b.Fatal(err)
		}
		return k
	}
	amount := decimal.New(1250, -2)
	b.Run("payment", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(21, 21))
		b.ReportAllocs()
		defer threadCPU(b)()
		for b.Loop() {
			txn := e.Begin()
			txn.SetLockingReads(true)
			for range 10 {
				id := 1 + rng.IntN(rows)
				old, err := txn.Point(ctx, tb, key(id))
				if err != nil || old == nil {
					b.Fatal(old, err)
				}
				nw := old.Copy()
				nw[16] = old[16].(decimal.Decimal).Sub(amount)
				nw[17] = old[17].(decimal.Decimal).Add(amount)
				nw[18] = old[18].(int32) + 1
				if err := benchUpdate(txn, ctx, tb, old, nw); err != nil {
					b.Fatal(err)
				}
			}
			txn.Rollback()
		}
	})
	b.Run("select", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(22, 22))
		want := make([]bool, len(tb.Schema))
		want[5], want[13], want[15] = true, true, true // c_last, c_credit, c_discount
		b.ReportAllocs()
		defer threadCPU(b)()
		for b.Loop() {
			txn := e.Begin()
			for range 10 {
				r, err := benchPoint(txn, ctx, tb, key(1+rng.IntN(rows)), want)
				if err != nil || r == nil || r[5] != "BARBARBAR" {
					b.Fatal(r, err)
				}
			}
			txn.Rollback()
		}
	})
}

// benchUpdate and benchPoint are the calls BenchmarkCustomerRow measures
// (a build before UpdateRead and PointColumns measures Update and Point).
func benchUpdate(txn *Txn, ctx context.Context, tb *Table, old, nw sql.Row) error {
	return txn.UpdateRead(ctx, tb, old, nw)
}

func benchPoint(txn *Txn, ctx context.Context, tb *Table, key []byte, want []bool) (sql.Row, error) {
	return txn.PointColumns(ctx, tb, key, want)
}
