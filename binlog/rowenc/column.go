package rowenc

import (
	"errors"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/internal/lenenc"
)

// MySQL field type codes (enum_field_types) as they appear in TABLE_MAP
// events. Only the ones MySQL 8.0 writes plus the legacy temporal types the
// decoder still understands are listed.
const (
	TypeDecimal    byte = 0 // pre-5.0 DECIMAL, never written by 8.0; unsupported
	TypeTiny       byte = 1
	TypeShort      byte = 2
	TypeLong       byte = 3
	TypeFloat      byte = 4
	TypeDouble     byte = 5
	TypeNull       byte = 6
	TypeTimestamp  byte = 7 // pre-5.6 TIMESTAMP (decode only)
	TypeLongLong   byte = 8
	TypeInt24      byte = 9
	TypeDate       byte = 10
	TypeTime       byte = 11 // pre-5.6 TIME (decode only)
	TypeDatetime   byte = 12 // pre-5.6 DATETIME (decode only)
	TypeYear       byte = 13
	TypeNewDate    byte = 14
	TypeVarchar    byte = 15
	TypeBit        byte = 16
	TypeTimestamp2 byte = 17
	TypeDatetime2  byte = 18
	TypeTime2      byte = 19
	TypeJSON       byte = 245
	TypeNewDecimal byte = 246
	TypeEnum       byte = 247 // only ever a real type inside STRING metadata
	TypeSet        byte = 248 // only ever a real type inside STRING metadata
	TypeTinyBlob   byte = 249
	TypeMediumBlob byte = 250
	TypeLongBlob   byte = 251
	TypeBlob       byte = 252
	TypeVarString  byte = 253
	TypeString     byte = 254
	TypeGeometry   byte = 255
)

// CollationBinary is the collation id MySQL uses for binary strings.
const CollationBinary = 63

// Geometry subtypes as MySQL logs them in the GEOMETRY_TYPE optional
// metadata field (Field::geometry_type).
const (
	GeomGeometry           byte = 0
	GeomPoint              byte = 1
	GeomLineString         byte = 2
	GeomPolygon            byte = 3
	GeomMultiPoint         byte = 4
	GeomMultiLineString    byte = 5
	GeomMultiPolygon       byte = 6
	GeomGeometryCollection byte = 7
)

var (
	// ErrUnsupported is returned for column types or values this package
	// cannot represent.
	ErrUnsupported = errors.New("rowenc: unsupported")
	// ErrCorrupt is returned by the decoders for malformed or truncated input.
	ErrCorrupt = errors.New("rowenc: corrupt binlog value")
	// ErrRange is returned by the encoders for values that do not fit the
	// column as described.
	ErrRange = errors.New("rowenc: value out of range for column")
)

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

func outOfRange(c Column, v any) error {
	return fmt.Errorf("%w: %v (%T) for %s", ErrRange, v, v, c)
}

// Column is one column as a TABLE_MAP event describes it.
type Column struct {
	// Type is the MySQL field type code as written in TABLE_MAP's column
	// type array (the field's binlog_type(): ENUM and SET appear as
	// TypeString with their real type in Meta).
	Type byte
	// Meta is the type metadata in the form MySQL's table_def keeps it after
	// reading TABLE_MAP (see ParseMeta for the byte layout per type).
	Meta     uint16
	Nullable bool
	// Unsigned is the column's bit in the SIGNEDNESS optional metadata.
	Unsigned bool
	// Charset is the column's collation id (63 = binary); 0 means unknown,
	// e.g. when the TABLE_MAP carried no optional metadata.
	Charset uint16
	// GeomType is the geometry subtype for TypeGeometry columns (GEOMETRY_TYPE
	// optional metadata); zero (GEOMETRY) otherwise.
	GeomType byte
}

func (c Column) String() string {
	return fmt.Sprintf("%s(meta=%#x)", TypeName(c.Type, c.Meta), c.Meta)
}

