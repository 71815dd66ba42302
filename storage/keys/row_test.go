package keys

import (
	"errors"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

func schemaOf(typs ...sql.Type) sql.Schema {
	sch := make(sql.Schema, len(typs))
	for i, typ := range typs {
		sch[i] = &sql.Column{Name: typ.String(), Type: typ, Nullable: true}
	}
	return sch
}

// sameValue reports whether a decoded value matches the converted original:
// identical Go type and reflect.DeepEqual, except JSON, where GMS's Compare
// decides (documents built from Go ints decode with float64 numbers).
func sameValue(t testing.TB, typ sql.Type, want, got any) bool {
	t.Helper()
	if reflect.TypeOf(want) != reflect.TypeOf(got) {
		return false
	}
	if reflect.DeepEqual(want, got) {
		return true
	}
	if typ.Type() == sqltypes.TypeJSON {
		return gmsCompare(t, typ, want, got) == 0
	}
	return false
}

func TestRowRoundTrip(t *testing.T) {
	seed := testSeed(t)
	for _, tc := range allTypeCases() {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(seed))
			sch := schemaOf(tc.typ)
			raws := append([]any{}, tc.edges...)
			for i := 0; i < 300; i++ {
				raws = append(raws, tc.gen(r))
			}
			for _, raw := range raws {
				v := mustConvert(t, tc.typ, raw)
				enc, err := EncodeRow(nil, sch, sql.Row{v})
				if err != nil {
					t.Fatalf("EncodeRow(%s): %v", describe(v), err)
				}
				row, err := DecodeRow(enc, sch)
				if err != nil {
					t.Fatalf("DecodeRow(EncodeRow(%s)) = %v (%x)", describe(v), err, enc)
				}
				if !sameValue(t, tc.typ, v, row[0]) {
					t.Fatalf("seed %d: round trip of %s gave %s", seed, describe(v), describe(row[0]))
				}
				// Encoding the unconverted value gives the same bytes.
				if enc2, err := EncodeRow(nil, sch, sql.Row{raw}); err != nil || string(enc2) != string(enc) {
					t.Fatalf("seed %d: raw %s encodes as %x (%v), converted as %x", seed, describe(raw), enc2, err, enc)
				}
			}
		})
	}
}

// TestRowRoundTripWide encodes rows with every type at once, with random NULLs.
func TestRowRoundTripWide(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewSource(seed))
	cases := allTypeCases()
	var typs []sql.Type
	for _, tc := range cases {
		typs = append(typs, tc.typ)
	}
	sch := schemaOf(typs...)
	for n := 0; n < 200; n++ {
		row := make(sql.Row, len(cases))
		for i, tc := range cases {
			if r.Intn(4) != 0 {
				row[i] = mustConvert(t, tc.typ, tc.gen(r))
			}
		}
		enc, err := EncodeRow([]byte("keep"), sch, row)
		if err != nil {
			t.Fatal(err)
		}
		if string(enc[:4]) != "keep" {
			t.Fatal("EncodeRow clobbered dst")
		}
		got, err := DecodeRow(enc[4:], sch)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for i := range row {
			if (row[i] == nil) != (got[i] == nil) || (row[i] != nil && !sameValue(t, typs[i], row[i], got[i])) {
				t.Fatalf("seed %d: column %s: %s became %s", seed, typs[i], describe(row[i]), describe(got[i]))
			}
		}
	}
}

// TestDecodeRowGoTypes pins the Go type DecodeRow returns for each SQL type.
func TestDecodeRowGoTypes(t *testing.T) {
	cases := []struct {
		typ  sql.Type
		in   any
		want any
	}{
		{types.Int8, 1, int8(1)},
		{types.Uint8, 1, uint8(1)},
		{types.Int16, 1, int16(1)},
		{types.Uint16, 1, uint16(1)},
		{types.Int24, 1, int32(1)},
		{types.Uint24, 1, uint32(1)},
		{types.Int32, 1, int32(1)},
		{types.Uint32, 1, uint32(1)},
		{types.Int64, 1, int64(1)},
		{types.Uint64, 1, uint64(1)},
		{types.Float32, 1.5, float32(1.5)},
		{types.Float64, 1.5, 1.5},
		{types.MustCreateColumnDecimalType(10, 2), "1.5", decimal.RequireFromString("1.50")},
		{types.MustCreateString(sqltypes.Char, 5, sql.Collation_Default), "ab", "ab"},
		{types.Text, "ab", "ab"},
		{types.MustCreateBinary(sqltypes.Binary, 3), "ab", []byte("ab\x00")},
		{types.MustCreateBinary(sqltypes.VarBinary, 3), "", []byte{}},
		{types.Blob, "ab", []byte("ab")},
		{types.Date, "2024-05-06 07:08:09", time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC)},
		{types.DatetimeMaxPrecision, "2024-05-06 07:08:09.123456", time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)},
		{types.Timestamp, "2024-05-06 07:08:09.6", time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)},
		{types.Time, "-01:02:03.5", types.Timespan(-(3723*1000000 + 500000))},
		{types.Year, 24, int16(2024)},
		{types.MustCreateEnumType([]string{"x", "y"}, sql.Collation_Default), "y", uint16(2)},
		{types.MustCreateSetType([]string{"x", "y"}, sql.Collation_Default), "x,y", uint64(3)},
		{types.MustCreateBitType(8), 5, uint64(5)},
		{types.JSON, `{"a": [1, "b"]}`, types.JSONDocument{Val: map[string]any{"a": []any{1.0, "b"}}}},
		{types.PointType{}, types.Point{X: 1, Y: 2}, types.Point{X: 1, Y: 2}},
	}
	var typs []sql.Type
	var row sql.Row
	for _, tc := range cases {
		typs = append(typs, tc.typ)
		row = append(row, tc.in)
	}
	sch := schemaOf(typs...)
	enc, err := EncodeRow(nil, sch, row)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRow(enc, sch)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range cases {
		if !reflect.DeepEqual(got[i], tc.want) {
			t.Errorf("%s: decoded %s, want %s", tc.typ, describe(got[i]), describe(tc.want))
		}
		if conv := mustConvert(t, tc.typ, tc.in); !reflect.DeepEqual(conv, got[i]) {
			t.Errorf("%s: decoded %s, GMS Convert gives %s", tc.typ, describe(got[i]), describe(conv))
		}
	}
}

