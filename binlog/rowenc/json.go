package rowenc

import (
	"errors"
)

// MySQL binary JSON (sql-common/json_binary.cc). A document is a type byte
// followed by the value. Containers are
//
//	count | size | key entries (objects) | value entries | keys | values
//
// with 2-byte (small) or 4-byte (large) count, size and offsets; offsets are
// relative to the start of the container (its count field). Key entries are
// offset + 2-byte length; keys are sorted by length, then bytewise. Value
// entries are a type byte plus either an offset or, for literals and 16-bit
// integers (and 32-bit integers in large containers), the value itself.
// Strings are a variable-length length (7 bits per byte, little-endian,
// high bit = more) plus UTF-8 bytes. Opaque values are a MySQL field type
// byte, a variable-length length and the field's binary value.

const (
	jsonSmallObject = 0x00
	jsonLargeObject = 0x01
	jsonSmallArray  = 0x02
	jsonLargeArray  = 0x03
	jsonLiteral     = 0x04
	jsonInt16       = 0x05
	jsonUint16      = 0x06
	jsonInt32       = 0x07
	jsonUint32      = 0x08
	jsonInt64       = 0x09
	jsonUint64      = 0x0a
	jsonDouble      = 0x0b
	jsonString      = 0x0c
	jsonOpaque      = 0x0f

	jsonNull  = 0x00
	jsonTrue  = 0x01
	jsonFalse = 0x02

	// jsonMaxDepth is MySQL's JSON_DOCUMENT_MAX_DEPTH.
	jsonMaxDepth = 100
)

var errJSONTooDeep = errors.New("rowenc: JSON document exceeds maximum depth 100")
