//go:build cgo

package mysqlcompress

import (
	"sync"

	ddzstd "github.com/DataDog/zstd"
)

// With cgo, zstd frames are made by the reference C library (DataDog's
// binding, already linked for Pebble's block compression): at the levels
// MySQL uses it costs about half of the pure-Go encoder per small input,
// because its tables are sized to the input. Each call takes a context
// from a pool, so concurrent commits do not wait for one another.

type zstdCtx struct {
	ctx ddzstd.Ctx
	buf []byte
}

var zstdCtxs = sync.Pool{New: func() any { return &zstdCtx{ctx: ddzstd.NewCtx()} }}

// ZstdAppend appends src compressed as one zstd frame at level (1-22) to
// dst.
func ZstdAppend(dst, src []byte, level int) []byte {
	c := zstdCtxs.Get().(*zstdCtx)
	defer zstdCtxs.Put(c)
	z, err := c.ctx.CompressLevel(c.buf[:cap(c.buf)], src, level)
	if err != nil {
		// The C library refuses only what it cannot allocate; the pure-Go
		// encoder makes the same format.
		return zstdGoAppend(dst, src, level)
	}
	if cap(z) <= 256<<10 {
		c.buf = z[:0]
	}
	return append(dst, z...)
}
