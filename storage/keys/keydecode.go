package keys

import (
	"github.com/dolthub/go-mysql-server/sql"
)

// KeyDecodable reports whether DecodeKeyValue can turn typ's key encoding
// back into its value. Only integer types can: text keys hold collation
// weights, not the text, and the other kinds are not needed yet.
func KeyDecodable(typ sql.Type) bool {
	k, _ := classify(typ)
	return k == kindInt || k == kindUint
}

// DecodeKeyValue decodes the leading key-encoded value of b, of a type for
// which KeyDecodable holds, into the Go value DecodeRow gives for it (nil
// for NULL), and returns how many bytes it took; ok is false for another
// type or a truncated or malformed encoding.
func DecodeKeyValue(b []byte, typ sql.Type) (v any, n int, ok bool) {
	if len(b) == 0 {
		return nil, 0, false
	}
	if b[0] == keyNull {
		return nil, 1, true
	}
	k, width := classify(typ)
	if b[0] != keyPresent || (k != kindInt && k != kindUint) || len(b) < 1+width {
		return nil, 0, false
	}
	var u uint64
	for _, c := range b[1 : 1+width] {
		u = u<<8 | uint64(c)
	}
	if k == kindUint {
		switch width {
		case 1:
			return uint8(u), 1 + width, true
		case 2:
			return uint16(u), 1 + width, true
		case 3, 4:
			return uint32(u), 1 + width, true
		}
		return u, 1 + width, true
	}
	bits := uint(width * 8)
	u ^= 1 << (bits - 1)
	i := int64(u<<(64-bits)) >> (64 - bits) // sign-extend
	switch width {
	case 1:
		return int8(i), 1 + width, true
	case 2:
		return int16(i), 1 + width, true
	case 3, 4:
		return int32(i), 1 + width, true
	}
	return i, 1 + width, true
}
