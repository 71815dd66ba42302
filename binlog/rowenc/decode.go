package rowenc

// Row-image values: decoding (MySQL row-image bytes to GMS values).

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

// convCtx is handed to GMS's Convert, which needs no session state for the
// conversions used here; a shared *sql.Context would not be goroutine-safe.
var convCtx = context.Background()

// timestampVal is a decoded TIMESTAMP: seconds since the epoch (0 = zero
// timestamp) and microseconds.
type timestampVal struct {
	sec int64
	us  int
}

// Raw decoded values, one Go type per column family; finishing turns them
// into generic or GMS values.
type (
	enumVal uint64
	setVal  uint64
	bitVal  uint64
	yearVal int64
	jsonBin []byte
	geomBin []byte
)

// DecodeValue decodes one non-NULL value of column c from the start of b and
// returns it with the number of bytes consumed.
//
// With a GMS type t the value has exactly the Go type t.Convert produces
// (see the package documentation); when the column's logged type is not the
// natural one for t (a replica whose schema differs), the decoded value is
// passed through t.Convert. With t == nil a generic value suitable for
// printing is returned: int64/uint64 for integers (uint64 when c.Unsigned),
// float64, the decimal as a string, string (non-binary charsets, converted
// to UTF-8) or []byte, DATE/DATETIME/TIME and TIMESTAMP as formatted strings
// ('YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS[.ffffff]', '[-]HH:MM:SS[.ffffff]';
// TIMESTAMP in UTC), int64 YEAR, uint64 ENUM index, SET and BIT bits, JSON as
// MySQL-formatted JSON text, GEOMETRY as []byte.
//
// Malformed input returns an error wrapping ErrCorrupt and never panics. The
// result never aliases b.
func DecodeValue(b []byte, c Column, t sql.Type) (v any, n int, err error) {
	unsigned := c.Unsigned
	if t != nil && isUnsignedType(t) {
		unsigned = true
	}
	raw, n, err := decodeRaw(b, c, unsigned)
	if err != nil {
		return nil, 0, err
	}
	if t == nil {
		v, err = generic(c, raw)
	} else {
		v, err = toGMS(c, t, raw)
	}
	if err != nil {
		return nil, 0, err
	}
	return v, n, nil
}

func isUnsignedType(t sql.Type) bool {
	switch t.Type() {
	case sqltypes.Uint8, sqltypes.Uint16, sqltypes.Uint24, sqltypes.Uint32, sqltypes.Uint64:
		return true
	}
	return false
}

func intWidth(typ byte) int {
	switch typ {
	case TypeTiny:
		return 1
	case TypeShort:
		return 2
	case TypeInt24:
		return 3
	case TypeLong:
		return 4
	}
	return 8
}

func need(b []byte, n int, what string) error {
	if n > len(b) || n < 0 {
		return corrupt("truncated %s: need %d bytes, have %d", what, n, len(b))
	}
	return nil
}

