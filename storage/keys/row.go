package keys

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"time"
	"unsafe"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

// rowFormatV1 is the first byte of every encoded row. A new layout must use a
// new version so old rows stay readable.
const rowFormatV1 byte = 1

// Per-column tags.
const (
	tagNull  byte = 0
	tagValue byte = 1
)

// EncodeRow appends the row-value encoding of row, whose columns are described
// by sch, to dst. Every value is converted to its column type first; values
// that do not fit return an error (wrapping ErrOutOfRange or ErrInvalidValue)
// and dst is returned unchanged.
func EncodeRow(dst []byte, sch sql.Schema, row sql.Row) ([]byte, error) {
	if len(row) != len(sch) {
		return dst, fmt.Errorf("keys: row has %d values but schema has %d columns", len(row), len(sch))
	}
	out := append(dst, rowFormatV1)
	out = binary.AppendUvarint(out, uint64(len(row)))
	for i, col := range sch {
		v := row[i]
		if v == nil {
			out = append(out, tagNull)
			continue
		}
		var err error
		if out, err = appendRowValue(append(out, tagValue), col.Type, v); err != nil {
			return dst, fmt.Errorf("column %q: %w", col.Name, err)
		}
	}
	return out, nil
}

func appendRowValue(dst []byte, typ sql.Type, v any) ([]byte, error) {
	k, width := classify(typ)
	switch k {
	case kindInt:
		i, err := toInt64(typ, v, width)
		if err != nil {
			return nil, err
		}
		return binary.AppendVarint(dst, i), nil
	case kindUint:
		u, err := toUint64(typ, v, width)
		if err != nil {
			return nil, err
		}
		return binary.AppendUvarint(dst, u), nil
	case kindFloat32:
		f, err := toFloat(typ, v, true)
		if err != nil {
			return nil, err
		}
		return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(f))), nil
	case kindFloat64:
		f, err := toFloat(typ, v, false)
		if err != nil {
			return nil, err
		}
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f)), nil
	case kindDecimal:
		if d, ok := v.(decimal.Decimal); ok && DecimalFits(typ, d) {
			return appendFitDecimal(dst, typ, d), nil
		}
		d, err := toDecimal(typ, v)
		if err != nil {
			return nil, err
		}
		return appendRowDecimal(dst, d), nil
	case kindText:
		s, err := toText(typ, v)
		if err != nil {
			return nil, err
		}
		return append(binary.AppendUvarint(dst, uint64(len(s))), s...), nil
	case kindBytes:
		b, err := toBytes(typ, v)
		if err != nil {
			return nil, err
		}
		return append(binary.AppendUvarint(dst, uint64(len(b))), b...), nil
	case kindDatetime:
		t, err := toTime(typ, v)
		if err != nil {
			return nil, err
		}
		return binary.AppendVarint(dst, t.UnixMicro()), nil
	case kindTime:
		ts, err := toTimespan(typ, v)
		if err != nil {
			return nil, err
		}
		return binary.AppendVarint(dst, ts), nil
	case kindYear:
		y, err := toYear(typ, v)
		if err != nil {
			return nil, err
		}
		return binary.AppendVarint(dst, int64(y)), nil
	case kindEnum:
		e, err := toEnum(typ, v)
		if err != nil {
			return nil, err
		}
		return binary.AppendUvarint(dst, uint64(e)), nil
	case kindSet, kindBit:
		u, err := toUint64Bits(typ, v)
		if err != nil {
			return nil, err
		}
		return binary.AppendUvarint(dst, u), nil
	case kindJSON:
		doc, err := toJSON(typ, v)
		if err != nil {
			return nil, err
		}
		text, err := appendJSON(nil, doc)
		if err != nil {
			return nil, invalidValue(typ, v, err)
		}
		return append(binary.AppendUvarint(dst, uint64(len(text))), text...), nil
	case kindGeometry:
		g, err := toGeometry(typ, v)
		if err != nil {
			return nil, err
		}
		b := g.Serialize()
		return append(binary.AppendUvarint(dst, uint64(len(b))), b...), nil
	}
	return nil, unsupported(typ)
}

