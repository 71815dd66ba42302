package keys

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

var testCtx = sql.NewEmptyContext()

// typeCase describes one column type for the table-driven tests: gen produces
// raw (possibly unconverted) values, edges lists interesting raw values.
type typeCase struct {
	name  string
	typ   sql.Type
	gen   func(r *rand.Rand) any
	edges []any
	// noKey marks types that cannot be index keys (JSON, spatial).
	noKey bool
}

// testSeed returns the seed for randomised tests: $KEYS_SEED if set, else the
// clock. It is logged so a failure can be reproduced.
func testSeed(t testing.TB) int64 {
	seed := time.Now().UnixNano()
	if s := os.Getenv("KEYS_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("bad KEYS_SEED: %v", err)
		}
	}
	t.Logf("seed=%d (rerun with KEYS_SEED=%d)", seed, seed)
	return seed
}

// genSigned returns a random integer in [min, max] in a random Go
// representation, biased towards the edges and small values.
func genSigned(min, max int64) func(r *rand.Rand) any {
	return func(r *rand.Rand) any {
		var v int64
		switch r.Intn(4) {
		case 0:
			v = []int64{min, max, 0, -1, 1, min + 1, max - 1}[r.Intn(7)]
			if v < min || v > max {
				v = 0
			}
		case 1:
			v = int64(r.Intn(21)) - 10
			if v < min || v > max {
				v = 0
			}
		default:
			// Uniform over [min, max] without overflow.
			if span := uint64(max - min); span == math.MaxUint64 {
				v = int64(r.Uint64())
			} else {
				v = min + int64(r.Uint64()%(span+1))
			}
		}
		return asRandomGoType(r, v)
	}
}

func asRandomGoType(r *rand.Rand, v int64) any {
	switch r.Intn(6) {
	case 0:
		return strconv.FormatInt(v, 10)
	case 1:
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return int32(v)
		}
	case 2:
		if v > -1<<52 && v < 1<<52 {
			return float64(v)
		}
	case 3:
		return decimal.NewFromInt(v)
	case 4:
		return int(v)
	}
	return v
}

func genUnsigned(max uint64) func(r *rand.Rand) any {
	return func(r *rand.Rand) any {
		var v uint64
		switch r.Intn(4) {
		case 0:
			v = []uint64{0, 1, max, max - 1}[r.Intn(4)]
		case 1:
			v = uint64(r.Intn(10))
		default:
			v = r.Uint64()
			if max != math.MaxUint64 {
				v %= max + 1
			}
		}
		switch r.Intn(4) {
		case 0:
			return strconv.FormatUint(v, 10)
		case 1:
			if v <= math.MaxInt64 {
				return int64(v)
			}
		case 2:
			// GMS converts decimals to unsigned via float64, so only
			// exactly representable values agree with it.
			if v < 1<<53 {
				return decimal.NewFromBigInt(new(big.Int).SetUint64(v), 0)
			}
		}
		return v
	}
}

func genFloat(is32 bool) func(r *rand.Rand) any {
	return func(r *rand.Rand) any {
		var f float64
		switch r.Intn(5) {
		case 0:
			f = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, math.SmallestNonzeroFloat64,
				-math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, math.MaxFloat32, -math.MaxFloat32}[r.Intn(12)]
		case 1:
			f = float64(r.Intn(11) - 5)
		case 2:
			f = r.NormFloat64() * math.Pow(10, float64(r.Intn(40)-20))
		default:
			for {
				f = math.Float64frombits(r.Uint64())
				if !math.IsNaN(f) && !math.IsInf(f, 0) {
					break
				}
			}
		}
		if is32 {
			if math.Abs(f) > math.MaxFloat32 {
				f = math.Copysign(math.MaxFloat32, f)
			}
			return float32(f)
		}
		if r.Intn(5) == 0 {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return f
	}
}

// genDecimal produces decimal strings with up to precision digits, scale
// digits after the point.
func genDecimal(precision, scale int) func(r *rand.Rand) any {
	return func(r *rand.Rand) any {
		intDigits := precision - scale
		var sb strings.Builder
		if r.Intn(2) == 0 {
			sb.WriteByte('-')
		}
		n := r.Intn(intDigits + 1)
		if r.Intn(4) == 0 {
			n = intDigits
		}
		if n == 0 {
			sb.WriteByte('0')
		}
		for i := 0; i < n; i++ {
			sb.WriteByte(byte('0' + r.Intn(10)))
		}
		if scale > 0 {
			sb.WriteByte('.')
			f := r.Intn(scale + 1)
			if f == 0 {
				f = 1
			}
			for i := 0; i < f; i++ {
				// Runs of zeros and nines exercise normalisation and carries.
				switch r.Intn(4) {
				case 0:
					sb.WriteByte('0')
				case 1:
					sb.WriteByte('9')
				default:
					sb.WriteByte(byte('0' + r.Intn(10)))
				}
			}
		}
		if r.Intn(3) == 0 {
			return decimal.RequireFromString(sb.String())
		}
		return sb.String()
	}
}

