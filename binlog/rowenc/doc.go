// Package rowenc is the value codec of MySQL 8.0 row-based binary logs: how
// TABLE_MAP events describe columns (type code, metadata, optional
// metadata) and how one column value is laid out in the row images of
// WRITE/UPDATE/DELETE_ROWS events, plus MySQL's binary JSON format. Petrel
// uses it to write binlogs that mysqlbinlog/mariadb-binlog and MySQL or
// MariaDB replicas read, and to decode them again (replica applier,
// recovery, `petrel binlog -v`). Event framing lives in package
// petrel/binlog.
//
// # Columns
//
// Column holds what TABLE_MAP says about one column. ColumnFor derives it
// from a go-mysql-server (GMS) type exactly as MySQL 8.0 logs the equivalent
// column; AppendMeta/ParseMeta/MetaLen handle the per-column bytes of the
// metadata block (0, 1 or 2 bytes; STRING/ENUM/SET and NEWDECIMAL put the
// high byte of Meta first, VARCHAR and BIT the low byte); OptionalMetadata
// writes the binlog_row_metadata=MINIMAL fields (SIGNEDNESS,
// DEFAULT_CHARSET or COLUMN_CHARSET, GEOMETRY_TYPE) and ApplyOptionalMetadata
// reads them back.
//
// # Values
//
// AppendValue appends one non-NULL value, AppendRowImage a whole row image
// (NULL bitmap over all columns, then the non-NULL values). The formats are
// MySQL's (little-endian unless noted):
//
//	TINYINT..BIGINT   1/2/3/4/8 bytes two's complement      int8/16/32(MEDIUMINT too)/64, uintN
//	FLOAT, DOUBLE     IEEE 754, 4 / 8 bytes                   float32, float64
//	DECIMAL(p,s)      NEWDECIMAL packed binary (decimal2bin)  decimal.Decimal
//	CHAR, BINARY      STRING: 1-byte length (2 if > 255 bytes), trailing pad stripped
//	VARCHAR/VARBINARY VARCHAR: 1-byte length (2 if max bytes > 255)   string / []byte
//	TEXT, BLOB        BLOB: 1-4 byte length (pack length = Meta)      string / []byte
//	DATE              3 bytes: day | month<<5 | year<<9       time.Time (UTC)
//	DATETIME(n)       DATETIME2: 5 bytes big-endian + fraction time.Time (UTC)
//	TIMESTAMP(n)      TIMESTAMP2: 4 bytes big-endian epoch seconds + fraction
//	TIME              TIME2 (fsp 6: GMS's TIME is TIME(6)): 3 bytes + fraction  types.Timespan
//	YEAR              1 byte, year-1900 (0 for 0000)          int16
//	ENUM              STRING with real type ENUM: 1-2 byte index     uint16
//	SET               STRING with real type SET: 1,2,3,4,8 byte bitmap  uint64
//	BIT(n)            (n+7)/8 bytes big-endian                uint64
//	JSON              4-byte length + binary JSON             types.JSONDocument
//	GEOMETRY          4-byte length + SRID + WKB              GMS geometry values
//
// The fraction of DATETIME2/TIMESTAMP2/TIME2 takes (fsp+1)/2 bytes,
// big-endian. Strings in charsets other than utf8mb4/utf8mb3/ascii/binary
// are converted from GMS's UTF-8 to the column charset (and back on decode).
// Values that do not fit the column as described return errors wrapping
// ErrRange; they are never truncated. Like MySQL, AppendValue rounds
// fractional seconds and DECIMAL digits to the column's precision.
//
// DecodeValue with a GMS type returns exactly the Go type that type's
// Convert returns (reflect.DeepEqual with typ.Convert output; for JSON,
// equal under the JSON type's Compare). With a nil type it returns generic
// values for printing (see DecodeValue). DecodeRowImage decodes a row image
// given the event's columns-present bitmap. Decoders never panic and never
// alias their input; malformed input returns errors wrapping ErrCorrupt.
//
// Round trips are exact except where MySQL's format itself does not keep
// the difference:
//
//   - CHAR values lose trailing spaces, as in MySQL, which strips them when
//     logging (Field_string::pack) and never returns them; GMS keeps them.
//     BINARY(n) values are logged without trailing NULs and padded back to
//     n bytes from the GMS type on decode.
//   - GMS represents the zero date '0000-00-00' as 0000-01-01 00:00:00 UTC;
//     it is logged as MySQL's zero value and decoded back to that time.
//   - JSON: GMS holds JSON numbers as float64; integral ones are stored as
//     MySQL integers (as MySQL would have stored the same JSON text) and
//     decode as int64/uint64. time.Time inside a document is stored as the
//     string encoding/json makes of it. decimal.Decimal is stored as MySQL
//     stores DECIMALs in JSON (opaque NEWDECIMAL) and decodes as a decimal.
//
// # Printing
//
// FormatValue renders values as mysqlbinlog -v does in its "###   @N=..."
// lines (see its documentation for the per-type rules and the two places
// where it deliberately prints the true value instead: integer signedness
// and the zero YEAR).
//
// # Not supported
//
// The pre-5.0 DECIMAL type (code 0); writing the pre-5.6 TIMESTAMP,
// DATETIME and TIME formats (they are decoded); CHAR columns longer than
// 1023 bytes (MySQL cannot describe them either); PARTIAL_UPDATE_ROWS JSON
// diffs; MySQL 8.0's internal TYPED_ARRAY and MySQL 9's VECTOR; the
// binlog_row_metadata=FULL fields (column names, ENUM/SET strings, primary
// key), which OptionalMetadata does not write and ApplyOptionalMetadata
// skips.
package rowenc
