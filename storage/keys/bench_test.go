package keys

import (
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