// RealType is the column's real type: for TypeString the type stored in the
// high byte of Meta (TypeString, TypeEnum or TypeSet), otherwise Type.
func (c Column) RealType() byte {
	if c.Type != TypeString || c.Meta < 256 {
		return c.Type
	}
	rt, _ := stringMeta(c.Meta)
	return rt
}

// MaxLength is the maximum byte length of a character/binary column's value
// (CHAR/BINARY, VARCHAR/VARBINARY, TEXT/BLOB/JSON/GEOMETRY by pack length),
// or 0 for other columns.
func (c Column) MaxLength() int64 {
	switch c.Type {
	case TypeVarchar, TypeVarString:
		return int64(c.Meta)
	case TypeString:
		rt, n := stringMeta(c.Meta)
		if rt == TypeString {
			return int64(n)
		}
	case TypeBlob, TypeTinyBlob, TypeMediumBlob, TypeLongBlob, TypeJSON, TypeGeometry:
		if c.Meta >= 1 && c.Meta <= 4 {
			return 1<<(8*c.Meta) - 1
		}
	}
	return 0
}

// IsCharacter reports whether MySQL counts the column as a character column
// for the charset optional metadata (real type STRING, VARCHAR or BLOB; this
// includes binary strings, excludes ENUM/SET, JSON and GEOMETRY).
func (c Column) IsCharacter() bool {
	switch c.RealType() {
	case TypeString, TypeVarchar, TypeVarString, TypeBlob, TypeTinyBlob, TypeMediumBlob, TypeLongBlob:
		return true
	}
	return false
}

// IsNumeric reports whether the column gets a bit in the SIGNEDNESS optional
// metadata (MySQL's is_numeric_type: integers, FLOAT, DOUBLE, DECIMAL; not
// YEAR or BIT).
func (c Column) IsNumeric() bool {
	switch c.Type {
	case TypeTiny, TypeShort, TypeInt24, TypeLong, TypeLongLong, TypeFloat, TypeDouble, TypeNewDecimal, TypeDecimal:
		return true
	}
	return false
}

// stringMeta decodes the metadata of a TypeString column. MySQL packs the
// real type into the high byte and, because CHAR columns may be up to 1020
// bytes long (255 utf8mb4 characters), smuggles bits 8-9 of the length into
// bits 4-5 of the real type byte, inverted (real types all have those bits
// set). See Field_string::do_save_field_metadata.
func stringMeta(meta uint16) (realType byte, length int) {
	hi, lo := byte(meta>>8), int(meta&0xff)
	if hi == 0 {
		// Very old servers wrote only a length; treat it as CHAR.
		return TypeString, lo
	}
	if hi&0x30 != 0x30 {
		return hi | 0x30, lo | int((hi&0x30)^0x30)<<4
	}
	return hi, lo
}

// makeStringMeta is the inverse of stringMeta.
func makeStringMeta(realType byte, length int) uint16 {
	hi := realType ^ byte((length&0x300)>>4)
	return uint16(hi)<<8 | uint16(length&0xff)
}

// TypeName is a human-readable name for a field type, refined by metadata
// for STRING columns.
func TypeName(typ byte, meta uint16) string {
	switch typ {
	case TypeDecimal:
		return "DECIMAL(old)"
	case TypeTiny:
		return "TINYINT"
	case TypeShort:
		return "SMALLINT"
	case TypeLong:
		return "INT"
	case TypeFloat:
		return "FLOAT"
	case TypeDouble:
		return "DOUBLE"
	case TypeNull:
		return "NULL"
	case TypeTimestamp:
		return "TIMESTAMP(old)"
	case TypeLongLong:
		return "BIGINT"
	case TypeInt24:
		return "MEDIUMINT"
	case TypeDate, TypeNewDate:
		return "DATE"
	case TypeTime:
		return "TIME(old)"
	case TypeDatetime:
		return "DATETIME(old)"
	case TypeYear:
		return "YEAR"
	case TypeVarchar, TypeVarString:
		return "VARSTRING"
	case TypeBit:
		return "BIT"
	case TypeTimestamp2:
		return "TIMESTAMP"
	case TypeDatetime2:
		return "DATETIME"
	case TypeTime2:
		return "TIME"
	case TypeJSON:
		return "JSON"
	case TypeNewDecimal:
		return "DECIMAL"
	case TypeEnum:
		return "ENUM"
	case TypeSet:
		return "SET"
	case TypeTinyBlob, TypeMediumBlob, TypeLongBlob, TypeBlob:
		return "BLOB"
	case TypeString:
		switch rt, _ := stringMeta(meta); rt {
		case TypeEnum:
			return "ENUM"
		case TypeSet:
			return "SET"
		}
		return "STRING"
	case TypeGeometry:
		return "GEOMETRY"
	}
	return fmt.Sprintf("type%d", typ)
}