func decodeRaw(b []byte, c Column, unsigned bool) (any, int, error) {
	switch c.Type {
	case TypeTiny, TypeShort, TypeInt24, TypeLong, TypeLongLong:
		w := intWidth(c.Type)
		if err := need(b, w, TypeName(c.Type, 0)); err != nil {
			return nil, 0, err
		}
		var u uint64
		for k := w - 1; k >= 0; k-- {
			u = u<<8 | uint64(b[k])
		}
		if unsigned {
			return u, w, nil
		}
		shift := uint(64 - 8*w)
		return int64(u<<shift) >> shift, w, nil
	case TypeFloat:
		if err := need(b, 4, "FLOAT"); err != nil {
			return nil, 0, err
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b)), 4, nil
	case TypeDouble:
		if err := need(b, 8, "DOUBLE"); err != nil {
			return nil, 0, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), 8, nil
	case TypeNewDecimal:
		return DecodeDecimal(b, int(c.Meta>>8), int(c.Meta&0xff))
	case TypeVarchar, TypeVarString:
		lb := 1
		if c.Meta >= 256 {
			lb = 2
		}
		if err := need(b, lb, "VARCHAR length"); err != nil {
			return nil, 0, err
		}
		l := int(b[0])
		if lb == 2 {
			l |= int(b[1]) << 8
		}
		if l > int(c.Meta) {
			return nil, 0, corrupt("VARCHAR length %d exceeds maximum %d", l, c.Meta)
		}
		if err := need(b, lb+l, "VARCHAR"); err != nil {
			return nil, 0, err
		}
		return b[lb : lb+l], lb + l, nil
	case TypeString:
		rt, max := stringMeta(c.Meta)
		switch rt {
		case TypeEnum, TypeSet:
			size := int(c.Meta & 0xff)
			if rt == TypeEnum && size != 1 && size != 2 || rt == TypeSet && (size < 1 || size > 8) {
				return nil, 0, corrupt("bad %s pack length %d", TypeName(rt, 0), size)
			}
			if err := need(b, size, TypeName(rt, 0)); err != nil {
				return nil, 0, err
			}
			var u uint64
			for k := size - 1; k >= 0; k-- {
				u = u<<8 | uint64(b[k])
			}
			if rt == TypeEnum {
				return enumVal(u), size, nil
			}
			return setVal(u), size, nil
		case TypeString:
			lb := 1
			if max > 255 {
				lb = 2
			}
			if err := need(b, lb, "CHAR length"); err != nil {
				return nil, 0, err
			}
			l := int(b[0])
			if lb == 2 {
				l |= int(b[1]) << 8
			}
			if l > max {
				return nil, 0, corrupt("CHAR length %d exceeds maximum %d", l, max)
			}
			if err := need(b, lb+l, "CHAR"); err != nil {
				return nil, 0, err
			}
			return b[lb : lb+l], lb + l, nil
		}
		return nil, 0, fmt.Errorf("%w: STRING column with real type %d", ErrUnsupported, rt)
	case TypeBlob, TypeTinyBlob, TypeMediumBlob, TypeLongBlob, TypeJSON, TypeGeometry:
		pl := int(c.Meta)
		if pl < 1 || pl > 4 {
			return nil, 0, corrupt("bad pack length %d", pl)
		}
		if err := need(b, pl, "BLOB length"); err != nil {
			return nil, 0, err
		}
		var l uint64
		for k := pl - 1; k >= 0; k-- {
			l = l<<8 | uint64(b[k])
		}
		if l > uint64(len(b)-pl) {
			return nil, 0, corrupt("BLOB length %d exceeds %d remaining bytes", l, len(b)-pl)
		}
		data := b[pl : pl+int(l)]
		switch c.Type {
		case TypeJSON:
			return jsonBin(data), pl + int(l), nil
		case TypeGeometry:
			return geomBin(data), pl + int(l), nil
		}
		return data, pl + int(l), nil
	case TypeBit:
		nbits := int(c.Meta>>8)*8 + int(c.Meta&0xff)
		if nbits < 1 || nbits > 64 {
			return nil, 0, corrupt("bad BIT(%d)", nbits)
		}
		size := (nbits + 7) / 8
		if err := need(b, size, "BIT"); err != nil {
			return nil, 0, err
		}
		var u uint64
		for k := 0; k < size; k++ {
			u = u<<8 | uint64(b[k])
		}
		return bitVal(u), size, nil
	case TypeYear:
		if err := need(b, 1, "YEAR"); err != nil {
			return nil, 0, err
		}
		if b[0] == 0 {
			return yearVal(0), 1, nil
		}
		return yearVal(1900 + int64(b[0])), 1, nil
	case TypeDate, TypeNewDate:
		return decodeDate(b)
	case TypeDatetime2:
		if err := checkFsp(c.Meta); err != nil {
			return nil, 0, err
		}
		return decodeDatetime2(b, int(c.Meta))
	case TypeTimestamp2:
		if err := checkFsp(c.Meta); err != nil {
			return nil, 0, err
		}
		sec, us, n, err := decodeTimestamp2(b, int(c.Meta))
		if err != nil {
			return nil, 0, err
		}
		return timestampVal{sec, us}, n, nil
	case TypeTime2:
		if err := checkFsp(c.Meta); err != nil {
			return nil, 0, err
		}
		return decodeTime2(b, int(c.Meta))
	case TypeTimestamp:
		sec, n, err := decodeOldTimestamp(b)
		if err != nil {
			return nil, 0, err
		}
		return timestampVal{sec: sec}, n, nil
	case TypeDatetime:
		return decodeOldDatetime(b)
	case TypeTime:
		return decodeOldTime(b)
	case TypeNull:
		return nil, 0, nil
	}
	return nil, 0, fmt.Errorf("%w: cannot decode column type %s", ErrUnsupported, TypeName(c.Type, c.Meta))
}

