package keys

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// sysbenchRow mirrors sysbench's sbtest table: id INT, k INT, c CHAR(120),
// pad CHAR(60), as GMS hands it to storage (already converted).
func sysbenchRow() (sql.Schema, sql.Row) {
	sch := sql.Schema{
		{Name: "id", Type: types.Int32, PrimaryKey: true},
		{Name: "k", Type: types.Int32},
		{Name: "c", Type: types.MustCreateString(sqltypes.Char, 120, sql.Collation_Default)},
		{Name: "pad", Type: types.MustCreateString(sqltypes.Char, 60, sql.Collation_Default)},
	}
	c := strings.Repeat("83868641912-28773972837-60736120486-75162659906-", 3)[:119]
	pad := strings.Repeat("67847967377-48000963322-", 3)[:59]
	return sch, sql.Row{int32(4242), int32(50123), c, pad}
}

func BenchmarkEncodeRow(b *testing.B) {
	sch, row := sysbenchRow()
	var buf []byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var err error
		if buf, err = EncodeRow(buf[:0], sch, row); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkDecodeRow(b *testing.B) {
	sch, row := sysbenchRow()
	enc, err := EncodeRow(nil, sch, row)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := DecodeRow(enc, sch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendValue(b *testing.B) {
	sch, row := sysbenchRow()
	b.Run("int", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			buf, _ = AppendValue(buf[:0], sch[0].Type, row[0])
		}
	})
	b.Run("char120_0900_bin", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			buf, _ = AppendValue(buf[:0], sch[2].Type, row[2])
		}
	})
	ci := types.MustCreateString(sqltypes.Char, 120, sql.Collation_utf8mb4_0900_ai_ci)
	b.Run("char120_0900_ai_ci", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			buf, _ = AppendValue(buf[:0], ci, row[2])
		}
	})
	b.Run("secondary_k_id", func(b *testing.B) {
		typs := []sql.Type{sch[1].Type, sch[0].Type}
		vals := []any{row[1], row[0]}
		var buf []byte
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			buf, _ = AppendRowKey(buf[:0], typs, vals)
		}
	})
}

// BenchmarkCheckRow is the character set check of a written row (the SQL
// layer runs it for every client INSERT and UPDATE).
func BenchmarkCheckRow(b *testing.B) {
	sch, row := sysbenchRow()
	ci := append(sql.Schema(nil), sch...)
	for _, i := range []int{2, 3} {
		c := *ci[i]
		c.Type = types.MustCreateString(sqltypes.Char, 120, sql.Collation_utf8mb4_0900_ai_ci)
		ci[i] = &c
	}
	for _, tc := range []struct {
		name string
		sch  sql.Schema
		old  sql.Row
	}{{"insert_0900_bin", sch, nil}, {"insert_0900_ai_ci", ci, nil}, {"update_c_0900_ai_ci", ci, sql.Row{row[0], row[1], "x", row[3]}}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := CheckRow(tc.sch, tc.old, row); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompare compares two sysbench c values as ORDER BY c does:
// GMS's Compare (the planner's sorts) and TextComparer (the range fast
// path's).
func BenchmarkCompare(b *testing.B) {
	_, row := sysbenchRow()
	x := row[2].(string)
	for _, at := range []int{3, 100} {
		y := x[:at] + "9" + x[at+1:]
		for _, c := range []sql.CollationID{sql.Collation_utf8mb4_0900_bin, sql.Collation_utf8mb4_0900_ai_ci} {
			typ := types.MustCreateString(sqltypes.Char, 120, c)
			b.Run(fmt.Sprintf("gms/%s/differ_at_%d", c.Name(), at), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := typ.Compare(testCtx, x, y); err != nil {
						b.Fatal(err)
					}
				}
			})
			cmp, _ := TextComparer(c)
			b.Run(fmt.Sprintf("TextComparer/%s/differ_at_%d", c.Name(), at), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if cmp(x, y) >= 0 {
						b.Fatal("wrong order")
					}
				}
			})
		}
	}
}

// BenchmarkDecodeDecimals decodes the four DECIMAL(15,2) columns and the
// ship date of a TPC-H lineitem row, as Q1's and Q6's scans do.
func BenchmarkDecodeDecimals(b *testing.B) {
	dec := types.MustCreateDecimalType(15, 2)
	sch := sql.Schema{
		{Name: "l_quantity", Type: dec}, {Name: "l_extendedprice", Type: dec},
		{Name: "l_discount", Type: dec}, {Name: "l_tax", Type: dec},
		{Name: "l_shipdate", Type: types.Date},
	}
	row := make(sql.Row, len(sch))
	for i, s := range []string{"17.00", "21168.23", "0.04", "0.02"} {
		v, _, err := dec.Convert(convCtx, s)
		if err != nil {
			b.Fatal(err)
		}
		row[i] = v
	}
	d, _, err := types.Date.Convert(convCtx, "1996-03-13")
	if err != nil {
		b.Fatal(err)
	}
	row[4] = d
	enc, err := EncodeRow(nil, sch, row)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := DecodeRow(enc, sch); err != nil {
			b.Fatal(err)
		}
	}
}