// Alphabet with case pairs, accents, spaces, a NUL, multi-byte and astral
// runes and characters collations treat specially.
var textAlphabet = []rune{'a', 'A', 'b', 'B', 'z', 'e', 'é', 'É', 'è', ' ', '\t', 0, '0', '9', 'ß', 's', 'S', '中', '😀', '_', '-', 'ÿ', '~'}

func genText(maxChars int) func(r *rand.Rand) any {
	return func(r *rand.Rand) any {
		n := r.Intn(maxChars + 1)
		if n > 6 && r.Intn(2) == 0 {
			n = r.Intn(6)
		}
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = textAlphabet[r.Intn(len(textAlphabet))]
		}
		return string(rs)
	}
}

// genLatin1Text keeps to runes latin1 can represent.
func genLatin1Text(maxChars int) func(r *rand.Rand) any {
	alpha := []rune{'a', 'A', 'b', 'B', 'e', 'é', 'É', ' ', '0', 'ß', 's', 'ÿ', '~'}
	return func(r *rand.Rand) any {
		rs := make([]rune, r.Intn(maxChars+1))
		for i := range rs {
			rs[i] = alpha[r.Intn(len(alpha))]
		}
		return string(rs)
	}
}

func genBytes(maxLen int) func(r *rand.Rand) any {
	alpha := []byte{0x00, 0x01, 0xFF, 0xFE, 'a', 'A', ' '}
	return func(r *rand.Rand) any {
		b := make([]byte, r.Intn(maxLen+1))
		for i := range b {
			b[i] = alpha[r.Intn(len(alpha))]
		}
		if r.Intn(4) == 0 {
			return string(b)
		}
		return b
	}
}

func genDatetime(min, max time.Time) func(r *rand.Rand) any {
	lo, hi := min.UnixMicro(), max.UnixMicro()
	return func(r *rand.Rand) any {
		var us int64
		switch r.Intn(4) {
		case 0:
			us = []int64{lo, hi, 0, lo + 1, hi - 1}[r.Intn(5)]
			if us < lo || us > hi {
				us = lo
			}
		case 1:
			// Close together, to exercise sub-second ordering.
			us = 1700000000000000 + int64(r.Intn(3000000))
		default:
			us = lo + r.Int63n(hi-lo+1)
		}
		t := time.UnixMicro(us).UTC()
		if r.Intn(3) == 0 {
			return t.Format("2006-01-02 15:04:05.999999")
		}
		return t
	}
}

func genTimespan(r *rand.Rand) any {
	switch r.Intn(4) {
	case 0:
		return types.Timespan([]int64{-maxTimespan, maxTimespan, 0, -1, 1}[r.Intn(5)])
	case 1:
		return "-12:34:56.789"
	}
	return types.Timespan(r.Int63n(2*maxTimespan+1) - maxTimespan)
}

func genYear(r *rand.Rand) any {
	switch r.Intn(4) {
	case 0:
		return int16(0)
	case 1:
		return strconv.Itoa(1901 + r.Intn(255))
	}
	return int16(1901 + r.Intn(255))
}

var enumValues = []string{"small", "medium", "large", "x-large"}

func genEnum(r *rand.Rand) any {
	if r.Intn(2) == 0 {
		return enumValues[r.Intn(len(enumValues))]
	}
	return uint16(r.Intn(len(enumValues) + 1))
}

var setValues = []string{"a", "b", "c", "d", "e"}

func genSet(r *rand.Rand) any {
	return uint64(r.Intn(1 << len(setValues)))
}

func genBit(bits uint) func(r *rand.Rand) any {
	return func(r *rand.Rand) any {
		if bits == 64 {
			return r.Uint64()
		}
		return r.Uint64() & (1<<bits - 1)
	}
}

var jsonDocs = []string{`null`, `1`, `-2.5`, `1e300`, `"str"`, `"qu\"ote\\ \u0000 \n é 😀"`, `true`, `[]`, `{}`,
	`[1, "a", null, [true, {"k": 3}]]`, `{"b": 1, "a": [1, 2], "\"odd key\"": {"x": null}}`, `123456789012`}