// fsp is the fractional precision the column's values are printed with.
func (c Column) fsp() int {
	switch c.Type {
	case TypeDatetime2, TypeTimestamp2, TypeTime2:
		if c.Meta <= 6 {
			return int(c.Meta)
		}
	}
	return 0
}

// decodeText converts logged bytes of a character column to a UTF-8 string.
func decodeText(c Column, b []byte) (string, error) {
	if enc := transcoder(c.Charset); enc != nil {
		out, ok := enc.Decode(b)
		if !ok {
			return "", corrupt("invalid %s string", charsetByCollation[c.Charset])
		}
		return string(out), nil
	}
	return string(b), nil
}

func timestampUTC(ts timestampVal) mysqlTime {
	if ts.sec == 0 && ts.us == 0 {
		return mysqlTime{}
	}
	m := brokenDown(time.Unix(ts.sec, int64(ts.us)*1000).UTC())
	return m
}

// generic turns a raw decoded value into the printable generic form.
func generic(c Column, raw any) (any, error) {
	switch x := raw.(type) {
	case nil, int64, uint64, string:
		return x, nil
	case float32:
		return float64(x), nil
	case float64:
		return x, nil
	case []byte:
		if c.Charset == CollationBinary {
			return append([]byte{}, x...), nil
		}
		return decodeText(c, x)
	case enumVal:
		return uint64(x), nil
	case setVal:
		return uint64(x), nil
	case bitVal:
		return uint64(x), nil
	case yearVal:
		return int64(x), nil
	case mysqlTime:
		switch c.Type {
		case TypeDate, TypeNewDate:
			return x.formatDate(), nil
		case TypeTime2, TypeTime:
			return x.formatTime(c.fsp()), nil
		}
		return x.formatDatetime(c.fsp()), nil
	case timestampVal:
		return timestampUTC(x).formatDatetime(c.fsp()), nil
	case jsonBin:
		doc, err := DecodeJSON(x)
		if err != nil {
			return nil, err
		}
		return string(AppendJSONText(nil, doc)), nil
	case geomBin:
		return append([]byte{}, x...), nil
	}
	return nil, fmt.Errorf("rowenc: internal: unexpected raw value %T", raw)
}

