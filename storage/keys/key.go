package keys

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"
)

const (
	keyNull    byte = 0x00
	keyPresent byte = 0x01
)

// Decimal class bytes: negative < zero < positive.
const (
	decNeg  byte = 0x01
	decZero byte = 0x02
	decPos  byte = 0x03
)

// AppendValue appends the memcomparable encoding of v, a value of column type
// typ, to dst. v == nil encodes NULL. See the package documentation for the
// format and the ordering contract. On error dst is returned unchanged.
func AppendValue(dst []byte, typ sql.Type, v any) ([]byte, error) {
	return appendValue(dst, typ, v, false)
}

// AppendValuePad is AppendValue for a table whose text keys follow PAD
// SPACE (TableDef.KeyFormat 1): under a PAD SPACE collation (every one
// but the _0900_ ones and binary) trailing spaces are not part of the
// key, so 'b' and 'B ' under utf8mb4_general_ci share one, as MySQL
// compares them (an index lookup finds both; a unique index refuses the
// second).
func AppendValuePad(dst []byte, typ sql.Type, v any) ([]byte, error) {
	return appendValue(dst, typ, v, true)
}

// PadSpace reports whether MySQL 8 compares strings of collation c with
// PAD SPACE.
func PadSpace(c sql.CollationID) bool {
	return c != sql.Collation_binary && !strings.Contains(c.Name(), "_0900_")
}

func appendValue(dst []byte, typ sql.Type, v any, pad bool) ([]byte, error) {
	if v == nil {
		return append(dst, keyNull), nil
	}
	k, width := classify(typ)
	switch k {
	case kindInt:
		i, err := toInt64(typ, v, width)
		if err != nil {
			return dst, err
		}
		// Flipping the sign bit of the width-sized two's complement value
		// makes negative numbers sort before positive ones.
		return appendBE(append(dst, keyPresent), uint64(i)^(1<<(width*8-1)), width), nil
	case kindUint:
		u, err := toUint64(typ, v, width)
		if err != nil {
			return dst, err
		}
		return appendBE(append(dst, keyPresent), u, width), nil
	case kindFloat32:
		f, err := toFloat(typ, v, true)
		if err != nil {
			return dst, err
		}
		return appendBE(append(dst, keyPresent), orderedFloatBits(uint64(math.Float32bits(float32(f))), 32), 4), nil
	case kindFloat64:
		f, err := toFloat(typ, v, false)
		if err != nil {
			return dst, err
		}
		return appendBE(append(dst, keyPresent), orderedFloatBits(math.Float64bits(f), 64), 8), nil
	case kindDecimal:
		d, err := toDecimal(typ, v)
		if err != nil {
			return dst, err
		}
		return appendDecimalKey(append(dst, keyPresent), d), nil
	case kindText:
		s, err := toText(typ, v)
		if err != nil {
			return dst, err
		}
		coll := typ.(sql.StringType).Collation()
		if pad && PadSpace(coll) {
			s = strings.TrimRight(s, " ")
		}
		out, err := appendCollatedKey(append(dst, keyPresent), s, coll)
		if err != nil {
			return dst, invalidValue(typ, v, err)
		}
		return out, nil
	case kindBytes:
		b, err := toBytes(typ, v)
		if err != nil {
			return dst, err
		}
		return appendEscapedBytes(append(dst, keyPresent), b), nil
	case kindDatetime:
		t, err := toTime(typ, v)
		if err != nil {
			return dst, err
		}
		return appendBE(append(dst, keyPresent), uint64(t.UnixMicro())^(1<<63), 8), nil
	case kindTime:
		ts, err := toTimespan(typ, v)
		if err != nil {
			return dst, err
		}
		return appendBE(append(dst, keyPresent), uint64(ts)^(1<<63), 8), nil
	case kindYear:
		y, err := toYear(typ, v)
		if err != nil {
			return dst, err
		}
		return appendBE(append(dst, keyPresent), uint64(uint16(y)^0x8000), 2), nil
	case kindEnum:
		e, err := toEnum(typ, v)
		if err != nil {
			return dst, err
		}
		return appendBE(append(dst, keyPresent), uint64(e), 2), nil
	case kindSet, kindBit:
		u, err := toUint64Bits(typ, v)
		if err != nil {
			return dst, err
		}
		return appendBE(append(dst, keyPresent), u, 8), nil
	}
	// JSON and spatial columns cannot be indexed in MySQL either.
	return dst, unsupported(typ)
}

