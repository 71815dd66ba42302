package keys

import (
	"bytes"
	"errors"
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

func mustKey(t testing.TB, typ sql.Type, v any) []byte {
	t.Helper()
	k, err := AppendValue(nil, typ, v)
	if err != nil {
		t.Fatalf("%s: AppendValue(%s): %v", typ, describe(v), err)
	}
	return k
}

func gmsCompare(t testing.TB, typ sql.Type, a, b any) int {
	t.Helper()
	c, err := typ.Compare(testCtx, a, b)
	if err != nil {
		t.Fatalf("%s: Compare(%s, %s): %v", typ, describe(a), describe(b), err)
	}
	return sign(c)
}

// TestKeyOrderMatchesCompare checks, per type, that the byte order of the key
// encoding agrees with GMS's typ.Compare on converted values, for random
// pairs plus all pairs of edge cases, and that encoding a raw value equals
// encoding its GMS-converted form.
func TestKeyOrderMatchesCompare(t *testing.T) {
	seed := testSeed(t)
	for _, tc := range allTypeCases() {
		if tc.noKey {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(seed))
			raws := append([]any{}, tc.edges...)
			for i := 0; i < 400; i++ {
				raws = append(raws, tc.gen(r))
			}
			vals := make([]any, len(raws))
			encs := make([][]byte, len(raws))
			for i, raw := range raws {
				vals[i] = mustConvert(t, tc.typ, raw)
				encs[i] = mustKey(t, tc.typ, raw)
				if conv := mustKey(t, tc.typ, vals[i]); !bytes.Equal(conv, encs[i]) {
					t.Fatalf("seed %d: key of raw %s (%x) != key of converted %s (%x)", seed, describe(raw), encs[i], describe(vals[i]), conv)
				}
			}
			check := func(i, j int) {
				want := gmsCompare(t, tc.typ, vals[i], vals[j])
				got := sign(bytes.Compare(encs[i], encs[j]))
				if got != want {
					t.Fatalf("seed %d: %s vs %s: Compare=%d but key order=%d (%x vs %x)",
						seed, describe(vals[i]), describe(vals[j]), want, got, encs[i], encs[j])
				}
			}
			for i := range tc.edges {
				for j := range tc.edges {
					check(i, j)
				}
			}
			for n := 0; n < 4000; n++ {
				check(r.Intn(len(vals)), r.Intn(len(vals)))
			}
			// Sorting by key must produce a sequence GMS considers ordered.
			idx := make([]int, len(vals))
			for i := range idx {
				idx[i] = i
			}
			sort.Slice(idx, func(a, b int) bool { return bytes.Compare(encs[idx[a]], encs[idx[b]]) < 0 })
			for i := 1; i < len(idx); i++ {
				check(idx[i-1], idx[i])
			}
		})
	}
}