// toGMS turns a raw decoded value into the Go value GMS's Convert produces
// for type t.
func toGMS(c Column, t sql.Type, raw any) (any, error) {
	switch t.Type() {
	case sqltypes.Int8, sqltypes.Int16, sqltypes.Int24, sqltypes.Int32, sqltypes.Int64,
		sqltypes.Uint8, sqltypes.Uint16, sqltypes.Uint24, sqltypes.Uint32, sqltypes.Uint64:
		switch x := raw.(type) {
		case int64:
			return intToGMS(t, x, 0, false)
		case uint64:
			return intToGMS(t, 0, x, true)
		}
	case sqltypes.Float32:
		if x, ok := raw.(float32); ok {
			return x, nil
		}
	case sqltypes.Float64:
		switch x := raw.(type) {
		case float64:
			return x, nil
		case float32:
			return float64(x), nil
		}
	case sqltypes.Decimal:
		if s, ok := raw.(string); ok && c.Type == TypeNewDecimal {
			d, err := decimal.NewFromString(s)
			if err != nil {
				return nil, corrupt("bad decimal %q", s)
			}
			if dt, ok := t.(sql.DecimalType); ok && int(dt.Scale()) == int(c.Meta&0xff) {
				// Exactly what Convert builds: NewFromString of the
				// fixed-scale text.
				return d, nil
			}
			return convert(t, d)
		}
	case sqltypes.Char, sqltypes.VarChar, sqltypes.Text:
		if b, ok := raw.([]byte); ok {
			return decodeText(c, b)
		}
	case sqltypes.Binary, sqltypes.VarBinary, sqltypes.Blob:
		if b, ok := raw.([]byte); ok {
			out := append([]byte{}, b...)
			if st, ok := t.(sql.StringType); ok && t.Type() == sqltypes.Binary {
				// BINARY(n) was logged without its trailing NUL padding.
				for int64(len(out)) < st.MaxCharacterLength() {
					out = append(out, 0)
				}
			}
			return out, nil
		}
	case sqltypes.Date, sqltypes.Datetime, sqltypes.Timestamp:
		var m mysqlTime
		switch x := raw.(type) {
		case mysqlTime:
			if c.Type == TypeTime2 || c.Type == TypeTime {
				return convert(t, types.Timespan(x.micros()))
			}
			m = x
		case timestampVal:
			if x.sec == 0 && x.us == 0 {
				return zeroTime, nil
			}
			tm := time.Unix(x.sec, int64(x.us)*1000).UTC()
			if natural(c, t) {
				return tm, nil
			}
			return convert(t, tm)
		default:
			return convert(t, mustGeneric(c, raw))
		}
		if m.isZero() {
			return zeroTime, nil
		}
		if !m.validDatetime() {
			return nil, corrupt("invalid date/time %s", m.formatDatetime(6))
		}
		if natural(c, t) {
			return m.toTime(), nil
		}
		return convert(t, m.toTime())
	case sqltypes.Time:
		if m, ok := raw.(mysqlTime); ok && (c.Type == TypeTime2 || c.Type == TypeTime) {
			us := m.micros()
			if us < -maxTimeMicros || us > maxTimeMicros {
				return nil, corrupt("TIME %s out of range", m.formatTime(6))
			}
			return types.Timespan(us), nil
		}
	case sqltypes.Year:
		if y, ok := raw.(yearVal); ok {
			if y != 0 && (y < 1901 || y > 2155) {
				return nil, corrupt("YEAR %d out of range", y)
			}
			return int16(y), nil
		}
	case sqltypes.Enum:
		if e, ok := raw.(enumVal); ok {
			if et, ok := t.(sql.EnumType); ok && uint64(e) > uint64(et.NumberOfElements()) {
				return nil, corrupt("ENUM index %d out of range for %d elements", e, et.NumberOfElements())
			}
			return uint16(e), nil
		}
	case sqltypes.Set:
		if s, ok := raw.(setVal); ok {
			if st, ok := t.(sql.SetType); ok && st.NumberOfElements() < 64 && uint64(s)>>st.NumberOfElements() != 0 {
				return nil, corrupt("SET bits %#x out of range for %d elements", uint64(s), st.NumberOfElements())
			}
			return uint64(s), nil
		}
	case sqltypes.Bit:
		if bv, ok := raw.(bitVal); ok {
			if bt, ok := t.(types.BitType); ok && bt.NumberOfBits() < 64 && uint64(bv)>>bt.NumberOfBits() != 0 {
				return nil, corrupt("BIT value %#x out of range for BIT(%d)", uint64(bv), bt.NumberOfBits())
			}
			return uint64(bv), nil
		}
	case sqltypes.TypeJSON:
		if jb, ok := raw.(jsonBin); ok {
			doc, err := DecodeJSON(jb)
			if err != nil {
				return nil, err
			}
			return types.JSONDocument{Val: doc}, nil
		}
	case sqltypes.Geometry:
		if gb, ok := raw.(geomBin); ok {
			// GMS parses MySQL's SRID+WKB itself.
			return convert(t, append([]byte{}, gb...))
		}
	}
	// The logged column is not the natural one for t: let GMS convert.
	g, err := generic(c, raw)
	if err != nil {
		return nil, err
	}
	return convert(t, g)
}

// natural reports whether c is how ColumnFor(t) logs, so that the decoded
// value needs no further conversion.
func natural(c Column, t sql.Type) bool {
	want, err := ColumnFor(t, c.Nullable)
	if err != nil {
		return false
	}
	return want.Type == c.Type && (c.Type == TypeDate || want.Meta == c.Meta)
}

