// Package mysqlcompress is the MySQL client/server protocol's compressed
// packet layer (CLIENT_COMPRESS with zlib, CLIENT_ZSTD_COMPRESSION_ALGORITHM
// with zstd): once a connection's handshake ends, each side wraps the
// plain packet stream in compressed packets, a 7-byte header (3-byte
// compressed length, a sequence id of its own, 3-byte uncompressed length,
// 0 when the payload was left as is) and the payload. The plain stream may
// cross compressed packets anywhere. A Reader and a Writer are the two
// directions over one connection; neither knows about the packets inside.
package mysqlcompress

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
)

// Capability flags of the handshake.
const (
	ClientCompress = 1 << 5  // CLIENT_COMPRESS: zlib
	ClientZstd     = 1 << 26 // CLIENT_ZSTD_COMPRESSION_ALGORITHM
)

// HeaderLen is the compressed packet header's length.
const HeaderLen = 7

// MinCompressLength: shorter payloads are sent uncompressed (MySQL's
// MIN_COMPRESS_LENGTH).
const MinCompressLength = 50

// maxPayload is the largest payload of one compressed packet.
const maxPayload = 1<<24 - 1

// DefaultZstdLevel is MySQL's default protocol zstd level.
const DefaultZstdLevel = 3

// Algorithm is a connection's compression.
type Algorithm int

const (
	None Algorithm = iota
	Zlib
	Zstd
)

func (a Algorithm) String() string {
	switch a {
	case Zlib:
		return "zlib"
	case Zstd:
		return "zstd"
	}
	return "uncompressed"
}

// ErrCorrupt classifies malformed compressed packets.
var ErrCorrupt = errors.New("mysqlcompress: malformed compressed packet")

// Seq is the compressed sequence id both directions share: a packet read
// sets the next one written (reply after request), each packet written
// takes the next. Safe for concurrent use.
type Seq struct{ v atomic.Uint32 }

func (s *Seq) next() byte   { return byte(s.v.Add(1) - 1) }
func (s *Seq) after(b byte) { s.v.Store(uint32(b) + 1) }

// Reset starts the ids again at 0 (a client's new command).
func (s *Seq) Reset() { s.v.Store(0) }

// Reader reads the plain stream out of compressed packets from src. Not
// safe for concurrent use.
type Reader struct {
	src  io.Reader
	algo Algorithm
	seq  *Seq // nil: sequence ids are not followed
	hdr  [HeaderLen]byte
	in   []byte
	out  []byte
	left []byte
	zr   io.ReadCloser
	// stream, when not nil, follows streamed zstd (stream.go).
	stream *streamDec
	// Bytes counts the compressed bytes read (headers included).
	Bytes atomic.Uint64
}

// NewReader reads compressed packets from src; seq, when not nil, follows
// their sequence ids.
func NewReader(src io.Reader, algo Algorithm, seq *Seq) *Reader {
	return &Reader{src: src, algo: algo, seq: seq}
}

// Unfollow stops the reader from following sequence ids (a replication
// dump: the replica's acknowledgements must not renumber the stream).
func (r *Reader) Unfollow() { r.seq = nil }

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	for len(r.left) == 0 {
		if err := r.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.left)
	r.left = r.left[n:]
	return n, nil
}

func (r *Reader) next() error {
	if _, err := io.ReadFull(r.src, r.hdr[:]); err != nil {
		return err
	}
	clen := int(r.hdr[0]) | int(r.hdr[1])<<8 | int(r.hdr[2])<<16
	ulen := int(r.hdr[4]) | int(r.hdr[5])<<8 | int(r.hdr[6])<<16
	if r.seq != nil {
		r.seq.after(r.hdr[3])
	}
	if cap(r.in) < clen {
		r.in = make([]byte, clen)
	}
	in := r.in[:clen]
	if _, err := io.ReadFull(r.src, in); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	r.Bytes.Add(uint64(HeaderLen + clen))
	if ulen == 0 {
		r.left = in
		return nil
	}
	out, err := r.decompress(in, ulen)
	if err != nil {
		return err
	}
	r.left = out
	return nil
}

// decompress expands one payload into exactly ulen bytes.
func (r *Reader) decompress(in []byte, ulen int) ([]byte, error) {
	if cap(r.out) < ulen+1 {
		r.out = make([]byte, ulen+1)
	}
	out := r.out[:ulen]
	switch r.algo {
	case Zlib:
		var err error
		if r.zr == nil {
			r.zr, err = zlib.NewReader(bytes.NewReader(in))
		} else {
			err = r.zr.(zlib.Resetter).Reset(bytes.NewReader(in), nil)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: zlib: %v", ErrCorrupt, err)
		}
		if _, err := io.ReadFull(r.zr, out); err != nil {
			return nil, fmt.Errorf("%w: zlib payload shorter than its %d bytes: %v", ErrCorrupt, ulen, err)
		}
		var one [1]byte
		if n, _ := r.zr.Read(one[:]); n != 0 {
			return nil, fmt.Errorf("%w: zlib payload longer than its %d bytes", ErrCorrupt, ulen)
		}
		return out, nil
	case Zstd:
		if r.stream != nil {
			if err := r.stream.expand(in, out); err != nil {
				return nil, err
			}
			return out, nil
		}
		got, err := zstdDecoder().DecodeAll(in, out[:0])
		if err != nil {
			return nil, fmt.Errorf("%w: zstd: %v", ErrCorrupt, err)
		}
		if len(got) != ulen {
			return nil, fmt.Errorf("%w: zstd payload of %d bytes, header says %d", ErrCorrupt, len(got), ulen)
		}
		return got, nil
	}
	return nil, fmt.Errorf("%w: compressed payload on an uncompressed connection", ErrCorrupt)
}