func genJSON(r *rand.Rand) any {
	return jsonDocs[r.Intn(len(jsonDocs))]
}

func genPoint(r *rand.Rand) any {
	return types.Point{SRID: 0, X: r.NormFloat64() * 100, Y: r.NormFloat64() * 100}
}

// allTypeCases lists every supported column type with generators.
func allTypeCases() []typeCase {
	minDT := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	maxDT := time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
	minTS := time.Unix(1, 0).UTC()
	maxTS := time.Unix(math.MaxInt32, 999999000).UTC()
	ci := func(c sql.CollationID, n int64) sql.Type { return types.MustCreateString(sqltypes.VarChar, n, c) }
	return []typeCase{
		{name: "tinyint", typ: types.Int8, gen: genSigned(math.MinInt8, math.MaxInt8), edges: []any{int8(math.MinInt8), int8(math.MaxInt8), int8(0), int64(-1)}},
		{name: "boolean", typ: types.Boolean, gen: genSigned(0, 1), edges: []any{true, false}},
		{name: "tinyint unsigned", typ: types.Uint8, gen: genUnsigned(math.MaxUint8), edges: []any{uint8(0), uint8(math.MaxUint8)}},
		{name: "smallint", typ: types.Int16, gen: genSigned(math.MinInt16, math.MaxInt16), edges: []any{int16(math.MinInt16), int16(math.MaxInt16)}},
		{name: "smallint unsigned", typ: types.Uint16, gen: genUnsigned(math.MaxUint16), edges: []any{uint16(0), uint16(math.MaxUint16)}},
		{name: "mediumint", typ: types.Int24, gen: genSigned(-1<<23, 1<<23-1), edges: []any{int32(-1 << 23), int32(1<<23 - 1)}},
		{name: "mediumint unsigned", typ: types.Uint24, gen: genUnsigned(1<<24 - 1), edges: []any{uint32(0), uint32(1<<24 - 1)}},
		{name: "int", typ: types.Int32, gen: genSigned(math.MinInt32, math.MaxInt32), edges: []any{int32(math.MinInt32), int32(math.MaxInt32)}},
		{name: "int unsigned", typ: types.Uint32, gen: genUnsigned(math.MaxUint32), edges: []any{uint32(0), uint32(math.MaxUint32)}},
		{name: "bigint", typ: types.Int64, gen: genSigned(math.MinInt64, math.MaxInt64), edges: []any{int64(math.MinInt64), int64(math.MaxInt64), int64(0), int64(-1), int64(1)}},
		{name: "bigint unsigned", typ: types.Uint64, gen: genUnsigned(math.MaxUint64), edges: []any{uint64(0), uint64(math.MaxUint64), uint64(math.MaxInt64), uint64(math.MaxInt64 + 1)}},
		{name: "float", typ: types.Float32, gen: genFloat(true), edges: []any{float32(0), float32(math.Copysign(0, -1)), float32(math.MaxFloat32), float32(-math.MaxFloat32), float32(math.SmallestNonzeroFloat32)}},
		{name: "double", typ: types.Float64, gen: genFloat(false), edges: []any{0.0, math.Copysign(0, -1), math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64}},
		{name: "decimal(10,2)", typ: types.MustCreateColumnDecimalType(10, 2), gen: genDecimal(10, 2), edges: []any{"0", "-0.00", "99999999.99", "-99999999.99", "0.01", "-0.01", "1.5", "1.50"}},
		{name: "decimal(65,30)", typ: types.MustCreateColumnDecimalType(65, 30), gen: genDecimal(65, 30),
			edges: []any{"99999999999999999999999999999999999.999999999999999999999999999999", "-99999999999999999999999999999999999.999999999999999999999999999999",
				"0.000000000000000000000000000001", "-0.000000000000000000000000000001", "12345678901234567890.123456789012345678901234567890"}},
		{name: "decimal(65,0)", typ: types.MustCreateColumnDecimalType(65, 0), gen: genDecimal(65, 0), edges: []any{"10", "100", "1000", "-10", "-100", strings.Repeat("9", 65)}},
		{name: "decimal internal", typ: types.InternalDecimalType, gen: genDecimal(35, 30), edges: []any{decimal.New(15, -1), decimal.New(150, -2), decimal.New(1, 20), decimal.New(-1, -25)}},
		{name: "varchar utf8mb4_0900_ai_ci", typ: ci(sql.Collation_utf8mb4_0900_ai_ci, 12), gen: genText(12), edges: []any{"", " ", "a", "A", "a ", "ä", "\x00", "中"}},
		{name: "varchar utf8mb4_general_ci", typ: ci(sql.Collation_utf8mb4_general_ci, 12), gen: genText(12), edges: []any{"", " ", "a", "A", "a ", "ß", "ss", "😀"}},
		{name: "varchar utf8mb4_bin", typ: ci(sql.Collation_utf8mb4_bin, 12), gen: genText(12), edges: []any{"", " ", "a", "A", "a ", "a\x00"}},
		{name: "varchar utf8mb4_0900_bin", typ: ci(sql.Collation_utf8mb4_0900_bin, 12), gen: genText(12), edges: []any{"", "a", "A", "😀", "\uffff"}},
		// GMS counts bytes of the UTF-8 form against single-byte charsets' limits.
		{name: "varchar latin1_swedish_ci", typ: ci(sql.Collation_latin1_swedish_ci, 12), gen: genLatin1Text(6), edges: []any{"", "a", "A", "å", "ÿ"}},
		{name: "char(10)", typ: types.MustCreateString(sqltypes.Char, 10, sql.Collation_Default), gen: genText(10), edges: []any{"", "x", "x "}},
		{name: "text", typ: types.Text, gen: genText(40), edges: []any{"", strings.Repeat("z", 300)}},
		{name: "varbinary(16)", typ: types.MustCreateBinary(sqltypes.VarBinary, 16), gen: genBytes(16), edges: []any{[]byte{}, []byte{0}, []byte{0, 0}, []byte{0, 1}, []byte{1}, []byte{0xFF}, []byte("a\x00b")}},
		{name: "binary(4)", typ: types.MustCreateBinary(sqltypes.Binary, 4), gen: genBytes(4), edges: []any{[]byte{}, []byte{0, 0, 0, 0}, []byte{0xFF, 0xFF, 0xFF, 0xFF}, "ab"}},
		{name: "blob", typ: types.Blob, gen: genBytes(64), edges: []any{[]byte{}, []byte{0}}},
		{name: "date", typ: types.Date, gen: genDatetime(minDT, maxDT), edges: []any{"0000-00-00", "1000-01-01", "9999-12-31", "2024-02-29 23:59:59"}},
		{name: "datetime", typ: types.Datetime, gen: genDatetime(minDT, maxDT.Add(-time.Second)), edges: []any{"1970-01-01 00:00:00", "1969-12-31 23:59:59", "2020-01-01 10:00:00.4"}},
		{name: "datetime(6)", typ: types.DatetimeMaxPrecision, gen: genDatetime(minDT, maxDT), edges: []any{"1970-01-01 00:00:00.000001", "1969-12-31 23:59:59.999999", "9999-12-31 23:59:59.999999"}},
		{name: "timestamp(3)", typ: types.MustCreateDatetimeType(sqltypes.Timestamp, 3), gen: genDatetime(minTS, maxTS.Add(-time.Second)), edges: []any{"1970-01-01 00:00:01", "2038-01-19 03:14:06.999"}},
		{name: "time", typ: types.Time, gen: genTimespan, edges: []any{"838:59:59", "-838:59:59", "00:00:00", "-00:00:00.000001"}},
		{name: "year", typ: types.Year, gen: genYear, edges: []any{int16(0), int16(1901), int16(2155), 69, 70}},
		{name: "enum", typ: types.MustCreateEnumType(enumValues, sql.Collation_Default), gen: genEnum, edges: []any{uint16(0), uint16(4), "small"}},
		{name: "set", typ: types.MustCreateSetType(setValues, sql.Collation_Default), gen: genSet, edges: []any{"", "a,e", uint64(31)}},
		{name: "bit(1)", typ: types.MustCreateBitType(1), gen: genBit(1), edges: []any{uint64(0), uint64(1)}},
		{name: "bit(64)", typ: types.MustCreateBitType(64), gen: genBit(64), edges: []any{uint64(0), uint64(math.MaxUint64)}},
		{name: "json", typ: types.JSON, gen: genJSON, noKey: true},
		{name: "point", typ: types.PointType{}, gen: genPoint, noKey: true},
	}
}

// mustConvert converts raw with GMS, failing the test on errors or
// out-of-range values.
func mustConvert(t testing.TB, typ sql.Type, raw any) any {
	t.Helper()
	v, inRange, err := typ.Convert(testCtx, raw)
	if err != nil || !inRange {
		t.Fatalf("%s: Convert(%#v) = %v, inRange=%v, err=%v", typ, raw, v, inRange, err)
	}
	return v
}

func describe(v any) string {
	if b, ok := v.([]byte); ok {
		return fmt.Sprintf("[]byte(%q)", b)
	}
	return fmt.Sprintf("%T(%#v)", v, v)
}