func mustGeneric(c Column, raw any) any {
	g, err := generic(c, raw)
	if err != nil {
		return nil
	}
	return g
}

func intToGMS(t sql.Type, i int64, u uint64, isU bool) (any, error) {
	var lo int64
	var hi uint64
	switch t.Type() {
	case sqltypes.Int8:
		lo, hi = math.MinInt8, math.MaxInt8
	case sqltypes.Int16:
		lo, hi = math.MinInt16, math.MaxInt16
	case sqltypes.Int24:
		lo, hi = -1<<23, 1<<23-1
	case sqltypes.Int32:
		lo, hi = math.MinInt32, math.MaxInt32
	case sqltypes.Int64:
		lo, hi = math.MinInt64, math.MaxInt64
	case sqltypes.Uint8:
		hi = math.MaxUint8
	case sqltypes.Uint16:
		hi = math.MaxUint16
	case sqltypes.Uint24:
		hi = 1<<24 - 1
	case sqltypes.Uint32:
		hi = math.MaxUint32
	case sqltypes.Uint64:
		hi = math.MaxUint64
	}
	if isU {
		if u > hi {
			return nil, corrupt("integer %d out of range for %s", u, t)
		}
	} else {
		if i < lo || (i >= 0 && uint64(i) > hi) {
			return nil, corrupt("integer %d out of range for %s", i, t)
		}
		u = uint64(i)
	}
	switch t.Type() {
	case sqltypes.Int8:
		return int8(u), nil
	case sqltypes.Int16:
		return int16(u), nil
	case sqltypes.Int24, sqltypes.Int32:
		return int32(u), nil
	case sqltypes.Int64:
		return int64(u), nil
	case sqltypes.Uint8:
		return uint8(u), nil
	case sqltypes.Uint16:
		return uint16(u), nil
	case sqltypes.Uint24, sqltypes.Uint32:
		return uint32(u), nil
	}
	return u, nil
}

// convert runs t.Convert, turning errors, out-of-range results and panics
// into ErrCorrupt (the logged value does not fit the local column).
func convert(t sql.Type, v any) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, corrupt("converting %T to %s: %v", v, t, p)
		}
	}()
	out, inRange, err := t.Convert(convCtx, v)
	if err != nil {
		return nil, fmt.Errorf("%w: converting to %s: %v", ErrCorrupt, t, err)
	}
	if inRange != sql.InRange {
		return nil, corrupt("value %v out of range for %s", v, t)
	}
	if out == nil {
		return nil, corrupt("value %v converts to NULL for %s", v, t)
	}
	return out, nil
}

// DecodeRowImage decodes one row image: the NULL bitmap over the present
// columns ((count+7)/8 bytes) followed by the non-NULL values. present (nil =
// all columns) is the event's columns-present bitmap; types (nil = generic
// values) are the GMS column types. The returned row has len(cols) entries;
// absent and NULL columns are nil. n is the number of bytes consumed.
func DecodeRowImage(b []byte, cols []Column, types []sql.Type, present []bool) (sql.Row, int, error) {
	if types != nil && len(types) != len(cols) {
		return nil, 0, fmt.Errorf("rowenc: %d types for %d columns", len(types), len(cols))
	}
	if present != nil && len(present) != len(cols) {
		return nil, 0, fmt.Errorf("rowenc: %d present flags for %d columns", len(present), len(cols))
	}
	np := len(cols)
	if present != nil {
		np = 0
		for _, p := range present {
			if p {
				np++
			}
		}
	}
	nb := (np + 7) / 8
	if len(b) < nb {
		return nil, 0, corrupt("truncated NULL bitmap")
	}
	nulls := b[:nb]
	pos := nb
	row := make(sql.Row, len(cols))
	j := 0
	for i := range cols {
		if present != nil && !present[i] {
			continue
		}
		isNull := nulls[j/8]&(1<<(j%8)) != 0
		j++
		if isNull {
			continue
		}
		var t sql.Type
		if types != nil {
			t = types[i]
		}
		v, n, err := DecodeValue(b[pos:], cols[i], t)
		if err != nil {
			return nil, 0, fmt.Errorf("column %d: %w", i+1, err)
		}
		row[i] = v
		pos += n
	}
	return row, pos, nil
}
