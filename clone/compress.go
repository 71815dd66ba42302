package clone

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Chunks travel zstd-compressed when the recipient asks
// (clone_enable_compression, MySQL's variable). One encoder and one
// decoder serve every clone of the process: EncodeAll and DecodeAll are
// safe for concurrent use, and used alone they start no goroutines.
var (
	codecOnce sync.Once
	encoder   *zstd.Encoder
	decoder   *zstd.Decoder
)

func codecs() {
	codecOnce.Do(func() {
		encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		decoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(2*MaxChunk))
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