func TestDecodeRowPadsMissingColumns(t *testing.T) {
	old := schemaOf(types.Int64, types.Text)
	enc, err := EncodeRow(nil, old, sql.Row{int64(1), "x"})
	if err != nil {
		t.Fatal(err)
	}
	added := append(old, &sql.Column{Name: "added", Type: types.Int32, Default: nil, Nullable: false})
	got, err := DecodeRow(enc, added)
	if err != nil {
		t.Fatal(err)
	}
	if want := (sql.Row{int64(1), "x", nil}); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// The reverse (more stored columns than the schema) is corruption.
	if _, err := DecodeRow(enc, old[:1]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("expected ErrCorrupt, got %v", err)
	}
}

func TestDecodeRowRejectsMalformed(t *testing.T) {
	sch := schemaOf(types.Int8, types.Text, types.MustCreateColumnDecimalType(20, 5), types.DatetimeMaxPrecision, types.JSON)
	good, err := EncodeRow(nil, sch, sql.Row{int8(-3), "hello", "123.45", "2020-01-01 00:00:00.5", `{"a":1}`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeRow(good, sch); err != nil {
		t.Fatal(err)
	}
	// Every strict prefix is truncated.
	for i := 0; i < len(good); i++ {
		if _, err := DecodeRow(good[:i], sch); !errors.Is(err, ErrCorrupt) {
			t.Errorf("prefix of length %d: got %v, want ErrCorrupt", i, err)
		}
	}
	bad := map[string][]byte{
		"trailing byte":   append(append([]byte(nil), good...), 0),
		"bad version":     append([]byte{9}, good[1:]...),
		"bad tag":         {rowFormatV1, 1, 7},
		"tinyint 300":     {rowFormatV1, 1, tagValue, 0xD8, 0x04}, // zigzag varint 300
		"huge length":     {rowFormatV1, 2, tagNull, tagValue, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 'a'},
		"varint overflow": {rowFormatV1, 1, tagValue, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01},
	}
	for name, b := range bad {
		if _, err := DecodeRow(b, sch); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", name, err)
		}
	}
	// Values outside a column's domain are rejected too.
	domain := []struct {
		typ sql.Type
		enc []byte
	}{
		{types.MustCreateEnumType([]string{"a"}, sql.Collation_Default), []byte{2}},
		{types.MustCreateBitType(3), []byte{8}},
		{types.MustCreateSetType([]string{"a", "b"}, sql.Collation_Default), []byte{4}},
		{types.Year, []byte{0xD8, 0x04 * 20}},
		{types.Time, []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}},
		{types.MustCreateColumnDecimalType(10, 2), []byte{0, 2, 0}},                            // non-canonical magnitude
		{types.MustCreateColumnDecimalType(10, 2), []byte{0, 1}},                               // negative zero
		{types.MustCreateColumnDecimalType(10, 2), []byte{5, 2, 1}},                            // exponent -3 exceeds scale 2
		{types.MustCreateColumnDecimalType(10, 2), []byte{0xFE, 0xFF, 0xFF, 0xFF, 0x0F, 2, 1}}, // 1e2147483647
		{types.Date, []byte{2}},                 // 1µs after the epoch is not a date
		{types.Datetime, []byte{0xD0, 0x0F}},    // 1ms, DATETIME(0) has whole seconds
		{types.JSON, []byte{3, '{', '"', '}'}},  // not JSON
		{types.PointType{}, []byte{3, 1, 2, 3}}, // not EWKB
	}
	for _, d := range domain {
		b := append([]byte{rowFormatV1, 1, tagValue}, d.enc...)
		if _, err := DecodeRow(b, schemaOf(d.typ)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s %x: got %v, want ErrCorrupt", d.typ, d.enc, err)
		}
	}
}

