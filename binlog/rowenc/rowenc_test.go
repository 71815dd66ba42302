package rowenc

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"

	"petrel/internal/lenenc"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameValue compares a decoded value with the converted original: exact Go
// type and value (reflect.DeepEqual), except JSON, which is compared with the
// JSON type's Compare (GMS itself does not keep JSON numbers' Go types).
func sameValue(t *testing.T, typ sql.Type, got, want any) bool {
	t.Helper()
	if typ.Type() == sqltypes.TypeJSON {
		cmp, err := typ.Compare(convCtx, got, want)
		return err == nil && cmp == 0 && reflect.TypeOf(got) == reflect.TypeOf(want)
	}
	return reflect.DeepEqual(got, want)
}

// TestRoundTrip: for every type and sample, v := typ.Convert(x) survives
// AppendValue/DecodeValue unchanged, and the generic decoder agrees on size.
func TestRoundTrip(t *testing.T) {
	for _, tc := range typeCases() {
		t.Run(tc.name, func(t *testing.T) {
			c := columnFor(t, tc, true)
			for _, x := range tc.inputs {
				v := convertInput(t, tc, x)
				b, err := AppendValue(nil, c, v)
				if err != nil {
					t.Fatalf("AppendValue(%v): %v", v, err)
				}
				// Trailing bytes must not be consumed.
				buf := append(append([]byte{}, b...), 0xEE, 0xEE)
				got, n, err := DecodeValue(buf, c, tc.typ)
				if err != nil {
					t.Fatalf("DecodeValue(%x): %v", b, err)
				}
				if n != len(b) {
					t.Errorf("%v: consumed %d bytes, encoded %d", x, n, len(b))
				}
				if !sameValue(t, tc.typ, got, v) {
					t.Errorf("%v: round trip gave %#v (%T), want %#v (%T)", x, got, got, v, v)
				}
				g, gn, err := DecodeValue(buf, c, nil)
				if err != nil || gn != n {
					t.Errorf("%v: generic decode: %v, n=%d want %d", x, err, gn, n)
				}
				if FormatValue(c, g) == "" {
					t.Errorf("%v: empty FormatValue", x)
				}
				// The decoder must not alias its input.
				for i := range buf {
					buf[i] = 0x55
				}
				if !sameValue(t, tc.typ, got, v) {
					t.Errorf("%v: decoded value aliases the input buffer", x)
				}
			}
		})
	}
}

