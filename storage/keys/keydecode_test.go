package keys

import (
	"math"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Every integer type's key decodes to the value (and Go type) DecodeRow
// gives for the same column, at the edges of each range, and a key
// followed by more bytes reports its own length.
func TestDecodeKeyValue(t *testing.T) {
	cases := []struct {
		typ  sql.Type
		vals []any
	}{
		{types.Int8, []any{int8(math.MinInt8), int8(-1), int8(0), int8(1), int8(math.MaxInt8)}},
		{types.Int16, []any{int16(math.MinInt16), int16(-2), int16(0), int16(math.MaxInt16)}},
		{types.Int24, []any{int32(-1 << 23), int32(-1), int32(0), int32(1<<23 - 1)}},
		{types.Int32, []any{int32(math.MinInt32), int32(-7), int32(0), int32(math.MaxInt32)}},
		{types.Int64, []any{int64(math.MinInt64), int64(-1), int64(0), int64(math.MaxInt64)}},
		{types.Uint8, []any{uint8(0), uint8(255)}},
		{types.Uint16, []any{uint16(0), uint16(65535)}},
		{types.Uint24, []any{uint32(0), uint32(1<<24 - 1)}},
		{types.Uint32, []any{uint32(0), uint32(math.MaxUint32)}},
		{types.Uint64, []any{uint64(0), uint64(math.MaxUint64)}},
	}
	for _, c := range cases {
		if !KeyDecodable(c.typ) {
			t.Fatalf("%s not decodable", c.typ)
		}
		for _, v := range append(c.vals, nil) {
			k, err := AppendValue(nil, c.typ, v)
			if err != nil {
				t.Fatalf("%s %v: %v", c.typ, v, err)
			}
			row, err := EncodeRow(nil, sql.Schema{{Name: "c", Type: c.typ, Nullable: true}}, sql.Row{v})
			if err != nil {
				t.Fatal(err)
			}
			want, err := DecodeRow(row, sql.Schema{{Name: "c", Type: c.typ, Nullable: true}})
			if err != nil {
				t.Fatal(err)
			}
			got, n, ok := DecodeKeyValue(append(k, 0xAA, 0xBB), c.typ)
			if !ok || n != len(k) || got != want[0] {
				t.Errorf("%s: key of %v (%T) decodes to %v (%T), %d bytes, %v; want %v (%T), %d", c.typ, v, v, got, got, n, ok, want[0], want[0], len(k))
			}
		}
	}
	for _, typ := range []sql.Type{types.Text, types.MustCreateStringWithDefaults(sqltypes.VarChar, 10), types.Float64, types.Date, types.Year} {
		if KeyDecodable(typ) {
			t.Errorf("%s decodable", typ)
		}
		if k, err := AppendValue(nil, typ, nil); err == nil {
			if v, n, ok := DecodeKeyValue(k, typ); !ok || v != nil || n != 1 {
				t.Errorf("%s NULL: %v %d %v", typ, v, n, ok)
			}
		}
	}
	if _, _, ok := DecodeKeyValue([]byte{0x01, 0x80}, types.Int32); ok {
		t.Error("a truncated key decoded")
	}
	if _, _, ok := DecodeKeyValue([]byte{0x01, 0, 0, 0, 0, 0, 0, 0, 0}, types.Text); ok {
		t.Error("a text key decoded")
	}
}
