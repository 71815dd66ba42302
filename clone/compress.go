package clone

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Chunks travel zstd-compressed when the recipient asks
// (clone_enable_compression, MySQL's variable). One encoder and one
// decoder serve every clone of the process: EncodeAll and DecodeAll are
// safe for concurrent use, as many at once as there are CPUs (a
// concurrency of 1 would serialise the parallel chunks), and used alone
// they start no goroutines.
var (
	codecOnce sync.Once
	encoder   *zstd.Encoder
	decoder   *zstd.Decoder
)

func codecs() {
	codecOnce.Do(func() {
		encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)))
		decoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithDecoderMaxMemory(2*MaxChunk))
	})
}

// Compress is a chunk as the donor sends it compressed.
func Compress(b []byte) []byte {
	codecs()
	return encoder.EncodeAll(b, make([]byte, 0, len(b)/2))
}

// Decompress undoes Compress for a chunk of want bytes.
func Decompress(b []byte, want int64) ([]byte, error) {
	codecs()
	out, err := decoder.DecodeAll(b, make([]byte, 0, want))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	return out, nil
}