// appendRowDecimal stores the exact coefficient and exponent so DecodeRow
// reproduces the decimal.Decimal GMS produced, scale included.
func appendRowDecimal(dst []byte, d decimal.Decimal) []byte {
	dst = binary.AppendVarint(dst, int64(d.Exponent()))
	coef := d.Coefficient()
	var sign uint64
	if coef.Sign() < 0 {
		sign = 1
		coef.Neg(coef)
	}
	mag := coef.Bytes()
	dst = binary.AppendUvarint(dst, uint64(len(mag))<<1|sign)
	return append(dst, mag...)
}

// DecodeRow decodes a row written by EncodeRow for schema sch. The returned
// values have the Go types GMS's Convert produces for each column type:
// int8/int16/int32/int64 (MEDIUMINT: int32), uint8/uint16/uint32/uint64
// (MEDIUMINT UNSIGNED: uint32), float32/float64, decimal.Decimal, string for
// CHAR/VARCHAR/TEXT, []byte for BINARY/VARBINARY/BLOB, time.Time (UTC) for
// DATE/DATETIME/TIMESTAMP, types.Timespan for TIME, int16 for YEAR, uint16 for
// ENUM, uint64 for SET and BIT, types.JSONDocument for JSON and the spatial
// value type for geometry columns.
//
// If fewer columns are stored than sch has, the missing trailing columns are
// nil; applying column defaults is the caller's job. The result never aliases
// data.
func DecodeRow(data []byte, sch sql.Schema) (sql.Row, error) {
	return decodeRow(data, sch, nil)
}

// reader is a bounds-checked cursor over an encoded row.
type reader struct {
	b   []byte
	off int
	// borrow: text values alias b instead of being copied
	// (DecodeRowBorrowed).
	borrow bool
	// arena, once made, holds the copies of the row's text values
	// (textCopy); shared says the row may use one.
	arena  []byte
	shared bool
	// partial: stop after column last (DecodeRowPrefix).
	partial bool
	last    int
	// vc, when set, gives repeated decimals and times their earlier
	// values (ScanCache).
	vc *ScanCache
}

// maxTextArena is the largest encoded row whose text values share one
// allocation (textCopy): a text value kept keeps no more than this alive.
const maxTextArena = 1 << 10

// textCopy is string(b) for a text value of a decoded row. The text
// values of a row of at most maxTextArena bytes are copied into one
// allocation, made at the row's first text value with room for every
// byte left in the row (an upper bound on the text still to come), and
// the strings point into it: one allocation for a row's text instead of
// one per value (TPC-C's stock row has eleven text columns, its customer
// row fourteen). Strings are immutable, so sharing is safe; a string
// kept after its row keeps the row's text (at most maxTextArena bytes)
// alive, so only DecodeRowShared's reads of single rows do this.
func (r *reader) textCopy(b []byte) string {
	if !r.shared || len(b) == 0 {
		return string(b)
	}
	if r.arena == nil {
		r.arena = make([]byte, 0, len(b)+len(r.b)-r.off)
	}
	if len(b) > cap(r.arena)-len(r.arena) {
		return string(b) // cannot happen: the arena holds the rest of the row
	}
	start := len(r.arena)
	r.arena = append(r.arena, b...)
	return unsafe.String(&r.arena[start], len(b))
}

func (r *reader) corrupt(format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", ErrCorrupt, r.off, fmt.Sprintf(format, args...))
}

func (r *reader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, r.corrupt("truncated")
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

func (r *reader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		return 0, r.corrupt("bad uvarint")
	}
	r.off += n
	return v, nil
}

func (r *reader) varint() (int64, error) {
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		return 0, r.corrupt("bad varint")
	}
	r.off += n
	return v, nil
}

// fixed returns the next n bytes without copying.
func (r *reader) fixed(n int) ([]byte, error) {
	if n < 0 || n > len(r.b)-r.off {
		return nil, r.corrupt("truncated")
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b, nil
}

// lenPrefixed returns the next uvarint-length-prefixed byte string, not copied.
func (r *reader) lenPrefixed() ([]byte, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(r.b)-r.off) {
		return nil, r.corrupt("length %d exceeds remaining %d bytes", n, len(r.b)-r.off)
	}
	return r.fixed(int(n))
}

