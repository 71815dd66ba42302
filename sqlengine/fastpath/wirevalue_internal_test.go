package fastpath

import (
	"context"
	"fmt"
	"math"
	"testing"

	"petrel/sqlengine"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

// TestWireValueMatchesGMS: the fast paths' own formatting gives the
// bytes, wire type and errors GMS's Type.SQL gives, for every column
// type and value it formats itself and for the ones it hands on, under
// several character_set_results.
func TestWireValueMatchesGMS(t *testing.T) {
	sqlengine.InstallResultEncoders() // as New does: latin1's ASCII pass-through
	utf8Varchar := types.MustCreateString(sqltypes.VarChar, 128, sql.Collation_utf8mb4_0900_ai_ci)
	cases := []struct {
		typ  sql.Type
		vals []any
		fast bool // formatted by wireValue itself under utf8mb4 results
	}{
		{types.Int8, []any{int8(0), int8(-128), int8(127)}, true},
		{types.Boolean, []any{int8(1), int8(0)}, true},
		{types.Int16, []any{int16(-32768), int16(32767)}, true},
		{types.Int24, []any{int32(-1 << 23), int32(1<<23 - 1)}, true},
		{types.Int32, []any{int32(math.MinInt32), int32(42), int32(math.MaxInt32)}, true},
		{types.MustCreateNumberTypeWithDisplayWidth(sqltypes.Int8, 1), []any{int8(-7)}, true},
		{types.Int64, []any{int64(math.MinInt64), int64(math.MaxInt64)}, true},
		{types.Uint8, []any{uint8(255)}, true},
		{types.Uint16, []any{uint16(65535)}, true},
		{types.Uint24, []any{uint32(1<<24 - 1)}, true},
		{types.Uint32, []any{uint32(math.MaxUint32)}, true},
		{types.Uint64, []any{uint64(math.MaxUint64)}, true},
		{utf8Varchar, []any{"", "bob", "héllo wörld ✓ 𝄞", "åäö"}, true},
		{types.MustCreateString(sqltypes.Text, 65535, sql.Collation_utf8mb4_bin), []any{"long text"}, true},
		{types.MustCreateColumnDecimalType(12, 2), decimals(2, 0, 5, -5, 1234, -1234, 100, 99999999999, -99999999999), true},
		{types.MustCreateDecimalType(12, 2), decimals(2, 0, 7, -70, 123456), true},
		{types.MustCreateColumnDecimalType(4, 4), decimals(4, 0, 1, -9999, 10), true},
		{types.MustCreateColumnDecimalType(18, 0), decimals(0, 0, -1, 999999999999999999, -999999999999999999), true},
		{types.MustCreateColumnDecimalType(18, 9), decimals(9, 123456789, -1, 999999999999999999), true},
		// Handed to GMS: out of the column's range for the Go type, other
		// Go types, types that print integers otherwise, CHAR, binary and
		// non-utf8mb4 text, invalid UTF-8.
		{types.Int24, []any{int32(1 << 23), int64(5)}, false},
		{types.Int8, []any{int64(300), int32(5)}, false},
		{types.Uint24, []any{uint32(1 << 24)}, false},
		{types.Year, []any{int16(2024)}, false},
		{types.MustCreateBitType(8), []any{uint64(5)}, false},
		{types.MustCreateEnumType([]string{"a", "b"}, sql.Collation_Default), []any{uint16(2)}, false},
		{types.MustCreateSetType([]string{"a", "b"}, sql.Collation_Default), []any{uint64(3)}, false},
		{types.Float64, []any{float64(-1.5)}, false},
		// DECIMALs of another scale than the column's, past 18 digits, or
		// of other Go types.
		{types.MustCreateColumnDecimalType(12, 2), append(decimals(3, 12345, -5), decimals(0, 7)...), false},
		{types.MustCreateColumnDecimalType(30, 2), decimals(2, 12345), false},
		{types.MustCreateColumnDecimalType(12, 2), []any{int64(5), "1.5", float64(2.25)}, false},
		{types.MustCreateString(sqltypes.Char, 10, sql.Collation_utf8mb4_0900_ai_ci), []any{"ab"}, false},
		{types.MustCreateString(sqltypes.VarChar, 10, sql.Collation_latin1_swedish_ci), []any{"åäö"}, false},
		{types.MustCreateString(sqltypes.VarChar, 10, sql.Collation_utf8mb3_general_ci), []any{"abc"}, false},
		{types.MustCreateBinary(sqltypes.Binary, 4), []any{"ab"}, false},
		{types.MustCreateBinary(sqltypes.VarBinary, 4), []any{"ab"}, false},
		{utf8Varchar, []any{"bad \xff utf8", []byte("bytes")}, false},
	}
	for _, results := range []sql.CharacterSetID{sql.CharacterSet_utf8mb4, sql.CharacterSet_latin1, sql.CharacterSet_binary, sql.CharacterSet_utf8mb3} {
		ctx := sql.NewContext(context.Background(), sql.WithSession(sql.NewBaseSession()))
		if err := ctx.SetSessionVariable(ctx, "character_set_results", results.String()); err != nil {
			t.Fatal(err)
		}
		if got := ctx.GetCharacterSetResults(); got != results {
			t.Fatalf("session character_set_results = %v, want %v", got, results)
		}
		for _, c := range cases {
			for _, v := range c.vals {
				name := fmt.Sprintf("%s/%s/%T(%v)", results, c.typ, v, v)
				want, wantErr := c.typ.SQL(ctx, nil, v)
				dest := make([]byte, 0, 64)
				got, gotErr := wireValue(ctx, c.typ, results, dest, v)
				if (wantErr != nil) != (gotErr != nil) {
					t.Errorf("%s: error %v, GMS's %v", name, gotErr, wantErr)
					continue
				}
				if wantErr != nil {
					continue
				}
				if got.Type() != want.Type() || string(got.Raw()) != string(want.Raw()) {
					t.Errorf("%s: %v %q, GMS's %v %q", name, got.Type(), got.Raw(), want.Type(), want.Raw())
				}
				// Formatted here: the bytes land in dest's spare capacity
				// (for a latin1 client, ASCII text too).
				s, isText := v.(string)
				here := c.fast && (results == sql.CharacterSet_utf8mb4 || !isText || (results == sql.CharacterSet_latin1 && sqlengine.IsASCIIText(s)))
				if here && len(got.Raw()) > 0 && &got.Raw()[0] != &dest[:1][0] {
					t.Errorf("%s: not written into dest", name)
				}
			}
		}
	}
}

// decimals are DECIMAL values of coefficients cs at scale.
func decimals(scale int32, cs ...int64) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		out[i] = decimal.New(c, -scale)
	}
	return out
}

