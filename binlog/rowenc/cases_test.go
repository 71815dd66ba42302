package rowenc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// typeCase is one column type with sample inputs (converted with the type's
// Convert before use).
type typeCase struct {
	name string
	typ  sql.Type
	// meta, when set, overrides the metadata ColumnFor picks (TIME(n): GMS
	// only has TIME(6)).
	meta   *uint16
	inputs []any
	// want is what mariadb-binlog prints for inputs[0] (interop test).
	want string
}

func manyNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("v%d", i)
	}
	return out
}

func u16(v uint16) *uint16 { return &v }

func mustType[T sql.Type](t T, err error) T {
	if err != nil {
		panic(err)
	}
	return t
}

func typeCases() []typeCase {
	utf8 := sql.Collation_utf8mb4_0900_ai_ci
	return []typeCase{
		{name: "tinyint", typ: types.Int8, inputs: []any{-5, 127, -128, 0}, want: "-5 (251)"},
		{name: "tinyint unsigned", typ: types.Uint8, inputs: []any{250, 0, 255}, want: "-6 (250)"},
		{name: "smallint", typ: types.Int16, inputs: []any{-1234, 32767, -32768}, want: "-1234 (64302)"},
		{name: "smallint unsigned", typ: types.Uint16, inputs: []any{65000, 65535}, want: "-536 (65000)"},
		{name: "mediumint", typ: types.Int24, inputs: []any{-8388608, 8388607, -1, 0}, want: "-8388608 (8388608)"},
		{name: "mediumint unsigned", typ: types.Uint24, inputs: []any{16777215, 1}, want: "-1 (16777215)"},
		{name: "int", typ: types.Int32, inputs: []any{-2147483648, 2147483647, 7}, want: "-2147483648 (2147483648)"},
		{name: "int unsigned", typ: types.Uint32, inputs: []any{uint64(4294967295), 3}, want: "-1 (4294967295)"},
		{name: "bigint", typ: types.Int64, inputs: []any{int64(-9223372036854775808), int64(9223372036854775807), 1}, want: "-9223372036854775808 (9223372036854775808)"},
		{name: "bigint unsigned", typ: types.Uint64, inputs: []any{uint64(18446744073709551615), 0}, want: "-1 (18446744073709551615)"},
		{name: "decimal(5,2)", typ: types.MustCreateColumnDecimalType(5, 2), inputs: []any{"-123.45", "999.99", "0", "1.5", "-0.01"}, want: "-123.45"},
		{name: "decimal(65,30)", typ: types.MustCreateColumnDecimalType(65, 30), inputs: []any{"12345678901234567890123456789012345.123456789012345678901234567890", "-0.000000000000000000000000000001", "-99999999999999999999999999999999999.999999999999999999999999999999"}, want: "12345678901234567890123456789012345.123456789012345678901234567890"},
		{name: "decimal(10,0)", typ: types.MustCreateColumnDecimalType(10, 0), inputs: []any{"1234567890", "-9999999999", "0"}, want: "1234567890"},
		{name: "decimal(14,4)", typ: types.MustCreateColumnDecimalType(14, 4), inputs: []any{"1234567890.1234", "-1234567890.1234"}, want: "1234567890.1234"},
		{name: "float", typ: types.Float32, inputs: []any{1.5, -3.25e10, 0, 1e-30}, want: "1.5                 "},
		{name: "double", typ: types.Float64, inputs: []any{3.141592653589793, -1e300, 0.1}, want: "3.141592653589793116"},
		{name: "char(10)", typ: types.MustCreateString(sqltypes.Char, 10, utf8), inputs: []any{"abc", "", "ñandú"}, want: "'abc'"},
		{name: "binary(4)", typ: types.MustCreateBinary(sqltypes.Binary, 4), inputs: []any{[]byte("ab"), []byte{0, 1, 0, 0}}, want: "'ab'"},
		{name: "varchar(10)", typ: types.MustCreateString(sqltypes.VarChar, 10, utf8), inputs: []any{"héllo", "", "trail  "}, want: "'héllo'"},
		{name: "varchar(300)", typ: types.MustCreateString(sqltypes.VarChar, 300, utf8), inputs: []any{"it's a \\ \"test\"\n\t\x01 ✓ 😀", string(make([]byte, 300))}, want: `'it's a \ "test"\x0a\x09\x01 ✓ 😀'`},
		{name: "varchar latin1", typ: types.MustCreateString(sqltypes.VarChar, 10, sql.Collation_latin1_swedish_ci), inputs: []any{"café"}, want: "'caf\xe9'"},
		{name: "text", typ: types.Text, inputs: []any{"some text", ""}, want: "'some text'"},
		{name: "blob", typ: types.Blob, inputs: []any{[]byte{0, 1, 0xff, '\''}, []byte{}}, want: "'\\x00\\x01\xff''"},
		{name: "mediumblob", typ: types.MediumBlob, inputs: []any{[]byte("m")}, want: "'m'"},
		{name: "longtext", typ: types.LongText, inputs: []any{"l"}, want: "'l'"},
		{name: "varbinary(20)", typ: types.MustCreateBinary(sqltypes.VarBinary, 20), inputs: []any{[]byte("bin\x00ary")}, want: "'bin\\x00ary'"},
		{name: "date", typ: types.Date, inputs: []any{"2024-01-02", "0000-00-00", "9999-12-31", "1000-01-01"}, want: "'2024:01:02'"},
		{name: "time(0)", typ: types.Time, meta: u16(0), inputs: []any{"-838:59:59", "838:59:59", "00:00:00", "-00:00:01", "12:34:56"}, want: "'-838:59:59'"},
		{name: "time(3)", typ: types.Time, meta: u16(3), inputs: []any{"12:34:56.789", "-00:00:00.001", "-01:00:00.5", "-00:00:01.01"}, want: "'12:34:56.789'"},
		{name: "time(6)", typ: types.Time, inputs: []any{"-00:00:01.000001", "838:59:59", "-838:59:59", "-00:00:00.5", "123:45:06.000789"}, want: "'-00:00:01.000001'"},
		{name: "time(1)", typ: types.Time, meta: u16(1), inputs: []any{"-00:00:00.1", "-00:00:01.9", "10:00:00.5"}, want: "'-00:00:00.1'"},
		{name: "datetime(0)", typ: types.Datetime, inputs: []any{"2024-01-02 03:04:05", "0000-00-00 00:00:00", "1000-01-01 00:00:00"}, want: "'2024-01-02 03:04:05'"},
		{name: "datetime(6)", typ: types.DatetimeMaxPrecision, inputs: []any{"9999-12-31 23:59:59.999999", "2024-01-02 03:04:05.000001"}, want: "'9999-12-31 23:59:59.999999'"},
		{name: "datetime(2)", typ: types.MustCreateDatetimeType(sqltypes.Datetime, 2), inputs: []any{"2024-02-29 12:00:00.25"}, want: "'2024-02-29 12:00:00.25'"},
		{name: "timestamp(3)", typ: types.MustCreateDatetimeType(sqltypes.Timestamp, 3), inputs: []any{"2024-01-02 03:04:05.123", "1970-01-01 00:00:01", "2038-01-19 03:14:07.999"}, want: "1704164645.123"},
		{name: "timestamp(0)", typ: types.Timestamp, inputs: []any{"2024-01-02 03:04:05", "0000-00-00 00:00:00"}, want: "1704164645"},
		{name: "year", typ: types.Year, inputs: []any{2024, 1901, 2155, 0}, want: "2024"},
		{name: "json object", typ: types.JSON, inputs: []any{`{"a": 1, "b": [true, null, "x"], "nested": {"k": -2.5}}`}},
		{name: "json array", typ: types.JSON, inputs: []any{`[1, -70000, 4294967296, 18446744073709551615, 1.25, "s", false, [], {}]`}},
		{name: "json string", typ: types.JSON, inputs: []any{`"just a string"`}},
		{name: "json number", typ: types.JSON, inputs: []any{`12345`, `-1.5e300`}},
		{name: "json literal", typ: types.JSON, inputs: []any{`null`, `true`, `false`}},
		{name: "enum", typ: types.MustCreateEnumType([]string{"a", "b", "c"}, utf8), inputs: []any{"b", "a", "c"}, want: "2"},
		{name: "set", typ: types.MustCreateSetType([]string{"a", "b", "c"}, utf8), inputs: []any{"a,c", "", "a,b,c"}, want: "b'00000101'"},
		{name: "bit(1)", typ: types.MustCreateBitType(1), inputs: []any{1, 0}, want: "b'1'"},
		{name: "bit(64)", typ: types.MustCreateBitType(64), inputs: []any{uint64(0x8000000000000001), uint64(0)}, want: "b'1000000000000000000000000000000000000000000000000000000000000001'"},
		{name: "bit(10)", typ: types.MustCreateBitType(10), inputs: []any{0x3ff, 5}, want: "b'1111111111'"},
		{name: "char(255)", typ: types.MustCreateString(sqltypes.Char, 255, utf8), inputs: []any{strings.Repeat("é", 255), "z"}},
		{name: "varchar(64)", typ: types.MustCreateString(sqltypes.VarChar, 64, utf8), inputs: []any{strings.Repeat("y", 64)}},
		{name: "tinytext", typ: types.TinyText, inputs: []any{"tiny"}},
		{name: "enum 300", typ: types.MustCreateEnumType(manyNames(300), utf8), inputs: []any{"v299", "v0"}, want: "300"},
		{name: "set 20", typ: types.MustCreateSetType(manyNames(20), utf8), inputs: []any{"v0,v19", "v1"}, want: "b'000000010000000000001000'"},
		{name: "set 64", typ: types.MustCreateSetType(manyNames(64), utf8), inputs: []any{"v63", "v0,v2"}},
		{name: "point", typ: types.PointType{}, inputs: []any{types.Point{X: 1, Y: 2}}, want: "'\\x00\\x00\\x00\\x00\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\xf0?\\x00\\x00\\x00\\x00\\x00\\x00\\x00@'"},
	}
}

func columnFor(t *testing.T, tc typeCase, nullable bool) Column {
	t.Helper()
	c, err := ColumnFor(tc.typ, nullable)
	if err != nil {
		t.Fatalf("%s: ColumnFor: %v", tc.name, err)
	}
	if tc.meta != nil {
		c.Meta = *tc.meta
	}
	return c
}

func convertInput(t *testing.T, tc typeCase, x any) any {
	t.Helper()
	v, _, err := tc.typ.Convert(convCtx, x)
	if err != nil {
		t.Fatalf("%s: Convert(%v): %v", tc.name, x, err)
	}
	v, err = sql.UnwrapAny(convCtx, v)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