// MetaLen is the number of bytes a column of type typ occupies in TABLE_MAP's
// metadata block (MySQL's table_def constructor), or -1 for types this
// package does not know.
func MetaLen(typ byte) int {
	switch typ {
	case TypeDecimal, TypeTiny, TypeShort, TypeLong, TypeNull, TypeTimestamp, TypeLongLong,
		TypeInt24, TypeDate, TypeTime, TypeDatetime, TypeYear, TypeNewDate:
		return 0
	case TypeFloat, TypeDouble, TypeTimestamp2, TypeDatetime2, TypeTime2, TypeJSON,
		TypeTinyBlob, TypeMediumBlob, TypeLongBlob, TypeBlob, TypeGeometry:
		return 1
	case TypeNewDecimal, TypeEnum, TypeSet, TypeString, TypeVarchar, TypeVarString, TypeBit:
		return 2
	}
	return -1
}

// AppendMeta appends the column's bytes in TABLE_MAP's metadata block.
//
// Byte order follows MySQL's do_save_field_metadata: VARCHAR max length and
// BIT (bits%8, then bytes) are little-endian in the uint16 sense, while
// STRING/ENUM/SET (real type, then length) and NEWDECIMAL (precision, then
// scale) put the high byte of Meta first.
func AppendMeta(dst []byte, c Column) []byte {
	switch MetaLen(c.Type) {
	case 1:
		return append(dst, byte(c.Meta))
	case 2:
		switch c.Type {
		case TypeVarchar, TypeVarString, TypeBit:
			return append(dst, byte(c.Meta), byte(c.Meta>>8))
		}
		return append(dst, byte(c.Meta>>8), byte(c.Meta))
	}
	return dst
}

// ParseMeta reads the metadata of one column of type typ from the start of b
// and returns it in Column.Meta form with the number of bytes consumed.
func ParseMeta(typ byte, b []byte) (meta uint16, n int, err error) {
	n = MetaLen(typ)
	if n < 0 {
		return 0, 0, fmt.Errorf("%w: column type %d", ErrUnsupported, typ)
	}
	if len(b) < n {
		return 0, 0, corrupt("truncated metadata for %s", TypeName(typ, 0))
	}
	switch n {
	case 1:
		meta = uint16(b[0])
	case 2:
		switch typ {
		case TypeVarchar, TypeVarString, TypeBit:
			meta = uint16(b[0]) | uint16(b[1])<<8
		default:
			meta = uint16(b[0])<<8 | uint16(b[1])
		}
	}
	return meta, n, nil
}

