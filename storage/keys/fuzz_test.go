package keys

import (
	"bytes"
	"errors"
	"math/rand"
	"reflect"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// fuzzSchema has one column of every storable type.
func fuzzSchema() sql.Schema {
	var typs []sql.Type
	for _, tc := range allTypeCases() {
		typs = append(typs, tc.typ)
	}
	return schemaOf(typs...)
}

// FuzzDecodeRow feeds arbitrary bytes to DecodeRow: it must never panic, and
// whatever it accepts must survive another encode/decode round trip.
func FuzzDecodeRow(f *testing.F) {
	sch := fuzzSchema()
	cases := allTypeCases()
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 20; n++ {
		row := make(sql.Row, len(cases))
		for i, tc := range cases {
			if r.Intn(3) != 0 {
				row[i] = mustConvert(f, tc.typ, tc.gen(r))
			}
		}
		enc, err := EncodeRow(nil, sch, row)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
		f.Add(enc[:len(enc)/2])
	}
	f.Add([]byte{})
	f.Add([]byte{rowFormatV1, 0})

	f.Fuzz(func(t *testing.T, data []byte) {
		row, err := DecodeRow(data, sch)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		if len(row) != len(sch) {
			t.Fatalf("decoded %d columns for a %d-column schema", len(row), len(sch))
		}
		// Decoded values may still violate column limits (e.g. string length),
		// in which case re-encoding fails cleanly; otherwise it must round-trip.
		enc, err := EncodeRow(nil, sch, row)
		if err != nil {
			return
		}
		again, err := DecodeRow(enc, sch)
		if err != nil {
			t.Fatalf("re-encoded row does not decode: %v", err)
		}
		// Re-encoding converts, which may canonicalise a representation GMS
		// would not produce (e.g. the exponent of a zero decimal), so compare
		// values, not representations.
		for i := range row {
			if (row[i] == nil) != (again[i] == nil) || (row[i] != nil && !equivalent(t, sch[i].Type, row[i], again[i])) {
				t.Fatalf("column %s: %s became %s", sch[i].Type, describe(row[i]), describe(again[i]))
			}
		}
	})
}

// FuzzKeyOrder checks key order against GMS's Compare for integers and for
// strings under case-insensitive, binary-collated and binary types.
func FuzzKeyOrder(f *testing.F) {
	f.Add(int64(0), int64(-1), "a", "A")
	f.Add(int64(-128), int64(127), "a ", "a")
	f.Add(int64(1)<<40, int64(-1)<<40, "ß", "ss")
	f.Add(int64(5), int64(5), "é", "E\x00")
	f.Add(int64(-9223372036854775808), int64(9223372036854775807), "", "\xff")

	intTypes := []sql.Type{types.Int8, types.Int16, types.Int24, types.Int32, types.Int64, types.Uint8, types.Uint32, types.Uint64}
	strTypes := []sql.Type{
		types.MustCreateString(sqltypes.VarChar, 64, sql.Collation_utf8mb4_0900_ai_ci),
		types.MustCreateString(sqltypes.VarChar, 64, sql.Collation_utf8mb4_general_ci),
		types.MustCreateString(sqltypes.VarChar, 64, sql.Collation_utf8mb4_bin),
		types.MustCreateBinary(sqltypes.VarBinary, 64),
	}
	f.Fuzz(func(t *testing.T, a, b int64, s1, s2 string) {
		for _, typ := range intTypes {
			checkKeyPair(t, typ, a, b)
		}
		for _, typ := range strTypes {
			checkKeyPair(t, typ, s1, s2)
			// Composite (string, int) keys compare column by column.
			ka, errA := AppendRowKey(nil, []sql.Type{typ, types.Int64}, []any{s1, a})
			kb, errB := AppendRowKey(nil, []sql.Type{typ, types.Int64}, []any{s2, b})
			if errA != nil || errB != nil {
				continue
			}
			want := gmsCompare(t, typ, mustConvert(t, typ, s1), mustConvert(t, typ, s2))
			if want == 0 {
				want = gmsCompare(t, types.Int64, a, b)
			}
			if got := sign(bytes.Compare(ka, kb)); got != want {
				t.Fatalf("%s: (%q,%d) vs (%q,%d): want %d, key order %d", typ, s1, a, s2, b, want, got)
			}
		}
	})
}

// checkKeyPair skips values the type cannot hold, otherwise compares orders.
func checkKeyPair(t *testing.T, typ sql.Type, a, b any) {
	t.Helper()
	ka, errA := AppendValue(nil, typ, a)
	kb, errB := AppendValue(nil, typ, b)
	if errA != nil || errB != nil {
		for _, err := range []error{errA, errB} {
			if err != nil && !errors.Is(err, ErrOutOfRange) && !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("%s: unexpected error %v", typ, err)
			}
		}
		return
	}
	want := gmsCompare(t, typ, mustConvert(t, typ, a), mustConvert(t, typ, b))
	if got := sign(bytes.Compare(ka, kb)); got != want {
		t.Fatalf("%s: %s vs %s: Compare=%d, key order=%d (%x vs %x)", typ, describe(a), describe(b), want, got, ka, kb)
	}
}

func equivalent(t testing.TB, typ sql.Type, a, b any) bool {
	return sameValue(t, typ, a, b) || (reflect.TypeOf(a) == reflect.TypeOf(b) && gmsCompare(t, typ, a, b) == 0)
}