func TestRowImageRoundTrip(t *testing.T) {
	cases := typeCases()
	var cols []Column
	var typs []sql.Type
	for _, tc := range cases {
		cols = append(cols, columnFor(t, tc, true))
		typs = append(typs, tc.typ)
	}
	for r := 0; r < 4; r++ {
		row := make(sql.Row, len(cases))
		for i, tc := range cases {
			if (i+r)%3 == 0 {
				continue // NULL
			}
			row[i] = convertInput(t, tc, tc.inputs[r%len(tc.inputs)])
		}
		img, err := AppendRowImage([]byte{0xAA}, cols, row)
		if err != nil {
			t.Fatal(err)
		}
		if img[0] != 0xAA {
			t.Fatal("AppendRowImage clobbered dst")
		}
		img = img[1:]
		got, n, err := DecodeRowImage(append(img, 1, 2, 3), cols, typs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n != len(img) {
			t.Errorf("row %d: consumed %d of %d", r, n, len(img))
		}
		for i := range row {
			if row[i] == nil {
				if got[i] != nil {
					t.Errorf("row %d col %d: want NULL, got %v", r, i, got[i])
				}
				continue
			}
			if !sameValue(t, typs[i], got[i], row[i]) {
				t.Errorf("row %d col %s: got %#v want %#v", r, cases[i].name, got[i], row[i])
			}
		}
		// Generic decode consumes the same bytes.
		if _, gn, err := DecodeRowImage(img, cols, nil, nil); err != nil || gn != n {
			t.Errorf("generic DecodeRowImage: %v n=%d", err, gn)
		}
	}

	// A partial image (columns-present bitmap): only present columns are in
	// the NULL bitmap and values.
	c3 := []Column{{Type: TypeLong}, {Type: TypeVarchar, Meta: 10, Charset: 255}, {Type: TypeTiny, Nullable: true}}
	present := []bool{true, false, true}
	// NULL bitmap over 2 present columns: second present (col 3) is NULL.
	img := []byte{0x02, 7, 0, 0, 0}
	row, n, err := DecodeRowImage(img, c3, nil, present)
	if err != nil || n != len(img) {
		t.Fatalf("partial image: %v n=%d", err, n)
	}
	if !reflect.DeepEqual(row, sql.Row{int64(7), nil, nil}) {
		t.Errorf("partial image decoded as %#v", row)
	}
}

// Known answers from the MySQL format documentation and hand computation.
func TestKnownAnswers(t *testing.T) {
	type kat struct {
		name string
		c    Column
		v    any
		hex  string
	}
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	ts := func(s string) time.Time {
		tm, err := time.Parse("2006-01-02 15:04:05.999999", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	dec := func(p, s uint16) Column { return Column{Type: TypeNewDecimal, Meta: p<<8 | s} }
	tm2 := func(fsp uint16) Column { return Column{Type: TypeTime2, Meta: fsp} }
	span := func(neg bool, h, m, s, us int64) types.Timespan {
		v := ((h*60+m)*60+s)*1000000 + us
		if neg {
			v = -v
		}
		return types.Timespan(v)
	}
	kats := []kat{
		// decimal.c's documented example: 1234567890.1234 as DECIMAL(14,4).
		{"decimal doc example", dec(14, 4), d("1234567890.1234"), "81 0D FB 38 D2 04 D2"},
		{"decimal doc example negated", dec(14, 4), d("-1234567890.1234"), "7E F2 04 C7 2D FB 2D"},
		{"decimal(5,2) 1.5", dec(5, 2), d("1.50"), "80 01 32"},
		{"decimal(5,2) -1.5", dec(5, 2), d("-1.50"), "7F FE CD"},
		{"decimal(10,0) zero", dec(10, 0), d("0"), "80 00 00 00 00"},
		{"decimal(18,9) one", dec(18, 9), d("1.000000000"), "80 00 00 01 00 00 00 00"},
		{"tinyint -1", Column{Type: TypeTiny}, int8(-1), "FF"},
		{"smallint", Column{Type: TypeShort}, int16(0x1234), "34 12"},
		{"mediumint -2", Column{Type: TypeInt24}, int32(-2), "FE FF FF"},
		{"int unsigned max", Column{Type: TypeLong, Unsigned: true}, uint32(math.MaxUint32), "FF FF FF FF"},
		{"bigint", Column{Type: TypeLongLong}, int64(0x0102030405060708), "08 07 06 05 04 03 02 01"},
		{"float 1.5", Column{Type: TypeFloat, Meta: 4}, float32(1.5), "00 00 C0 3F"},
		{"double 1.5", Column{Type: TypeDouble, Meta: 8}, 1.5, "00 00 00 00 00 00 F8 3F"},
		// DATE: day | month<<5 | year<<9 = 2 | 32 | 2024<<9 = 0x0FD022, LE.
		{"date", Column{Type: TypeDate}, ts("2024-01-02 00:00:00"), "22 D0 0F"},
		{"date zero", Column{Type: TypeDate}, zeroTime, "00 00 00"},
		// DATETIME2: ((2024*13+1)<<5|2)<<17 | 3<<12 | 4<<6 | 5 = 0x19B2443105,
		// plus 0x8000000000.
		{"datetime2", Column{Type: TypeDatetime2}, ts("2024-01-02 03:04:05"), "99 B2 44 31 05"},
		{"datetime2(6)", Column{Type: TypeDatetime2, Meta: 6}, ts("2024-01-02 03:04:05.000001"), "99 B2 44 31 05 00 00 01"},
		{"datetime2(2)", Column{Type: TypeDatetime2, Meta: 2}, ts("2024-01-02 03:04:05.25"), "99 B2 44 31 05 19"},
		{"datetime2(3)", Column{Type: TypeDatetime2, Meta: 3}, ts("2024-01-02 03:04:05.123"), "99 B2 44 31 05 04 CE"},
		{"datetime2 zero", Column{Type: TypeDatetime2}, zeroTime, "80 00 00 00 00"},
		// TIMESTAMP2: 1704164645 = 0x65937D25 big-endian.
		{"timestamp2", Column{Type: TypeTimestamp2}, ts("2024-01-02 03:04:05"), "65 93 7D 25"},
		{"timestamp2(3)", Column{Type: TypeTimestamp2, Meta: 3}, ts("2024-01-02 03:04:05.123"), "65 93 7D 25 04 CE"},
		{"timestamp2 zero", Column{Type: TypeTimestamp2}, zeroTime, "00 00 00 00"},
		// TIME2 rows from the table in my_time_packed_from_binary's comment
		// (fsp 2): 800000.00, 7FFFFF.FF, 7FFFFF.9D, 7FFFFF.00, 7FFFFE.FF,
		// 7FFFFE.F6.
		{"time2(2) zero", tm2(2), span(false, 0, 0, 0, 0), "80 00 00 00"},
		{"time2(2) -0.01", tm2(2), span(true, 0, 0, 0, 10000), "7F FF FF FF"},
		{"time2(2) -0.99", tm2(2), span(true, 0, 0, 0, 990000), "7F FF FF 9D"},
		{"time2(2) -1.00", tm2(2), span(true, 0, 0, 1, 0), "7F FF FF 00"},
		{"time2(2) -1.01", tm2(2), span(true, 0, 0, 1, 10000), "7F FF FE FF"},
		{"time2(2) -1.10", tm2(2), span(true, 0, 0, 1, 100000), "7F FF FE F6"},
		// 12:34:56 -> hms = 12<<12|34<<6|56 = 0xC8B8.
		{"time2(0)", tm2(0), span(false, 12, 34, 56, 0), "80 C8 B8"},
		{"time2(0) -838:59:59", tm2(0), span(true, 838, 59, 59, 0), "4B 91 05"},
		{"time2(6)", tm2(6), span(false, 12, 34, 56, 789), "80 C8 B8 00 03 15"},
		{"time2(6) negative", tm2(6), span(true, 0, 0, 0, 1), "7F FF FF FF FF FF"},
		{"time2(4) -0.0001", tm2(4), span(true, 0, 0, 0, 100), "7F FF FF FF FF"},
		{"year", Column{Type: TypeYear}, int16(2024), "7C"},
		{"year zero", Column{Type: TypeYear}, int16(0), "00"},
		{"varchar 1-byte prefix", Column{Type: TypeVarchar, Meta: 40}, "abc", "03 61 62 63"},
		{"varchar 2-byte prefix", Column{Type: TypeVarchar, Meta: 1200}, "abc", "03 00 61 62 63"},
		{"varchar 255 bytes: 1-byte prefix", Column{Type: TypeVarchar, Meta: 255}, "a", "01 61"},
		{"varchar 256 bytes: 2-byte prefix", Column{Type: TypeVarchar, Meta: 256}, "a", "01 00 61"},
		// CHAR: trailing spaces stripped as Field_string::pack does; 2-byte
		// prefix once the column is longer than 255 bytes.
		{"char strips spaces", Column{Type: TypeString, Meta: makeStringMeta(TypeString, 40), Charset: 255}, "ab  ", "02 61 62"},
		{"char(255) utf8mb4", Column{Type: TypeString, Meta: makeStringMeta(TypeString, 1020), Charset: 255}, "ab", "02 00 61 62"},
		{"binary strips NULs", Column{Type: TypeString, Meta: makeStringMeta(TypeString, 4), Charset: 63}, []byte{'a', 0, 'b', 0}, "03 61 00 62"},
		{"latin1 varchar", Column{Type: TypeVarchar, Meta: 10, Charset: 8}, "café", "04 63 61 66 E9"},
		{"blob", Column{Type: TypeBlob, Meta: 2, Charset: 63}, []byte{1, 2}, "02 00 01 02"},
		{"tinyblob", Column{Type: TypeBlob, Meta: 1, Charset: 63}, []byte{1}, "01 01"},
		{"longblob", Column{Type: TypeBlob, Meta: 4, Charset: 63}, []byte{1}, "01 00 00 00 01"},
		{"enum 1 byte", Column{Type: TypeString, Meta: 0xF701}, uint16(3), "03"},
		{"enum 2 bytes", Column{Type: TypeString, Meta: 0xF702}, uint16(300), "2C 01"},
		{"set 3 bytes", Column{Type: TypeString, Meta: 0xF803}, uint64(0x080001), "01 00 08"},
		{"set 8 bytes", Column{Type: TypeString, Meta: 0xF808}, uint64(1 << 63), "00 00 00 00 00 00 00 80"},
		// BIT is big-endian in (bits+7)/8 bytes; BIT(10) meta = 1<<8 | 2.
		{"bit(10)", Column{Type: TypeBit, Meta: 0x0102}, uint64(0x2A5), "02 A5"},
		{"bit(1)", Column{Type: TypeBit, Meta: 0x0001}, uint64(1), "01"},
		{"bit(64)", Column{Type: TypeBit, Meta: 0x0800}, uint64(0x0102030405060708), "01 02 03 04 05 06 07 08"},
		// JSON {"a":1}: small object, count 1, size 12, key entry (11, 1),
		// value entry INT16 inline 1, key "a"; 4-byte length prefix.
		{"json", Column{Type: TypeJSON, Meta: 4}, types.JSONDocument{Val: map[string]any{"a": float64(1)}},
			"0D 00 00 00 00 01 00 0C 00 0B 00 01 00 05 01 00 61"},
	}
	for _, k := range kats {
		t.Run(k.name, func(t *testing.T) {
			want := unhex(t, k.hex)
			got, err := AppendValue(nil, k.c, k.v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("AppendValue(%v) = % X, want % X", k.v, got, want)
			}
			// And back (generic decode must accept it and consume it all).
			if _, n, err := DecodeValue(want, k.c, nil); err != nil || n != len(want) {
				t.Errorf("DecodeValue: %v, n=%d", err, n)
			}
		})
	}

	// Decoding the documented decimal gives the exact text back.
	s, n, err := DecodeDecimal(unhex(t, "81 0D FB 38 D2 04 D2"), 14, 4)
	if err != nil || n != 7 || s != "1234567890.1234" {
		t.Errorf("DecodeDecimal = %q, %d, %v", s, n, err)
	}
	s, _, _ = DecodeDecimal(unhex(t, "7E F2 04 C7 2D FB 2D"), 14, 4)
	if s != "-1234567890.1234" {
		t.Errorf("DecodeDecimal negative = %q", s)
	}
	// Negative zero (all digits zero, sign clear) reads as 0.
	s, _, _ = DecodeDecimal(unhex(t, "7F FF FF"), 5, 2)
	if s != "0.00" {
		t.Errorf("negative zero = %q", s)
	}
}

func TestGenericDecode(t *testing.T) {
	cases := []struct {
		c    Column
		hex  string
		want any
		text string // FormatValue
	}{
		{Column{Type: TypeTiny}, "FF", int64(-1), "-1"},
		{Column{Type: TypeTiny, Unsigned: true}, "FF", uint64(255), "255"},
		{Column{Type: TypeLongLong, Unsigned: true}, "FF FF FF FF FF FF FF FF", uint64(math.MaxUint64), "18446744073709551615"},
		{Column{Type: TypeNewDecimal, Meta: 14<<8 | 4}, "81 0D FB 38 D2 04 D2", "1234567890.1234", "1234567890.1234"},
		{Column{Type: TypeFloat, Meta: 4}, "00 00 C0 3F", 1.5, "1.5                 "},
		{Column{Type: TypeDouble, Meta: 8}, "9A 99 99 99 99 99 B9 3F", 0.1, "0.10000000000000000555"},
		{Column{Type: TypeVarchar, Meta: 10, Charset: 255}, "03 61 27 0A", "a'\n", `'a'\x0a'`},
		{Column{Type: TypeVarchar, Meta: 10, Charset: 63}, "02 00 FF", []byte{0, 0xff}, "'\\x00\xff'"},
		{Column{Type: TypeVarchar, Meta: 10, Charset: 8}, "01 E9", "é", "'é'"},
		{Column{Type: TypeString, Meta: 0xFE28, Charset: 255}, "02 61 62", "ab", "'ab'"},
		{Column{Type: TypeDate}, "22 D0 0F", "2024-01-02", "'2024:01:02'"},
		{Column{Type: TypeDate}, "00 00 00", "0000-00-00", "'0000:00:00'"},
		{Column{Type: TypeDatetime2, Meta: 3}, "99 B2 44 31 05 04 CE", "2024-01-02 03:04:05.123", "'2024-01-02 03:04:05.123'"},
		{Column{Type: TypeDatetime2}, "80 00 00 00 00", "0000-00-00 00:00:00", "'0000-00-00 00:00:00'"},
		{Column{Type: TypeTimestamp2, Meta: 3}, "65 93 7D 25 04 CE", "2024-01-02 03:04:05.123", "1704164645.123"},
		{Column{Type: TypeTimestamp2}, "00 00 00 00", "0000-00-00 00:00:00", "0"},
		{Column{Type: TypeTime2, Meta: 2}, "7F FF FE F6", "-00:00:01.10", "'-00:00:01.10'"},
		{Column{Type: TypeTime2}, "4B 91 05", "-838:59:59", "'-838:59:59'"},
		{Column{Type: TypeYear}, "7C", int64(2024), "2024"},
		{Column{Type: TypeYear}, "00", int64(0), "0"},
		{Column{Type: TypeString, Meta: 0xF701}, "02", uint64(2), "2"},
		{Column{Type: TypeString, Meta: 0xF801}, "05", uint64(5), "b'00000101'"},
		{Column{Type: TypeBit, Meta: 0x0102}, "02 A5", uint64(0x2A5), "b'1010100101'"},
		{Column{Type: TypeJSON, Meta: 4}, "0D 00 00 00 00 01 00 0C 00 0B 00 01 00 05 01 00 61", `{"a": 1}`, `'{"a": 1}'`},
		{Column{Type: TypeTimestamp}, "25 7D 93 65", "2024-01-02 03:04:05", "1704164645"},
		{Column{Type: TypeDatetime}, "45 7C 17 84 68 12 00 00", "2024-01-02 03:04:05", "'2024-01-02 03:04:05'"},
		{Column{Type: TypeTime}, "F4 FF FF", "-00:00:12", "'-00:00:12'"},
	}
	for _, tc := range cases {
		b := unhex(t, tc.hex)
		got, n, err := DecodeValue(b, tc.c, nil)
		if err != nil {
			t.Errorf("%s % X: %v", tc.c, b, err)
			continue
		}
		if n != len(b) || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s % X: got %#v (n=%d), want %#v", tc.c, b, got, n, tc.want)
		}
		if s := FormatValue(tc.c, got); s != tc.text {
			t.Errorf("%s: FormatValue(%#v) = %q, want %q", tc.c, got, s, tc.text)
		}
	}
	if FormatValue(Column{Type: TypeLong}, nil) != "NULL" {
		t.Error("NULL")
	}
}

func TestFormatGMSValues(t *testing.T) {
	// FormatValue also accepts GMS-typed values and prints them like the
	// generic ones.
	for _, tc := range typeCases() {
		c := columnFor(t, tc, false)
		for _, x := range tc.inputs {
			v := convertInput(t, tc, x)
			b, err := AppendValue(nil, c, v)
			if err != nil {
				t.Fatal(err)
			}
			g, _, err := DecodeValue(b, c, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := FormatValue(c, g)
			if tc.typ.Type() == sqltypes.Binary {
				continue // GMS pads BINARY, the log does not
			}
			if got := FormatValue(c, v); got != want {
				t.Errorf("%s %v: FormatValue(GMS) = %q, FormatValue(generic) = %q", tc.name, x, got, want)
			}
		}
	}
}

func TestColumnFor(t *testing.T) {
	utf8 := sql.Collation_utf8mb4_0900_ai_ci
	cases := []struct {
		typ  sql.Type
		want Column
		meta string // AppendMeta bytes
	}{
		{types.Int8, Column{Type: TypeTiny}, ""},
		{types.Uint64, Column{Type: TypeLongLong, Unsigned: true}, ""},
		{types.Int24, Column{Type: TypeInt24}, ""},
		{types.Float32, Column{Type: TypeFloat, Meta: 4}, "04"},
		{types.Float64, Column{Type: TypeDouble, Meta: 8}, "08"},
		{types.MustCreateColumnDecimalType(14, 4), Column{Type: TypeNewDecimal, Meta: 14<<8 | 4}, "0E 04"},
		{types.MustCreateString(sqltypes.Char, 10, utf8), Column{Type: TypeString, Meta: 0xFE28, Charset: 255}, "FE 28"},
		// CHAR(255) utf8mb4 = 1020 bytes: bits 8-9 of the length go into the
		// type byte, inverted: 0xFE ^ 0x30 = 0xCE.
		{types.MustCreateString(sqltypes.Char, 255, utf8), Column{Type: TypeString, Meta: 0xCEFC, Charset: 255}, "CE FC"},
		{types.MustCreateBinary(sqltypes.Binary, 16), Column{Type: TypeString, Meta: 0xFE10, Charset: 63}, "FE 10"},
		{types.MustCreateString(sqltypes.VarChar, 300, utf8), Column{Type: TypeVarchar, Meta: 1200, Charset: 255}, "B0 04"},
		{types.MustCreateString(sqltypes.VarChar, 10, sql.Collation_latin1_swedish_ci), Column{Type: TypeVarchar, Meta: 10, Charset: 8}, "0A 00"},
		{types.MustCreateBinary(sqltypes.VarBinary, 20), Column{Type: TypeVarchar, Meta: 20, Charset: 63}, "14 00"},
		{types.TinyText, Column{Type: TypeBlob, Meta: 1, Charset: 309}, "01"},
		{types.Text, Column{Type: TypeBlob, Meta: 2, Charset: 309}, "02"},
		{types.MediumBlob, Column{Type: TypeBlob, Meta: 3, Charset: 63}, "03"},
		{types.LongText, Column{Type: TypeBlob, Meta: 4, Charset: 309}, "04"},
		{types.Date, Column{Type: TypeDate}, ""},
		{types.Datetime, Column{Type: TypeDatetime2}, "00"},
		{types.DatetimeMaxPrecision, Column{Type: TypeDatetime2, Meta: 6}, "06"},
		{types.MustCreateDatetimeType(sqltypes.Timestamp, 3), Column{Type: TypeTimestamp2, Meta: 3}, "03"},
		{types.Time, Column{Type: TypeTime2, Meta: 6}, "06"},
		{types.Year, Column{Type: TypeYear}, ""},
		{types.MustCreateEnumType([]string{"a"}, utf8), Column{Type: TypeString, Meta: 0xF701, Charset: 255}, "F7 01"},
		{types.MustCreateEnumType(manyNames(256), utf8), Column{Type: TypeString, Meta: 0xF702, Charset: 255}, "F7 02"},
		{types.MustCreateSetType(manyNames(17), utf8), Column{Type: TypeString, Meta: 0xF803, Charset: 255}, "F8 03"},
		{types.MustCreateSetType(manyNames(33), utf8), Column{Type: TypeString, Meta: 0xF808, Charset: 255}, "F8 08"},
		// BIT(10): bits%8 = 2 first, then bytes = 1.
		{types.MustCreateBitType(10), Column{Type: TypeBit, Meta: 0x0102}, "02 01"},
		{types.MustCreateBitType(64), Column{Type: TypeBit, Meta: 0x0800}, "00 08"},
		{types.JSON, Column{Type: TypeJSON, Meta: 4}, "04"},
		{types.PointType{}, Column{Type: TypeGeometry, Meta: 4, GeomType: GeomPoint}, "04"},
		{types.GeometryType{}, Column{Type: TypeGeometry, Meta: 4}, "04"},
	}
	for _, tc := range cases {
		c, err := ColumnFor(tc.typ, false)
		if err != nil {
			t.Errorf("%s: %v", tc.typ, err)
			continue
		}
		if c != tc.want {
			t.Errorf("ColumnFor(%s) = %+v, want %+v", tc.typ, c, tc.want)
		}
		meta := AppendMeta(nil, c)
		if want := unhex(t, tc.meta); !bytes.Equal(meta, want) {
			t.Errorf("AppendMeta(%s) = % X, want % X", tc.typ, meta, want)
		}
		if MetaLen(c.Type) != len(meta) {
			t.Errorf("MetaLen(%d) = %d, AppendMeta wrote %d", c.Type, MetaLen(c.Type), len(meta))
		}
		m, n, err := ParseMeta(c.Type, append(meta, 0x99))
		if err != nil || n != len(meta) || m != c.Meta {
			t.Errorf("ParseMeta(%s) = %#x, %d, %v; want %#x", tc.typ, m, n, err, c.Meta)
		}
	}
	if c, _ := ColumnFor(types.Int32, true); !c.Nullable {
		t.Error("nullable flag lost")
	}
	if _, err := ColumnFor(types.Null, true); !errors.Is(err, ErrUnsupported) {
		t.Errorf("NULL type: %v", err)
	}
	if _, err := ColumnFor(nil, true); err == nil {
		t.Error("nil type accepted")
	}
	// String metadata decoding (MySQL's long-CHAR quirk).
	for _, n := range []int{0, 1, 255, 256, 767, 768, 1020, 1023} {
		rt, l := stringMeta(makeStringMeta(TypeString, n))
		if rt != TypeString || l != n {
			t.Errorf("stringMeta round trip %d -> %d, %d", n, rt, l)
		}
	}
	if _, _, err := ParseMeta(TypeVarchar, []byte{1}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated meta: %v", err)
	}
	if _, _, err := ParseMeta(200, nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("unknown type: %v", err)
	}
}

func TestOptionalMetadata(t *testing.T) {
	cols := []Column{
		{Type: TypeLong, Unsigned: true},
		{Type: TypeVarchar, Meta: 1020, Charset: 255},
		{Type: TypeLong},
		{Type: TypeBlob, Meta: 2, Charset: 255},
		{Type: TypeBlob, Meta: 2, Charset: 63},
		{Type: TypeString, Meta: 0xF701, Charset: 8}, // ENUM: not a character column
		{Type: TypeJSON, Meta: 4},
		{Type: TypeNewDecimal, Meta: 0x0502},
		{Type: TypeGeometry, Meta: 4, GeomType: GeomPoint},
	}
	got := OptionalMetadata(cols)
	// SIGNEDNESS: 3 numeric columns, unsigned/signed/signed -> 100xxxxx.
	// DEFAULT_CHARSET: 255 (lenenc fc ff 00), then char column #2 -> 63.
	// GEOMETRY_TYPE: 1.
	want := unhex(t, "01 01 80  02 05 FC FF 00 02 3F  04 01 01")
	if !bytes.Equal(got, want) {
		t.Errorf("OptionalMetadata = % X, want % X", got, want)
	}
	// Mostly different collations: COLUMN_CHARSET is smaller.
	cols2 := []Column{{Type: TypeVarchar, Meta: 4, Charset: 8}, {Type: TypeVarchar, Meta: 4, Charset: 33}, {Type: TypeVarchar, Meta: 4, Charset: 63}}
	if got := OptionalMetadata(cols2); !bytes.Equal(got, unhex(t, "03 03 08 21 3F")) {
		t.Errorf("COLUMN_CHARSET = % X", got)
	}
	if got := OptionalMetadata([]Column{{Type: TypeDate}}); got != nil {
		t.Errorf("no metadata expected, got % X", got)
	}
	// ApplyOptionalMetadata inverts it.
	for _, cs := range [][]Column{cols, cols2} {
		stripped := make([]Column, len(cs))
		for i, c := range cs {
			stripped[i] = Column{Type: c.Type, Meta: c.Meta}
		}
		if err := ApplyOptionalMetadata(stripped, OptionalMetadata(cs)); err != nil {
			t.Fatal(err)
		}
		for i := range cs {
			want := cs[i]
			if !want.IsCharacter() {
				want.Charset = 0 // not carried in MINIMAL metadata
			}
			if stripped[i] != want {
				t.Errorf("col %d: applied %+v, want %+v", i, stripped[i], want)
			}
		}
	}
	if err := ApplyOptionalMetadata(cols, []byte{1, 5, 0}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated TLV: %v", err)
	}
}

func TestEncodeErrors(t *testing.T) {
	cases := []struct {
		c Column
		v any
	}{
		{Column{Type: TypeTiny}, int64(128)},
		{Column{Type: TypeTiny}, int64(-129)},
		{Column{Type: TypeTiny, Unsigned: true}, int64(-1)},
		{Column{Type: TypeTiny, Unsigned: true}, uint64(256)},
		{Column{Type: TypeInt24}, int32(1 << 23)},
		{Column{Type: TypeLongLong}, uint64(math.MaxUint64)},
		{Column{Type: TypeLong}, "12"},
		{Column{Type: TypeFloat, Meta: 4}, 1e300},
		{Column{Type: TypeNewDecimal, Meta: 5<<8 | 2}, decimal.RequireFromString("1000")},
		{Column{Type: TypeNewDecimal, Meta: 5<<8 | 2}, decimal.RequireFromString("999.995")}, // rounds to 1000.00
		{Column{Type: TypeNewDecimal, Meta: 5<<8 | 2}, decimal.New(1, 1000000)},
		{Column{Type: TypeNewDecimal, Meta: 66 << 8}, decimal.Zero},
		{Column{Type: TypeVarchar, Meta: 3}, "abcd"},
		{Column{Type: TypeString, Meta: makeStringMeta(TypeString, 2)}, "abc"},
		{Column{Type: TypeVarchar, Meta: 10, Charset: 8}, "日本"}, // not latin1
		{Column{Type: TypeBlob, Meta: 1}, make([]byte, 256)},
		{Column{Type: TypeBlob, Meta: 5}, []byte{}},
		{Column{Type: TypeString, Meta: 0xF701}, uint16(256)},
		{Column{Type: TypeString, Meta: 0xF801}, uint64(256)},
		{Column{Type: TypeBit, Meta: 0x0002}, uint64(4)},
		{Column{Type: TypeBit, Meta: 0x0900}, uint64(4)},
		{Column{Type: TypeYear}, int16(1900)},
		{Column{Type: TypeYear}, int16(2156)},
		{Column{Type: TypeDate}, "2024-01-01"},
		{Column{Type: TypeDatetime2, Meta: 7}, time.Now()},
		{Column{Type: TypeTimestamp2}, time.Unix(-5, 0)},
		{Column{Type: TypeTime2, Meta: 6}, types.Timespan(3020399000001)},
		{Column{Type: TypeTime2}, types.Timespan(3020399600000)}, // rounds to 839:00:00
		{Column{Type: TypeJSON, Meta: 4}, types.JSONDocument{Val: math.NaN()}},
		{Column{Type: TypeJSON, Meta: 4}, "{bad json"},
		{Column{Type: TypeGeometry, Meta: 4}, 5},
		{Column{Type: TypeDecimal}, 1},
	}
	for _, tc := range cases {
		if b, err := AppendValue(nil, tc.c, tc.v); err == nil {
			t.Errorf("AppendValue(%s, %#v) = % X, want error", tc.c, tc.v, b)
		}
	}
	if _, err := AppendValue(nil, Column{Type: TypeLong}, nil); err == nil {
		t.Error("NULL accepted by AppendValue")
	}
	if _, err := AppendRowImage(nil, []Column{{Type: TypeLong}}, sql.Row{int32(1), int32(2)}); err == nil {
		t.Error("row/column count mismatch accepted")
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		c   Column
		typ sql.Type
		hex string
	}{
		{Column{Type: TypeLong}, nil, "01 02 03"},
		{Column{Type: TypeVarchar, Meta: 300}, nil, "05"},
		{Column{Type: TypeVarchar, Meta: 3}, nil, "04 61 62 63 64"},
		{Column{Type: TypeString, Meta: 0xFE03}, nil, "04 61 62 63 64"},
		{Column{Type: TypeBlob, Meta: 2}, nil, "FF FF 00"},
		{Column{Type: TypeBlob, Meta: 0}, nil, "00"},
		{Column{Type: TypeNewDecimal, Meta: 5<<8 | 2}, nil, "80 01"},
		{Column{Type: TypeNewDecimal, Meta: 5<<8 | 2}, nil, "80 01 FF"},      // 255 > 99
		{Column{Type: TypeNewDecimal, Meta: 0}, nil, "80"},                   // precision 0
		{Column{Type: TypeNewDecimal, Meta: 10 << 8}, nil, "80 FF FF FF FF"}, // word > 999999999
		{Column{Type: TypeDatetime2, Meta: 2}, nil, "99 B2 44 31 05 FF"},
		{Column{Type: TypeDatetime2}, nil, "19 B2 44 31 05"}, // sign bit clear
		{Column{Type: TypeDatetime2, Meta: 9}, nil, "99 B2 44 31 05"},
		{Column{Type: TypeTime2}, nil, "80 0F FF"}, // 00:63:63
		{Column{Type: TypeTimestamp2, Meta: 6}, nil, "65 93 7D 25 0F 42 40"},
		{Column{Type: TypeString, Meta: 0xF703}, nil, "01 02 03"},
		{Column{Type: TypeBit, Meta: 0x0900}, nil, "00"},
		{Column{Type: TypeJSON, Meta: 4}, nil, "02 00 00 00 04 09"},
		{Column{Type: 200}, nil, "00"},
		// Values that do not fit the GMS type.
		{Column{Type: TypeDate}, types.Date, "00 D0 0F"}, // day 0
		{Column{Type: TypeDate}, types.Date, "3E D0 0F"}, // Jan 30 ok? (30) -> valid; see below
		{Column{Type: TypeString, Meta: 0xF701}, types.MustCreateEnumType([]string{"a"}, sql.Collation_Default), "02"},
		{Column{Type: TypeString, Meta: 0xF801}, types.MustCreateSetType([]string{"a"}, sql.Collation_Default), "02"},
		{Column{Type: TypeBit, Meta: 0x0101}, types.MustCreateBitType(1), "01 00"},
		{Column{Type: TypeTime2}, types.Time, "FF FF FF"},
		{Column{Type: TypeLong}, types.Int8, "00 01 00 00"},
		{Column{Type: TypeLongLong, Unsigned: true}, types.Int64, "FF FF FF FF FF FF FF FF"},
	}
	for i, tc := range cases {
		if i == 20 {
			// Sanity: Jan 30 is a valid date and decodes fine.
			if _, _, err := DecodeValue(unhex(t, tc.hex), tc.c, tc.typ); err != nil {
				t.Errorf("valid date rejected: %v", err)
			}
			continue
		}
		v, _, err := DecodeValue(unhex(t, tc.hex), tc.c, tc.typ)
		if err == nil {
			t.Errorf("case %d %s % s: decoded %#v, want error", i, tc.c, tc.hex, v)
		} else if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) {
			t.Errorf("case %d: error %v wraps neither ErrCorrupt nor ErrUnsupported", i, err)
		}
	}
	// February 30th is not a date GMS can hold.
	feb30 := uint32(30) | 2<<5 | 2024<<9
	if _, _, err := DecodeValue([]byte{byte(feb30), byte(feb30 >> 8), byte(feb30 >> 16)}, Column{Type: TypeDate}, types.Date); err == nil {
		t.Error("2024-02-30 accepted")
	}
	if _, _, err := DecodeRowImage([]byte{}, []Column{{Type: TypeLong}}, nil, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("empty row image: %v", err)
	}
	if _, _, err := DecodeRowImage([]byte{0}, []Column{{Type: TypeLong}}, nil, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated row image: %v", err)
	}
	if _, _, err := DecodeRowImage([]byte{0}, []Column{{Type: TypeLong}}, []sql.Type{}, nil); err == nil {
		t.Error("types/columns mismatch accepted")
	}
}

// A replica whose column type differs from the logged one gets the value
// converted to its own type.
func TestDecodeIntoOtherType(t *testing.T) {
	b, _ := AppendValue(nil, Column{Type: TypeLong}, int32(42))
	v, _, err := DecodeValue(b, Column{Type: TypeLong}, types.Int64)
	if err != nil || v != int64(42) {
		t.Errorf("INT into BIGINT: %#v %v", v, err)
	}
	v, _, err = DecodeValue(b, Column{Type: TypeLong}, types.Float64)
	if err != nil || v != float64(42) {
		t.Errorf("INT into DOUBLE: %#v %v", v, err)
	}
	b, _ = AppendValue(nil, Column{Type: TypeNewDecimal, Meta: 5<<8 | 2}, decimal.RequireFromString("1.25"))
	v, _, err = DecodeValue(b, Column{Type: TypeNewDecimal, Meta: 5<<8 | 2}, types.MustCreateColumnDecimalType(6, 1))
	if err != nil || v.(decimal.Decimal).String() != "1.3" {
		t.Errorf("DECIMAL(5,2) into DECIMAL(6,1): %#v %v", v, err)
	}
	ts := time.Date(2024, 1, 2, 3, 4, 5, 600000000, time.UTC)
	b, _ = AppendValue(nil, Column{Type: TypeDatetime2, Meta: 1}, ts)
	v, _, err = DecodeValue(b, Column{Type: TypeDatetime2, Meta: 1}, types.Datetime)
	if err != nil || !v.(time.Time).Equal(time.Date(2024, 1, 2, 3, 4, 6, 0, time.UTC)) {
		t.Errorf("DATETIME(1) into DATETIME: %v %v", v, err)
	}
	v, _, err = DecodeValue(b, Column{Type: TypeDatetime2, Meta: 1}, types.Date)
	if err != nil || !v.(time.Time).Equal(time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("DATETIME(1) into DATE: %v %v", v, err)
	}
	b, _ = AppendValue(nil, Column{Type: TypeVarchar, Meta: 10}, "hi")
	v, _, err = DecodeValue(b, Column{Type: TypeVarchar, Meta: 10}, types.Text)
	if err != nil || v != "hi" {
		t.Errorf("VARCHAR into TEXT: %#v %v", v, err)
	}
}

func TestJSON(t *testing.T) {
	docs := []string{
		`null`, `true`, `false`, `0`, `-1`, `32767`, `-32768`, `32768`, `65535`, `65536`,
		`2147483647`, `-2147483648`, `2147483648`, `9223372036854775807`, `-9223372036854775808`,
		`1.5`, `-0.0`, `1e300`, `"string"`, `""`, `"ünïcödé \" \\ \n"`,
		`[]`, `{}`, `[1, "a", null, true, [2, [3, {}]]]`,
		`{"b": 1, "a": 2, "aa": [1, 2], "": {"x": null}}`,
		`{"k": {"k": {"k": {"k": [1.25, -7, "z"]}}}}`,
	}
	for _, text := range docs {
		v, _, err := types.JSON.Convert(convCtx, text)
		if err != nil {
			t.Fatal(err)
		}
		doc := v.(types.JSONDocument)
		b, err := EncodeJSON(doc.Val)
		if err != nil {
			t.Fatalf("EncodeJSON(%s): %v", text, err)
		}
		back, err := DecodeJSON(b)
		if err != nil {
			t.Fatalf("DecodeJSON(%s): %v", text, err)
		}
		if cmp, err := types.JSON.Compare(convCtx, types.JSONDocument{Val: back}, doc); err != nil || cmp != 0 {
			t.Errorf("%s: round trip gave %#v", text, back)
		}
	}

	// Go integer types keep their exact values (no float64 detour).
	for _, v := range []any{int64(math.MaxInt64), int64(math.MinInt64), uint64(math.MaxUint64), int8(-3), uint32(70000)} {
		b, err := EncodeJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		back, _ := DecodeJSON(b)
		if AppendJSONText(nil, back) == nil || string(AppendJSONText(nil, back)) != string(AppendJSONText(nil, v)) {
			t.Errorf("%T %v came back as %#v", v, v, back)
		}
	}

	// Types MySQL picks for numbers, as seen by the first byte.
	typeOf := func(v any) byte {
		b, err := EncodeJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		return b[0]
	}
	for _, tc := range []struct {
		v    any
		want byte
	}{
		{float64(1), jsonInt16}, {float64(-40000), jsonInt32}, {float64(1 << 40), jsonInt64},
		{float64(1 << 63), jsonUint64}, {1.5, jsonDouble}, {math.Copysign(0, -1), jsonDouble},
		{uint16(1), jsonUint16}, {uint64(1 << 32), jsonUint64}, {int32(1 << 20), jsonInt32},
		{decimal.RequireFromString("1.50"), jsonOpaque}, {"s", jsonString}, {nil, jsonLiteral},
		{[]any{}, jsonSmallArray}, {map[string]any{}, jsonSmallObject},
	} {
		if got := typeOf(tc.v); got != tc.want {
			t.Errorf("EncodeJSON(%#v) type %#x, want %#x", tc.v, got, tc.want)
		}
	}

	// Decimals are opaque NEWDECIMAL values and come back as decimals.
	b, _ := EncodeJSON(map[string]any{"d": decimal.RequireFromString("-12.340")})
	back, err := DecodeJSON(b)
	if err != nil || back.(map[string]any)["d"].(decimal.Decimal).String() != "-12.34" {
		t.Errorf("decimal in JSON: %#v %v", back, err)
	}
	if s := string(AppendJSONText(nil, back)); s != `{"d": -12.340}` {
		t.Errorf("decimal JSON text %s", s)
	}

	// Key order: by length, then bytes (MySQL's order).
	b, _ = EncodeJSON(map[string]any{"bb": 1, "a": 2, "c": 3, "aaa": 4})
	if s := string(AppendJSONText(nil, mustDecodeJSON(t, b))); s != `{"a": 2, "c": 3, "bb": 1, "aaa": 4}` {
		t.Errorf("key order: %s", s)
	}
	if i := bytes.Index(b, []byte("acbbaaa")); i < 0 {
		t.Errorf("keys not stored in MySQL order: % X", b)
	}

	// Large format kicks in past 64 KiB.
	big := map[string]any{"blob": strings.Repeat("x", 70000), "n": int64(100000), "arr": []any{int64(1), int64(70000)}}
	b, err = EncodeJSON(big)
	if err != nil {
		t.Fatal(err)
	}
	if b[0] != jsonLargeObject {
		t.Errorf("large document type %#x", b[0])
	}
	back, err = DecodeJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	if cmp, _ := types.JSON.Compare(convCtx, types.JSONDocument{Val: back}, types.JSONDocument{Val: big}); cmp != 0 {
		t.Error("large document round trip")
	}
	bigArr := make([]any, 20000)
	for i := range bigArr {
		bigArr[i] = "abcd"
	}
	b, _ = EncodeJSON(bigArr)
	if b[0] != jsonLargeArray {
		t.Errorf("large array type %#x", b[0])
	}
	if back, err := DecodeJSON(b); err != nil || len(back.([]any)) != 20000 {
		t.Errorf("large array: %v", err)
	}

	// Depth limit (MySQL: 100).
	var deep any = int64(1)
	for i := 0; i < 100; i++ {
		deep = []any{deep}
	}
	if _, err := EncodeJSON(deep); err != nil {
		t.Errorf("depth 100 rejected: %v", err)
	}
	if _, err := EncodeJSON([]any{deep}); err == nil {
		t.Error("depth 101 accepted")
	}

	// Empty binary JSON is the JSON null.
	if v, err := DecodeJSON(nil); err != nil || v != nil {
		t.Errorf("empty JSON: %v %v", v, err)
	}
	// time.Time is stored as encoding/json's string, as Petrel's storage does.
	tm := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	b, _ = EncodeJSON(tm)
	if v, _ := DecodeJSON(b); v != "2024-01-02T03:04:05Z" {
		t.Errorf("time in JSON: %#v", v)
	}
	// Opaque temporal values written by MySQL decode to MySQL's text.
	packed := int64((((2024*13+1)<<5|2)<<17|3<<12|4<<6|5)<<24 | 123456)
	op := []byte{jsonOpaque, TypeDatetime, 8}
	for i := 0; i < 8; i++ {
		op = append(op, byte(packed>>(8*i)))
	}
	if v, err := DecodeJSON(op); err != nil || v != "2024-01-02 03:04:05.123456" {
		t.Errorf("opaque datetime: %#v %v", v, err)
	}
	op = []byte{jsonOpaque, TypeBlob, 2, 0xAB, 0xCD}
	if v, err := DecodeJSON(op); err != nil || v != "base64:type252:q80=" {
		t.Errorf("opaque blob: %#v %v", v, err)
	}
}

func mustDecodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	v, err := DecodeJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestJSONCorrupt(t *testing.T) {
	bad := []string{
		"0D",                         // unknown type
		"04",                         // literal without value
		"04 07",                      // bad literal
		"05 01",                      // short int16
		"0C 05 61",                   // string longer than data
		"0C 80 80 80 80 80 01",       // varlen too long
		"00 01 00 FF 00",             // size beyond data
		"00 05 00 0C 00 0B 00 01",    // header larger than size
		"02 01 00 07 00 0C 07 00",    // value offset beyond size
		"0B 00 00 00 00 00 00 F8 7F", // NaN
		"0F F6 04 05 02 00 00",       // opaque decimal with bad digits
	}
	for _, h := range bad {
		if v, err := DecodeJSON(unhex(t, h)); err == nil {
			t.Errorf("DecodeJSON(%s) = %#v, want error", h, v)
		}
	}
	// A document whose entries all point at the same sub-array: decoding
	// must stop rather than blow up exponentially.
	doc := []byte{jsonSmallArray}
	// array of 3 entries each pointing at offset 13 (itself nested).
	var arr []byte
	arr = append(arr, 3, 0, 0, 0) // count, size (patched)
	for i := 0; i < 3; i++ {
		arr = append(arr, jsonSmallArray, 4, 0) // offset 4: the container itself
	}
	arr[2] = byte(len(arr))
	doc = append(doc, arr...)
	if _, err := DecodeJSON(doc); err == nil {
		t.Error("self-referencing JSON accepted")
	}
}

// TestLegacyAndMisc covers helpers used by other packages.
func TestLegacyAndMisc(t *testing.T) {
	if DecimalSize(14, 4) != 7 || DecimalSize(65, 30) != 30 || DecimalSize(10, 0) != 5 {
		t.Error("DecimalSize")
	}
	c := Column{Type: TypeString, Meta: 0xF801}
	if c.RealType() != TypeSet || c.IsCharacter() || c.MaxLength() != 0 {
		t.Errorf("SET column helpers: %d %v %d", c.RealType(), c.IsCharacter(), c.MaxLength())
	}
	c = Column{Type: TypeString, Meta: 0xCEFC}
	if c.RealType() != TypeString || !c.IsCharacter() || c.MaxLength() != 1020 {
		t.Errorf("CHAR column helpers: %d %v %d", c.RealType(), c.IsCharacter(), c.MaxLength())
	}
	if (Column{Type: TypeBlob, Meta: 3}).MaxLength() != 1<<24-1 {
		t.Error("BLOB MaxLength")
	}
	if TypeName(TypeString, 0xF701) != "ENUM" || TypeName(TypeLong, 0) != "INT" {
		t.Error("TypeName")
	}
	for _, v := range []uint64{0, 1, 250, 251, 65535, 65536, 1<<24 - 1, 1 << 24, math.MaxUint64} {
		b := lenenc.Append(nil, v)
		got, n, err := readLenEnc(b)
		if err != nil || got != v || n != len(b) {
			t.Errorf("lenenc %d: %d %d %v", v, got, n, err)
		}
	}
}
