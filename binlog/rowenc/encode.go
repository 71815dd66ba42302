package rowenc

// Row-image values: encoding (GMS values to MySQL row-image bytes).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"
	"unsafe"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/encodings"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// AppendValue appends one non-NULL value in row-image format for column c.
// v is a GMS value, already converted by the column type's Convert (see the
// package documentation for the accepted Go types per column type). Values
// that do not fit the column as described return an error wrapping ErrRange;
// they are never truncated silently.
func AppendValue(dst []byte, c Column, v any) ([]byte, error) {
	if v == nil {
		return nil, errors.New("rowenc: NULL has no value encoding (set its NULL bit)")
	}
	if w, ok := v.(sql.AnyWrapper); ok {
		var err error
		if v, err = w.UnwrapAny(convCtx); err != nil {
			return nil, err
		}
	}
	switch c.Type {
	case TypeTiny:
		return appendInteger(dst, c, v, 1)
	case TypeShort:
		return appendInteger(dst, c, v, 2)
	case TypeInt24:
		return appendInteger(dst, c, v, 3)
	case TypeLong:
		return appendInteger(dst, c, v, 4)
	case TypeLongLong:
		return appendInteger(dst, c, v, 8)
	case TypeFloat:
		f, ok := floatValue(v)
		if !ok {
			return nil, badValue(c, v)
		}
		if math.Abs(f) > math.MaxFloat32 && !math.IsInf(f, 0) {
			return nil, outOfRange(c, v)
		}
		return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(f))), nil
	case TypeDouble:
		f, ok := floatValue(v)
		if !ok {
			return nil, badValue(c, v)
		}
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f)), nil
	case TypeNewDecimal:
		d, ok := decimalValue(v)
		if !ok {
			return nil, badValue(c, v)
		}
		return AppendDecimal(dst, d, int(c.Meta>>8), int(c.Meta&0xff))
	case TypeVarchar, TypeVarString:
		b, err := stringBytes(c, v, false)
		if err != nil {
			return nil, err
		}
		if len(b) > int(c.Meta) {
			return nil, outOfRange(c, v)
		}
		if c.Meta < 256 {
			dst = append(dst, byte(len(b)))
		} else {
			dst = binary.LittleEndian.AppendUint16(dst, uint16(len(b)))
		}
		return append(dst, b...), nil
	case TypeString:
		rt, n := stringMeta(c.Meta)
		switch rt {
		case TypeEnum:
			return appendPacked(dst, c, v, int(c.Meta&0xff))
		case TypeSet:
			return appendPacked(dst, c, v, int(c.Meta&0xff))
		case TypeString:
			// Field_string::pack logs CHAR/BINARY without their trailing
			// pad characters (spaces, or NULs for BINARY); the reader pads
			// them back.
			b, err := stringBytes(c, v, true)
			if err != nil {
				return nil, err
			}
			if len(b) > n {
				return nil, outOfRange(c, v)
			}
			dst = append(dst, byte(len(b)))
			if n > 255 {
				dst = append(dst, byte(len(b)>>8))
			}
			return append(dst, b...), nil
		}
		return nil, fmt.Errorf("%w: STRING column with real type %d", ErrUnsupported, rt)
	case TypeBlob, TypeTinyBlob, TypeMediumBlob, TypeLongBlob:
		b, err := stringBytes(c, v, false)
		if err != nil {
			return nil, err
		}
		return appendBlob(dst, c, b, v)
	case TypeJSON:
		var doc []byte
		var err error
		switch x := v.(type) {
		case string:
			doc, err = jsonTextToBinary([]byte(x))
		case []byte:
			doc, err = jsonTextToBinary(x)
		default:
			doc, err = EncodeJSON(v)
		}
		if err != nil {
			return nil, err
		}
		return appendBlob(dst, c, doc, v)
	case TypeGeometry:
		var b []byte
		switch x := v.(type) {
		case types.GeometryValue:
			b = x.Serialize()
		case []byte:
			b = x
		default:
			return nil, badValue(c, v)
		}
		return appendBlob(dst, c, b, v)
	case TypeBit:
		nbits := int(c.Meta>>8)*8 + int(c.Meta&0xff)
		if nbits < 1 || nbits > 64 {
			return nil, fmt.Errorf("%w: BIT(%d)", ErrUnsupported, nbits)
		}
		u, ok := bitsValue(v)
		if !ok {
			return nil, badValue(c, v)
		}
		if nbits < 64 && u>>nbits != 0 {
			return nil, outOfRange(c, v)
		}
		for i := (nbits+7)/8 - 1; i >= 0; i-- {
			dst = append(dst, byte(u>>(8*i)))
		}
		return dst, nil
	case TypeYear:
		i, u, isU, ok := intValue(v)
		if !ok {
			return nil, badValue(c, v)
		}
		if isU {
			if u > math.MaxInt64 {
				return nil, outOfRange(c, v)
			}
			i = int64(u)
		}
		switch {
		case i == 0:
			return append(dst, 0), nil
		case i >= 1901 && i <= 2155:
			return append(dst, byte(i-1900)), nil
		}
		return nil, outOfRange(c, v)
	case TypeDate, TypeNewDate:
		t, ok := v.(time.Time)
		if !ok {
			return nil, badValue(c, v)
		}
		return appendDate(dst, t)
	case TypeDatetime2:
		t, ok := v.(time.Time)
		if !ok {
			return nil, badValue(c, v)
		}
		if err := checkFsp(c.Meta); err != nil {
			return nil, err
		}
		return appendDatetime2(dst, t, int(c.Meta))
	case TypeTimestamp2:
		t, ok := v.(time.Time)
		if !ok {
			return nil, badValue(c, v)
		}
		if err := checkFsp(c.Meta); err != nil {
			return nil, err
		}
		return appendTimestamp2(dst, t, int(c.Meta))
	case TypeTime2:
		if err := checkFsp(c.Meta); err != nil {
			return nil, err
		}
		var us int64
		switch x := v.(type) {
		case types.Timespan:
			us = int64(x)
		case time.Duration:
			us = x.Round(time.Microsecond).Microseconds()
		default:
			return nil, badValue(c, v)
		}
		// Round half away from zero to the column's precision, as MySQL
		// does for TIME(n) by default.
		if unit := fracUnit(int(c.Meta)); unit > 1 {
			a := us
			if a < 0 {
				a = -a
			}
			a = (a + unit/2) / unit * unit
			if us < 0 {
				a = -a
			}
			us = a
		}
		return appendTime2(dst, us, int(c.Meta))
	}
	return nil, fmt.Errorf("%w: cannot encode column type %s", ErrUnsupported, TypeName(c.Type, c.Meta))
}