func (r *reader) signed(min, max int64) (int64, error) {
	v, err := r.varint()
	if err != nil {
		return 0, err
	}
	if v < min || v > max {
		return 0, r.corrupt("value %d outside [%d, %d]", v, min, max)
	}
	return v, nil
}

func (r *reader) unsigned(max uint64) (uint64, error) {
	v, err := r.uvarint()
	if err != nil {
		return 0, err
	}
	if v > max {
		return 0, r.corrupt("value %d above %d", v, max)
	}
	return v, nil
}

func (r *reader) value(typ sql.Type) (any, error) {
	k, width := classify(typ)
	return r.valueOf(typ, k, width)
}

// valueOf is value for a type classify has classified.
func (r *reader) valueOf(typ sql.Type, k kind, width int) (any, error) {
	switch k {
	case kindInt:
		min, max := signedRange(width)
		v, err := r.signed(min, max)
		if err != nil {
			return nil, err
		}
		switch width {
		case 1:
			return int8(v), nil
		case 2:
			return int16(v), nil
		case 3, 4:
			return int32(v), nil
		}
		return v, nil
	case kindUint:
		v, err := r.unsigned(unsignedMax(width))
		if err != nil {
			return nil, err
		}
		switch width {
		case 1:
			return uint8(v), nil
		case 2:
			return uint16(v), nil
		case 3, 4:
			return uint32(v), nil
		}
		return v, nil
	case kindFloat32:
		b, err := r.fixed(4)
		if err != nil {
			return nil, err
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
	case kindFloat64:
		b, err := r.fixed(8)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	case kindDecimal:
		return r.decimal(typ)
	case kindText:
		b, err := r.lenPrefixed()
		if err != nil {
			return nil, err
		}
		if r.borrow {
			return unsafe.String(unsafe.SliceData(b), len(b)), nil
		}
		return r.textCopy(b), nil
	case kindBytes:
		b, err := r.lenPrefixed()
		if err != nil {
			return nil, err
		}
		// Non-nil even when empty, like GMS's Convert.
		return append(make([]byte, 0, len(b)), b...), nil
	case kindDatetime:
		us, err := r.signed(minDatetimeMicros, maxDatetimeMicros)
		if err != nil {
			return nil, err
		}
		// Convert truncates DATE to days and rounds to the column's
		// fractional precision, so anything finer was not written by us.
		if unit := datetimeUnit(typ); (us%unit+unit)%unit != 0 {
			return nil, r.corrupt("%d microseconds is finer than %s allows", us, typ)
		}
		if r.vc != nil {
			return r.vc.time(us), nil
		}
		return time.UnixMicro(us).UTC(), nil
	case kindTime:
		ts, err := r.signed(-maxTimespan, maxTimespan)
		if err != nil {
			return nil, err
		}
		return types.Timespan(ts), nil
	case kindYear:
		y, err := r.signed(0, maxYear)
		if err != nil {
			return nil, err
		}
		return int16(y), nil
	case kindEnum:
		e, err := r.unsigned(uint64(typ.(sql.EnumType).NumberOfElements()))
		if err != nil {
			return nil, err
		}
		return uint16(e), nil
	case kindSet:
		max := uint64(math.MaxUint64)
		if st, ok := typ.(sql.SetType); ok && st.NumberOfElements() < 64 {
			max = 1<<st.NumberOfElements() - 1
		}
		return r.unsigned(max)
	case kindBit:
		max := uint64(math.MaxUint64)
		if bt, ok := typ.(types.BitType); ok && bt.NumberOfBits() < 64 {
			max = 1<<bt.NumberOfBits() - 1
		}
		return r.unsigned(max)
	case kindJSON:
		b, err := r.lenPrefixed()
		if err != nil {
			return nil, err
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, r.corrupt("bad JSON: %v", err)
		}
		return types.JSONDocument{Val: doc}, nil
	case kindGeometry:
		b, err := r.lenPrefixed()
		if err != nil {
			return nil, err
		}
		return r.geometry(typ, append([]byte(nil), b...))
	}
	return nil, unsupported(typ)
}

// datetimeUnit is the granularity in microseconds of a DATE/DATETIME/
// TIMESTAMP column's values.
func datetimeUnit(typ sql.Type) int64 {
	if typ.Type() == sqltypes.Date {
		return 24 * 60 * 60 * 1000000
	}
	unit := int64(1)
	if dt, ok := typ.(sql.DatetimeType); ok {
		for p := dt.Precision(); p < 6; p++ {
			unit *= 10
		}
	}
	return unit
}

// maxYear is the largest YEAR value (0 and 1901..2155 are valid).
const maxYear = 2155

// maxInt64Mag is the largest magnitude that big.NewInt can hold for either sign.
const maxInt64Mag = math.MaxInt64

func (r *reader) decimal(typ sql.Type) (any, error) {
	// Convert rounds to the column's scale, so more fractional digits mean
	// corruption. Bounding the exponent also keeps a corrupt value from
	// making later decimal arithmetic compute huge powers of ten.
	minExp := int64(-maxDecimalScale)
	if dt, ok := typ.(sql.DecimalType); ok {
		minExp = -int64(dt.Scale())
	}
	exp, err := r.signed(minExp, maxDecimalOrder)
	if err != nil {
		return nil, err
	}
	hdr, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if hdr>>1 > uint64(len(r.b)-r.off) {
		return nil, r.corrupt("decimal length %d exceeds remaining bytes", hdr>>1)
	}
	mag, err := r.fixed(int(hdr >> 1))
	if err != nil {
		return nil, err
	}
	if len(mag) > 0 && mag[0] == 0 {
		return nil, r.corrupt("non-canonical decimal magnitude")
	}
	neg := hdr&1 == 1
	if neg && len(mag) == 0 {
		return nil, r.corrupt("negative zero decimal")
	}
	// Build the coefficient the way decimal.NewFromString does (big.NewInt
	// for small values), so decoded values are reflect.DeepEqual to GMS's.
	// A small one goes through decimal.New, which keeps the big.Int it
	// makes: NewFromBigInt copies its argument, two more allocations per
	// value (a scan of TPC-H's lineitem decodes four DECIMALs a row).
	var coef *big.Int
	var small int64
	isSmall := false
	digits := 0 // the coefficient's decimal digits, when it is small
	if len(mag) <= 8 {
		var u uint64
		for _, c := range mag {
			u = u<<8 | uint64(c)
		}
		if u <= maxInt64Mag {
			i := int64(u)
			if neg {
				i = -i
			}
			small, isSmall = i, true
			for ; u > 0; u /= 10 {
				digits++
			}
		}
	}
	var d decimal.Decimal
	if isSmall && r.vc != nil && int64(digits)+exp <= maxDecimalOrder {
		return r.vc.decimal(small, int32(exp)), nil
	}
	if isSmall {
		d = decimal.New(small, int32(exp))
	} else {
		coef = new(big.Int).SetBytes(mag)
		if neg {
			coef.Neg(coef)
		}
		d = decimal.NewFromBigInt(coef, int32(exp))
	}
	// The order check without decimal's NumDigits (which formats the
	// coefficient as text: a third of a scan's CPU over DECIMAL columns).
	if digits > 0 {
		if int64(digits)+exp > maxDecimalOrder {
			return nil, r.corrupt("decimal %s too large", d.String())
		}
	} else if e, nonZero := decimalOrder(d); nonZero && e > maxDecimalOrder {
		return nil, r.corrupt("decimal %s too large", d.String())
	}
	return d, nil
}

// geometry parses EWKB with the column type's own Convert. GMS's spatial
// deserialisers index into the buffer without bounds checks, so a panic is
// turned into a corruption error.
func (r *reader) geometry(typ sql.Type, b []byte) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, r.corrupt("bad geometry: %v", p)
		}
	}()
	v, _, err = typ.Convert(convCtx, b)
	if err != nil {
		return nil, r.corrupt("bad geometry: %v", err)
	}
	return v, nil
}
