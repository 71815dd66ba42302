// Package lenenc is MySQL's length-encoded integer (net_store_length),
// as the client protocol's rows and column definitions and the binary
// log's row events write it: one byte below 251, else 0xfc, 0xfd or 0xfe
// and 2, 3 or 8 little-endian bytes.
package lenenc

// Append appends n length-encoded.
func Append(dst []byte, n uint64) []byte {
	switch {
	case n < 251:
		return append(dst, byte(n))
	case n < 1<<16:
		return append(dst, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(dst, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return append(dst, 0xfe, byte(n), byte(n>>8), byte(n>>16), byte(n>>24),
		byte(n>>32), byte(n>>40), byte(n>>48), byte(n>>56))
}

// AppendString appends s's length, length-encoded, then s.
func AppendString(dst, s []byte) []byte {
	return append(Append(dst, uint64(len(s))), s...)
}