func badValue(c Column, v any) error {
	return fmt.Errorf("%w: %T value for %s column", ErrUnsupported, v, TypeName(c.Type, c.Meta))
}

// intValue extracts an integer from any Go integer type.
func intValue(v any) (i int64, u uint64, isUnsigned, ok bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), 0, false, true
	case int16:
		return int64(x), 0, false, true
	case int32:
		return int64(x), 0, false, true
	case int64:
		return x, 0, false, true
	case int:
		return int64(x), 0, false, true
	case uint8:
		return 0, uint64(x), true, true
	case uint16:
		return 0, uint64(x), true, true
	case uint32:
		return 0, uint64(x), true, true
	case uint64:
		return 0, x, true, true
	case uint:
		return 0, uint64(x), true, true
	}
	return 0, 0, false, false
}

func appendInteger(dst []byte, c Column, v any, width int) ([]byte, error) {
	i, u, isU, ok := intValue(v)
	if !ok {
		return nil, badValue(c, v)
	}
	bits := uint(width * 8)
	if c.Unsigned {
		if !isU {
			if i < 0 {
				return nil, outOfRange(c, v)
			}
			u = uint64(i)
		}
		if bits < 64 && u>>bits != 0 {
			return nil, outOfRange(c, v)
		}
	} else {
		if isU {
			if u > math.MaxInt64 {
				return nil, outOfRange(c, v)
			}
			i = int64(u)
		}
		if bits < 64 && (i < -1<<(bits-1) || i >= 1<<(bits-1)) {
			return nil, outOfRange(c, v)
		}
		u = uint64(i)
	}
	for k := 0; k < width; k++ {
		dst = append(dst, byte(u>>(8*k)))
	}
	return dst, nil
}

// appendPacked writes ENUM indexes and SET bitmaps: little-endian in size
// bytes.
func appendPacked(dst []byte, c Column, v any, size int) ([]byte, error) {
	if size < 1 || size > 8 {
		return nil, fmt.Errorf("%w: pack length %d", ErrUnsupported, size)
	}
	i, u, isU, ok := intValue(v)
	if !ok {
		return nil, badValue(c, v)
	}
	if !isU {
		if i < 0 {
			return nil, outOfRange(c, v)
		}
		u = uint64(i)
	}
	if size < 8 && u>>(8*size) != 0 {
		return nil, outOfRange(c, v)
	}
	for k := 0; k < size; k++ {
		dst = append(dst, byte(u>>(8*k)))
	}
	return dst, nil
}

func bitsValue(v any) (uint64, bool) {
	i, u, isU, ok := intValue(v)
	if !ok {
		return 0, false
	}
	if !isU {
		if i < 0 {
			return 0, false
		}
		u = uint64(i)
	}
	return u, true
}

func floatValue(v any) (float64, bool) {
	switch x := v.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	i, u, isU, ok := intValue(v)
	if !ok {
		return 0, false
	}
	if isU {
		return float64(u), true
	}
	return float64(i), true
}