func TestEncodeRowErrors(t *testing.T) {
	sch := schemaOf(types.Int8, types.MustCreateString(sqltypes.VarChar, 2, sql.Collation_Default))
	cases := []struct {
		row  sql.Row
		want error
	}{
		{sql.Row{int64(200), "a"}, ErrOutOfRange},
		{sql.Row{1, "abc"}, ErrOutOfRange},
		{sql.Row{"x", "a"}, ErrInvalidValue},
		{sql.Row{1, "\xff"}, ErrInvalidValue},
		{sql.Row{math.Inf(1), nil}, ErrOutOfRange},
	}
	for _, tc := range cases {
		out, err := EncodeRow([]byte("p"), sch, tc.row)
		if !errors.Is(err, tc.want) {
			t.Errorf("%v: got %v, want %v", tc.row, err, tc.want)
		}
		if string(out) != "p" {
			t.Errorf("%v: dst modified on error", tc.row)
		}
	}
	if _, err := EncodeRow(nil, sch, sql.Row{1}); err == nil {
		t.Error("expected error for short row")
	}
	if _, err := EncodeRow(nil, schemaOf(types.Null), sql.Row{1}); !errors.Is(err, ErrUnsupportedType) {
		t.Errorf("expected ErrUnsupportedType, got %v", err)
	}
	// NULL is always encodable, even for types we cannot store otherwise.
	if _, err := EncodeRow(nil, sch, sql.Row{nil, nil}); err != nil {
		t.Error(err)
	}
}

func TestDecodeRowDoesNotAlias(t *testing.T) {
	sch := schemaOf(types.Blob, types.Text)
	enc, err := EncodeRow(nil, sch, sql.Row{[]byte("abc"), "def"})
	if err != nil {
		t.Fatal(err)
	}
	row, err := DecodeRow(enc, sch)
	if err != nil {
		t.Fatal(err)
	}
	for i := range enc {
		enc[i] = 'X'
	}
	if string(row[0].([]byte)) != "abc" || row[1].(string) != "def" {
		t.Fatalf("decoded values alias the input: %v", row)
	}
}

// TestDecodeRowTextOneAllocation: DecodeRowShared puts the text values of
// a row in one
// allocation (textCopy), which the row's []byte values do not alias (they
// are mutable), and which does not alias the input; a row above
// maxTextArena copies each text value alone, with the same values.
func TestDecodeRowTextOneAllocation(t *testing.T) {
	vc := types.MustCreateString(sqltypes.VarChar, 600, sql.Collation_Default)
	sch := schemaOf(types.Int32, vc, vc, types.Blob, vc, vc, vc)
	row := sql.Row{int32(7), "alpha", "", []byte("blob"), "gamma-gamma", "δέλτα", "epsilon"}
	enc, err := EncodeRow(nil, sch, row)
	if err != nil {
		t.Fatal(err)
	}
	check := func(got sql.Row, what string) {
		t.Helper()
		for i := range row {
			if !reflect.DeepEqual(got[i], row[i]) {
				t.Fatalf("%s: column %d is %#v, want %#v", what, i, got[i], row[i])
			}
		}
	}
	got, err := DecodeRowShared(enc, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	check(got, "decoded")
	// The row, its slots' boxes (int32 7 is a static box; four non-empty
	// strings, the empty one and the blob's slice header), the blob's
	// bytes, and one allocation for the four texts: 1 + 6 + 1 + 1.
	if n := testing.AllocsPerRun(100, func() { _, _ = DecodeRowShared(enc, sch, nil) }); n > 9 {
		t.Fatalf("DecodeRow makes %v allocations, want at most 9 (the texts in one)", n)
	}
	got[3].([]byte)[0] = 'X' // the blob is the caller's to change
	for i := range enc {
		enc[i] = 'Y'
	}
	row[3] = []byte("Xlob")
	check(got, "after the input and the blob changed")

	big := strings.Repeat("b", 599)
	sch9 := schemaOf(types.Int32, vc, vc, types.Blob, vc, vc, vc, vc, vc, vc)
	wide9 := sql.Row{int32(8), big, big, []byte("blob"), big, big, big + "!", big, big, "z"}
	wenc, err := EncodeRow(nil, sch9, wide9)
	if err != nil || len(wenc) <= maxTextArena {
		t.Fatal(len(wenc), err)
	}
	wgot, err := DecodeRowShared(wenc, sch9, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range wide9 {
		if !reflect.DeepEqual(wgot[i], wide9[i]) {
			t.Fatalf("wide row: column %d differs", i)
		}
	}
}
