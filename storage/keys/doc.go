// Package keys defines the byte encodings Petrel uses to store go-mysql-server
// (GMS) rows in Pebble. There are two independent formats:
//
// # Key encoding (AppendValue, AppendRowKey)
//
// Primary-key and secondary-index keys are memcomparable: for two values a and
// b of the same GMS type T, after conversion with T.Convert,
//
//	sign(bytes.Compare(enc(a), enc(b))) == T.Compare(ctx, a, b)
//
// Every encoding is self-delimiting (no encoding is a proper prefix of
// another), so the concatenation of several encoded columns compares
// column-by-column, which is what composite keys need.
//
// NULL encodes as the single byte 0x00 and every non-NULL value starts with
// 0x01, so NULL sorts before all values (MySQL index order). Note that GMS's
// own Compare sorts NULL *after* non-NULL values; the key order deliberately
// follows MySQL here, callers compare NULLs themselves.
//
// Payloads after the 0x01 marker:
//
//   - signed integers: big-endian two's complement with the sign bit flipped,
//     1/2/3/4/8 bytes for TINYINT/SMALLINT/MEDIUMINT/INT/BIGINT.
//   - unsigned integers: big-endian, same widths.
//   - FLOAT/DOUBLE: IEEE bits, sign bit flipped for positives and all bits
//     flipped for negatives; -0 is encoded as +0. NaN and ±Inf are rejected.
//   - DECIMAL: class byte (0x01 negative, 0x02 zero, 0x03 positive), then for
//     non-zero values the exponent E and digits of the normalised form
//     0.d1d2…dn × 10^E (no trailing zeros): E as an order-preserving varint,
//     the digits as base-100 pairs stored as pair+1, terminated by 0x00. For
//     negative values every byte after the class byte is inverted. The encoding
//     depends only on the numeric value (1.5 and 1.50 encode identically).
//   - CHAR/VARCHAR/TEXT (non-binary collations): per rune, the collation
//     weight GMS uses (Collation.Sorter) as a small length-classed integer
//     (class byte 0x01..0x05, then 1-4 bytes), terminated by 0x00. GMS compares
//     weights rune by rune and then by length, and does not trim trailing
//     spaces even for PAD SPACE collations; AppendValue matches it exactly.
//     AppendValuePad (tables of key format 1) drops trailing spaces first
//     under PAD SPACE collations, as MySQL compares such strings.
//   - BINARY/VARBINARY/BLOB: raw bytes with 0x00 escaped as 0x00 0xFF,
//     terminated by 0x00 0x01.
//   - DATE/DATETIME/TIMESTAMP: microseconds since the Unix epoch (UTC) as a
//     sign-flipped 8-byte integer.
//   - TIME: the types.Timespan microseconds as a sign-flipped 8-byte integer.
//   - YEAR: the int16 year, sign-flipped 2 bytes.
//   - ENUM: the uint16 index, 2 bytes. SET, BIT: the uint64 value, 8 bytes.
//   - JSON and spatial types are not indexable and return ErrUnsupportedType.
//
// Values are first converted with the column type's Convert (plus Petrel's
// own exact range checks for integers, since GMS silently truncates some
// integer conversions). Out-of-range values return an error wrapping
// ErrOutOfRange, values that cannot be converted at all return ErrInvalidValue.
// Conversion may round (e.g. 1.5 for an INT column encodes as 2, as GMS's
// Convert and Compare do; 0.1 for a FLOAT column encodes as float32(0.1));
// callers that build range scans from such literals must widen their bounds
// themselves.
//
// # Row encoding (EncodeRow, DecodeRow)
//
// The value stored under a primary key is a compact, not order-preserving
// encoding of the whole row:
//
//	version byte (rowFormatV1) | uvarint column count | per column: tag [value]
//
// The tag is 0x00 for NULL (no value follows) or 0x01 for a present value.
// Values: zigzag varints for signed integers, YEAR and TIME; uvarints for
// unsigned integers, ENUM, SET and BIT; fixed little-endian IEEE bits for
// floats; zigzag varint Unix microseconds for DATE/DATETIME/TIMESTAMP;
// uvarint-length-prefixed bytes for strings, blobs, JSON text and spatial
// EWKB; DECIMAL as zigzag-varint exponent, uvarint (2*len(magnitude) | sign)
// and the big-endian magnitude of the coefficient (exact, exponent preserved).
//
// DecodeRow returns the same Go types GMS's Convert produces for each column
// type. A stored row with fewer columns than the schema (written before an
// ALTER TABLE ADD COLUMN) is padded with nil for the missing trailing columns:
// DecodeRow does not apply column defaults, the caller must. More stored
// columns than the schema has is an error. DecodeRow never retains or aliases
// the input buffer, and never panics on malformed input: it returns an error
// wrapping ErrCorrupt. Besides the framing it validates each value's domain
// (integer width, ENUM index, SET/BIT width, YEAR/TIME/DATETIME range and
// fractional precision, DECIMAL scale and magnitude, JSON syntax, EWKB);
// string and blob contents are returned as stored.
package keys