// ColumnFor describes how MySQL 8.0 logs a column of GMS type t.
//
// Integers, FLOAT and DOUBLE map to their own codes; DECIMAL to NEWDECIMAL;
// CHAR/BINARY to STRING and VARCHAR/VARBINARY to VARCHAR with the maximum
// length in bytes (characters times the charset's maximum character width);
// TEXT/BLOB to BLOB with pack length 1..4; DATETIME/TIMESTAMP to the *2
// types with their fsp; TIME to TIME2 with fsp 6 because GMS implements TIME
// as TIME(6); DATE and YEAR to themselves; ENUM and SET to STRING with the real
// type and pack length in Meta, as MySQL does; BIT to BIT; JSON and GEOMETRY
// with pack length 4.
func ColumnFor(t sql.Type, nullable bool) (Column, error) {
	if t == nil {
		return Column{}, fmt.Errorf("%w: nil type", ErrUnsupported)
	}
	c := Column{Nullable: nullable}
	switch t.Type() {
	case sqltypes.Int8:
		c.Type = TypeTiny
	case sqltypes.Uint8:
		c.Type, c.Unsigned = TypeTiny, true
	case sqltypes.Int16:
		c.Type = TypeShort
	case sqltypes.Uint16:
		c.Type, c.Unsigned = TypeShort, true
	case sqltypes.Int24:
		c.Type = TypeInt24
	case sqltypes.Uint24:
		c.Type, c.Unsigned = TypeInt24, true
	case sqltypes.Int32:
		c.Type = TypeLong
	case sqltypes.Uint32:
		c.Type, c.Unsigned = TypeLong, true
	case sqltypes.Int64:
		c.Type = TypeLongLong
	case sqltypes.Uint64:
		c.Type, c.Unsigned = TypeLongLong, true
	case sqltypes.Float32:
		c.Type, c.Meta = TypeFloat, 4
	case sqltypes.Float64:
		c.Type, c.Meta = TypeDouble, 8
	case sqltypes.Decimal:
		dt, ok := t.(sql.DecimalType)
		if !ok {
			break
		}
		p, s := dt.Precision(), dt.Scale()
		if p < 1 || p > maxDecimalPrecision || s > maxDecimalScale || s > p {
			return Column{}, fmt.Errorf("%w: %s", ErrUnsupported, t)
		}
		c.Type, c.Meta = TypeNewDecimal, uint16(p)<<8|uint16(s)
	case sqltypes.Char, sqltypes.Binary:
		st, ok := t.(sql.StringType)
		if !ok {
			break
		}
		n := st.MaxByteLength()
		if n > 1023 {
			// MySQL cannot describe a CHAR longer than 1023 bytes in
			// TABLE_MAP (10 bits of length).
			return Column{}, fmt.Errorf("%w: %s is %d bytes long", ErrUnsupported, t, n)
		}
		c.Type, c.Meta, c.Charset = TypeString, makeStringMeta(TypeString, int(n)), uint16(st.Collation())
	case sqltypes.VarChar, sqltypes.VarBinary:
		st, ok := t.(sql.StringType)
		if !ok {
			break
		}
		n := st.MaxByteLength()
		if n > 65535 {
			return Column{}, fmt.Errorf("%w: %s is %d bytes long", ErrUnsupported, t, n)
		}
		c.Type, c.Meta, c.Charset = TypeVarchar, uint16(n), uint16(st.Collation())
	case sqltypes.Text, sqltypes.Blob:
		st, ok := t.(sql.StringType)
		if !ok {
			break
		}
		c.Type, c.Meta, c.Charset = TypeBlob, packLenFor(st.MaxByteLength()), uint16(st.Collation())
	case sqltypes.Date:
		c.Type = TypeDate
	case sqltypes.Datetime, sqltypes.Timestamp:
		dt, ok := t.(sql.DatetimeType)
		if !ok {
			break
		}
		c.Type, c.Meta = TypeDatetime2, uint16(dt.Precision())
		if t.Type() == sqltypes.Timestamp {
			c.Type = TypeTimestamp2
		}
	case sqltypes.Time:
		c.Type, c.Meta = TypeTime2, 6
	case sqltypes.Year:
		c.Type = TypeYear
	case sqltypes.Enum:
		et, ok := t.(sql.EnumType)
		if !ok {
			break
		}
		c.Type, c.Meta, c.Charset = TypeString, uint16(TypeEnum)<<8|uint16(enumPackLen(int(et.NumberOfElements()))), uint16(et.Collation())
	case sqltypes.Set:
		st, ok := t.(sql.SetType)
		if !ok {
			break
		}
		c.Type, c.Meta, c.Charset = TypeString, uint16(TypeSet)<<8|uint16(setPackLen(int(st.NumberOfElements()))), uint16(st.Collation())
	case sqltypes.Bit:
		bt, ok := t.(types.BitType)
		if !ok {
			break
		}
		n := uint16(bt.NumberOfBits())
		c.Type, c.Meta = TypeBit, (n/8)<<8|n%8
	case sqltypes.TypeJSON:
		c.Type, c.Meta = TypeJSON, 4
	case sqltypes.Geometry:
		c.Type, c.Meta, c.GeomType = TypeGeometry, 4, geomTypeOf(t)
	}
	if c.Type == 0 {
		return Column{}, fmt.Errorf("%w: %s", ErrUnsupported, t)
	}
	return c, nil
}