// TestKeyEdgeCases pins down orderings and equalities that are easy to get
// wrong. Each case lists values in ascending order; values in the same inner
// group must encode identically.
func TestKeyEdgeCases(t *testing.T) {
	varchar := func(c sql.CollationID) sql.Type { return types.MustCreateString(sqltypes.VarChar, 20, c) }
	cases := []struct {
		name   string
		typ    sql.Type
		groups [][]any
	}{
		{"double zeros", types.Float64, [][]any{{-math.MaxFloat64}, {-1.0}, {-math.SmallestNonzeroFloat64}, {0.0, math.Copysign(0, -1)}, {math.SmallestNonzeroFloat64}, {1.0}, {math.MaxFloat64}}},
		{"float zeros", types.Float32, [][]any{{float32(-1)}, {float32(0), float32(math.Copysign(0, -1))}, {float32(1e-45)}, {float32(math.MaxFloat32)}}},
		{"bigint extremes", types.Int64, [][]any{{int64(math.MinInt64)}, {int64(math.MinInt64 + 1)}, {int64(-1)}, {int64(0), "0", 0.4, -0.4}, {int64(1)}, {int64(math.MaxInt64)}}},
		{"bigint unsigned extremes", types.Uint64, [][]any{{uint64(0), "0.4"}, {uint64(math.MaxInt64)}, {uint64(math.MaxInt64 + 1)}, {uint64(math.MaxUint64), "18446744073709551615"}}},
		{"tinyint rounding", types.Int8, [][]any{{int8(-128)}, {-1.5, int8(-2)}, {1.5, int8(2), "1.5", decimal.RequireFromString("1.5")}, {int8(127)}}},
		{"decimal", types.MustCreateColumnDecimalType(65, 30), [][]any{
			{"-100"}, {"-99.99"}, {"-10"}, {"-1.000000000000000000000000000001"}, {"-1"}, {"-0.123"}, {"-0.12"}, {"-0.000000000000000000000000000001"},
			{"0", "-0", "0.000"},
			{"0.000000000000000000000000000001"}, {"0.12"}, {"0.123"}, {"1", "1.0", "1.000000000000000000000000000000"}, {"1.000000000000000000000000000001"},
			{"9.99"}, {"10"}, {"12345678901234567890123456789012345.123456789012345678901234567890"}, {"99999999999999999999999999999999999.999999999999999999999999999999"},
		}},
		{"decimal scales", types.InternalDecimalType, [][]any{{decimal.New(-15, -1), decimal.New(-150, -2)}, {decimal.New(15, -1), decimal.New(150, -2), decimal.New(1500, -3)}, {decimal.New(15, 0), decimal.New(1500, -2)}, {decimal.New(1, 40)}}},
		{"utf8mb4_0900_ai_ci case", varchar(sql.Collation_utf8mb4_0900_ai_ci), [][]any{{""}, {" "}, {"a", "A"}, {"a ", "A "}, {"ab", "AB", "aB"}, {"b"}}},
		{"utf8mb4_0900_ai_ci accents", varchar(sql.Collation_utf8mb4_0900_ai_ci), [][]any{{"e", "é", "E", "É"}, {"ea"}, {"f"}}},
		{"utf8mb4_general_ci", varchar(sql.Collation_utf8mb4_general_ci), [][]any{{""}, {" "}, {"a", "A"}, {"a ", "A "}, {"ab", "Ab"}, {"b", "B"}}},
		{"utf8mb4_bin", varchar(sql.Collation_utf8mb4_bin), [][]any{{""}, {"\x00"}, {" "}, {"A"}, {"B"}, {"a"}, {"a "}, {"b"}, {"é"}}},
		{"char trailing spaces", types.MustCreateString(sqltypes.Char, 10, sql.Collation_utf8mb4_0900_ai_ci), [][]any{{""}, {"x"}, {"x "}, {"x  "}}},
		{"blob zero bytes", types.Blob, [][]any{{[]byte{}}, {[]byte{0}}, {[]byte{0, 0}}, {[]byte{0, 1}}, {[]byte{0, 0xFF}}, {[]byte{1}}, {[]byte("a")}, {[]byte("a\x00")}, {[]byte("a\x00\x00")}, {[]byte("a\x01")}, {[]byte{0xFF}}, {[]byte{0xFF, 0}}}},
		{"datetime(6)", types.DatetimeMaxPrecision, [][]any{{"0000-00-00 00:00:00"}, {"1969-12-31 23:59:59.999999"}, {"1970-01-01 00:00:00"}, {"1970-01-01 00:00:00.000001"}, {"9999-12-31 23:59:59.999999"}}},
		{"date truncation", types.Date, [][]any{{"2020-01-01", "2020-01-01 23:59:59"}, {"2020-01-02"}}},
		{"time", types.Time, [][]any{{"-838:59:59"}, {"-00:00:00.000001"}, {"00:00:00"}, {"00:00:00.000001"}, {"838:59:59"}}},
		{"enum by index", types.MustCreateEnumType([]string{"z", "a"}, sql.Collation_utf8mb4_0900_ai_ci), [][]any{{uint16(0)}, {"z", uint16(1)}, {"a", "A"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var prev []byte
			var prevVal any
			for gi, g := range tc.groups {
				first := mustKey(t, tc.typ, g[0])
				for _, v := range g[1:] {
					if k := mustKey(t, tc.typ, v); !bytes.Equal(k, first) {
						t.Errorf("%s and %s should encode equally: %x vs %x", describe(g[0]), describe(v), first, k)
					}
					if c := gmsCompare(t, tc.typ, mustConvert(t, tc.typ, g[0]), mustConvert(t, tc.typ, v)); c != 0 {
						t.Errorf("test bug: GMS says %s != %s", describe(g[0]), describe(v))
					}
				}
				if gi > 0 {
					if bytes.Compare(prev, first) >= 0 {
						t.Errorf("%s should sort before %s: %x vs %x", describe(prevVal), describe(g[0]), prev, first)
					}
					if c := gmsCompare(t, tc.typ, mustConvert(t, tc.typ, prevVal), mustConvert(t, tc.typ, g[0])); c >= 0 {
						t.Errorf("test bug: GMS says %s >= %s", describe(prevVal), describe(g[0]))
					}
				}
				prev, prevVal = first, g[0]
			}
		})
	}
}

func TestKeyNullSortsFirst(t *testing.T) {
	for _, tc := range allTypeCases() {
		if tc.noKey {
			continue
		}
		null := mustKey(t, tc.typ, nil)
		if !bytes.Equal(null, []byte{0x00}) {
			t.Fatalf("%s: NULL encodes as %x", tc.name, null)
		}
		for _, e := range tc.edges {
			if k := mustKey(t, tc.typ, e); k[0] != 0x01 || bytes.Compare(null, k) >= 0 {
				t.Errorf("%s: NULL must sort before %s (%x)", tc.name, describe(e), k)
			}
		}
	}
	// Empty string and NULL are different keys.
	if bytes.Equal(mustKey(t, types.Text, ""), mustKey(t, types.Text, nil)) {
		t.Error("empty string and NULL encode equally")
	}
}

func TestKeyErrors(t *testing.T) {
	cases := []struct {
		typ  sql.Type
		v    any
		want error
	}{
		{types.Int8, 128, ErrOutOfRange},
		{types.Int8, int64(-129), ErrOutOfRange},
		{types.Int8, 127.5, ErrOutOfRange},        // rounds to 128
		{types.Uint8, uint64(300), ErrOutOfRange}, // GMS's Convert would silently wrap this
		{types.Uint32, int64(-1), ErrOutOfRange},
		{types.Uint64, -1.0, ErrOutOfRange},
		{types.Int64, uint64(math.MaxUint64), ErrOutOfRange},
		{types.Int64, 1e19, ErrOutOfRange},
		{types.Int64, "9223372036854775808", ErrOutOfRange},
		{types.Int32, "abc", ErrInvalidValue},
		{types.Int32, math.NaN(), ErrInvalidValue},
		{types.Float64, math.Inf(1), ErrOutOfRange},
		{types.Float32, 1e39, ErrOutOfRange},
		{types.Float64, "x", ErrInvalidValue},
		{types.MustCreateColumnDecimalType(5, 2), "1000", ErrOutOfRange},
		{types.MustCreateString(sqltypes.VarChar, 3, sql.Collation_Default), "abcd", ErrOutOfRange},
		{types.MustCreateString(sqltypes.VarChar, 3, sql.Collation_Default), "\xff", ErrInvalidValue},
		{types.MustCreateBinary(sqltypes.Binary, 2), []byte("abc"), ErrOutOfRange},
		{types.Datetime, "10000-01-01", ErrInvalidValue},
		{types.Timestamp, "1960-01-01", ErrOutOfRange},
		{types.Year, 1800, ErrInvalidValue},
		{types.MustCreateEnumType([]string{"a"}, sql.Collation_Default), "b", ErrInvalidValue},
		{types.MustCreateBitType(3), uint64(8), ErrInvalidValue},
		{types.JSON, `{}`, ErrUnsupportedType},
		{types.PointType{}, types.Point{}, ErrUnsupportedType},
		{types.Null, 1, ErrUnsupportedType},
	}
	for _, tc := range cases {
		dst := []byte("prefix")
		out, err := AppendValue(dst, tc.typ, tc.v)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s %s: got error %v, want %v", tc.typ, describe(tc.v), err, tc.want)
		}
		if string(out) != "prefix" {
			t.Errorf("%s %s: dst modified on error: %q", tc.typ, describe(tc.v), out)
		}
	}
}