// Writer writes the plain stream as compressed packets to dst, one or
// more per Write. Safe for concurrent use (each Write is whole).
type Writer struct {
	mu    sync.Mutex
	dst   io.Writer
	algo  Algorithm
	level int
	seq   *Seq
	buf   []byte
	zw    *zlib.Writer
	zbuf  bytes.Buffer
	// stream, when not nil, makes the packets one zstd stream (stream.go).
	stream *streamEnc
	// Bytes counts the compressed bytes written (headers included).
	Bytes atomic.Uint64
}

// NewWriter compresses with algo (zstd at level) onto dst; seq numbers
// the packets.
func NewWriter(dst io.Writer, algo Algorithm, level int, seq *Seq) *Writer {
	if seq == nil {
		seq = &Seq{}
	}
	if level < 1 || level > 22 {
		level = DefaultZstdLevel
	}
	return &Writer{dst: dst, algo: algo, level: level, seq: seq}
}

// Write implements io.Writer: it returns len(p) once every packet holding
// p is written.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.buf[:0]
	most := maxPayload
	if w.stream != nil {
		most -= 64 << 10 // room for the blocks' headers of incompressible bytes
	}
	for rest := p; len(rest) > 0 || len(p) == 0; {
		chunk := rest[:min(len(rest), most)]
		rest = rest[len(chunk):]
		var err error
		if b, err = w.appendPacket(b, chunk); err != nil {
			return 0, err
		}
		if len(p) == 0 {
			break
		}
	}
	if cap(b) <= 1<<20 {
		w.buf = b
	}
	if _, err := w.dst.Write(b); err != nil {
		return 0, err
	}
	w.Bytes.Add(uint64(len(b)))
	return len(p), nil
}

func (w *Writer) appendPacket(b, chunk []byte) ([]byte, error) {
	at := len(b)
	b = append(b, make([]byte, HeaderLen)...)
	ulen := 0
	switch {
	case len(chunk) < MinCompressLength || w.algo == None:
		b = append(b, chunk...)
	case w.stream != nil:
		// Sent compressed whatever its size: the stream's history holds it.
		var err error
		if b, err = w.stream.appendStreamed(b, chunk); err != nil {
			return nil, err
		}
		if len(b)-at-HeaderLen > maxPayload {
			return nil, fmt.Errorf("mysqlcompress: %d plain bytes streamed to %d, over a packet", len(chunk), len(b)-at-HeaderLen)
		}
		ulen = len(chunk)
	default:
		b = w.compress(b, chunk)
		if len(b)-at-HeaderLen < len(chunk) {
			ulen = len(chunk)
		} else {
			b = append(b[:at+HeaderLen], chunk...) // it did not shrink
		}
	}
	clen := len(b) - at - HeaderLen
	h := b[at:]
	h[0], h[1], h[2] = byte(clen), byte(clen>>8), byte(clen>>16)
	h[3] = w.seq.next()
	h[4], h[5], h[6] = byte(ulen), byte(ulen>>8), byte(ulen>>16)
	return b, nil
}

func (w *Writer) compress(b, chunk []byte) []byte {
	if w.algo == Zstd {
		return ZstdAppend(b, chunk, w.level)
	}
	w.zbuf.Reset()
	if w.zw == nil {
		w.zw = zlib.NewWriter(&w.zbuf)
	} else {
		w.zw.Reset(&w.zbuf)
	}
	w.zw.Write(chunk)
	w.zw.Close()
	return append(b, w.zbuf.Bytes()...)
}

var (
	zstdMu   sync.Mutex
	zstdEncs = map[zstd.EncoderLevel]*zstd.Encoder{}
	zstdOnce sync.Once
	zstdDec  *zstd.Decoder
)

// zstdGoAppend is ZstdAppend by the pure-Go encoder.
func zstdGoAppend(dst, src []byte, level int) []byte {
	return zstdEncoder(level).EncodeAll(src, dst)
}

// zstdEncoder returns the shared pure-Go encoder for a zstd level (1-22):
// one per klauspost speed level, safe for concurrent EncodeAll.
func zstdEncoder(level int) *zstd.Encoder {
	l := zstd.EncoderLevelFromZstd(level)
	zstdMu.Lock()
	defer zstdMu.Unlock()
	e := zstdEncs[l]
	if e == nil {
		e, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true))
		zstdEncs[l] = e
	}
	return e
}

func zstdDecoder() *zstd.Decoder {
	zstdOnce.Do(func() {
		zstdDec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxPayload+1))
	})
	return zstdDec
}
