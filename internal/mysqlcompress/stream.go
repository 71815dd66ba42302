package mysqlcompress

import (
	"bytes"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Streamed zstd: Petrel's extension of the zstd protocol compression for
// a peer that asks for it (a Petrel replica or relay, by the connection
// attribute StreamAttr). MySQL compresses every packet on its own, so
// nothing repeats from one transaction to the next: the event headers,
// the table maps, the GTID events' source id are paid for again in each.
// Streamed, one direction is a single zstd frame that never ends; each
// compressed packet carries the blocks the encoder flushed for its plain
// bytes, and the decoder keeps the window (StreamWindow) between packets.
// The packet layout is MySQL's, so a peer that did not ask never sees a
// stream; and a stream reader also reads independent frames (a MySQL
// source that ignored the attribute), which are just frames that end.
//
// The stream has no checksum of its own: TCP keeps the packets in order,
// and a replication stream's events carry their CRC32.
//
// Short plain chunks (under MinCompressLength) still travel uncompressed
// and stay out of the stream on both sides. Every chunk that enters the
// encoder is sent as the encoder's output, even when longer: the decoder
// must see all the bytes the encoder's history holds.

// StreamAttr is the connection attribute by which a client asks for
// streamed zstd; its value is "zstd".
const StreamAttr = "_petrel_compression_stream"

// StreamWindow is a stream's window: the bytes of history each side
// keeps (the decoder refuses a larger one).
const StreamWindow = 1 << 20

// NewStreamWriter is a zstd Writer at level whose packets form one
// stream.
func NewStreamWriter(dst io.Writer, level int, seq *Seq) *Writer {
	w := NewWriter(dst, Zstd, level, seq)
	w.stream = &streamEnc{}
	w.stream.enc, _ = zstd.NewWriter(&w.stream.out, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(w.level)),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(StreamWindow), zstd.WithEncoderCRC(false))
	return w
}

type streamEnc struct {
	enc *zstd.Encoder
	out bytes.Buffer
}

// appendStreamed appends chunk's compressed blocks to b.
func (s *streamEnc) appendStreamed(b, chunk []byte) ([]byte, error) {
	s.out.Reset()
	if _, err := s.enc.Write(chunk); err != nil {
		return nil, err
	}
	if err := s.enc.Flush(); err != nil {
		return nil, err
	}
	return append(b, s.out.Bytes()...), nil
}

// NewStreamReader is a zstd Reader that follows a stream as well as
// independent frames.
func NewStreamReader(src io.Reader, seq *Seq) *Reader {
	r := NewReader(src, Zstd, seq)
	r.stream = &streamDec{}
	r.stream.dec, _ = zstd.NewReader(&r.stream.in, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(StreamWindow), zstd.WithDecoderLowmem(true))
	return r
}

type streamDec struct {
	dec *zstd.Decoder
	in  packetInput
}

// packetInput hands the decoder one packet's payload and nothing more: a
// stream that needs bytes past its packet is corrupt, not a reason to
// read the network.
type packetInput struct{ b []byte }

func (p *packetInput) Read(out []byte) (int, error) {
	if len(p.b) == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(out, p.b)
	p.b = p.b[n:]
	return n, nil
}

// expand decodes one packet's payload into exactly len(out) plain bytes;
// out has room for one more, which finds a packet holding more than it
// declares (the decoder returns no more than one block per read).
func (s *streamDec) expand(in, out []byte) error {
	s.in.b = in
	n, err := io.ReadAtLeast(s.dec, out[:len(out)+1], len(out))
	if err != nil {
		return fmt.Errorf("%w: zstd stream: %v", ErrCorrupt, err)
	}
	if n > len(out) || len(s.in.b) != 0 {
		return fmt.Errorf("%w: zstd stream: a packet holds more than its %d plain bytes", ErrCorrupt, len(out))
	}
	return nil
}