// packLenFor is the BLOB pack length (bytes of the length prefix) MySQL uses
// for a TEXT/BLOB column of the given maximum byte length.
func packLenFor(maxBytes int64) uint16 {
	switch {
	case maxBytes <= 0xff:
		return 1
	case maxBytes <= 0xffff:
		return 2
	case maxBytes <= 0xffffff:
		return 3
	}
	return 4
}

// enumPackLen is MySQL's get_enum_pack_length.
func enumPackLen(elements int) int {
	if elements < 256 {
		return 1
	}
	return 2
}

// setPackLen is MySQL's get_set_pack_length: 1..4 bytes, or 8.
func setPackLen(elements int) int {
	n := (elements + 7) / 8
	if n > 4 {
		return 8
	}
	return n
}

func geomTypeOf(t sql.Type) byte {
	switch t.(type) {
	case types.PointType:
		return GeomPoint
	case types.LineStringType:
		return GeomLineString
	case types.PolygonType:
		return GeomPolygon
	case types.MultiPointType:
		return GeomMultiPoint
	case types.MultiLineStringType:
		return GeomMultiLineString
	case types.MultiPolygonType:
		return GeomMultiPolygon
	case types.GeomCollType:
		return GeomGeometryCollection
	}
	return GeomGeometry
}

// Optional metadata field types (Table_map_log_event::Optional_metadata_field_type).
const (
	OptSignedness     byte = 1
	OptDefaultCharset byte = 2
	OptColumnCharset  byte = 3
	OptGeometryType   byte = 4
)

// OptionalMetadata returns TABLE_MAP's optional metadata as MySQL 8.0 writes
// it with binlog_row_metadata=MINIMAL: SIGNEDNESS for numeric columns,
// DEFAULT_CHARSET or COLUMN_CHARSET (whichever MySQL's size heuristic picks)
// for character columns, and GEOMETRY_TYPE for geometry columns. Fields with
// no columns to describe are omitted; the result is nil for a table with none.
func OptionalMetadata(cols []Column) []byte {
	var out []byte

	// SIGNEDNESS: one bit per numeric column, most significant bit first.
	var bits []byte
	nNumeric := 0
	for _, c := range cols {
		if !c.IsNumeric() {
			continue
		}
		if nNumeric%8 == 0 {
			bits = append(bits, 0)
		}
		if c.Unsigned {
			bits[nNumeric/8] |= 0x80 >> (nNumeric % 8)
		}
		nNumeric++
	}
	if nNumeric > 0 {
		out = appendTLV(out, OptSignedness, bits)
	}

	// Charsets, following Table_map_log_event::init_charset_field: find the
	// most used collation (ties go to the lowest id, as std::map iteration
	// with a strict > does), then log whichever of COLUMN_CHARSET and
	// DEFAULT_CHARSET MySQL estimates to be smaller.
	counts := map[uint16]int{}
	nChar := 0
	for _, c := range cols {
		if c.IsCharacter() {
			counts[c.Charset]++
			nChar++
		}
	}
	if nChar > 0 {
		var best uint16
		bestN := 0
		for id, n := range counts {
			if n > bestN || (n == bestN && id < best) {
				best, bestN = id, n
			}
		}
		var buf []byte
		if nChar < 1+(nChar-bestN)*2 {
			for _, c := range cols {
				if c.IsCharacter() {
					buf = lenenc.Append(buf, uint64(c.Charset))
				}
			}
			out = appendTLV(out, OptColumnCharset, buf)
		} else {
			buf = lenenc.Append(buf, uint64(best))
			idx := 0
			for _, c := range cols {
				if !c.IsCharacter() {
					continue
				}
				if c.Charset != best {
					buf = lenenc.Append(buf, uint64(idx))
					buf = lenenc.Append(buf, uint64(c.Charset))
				}
				idx++
			}
			out = appendTLV(out, OptDefaultCharset, buf)
		}
	}

	var geo []byte
	for _, c := range cols {
		if c.Type == TypeGeometry {
			geo = lenenc.Append(geo, uint64(c.GeomType))
		}
	}
	if geo != nil {
		out = appendTLV(out, OptGeometryType, geo)
	}
	return out
}