// TestRowKeyLexicographic checks that composite keys compare column by column
// with NULLs first, using GMS's Compare per column as the oracle.
func TestRowKeyLexicographic(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewSource(seed))
	keyTypes := []sql.Type{
		types.Int32,
		types.MustCreateString(sqltypes.VarChar, 8, sql.Collation_utf8mb4_0900_ai_ci),
		types.MustCreateColumnDecimalType(6, 2),
		types.MustCreateBinary(sqltypes.VarBinary, 4),
	}
	gens := []func(*rand.Rand) any{
		func(r *rand.Rand) any { return int32(r.Intn(3) - 1) },
		genText(2),
		func(r *rand.Rand) any { return []string{"-1.5", "0", "0.01", "1.50", "1.5", "2"}[r.Intn(6)] },
		genBytes(2),
	}
	type tuple struct {
		vals []any
		key  []byte
	}
	var tuples []tuple
	for i := 0; i < 500; i++ {
		vals := make([]any, len(keyTypes))
		for c := range vals {
			if r.Intn(5) == 0 {
				continue // NULL
			}
			vals[c] = mustConvert(t, keyTypes[c], gens[c](r))
		}
		k, err := AppendRowKey([]byte{0xAB}, keyTypes, vals)
		if err != nil {
			t.Fatal(err)
		}
		tuples = append(tuples, tuple{vals, k})
	}
	cmpTuple := func(a, b []any) int {
		for c, typ := range keyTypes {
			switch {
			case a[c] == nil && b[c] == nil:
				continue
			case a[c] == nil:
				return -1
			case b[c] == nil:
				return 1
			}
			if x := gmsCompare(t, typ, a[c], b[c]); x != 0 {
				return x
			}
		}
		return 0
	}
	for n := 0; n < 20000; n++ {
		a, b := tuples[r.Intn(len(tuples))], tuples[r.Intn(len(tuples))]
		if want, got := cmpTuple(a.vals, b.vals), sign(bytes.Compare(a.key, b.key)); want != got {
			t.Fatalf("seed %d: %v vs %v: tuple compare %d, key compare %d", seed, a.vals, b.vals, want, got)
		}
	}

	// A short column value must not bleed into the next column.
	k1, _ := AppendRowKey(nil, keyTypes[1:2:2], []any{"a"})
	k1, _ = AppendValue(k1, types.Int32, int32(math.MaxInt32))
	k2, _ := AppendRowKey(nil, keyTypes[1:2:2], []any{"ab"})
	k2, _ = AppendValue(k2, types.Int32, int32(math.MinInt32))
	if bytes.Compare(k1, k2) >= 0 {
		t.Errorf("(a, max) should sort before (ab, min)")
	}

	if _, err := AppendRowKey(nil, keyTypes, []any{1}); err == nil {
		t.Error("expected error for mismatched lengths")
	}
	if out, err := AppendRowKey([]byte("p"), keyTypes[:2], []any{1, "toolongvalue"}); err == nil || string(out) != "p" {
		t.Errorf("expected error and unchanged dst, got %q, %v", out, err)
	}
}

