package rowenc

import (
	"bytes"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// fuzzColumns are the column/type pairs the fuzzers pick from: every sample
// type plus a few logged types that are not natural for their GMS type.
func fuzzColumns(t testing.TB) ([]Column, []sql.Type) {
	var cols []Column
	var typs []sql.Type
	for _, tc := range typeCases() {
		c, err := ColumnFor(tc.typ, true)
		if err != nil {
			t.Fatal(err)
		}
		if tc.meta != nil {
			c.Meta = *tc.meta
		}
		cols = append(cols, c)
		typs = append(typs, tc.typ)
	}
	cols = append(cols,
		Column{Type: TypeLong}, Column{Type: TypeDatetime2, Meta: 3}, Column{Type: TypeTimestamp},
		Column{Type: TypeDatetime}, Column{Type: TypeTime}, Column{Type: TypeNewDecimal, Meta: 12<<8 | 3},
		Column{Type: TypeVarchar, Meta: 20, Charset: 8})
	typs = append(typs, types.Int8, types.Date, types.Timestamp, types.Datetime, types.Time,
		types.MustCreateColumnDecimalType(10, 1), types.Text)
	return cols, typs
}

func FuzzDecodeValue(f *testing.F) {
	cols, typs := fuzzColumns(f)
	for i, tc := range typeCases() {
		for _, x := range tc.inputs {
			v, _, err := tc.typ.Convert(convCtx, x)
			if err != nil {
				f.Fatal(err)
			}
			v, _ = sql.UnwrapAny(convCtx, v)
			b, err := AppendValue(nil, cols[i], v)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, uint8(i), cols[i].Type, cols[i].Meta)
		}
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, uint8(0), TypeTime2, uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, pick uint8, typ byte, meta uint16) {
		// Arbitrary column descriptions: nothing may panic.
		for _, c := range []Column{
			{Type: typ, Meta: meta},
			{Type: typ, Meta: meta, Unsigned: true, Charset: 8},
			{Type: typ, Meta: meta, Charset: CollationBinary},
		} {
			if v, n, err := DecodeValue(data, c, nil); err == nil {
				if n < 0 || n > len(data) {
					t.Fatalf("%s: consumed %d of %d bytes", c, n, len(data))
				}
				_ = FormatValue(c, v)
			}
			for _, tt := range []sql.Type{typs[int(pick)%len(typs)], types.Int64, types.LongText, types.JSON} {
				if v, n, err := DecodeValue(data, c, tt); err == nil {
					if n < 0 || n > len(data) {
						t.Fatalf("%s: consumed %d of %d bytes", c, n, len(data))
					}
					_ = FormatValue(c, v)
				}
			}
		}
		// Well-formed column descriptions: decode, re-encode, decode again
		// must give the same value.
		i := int(pick) % len(cols)
		c, tt := cols[i], typs[i]
		v, n, err := DecodeValue(data, c, tt)
		if err != nil {
			return
		}
		if n > len(data) {
			t.Fatalf("consumed %d of %d", n, len(data))
		}
		if !natural(c, tt) {
			return
		}
		b, err := AppendValue(nil, c, v)
		if err != nil {
			t.Fatalf("%s: decoded %#v from % X but cannot re-encode it: %v", c, v, data[:n], err)
		}
		v2, n2, err := DecodeValue(b, c, tt)
		if err != nil || n2 != len(b) {
			t.Fatalf("%s: re-encoded % X does not decode: %v", c, b, err)
		}
		b2, err := AppendValue(nil, c, v2)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("%s: encoding not stable: % X vs % X (%v)", c, b, b2, err)
		}
	})
}

func FuzzDecodeRowImage(f *testing.F) {
	cols, typs := fuzzColumns(f)
	f.Add([]byte{0x00, 1, 2, 3, 4}, []byte{0, 1, 2})
	f.Add([]byte{0xff, 0xff}, []byte{5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte{0x02, 7, 0, 0, 0, 3, 'a', 'b', 'c'}, []byte{7, 18})
	f.Fuzz(func(t *testing.T, data []byte, pick []byte) {
		if len(pick) > 64 {
			pick = pick[:64]
		}
		sel := make([]Column, len(pick))
		st := make([]sql.Type, len(pick))
		present := make([]bool, len(pick))
		for i, p := range pick {
			sel[i] = cols[int(p)%len(cols)]
			st[i] = typs[int(p)%len(typs)]
			present[i] = p&0x80 == 0
		}
		for _, pr := range [][]bool{nil, present} {
			if row, n, err := DecodeRowImage(data, sel, nil, pr); err == nil {
				if n > len(data) || len(row) != len(sel) {
					t.Fatalf("n=%d len=%d row=%d", n, len(data), len(row))
				}
			}
			row, n, err := DecodeRowImage(data, sel, st, pr)
			if err != nil {
				continue
			}
			if n > len(data) || len(row) != len(sel) {
				t.Fatalf("n=%d len=%d row=%d", n, len(data), len(row))
			}
			if pr != nil {
				continue
			}
			// A decoded full row re-encodes (natural columns only: others
			// were converted to the GMS type).
			allNatural := true
			for i := range sel {
				allNatural = allNatural && natural(sel[i], st[i])
			}
			if allNatural {
				if _, err := AppendRowImage(nil, sel, row); err != nil {
					t.Fatalf("decoded row does not re-encode: %v", err)
				}
			}
		}
	})
}

func FuzzDecodeJSON(f *testing.F) {
	for _, doc := range []any{
		nil, true, int64(-5), uint64(70000), 1.5, "s",
		[]any{int64(1), "a", []any{}, map[string]any{"k": nil}},
		map[string]any{"a": int64(1), "bb": []any{true, false}, "c": map[string]any{"d": "e"}},
	} {
		b, err := EncodeJSON(doc)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{jsonOpaque, TypeNewDecimal, 4, 5, 2, 0x80, 0x01})
	f.Add([]byte{jsonLargeObject, 1, 0, 0, 0, 20, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeJSON(data)
		if err != nil {
			return
		}
		text := AppendJSONText(nil, v)
		// Whatever decodes re-encodes to an equal document. (Not
		// necessarily the same bytes or text: an integral DOUBLE is stored
		// back as an integer, see EncodeJSON.)
		b, err := EncodeJSON(v)
		if err != nil {
			t.Fatalf("decoded %s but cannot re-encode: %v", text, err)
		}
		v2, err := DecodeJSON(b)
		if err != nil {
			t.Fatalf("re-encoded document does not decode: %v", err)
		}
		cmp, err := types.JSON.Compare(convCtx, types.JSONDocument{Val: v}, types.JSONDocument{Val: v2})
		if err != nil || cmp != 0 {
			t.Fatalf("JSON changed through re-encoding (%v):\n%s\n%s", err, text, AppendJSONText(nil, v2))
		}
	})
}