// AppendRowKey appends the encodings of vals (one per entry of types) to dst,
// producing a composite key that compares column by column.
func AppendRowKey(dst []byte, types []sql.Type, vals []any) ([]byte, error) {
	if len(types) != len(vals) {
		return dst, fmt.Errorf("keys: %d key types but %d values", len(types), len(vals))
	}
	out := dst
	for i, typ := range types {
		var err error
		if out, err = AppendValue(out, typ, vals[i]); err != nil {
			return dst, fmt.Errorf("key column %d: %w", i, err)
		}
	}
	return out, nil
}

// PrefixSuccessor returns the smallest key that is greater than every key
// starting with prefix, i.e. the exclusive upper bound of a prefix scan. It
// returns nil if there is none (prefix is empty or all 0xFF), meaning the scan
// is unbounded above. prefix is not modified.
func PrefixSuccessor(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xFF {
			out := make([]byte, i+1)
			copy(out, prefix[:i+1])
			out[i]++
			return out
		}
	}
	return nil
}

// appendBE appends the low width bytes of v, big-endian.
func appendBE(dst []byte, v uint64, width int) []byte {
	for shift := (width - 1) * 8; shift >= 0; shift -= 8 {
		dst = append(dst, byte(v>>uint(shift)))
	}
	return dst
}

// orderedFloatBits maps IEEE bits of the given size to an unsigned integer
// with the same order as the float values: positives get the sign bit set,
// negatives are inverted so larger magnitudes sort first. -0 maps like +0.
func orderedFloatBits(bits uint64, size uint) uint64 {
	sign := uint64(1) << (size - 1)
	mask := sign | (sign - 1)
	if bits&^sign == 0 {
		bits = 0 // -0 == +0
	}
	if bits&sign != 0 {
		return ^bits & mask
	}
	return bits | sign
}

// appendOrderedInt appends an order-preserving, self-delimiting varint: a
// header byte 0x80+n for non-negative values followed by the n significant
// big-endian bytes, or 0x7F-n for negative values followed by the n
// significant bytes of ^v, inverted.
func appendOrderedInt(dst []byte, v int64) []byte {
	if v >= 0 {
		n := byteLen(uint64(v))
		return appendBE(append(dst, byte(0x80+n)), uint64(v), n)
	}
	w := uint64(^v)
	n := byteLen(w)
	return appendBE(append(dst, byte(0x7F-n)), ^w, n)
}

// byteLen is the number of significant bytes in v (0 for v == 0).
func byteLen(v uint64) int {
	n := 0
	for ; v != 0; v >>= 8 {
		n++
	}
	return n
}

// appendDecimalKey encodes d as class byte, exponent and base-100 digits of
// its normalised form 0.d1d2...dn × 10^E, so equal values (1.5, 1.50) encode
// identically and the numeric order is the byte order.
func appendDecimalKey(dst []byte, d decimal.Decimal) []byte {
	sign := d.Sign()
	if sign == 0 {
		return append(dst, decZero)
	}
	coef := d.Coefficient()
	digits := coef.Abs(coef).Text(10)
	exp := int64(d.Exponent())
	n := len(digits)
	for n > 1 && digits[n-1] == '0' {
		n--
		exp++
	}
	digits = digits[:n]

	start := len(dst)
	dst = append(dst, decPos)
	dst = appendOrderedInt(dst, exp+int64(n))
	for i := 0; i < n; i += 2 {
		pair := (digits[i] - '0') * 10
		if i+1 < n {
			pair += digits[i+1] - '0'
		}
		// +1 keeps 0x00 free for the terminator, which must sort before any
		// further digits so that shorter digit strings (e.g. 0.12 vs 0.123)
		// sort first.
		dst = append(dst, pair+1)
	}
	dst = append(dst, 0x00)
	if sign < 0 {
		dst[start] = decNeg
		for i := start + 1; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
	}
	return dst
}