func decimalValue(v any) (decimal.Decimal, bool) {
	switch x := v.(type) {
	case decimal.Decimal:
		return x, true
	case decimal.NullDecimal:
		return x.Decimal, x.Valid
	case string:
		d, err := decimal.NewFromString(x)
		return d, err == nil
	}
	i, u, isU, ok := intValue(v)
	if !ok {
		return decimal.Decimal{}, false
	}
	if isU {
		return decimal.NewFromBigInt(new(big.Int).SetUint64(u), 0), true
	}
	return decimal.NewFromInt(i), true
}

func appendBlob(dst []byte, c Column, b []byte, v any) ([]byte, error) {
	pl := int(c.Meta)
	if pl < 1 || pl > 4 {
		return nil, fmt.Errorf("%w: pack length %d", ErrUnsupported, pl)
	}
	if uint64(len(b)) > uint64(1)<<(8*pl)-1 {
		return nil, outOfRange(c, v)
	}
	for k := 0; k < pl; k++ {
		dst = append(dst, byte(len(b)>>(8*k)))
	}
	return append(dst, b...), nil
}

// stringBytes returns the bytes MySQL logs for a character or binary column:
// GMS strings are UTF-8 whatever the column's charset, so they are
// re-encoded for charsets that differ (latin1...). With stripPad, trailing
// pad characters are removed first (spaces; NULs for the binary charset).
func stringBytes(c Column, v any, stripPad bool) ([]byte, error) {
	var b []byte
	isStr := false
	switch x := v.(type) {
	case string:
		isStr = true
		if transcoder(c.Charset) == nil {
			// Only read (appended to the image): no copy needed.
			b = unsafe.Slice(unsafe.StringData(x), len(x))
		} else {
			b = []byte(x)
		}
	case []byte:
		b = x
	default:
		return nil, badValue(c, v)
	}
	if stripPad {
		pad := byte(' ')
		if c.Charset == CollationBinary {
			pad = 0
		}
		for len(b) > 0 && b[len(b)-1] == pad {
			b = b[:len(b)-1]
		}
	}
	if enc := transcoder(c.Charset); enc != nil && (isStr || c.Charset != CollationBinary) {
		out, ok := enc.Encode(b)
		if !ok {
			return nil, fmt.Errorf("%w: string not representable in %s", ErrRange, sql.CollationID(c.Charset).CharacterSet())
		}
		b = out
	}
	return b, nil
}

// charsetByCollation caches collation id -> character set for the ids GMS
// knows (GMS's lookup panics on unknown ids).
var charsetByCollation = func() (tab [1024]sql.CharacterSetID) {
	for i := range tab {
		func() {
			defer func() { _ = recover() }()
			tab[i] = sql.CollationID(i).CharacterSet()
		}()
	}
	return tab
}()

// transcoder returns the encoder for a column collation whose bytes differ
// from UTF-8, or nil when values are stored as-is (utf8mb4, utf8mb3, ascii,
// binary, unknown).
func transcoder(coll uint16) encodings.Encoder {
	if int(coll) >= len(charsetByCollation) {
		return nil
	}
	switch cs := charsetByCollation[coll]; cs {
	case 0, sql.CharacterSet_utf8mb4, sql.CharacterSet_utf8mb3, sql.CharacterSet_binary, sql.CharacterSet_ascii:
		return nil
	default:
		return cs.Encoder()
	}
}

// jsonTextToBinary accepts JSON text for a JSON column (a convenience for
// callers holding text rather than a GMS document).
func jsonTextToBinary(text []byte) ([]byte, error) {
	var doc any
	dec := newJSONTextDecoder(text)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("rowenc: invalid JSON text: %w", err)
	}
	return EncodeJSON(doc)
}

// AppendRowImage appends a row image with every column present: the NULL
// bitmap ((len(cols)+7)/8 bytes, bit i set when row[i] is nil) followed by
// the non-NULL values. A nil in a column not marked Nullable is logged as
// NULL all the same (the flag only describes the table); errors name the
// 1-based column.
func AppendRowImage(dst []byte, cols []Column, row sql.Row) ([]byte, error) {
	if len(row) != len(cols) {
		return nil, fmt.Errorf("rowenc: row has %d values for %d columns", len(row), len(cols))
	}
	start := len(dst)
	for i := 0; i < (len(cols)+7)/8; i++ {
		dst = append(dst, 0)
	}
	var err error
	for i, v := range row {
		if v == nil {
			dst[start+i/8] |= 1 << (i % 8)
			continue
		}
		if dst, err = AppendValue(dst, cols[i], v); err != nil {
			return nil, fmt.Errorf("column %d: %w", i+1, err)
		}
	}
	return dst, nil
}