func TestPrefixSuccessor(t *testing.T) {
	cases := []struct{ in, want []byte }{
		{nil, nil},
		{[]byte{}, nil},
		{[]byte{0xFF}, nil},
		{[]byte{0xFF, 0xFF}, nil},
		{[]byte{0x00}, []byte{0x01}},
		{[]byte{0x01, 0xFF}, []byte{0x02}},
		{[]byte{0x01, 0xFE}, []byte{0x01, 0xFF}},
		{[]byte{0x01, 0x02, 0xFF, 0xFF}, []byte{0x01, 0x03}},
	}
	for _, tc := range cases {
		in := append([]byte(nil), tc.in...)
		got := PrefixSuccessor(in)
		if !bytes.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("PrefixSuccessor(%x) = %x, want %x", tc.in, got, tc.want)
		}
		if !bytes.Equal(in, tc.in) {
			t.Errorf("PrefixSuccessor modified its input")
		}
	}
	// Every key with the prefix sorts below the successor.
	p := mustKey(t, types.Int32, int32(7))
	succ := PrefixSuccessor(p)
	for _, suffix := range [][]byte{nil, {0}, {0xFF, 0xFF, 0xFF}} {
		k := append(append([]byte(nil), p...), suffix...)
		if bytes.Compare(k, succ) >= 0 {
			t.Errorf("%x should sort before successor %x", k, succ)
		}
	}
}