// appendCollatedKey encodes s as the sequence of its per-rune collation
// weights, exactly as GMS's StringType.Compare walks it, followed by a 0x00
// terminator. Each weight is a class byte (0x01 negative, 0x02..0x05 for
// 1..4 significant bytes) and its big-endian bytes; class bytes are >= 0x01
// so a shorter weight sequence sorts before any extension of it.
func appendCollatedKey(dst []byte, s string, coll sql.CollationID) ([]byte, error) {
	enc := coll.CharacterSet().Encoder()
	weight := coll.Sorter()
	if enc == nil || weight == nil {
		return dst, fmt.Errorf("collation %s is not implemented", coll.Name())
	}
	ascii := asciiWeights(coll, weight)
	// Each rune takes at least one input byte and at most maxWeightLen output
	// bytes, so size the output once and write into it directly.
	start := len(dst)
	out := slices.Grow(dst, maxWeightLen*len(s)+1)[:start+maxWeightLen*len(s)+1]
	pos := start
	for i := 0; i < len(s); {
		var w int32
		// Every GMS encoder decodes a byte below 0x80 as that rune.
		if c := s[i]; c < utf8.RuneSelf {
			w = ascii[c]
			i++
		} else {
			r, n := enc.NextRune(s[i:])
			if n <= 0 || n > len(s)-i {
				return dst, fmt.Errorf("malformed string for collation %s", coll.Name())
			}
			w = weight(r)
			i += n
		}
		// The common one- and two-byte weights are written inline.
		if uint32(w) < 1<<8 {
			out[pos], out[pos+1] = 0x02, byte(w)
			pos += 2
		} else if uint32(w) < 1<<16 {
			out[pos], out[pos+1], out[pos+2] = 0x03, byte(w>>8), byte(w)
			pos += 3
		} else {
			pos += putWeight(out[pos:], w)
		}
	}
	out[pos] = 0x00
	return out[:pos+1], nil
}

const maxWeightLen = 5

// putWeight writes the length-classed encoding of w to b and returns its size.
func putWeight(b []byte, w int32) int {
	_ = b[maxWeightLen-1]
	switch {
	case w < 0:
		// Negative int32s keep their relative order as uint32 bit patterns.
		b[0] = 0x01
	case w < 1<<8:
		b[0], b[1] = 0x02, byte(w)
		return 2
	case w < 1<<16:
		b[0], b[1], b[2] = 0x03, byte(w>>8), byte(w)
		return 3
	case w < 1<<24:
		b[0], b[1], b[2], b[3] = 0x04, byte(w>>16), byte(w>>8), byte(w)
		return 4
	default:
		b[0] = 0x05
	}
	b[1], b[2], b[3], b[4] = byte(w>>24), byte(w>>16), byte(w>>8), byte(w)
	return 5
}

// asciiWeightCache maps a sql.CollationID to its *[utf8.RuneSelf]int32
// weights for ASCII runes. Most key text is ASCII and Sorter calls (often map
// lookups) dominate the cost of encoding it.
var asciiWeightCache sync.Map

func asciiWeights(coll sql.CollationID, weight sql.CollationSorter) *[utf8.RuneSelf]int32 {
	if tbl, ok := asciiWeightCache.Load(coll); ok {
		return tbl.(*[utf8.RuneSelf]int32)
	}
	tbl := new([utf8.RuneSelf]int32)
	for r := range tbl {
		tbl[r] = weight(rune(r))
	}
	asciiWeightCache.Store(coll, tbl)
	return tbl
}

// appendEscapedBytes encodes b so that byte order and prefix order survive:
// 0x00 becomes 0x00 0xFF and the value ends with 0x00 0x01.
func appendEscapedBytes(dst []byte, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			dst = append(dst, b...)
			break
		}
		dst = append(dst, b[:i+1]...)
		dst = append(dst, 0xFF)
		b = b[i+1:]
	}
	return append(dst, 0x00, 0x01)
}

// TextComparer returns a comparison of two strings of a column with
// collation coll that agrees with GMS's StringType.Compare (per-character
// weights, then the shorter first) but looks the ASCII weights up in a
// table: several times faster than GMS's, which the range fast path's
// ORDER BY sorts with. ok is false when the collation has no weights.
// A malformed UTF-8 sequence weighs as U+FFFD, as in GMS.
func TextComparer(coll sql.CollationID) (cmp func(a, b string) int, ok bool) {
	enc := coll.CharacterSet().Encoder()
	weight := coll.Sorter()
	if enc == nil || weight == nil {
		return nil, false
	}
	ascii := asciiWeights(coll, weight)
	next := func(s string, i int) (int32, int) {
		if c := s[i]; c < utf8.RuneSelf {
			return ascii[c], i + 1
		}
		r, n := enc.NextRune(s[i:])
		if n <= 0 {
			n = 1
		}
		return weight(r), i + n
	}
	return func(a, b string) int {
		i, j := 0, 0
		for i < len(a) && j < len(b) {
			var wa, wb int32
			wa, i = next(a, i)
			wb, j = next(b, j)
			if wa != wb {
				if wa < wb {
					return -1
				}
				return 1
			}
		}
		switch ra, rb := len(a)-i, len(b)-j; {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	}, true
}