func appendTLV(dst []byte, typ byte, val []byte) []byte {
	dst = append(dst, typ)
	dst = lenenc.Append(dst, uint64(len(val)))
	return append(dst, val...)
}

// readLenEnc reads a length-encoded integer.
func readLenEnc(b []byte) (uint64, int, error) {
	if len(b) == 0 {
		return 0, 0, corrupt("truncated length-encoded integer")
	}
	var n int
	switch b[0] {
	case 0xfc:
		n = 2
	case 0xfd:
		n = 3
	case 0xfe:
		n = 8
	case 0xfb, 0xff:
		return 0, 0, corrupt("bad length-encoded integer prefix %#x", b[0])
	default:
		return uint64(b[0]), 1, nil
	}
	if len(b) < 1+n {
		return 0, 0, corrupt("truncated length-encoded integer")
	}
	var v uint64
	for i := n; i >= 1; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, 1 + n, nil
}

// ApplyOptionalMetadata fills Unsigned, Charset and GeomType of cols from a
// TABLE_MAP optional metadata block (the inverse of OptionalMetadata; it also
// accepts the FULL-mode fields, which it skips). Unknown field types are
// skipped, as MySQL does.
func ApplyOptionalMetadata(cols []Column, b []byte) error {
	for len(b) > 0 {
		typ := b[0]
		l, n, err := readLenEnc(b[1:])
		if err != nil {
			return err
		}
		b = b[1+n:]
		if l > uint64(len(b)) {
			return corrupt("optional metadata field %d longer than event", typ)
		}
		val := b[:l]
		b = b[l:]
		switch typ {
		case OptSignedness:
			i := 0
			for ci := range cols {
				if !cols[ci].IsNumeric() {
					continue
				}
				if i/8 >= len(val) {
					return corrupt("SIGNEDNESS bitmap too short")
				}
				cols[ci].Unsigned = val[i/8]&(0x80>>(i%8)) != 0
				i++
			}
		case OptDefaultCharset:
			def, n, err := readLenEnc(val)
			if err != nil {
				return err
			}
			val = val[n:]
			var charCols []int
			for ci := range cols {
				if cols[ci].IsCharacter() {
					charCols = append(charCols, ci)
					cols[ci].Charset = uint16(def)
				}
			}
			for len(val) > 0 {
				idx, n, err := readLenEnc(val)
				if err != nil {
					return err
				}
				val = val[n:]
				coll, n, err := readLenEnc(val)
				if err != nil {
					return err
				}
				val = val[n:]
				if idx >= uint64(len(charCols)) {
					return corrupt("DEFAULT_CHARSET column index %d out of range", idx)
				}
				cols[charCols[idx]].Charset = uint16(coll)
			}
		case OptColumnCharset:
			for ci := range cols {
				if !cols[ci].IsCharacter() {
					continue
				}
				coll, n, err := readLenEnc(val)
				if err != nil {
					return err
				}
				val = val[n:]
				cols[ci].Charset = uint16(coll)
			}
		case OptGeometryType:
			for ci := range cols {
				if cols[ci].Type != TypeGeometry {
					continue
				}
				g, n, err := readLenEnc(val)
				if err != nil {
					return err
				}
				val = val[n:]
				cols[ci].GeomType = byte(g)
			}
		}
	}
	return nil
}