// TestWireValueDecimalNoAlloc: a stored DECIMAL at its column's scale is
// formatted into dest without allocating (GMS's Type.SQL parses and
// prints it through big.Int).
func TestWireValueDecimalNoAlloc(t *testing.T) {
	ctx := sql.NewContext(context.Background(), sql.WithSession(sql.NewBaseSession()))
	typ := types.MustCreateColumnDecimalType(12, 2)
	var v any = decimal.New(-123456, -2) // as a row holds it
	dest := make([]byte, 0, 64)
	var got sqltypes.Value
	allocs := testing.AllocsPerRun(100, func() {
		got, _ = wireValue(ctx, typ, sql.CharacterSet_utf8mb4, dest, v)
	})
	if string(got.Raw()) != "-1234.56" || allocs != 0 {
		t.Fatalf("wireValue(DECIMAL(12,2) -1234.56) = %q with %v allocations, want \"-1234.56\" with 0", got.Raw(), allocs)
	}
}

func BenchmarkWireValue(b *testing.B) {
	ctx := sql.NewContext(context.Background(), sql.WithSession(sql.NewBaseSession()))
	vc := types.MustCreateString(sqltypes.VarChar, 128, sql.Collation_utf8mb4_0900_ai_ci)
	dest := make([]byte, 0, 256)
	s := "mysqlslap-like text value of some length, ascii only...."
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			_, _ = wireValue(ctx, types.Int32, sql.CharacterSet_utf8mb4, dest, int32(123456))
			_, _ = wireValue(ctx, vc, sql.CharacterSet_utf8mb4, dest, s)
		}
	})
	b.Run("gms", func(b *testing.B) {
		for b.Loop() {
			_, _ = types.Int32.SQL(ctx, dest, int32(123456))
			_, _ = vc.SQL(ctx, dest, s)
		}
	})
	dt := types.MustCreateColumnDecimalType(12, 2)
	var dv any = decimal.New(-123456, -2)
	b.Run("decimal/fast", func(b *testing.B) {
		for b.Loop() {
			_, _ = wireValue(ctx, dt, sql.CharacterSet_utf8mb4, dest, dv)
		}
	})
	b.Run("decimal/gms", func(b *testing.B) {
		for b.Loop() {
			_, _ = dt.SQL(ctx, dest, dv)
		}
	})
}

// TestIsASCIIText: a byte of 0x80 or above at any offset (strings of 0
// to 70 bytes), in the
// eight-byte words or the tail, makes a string not ASCII.
func TestIsASCIIText(t *testing.T) {
	for n := 0; n <= 70; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + i%26)
		}
		if !sqlengine.IsASCIIText(string(b)) {
			t.Fatalf("%q: not ASCII", b)
		}
		for i := range b {
			for _, hi := range []byte{0x80, 0xc3, 0xff} {
				c := append([]byte(nil), b...)
				c[i] = hi
				if sqlengine.IsASCIIText(string(c)) {
					t.Fatalf("%q (0x%x at %d of %d): ASCII", c, hi, i, n)
				}
			}
		}
	}
}

func BenchmarkIsASCIIText(b *testing.B) {
	s := "mxvtvmC9127qJNm06sGB8R92q2j7vTiiITRDGXM9ZLzkdekbWtmXKwZ2qG1llkRw5m9DHOFilEREk3q7oce8O3BEJC0woJsm6uzFAEynLH2xCsw1KQ1lT4zg9rdxBL"
	for i := 0; i < b.N; i++ {
		if !sqlengine.IsASCIIText(s) {
			b.Fatal("not ASCII")
		}
	}
}
