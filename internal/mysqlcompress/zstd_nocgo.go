//go:build !cgo

package mysqlcompress

// ZstdAppend appends src compressed as one zstd frame at level (1-22) to
// dst. Without cgo the pure-Go encoder makes it.
func ZstdAppend(dst, src []byte, level int) []byte {
	return zstdGoAppend(dst, src, level)
}
