package clone

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"petrel/internal/mysqlerr"
)

// The data stream. CLONE READ carries each chunk as a one-row result set
// through the donor's SQL layer: the bytes are copied into a string, a
// row, a packet buffer and out again, on both sides, and every chunk is a
// round trip. After CLONE SNAPSHOT the recipient may ask instead for a
// stream (CLONE STREAM 'id' [TLS] over the authenticated SQL connection:
// the donor's data port and a per-snapshot secret token) and pull the
// files over dedicated connections carrying raw frames: the donor reads a
// frame from the file into a reused buffer, checksums it and writes
// header and bytes in one writev; the recipient reads it into a reused
// buffer, checks it and writes it at its offset. The connections use TLS
// when the SQL connection did, with the donor's certificate pinned to the
// one that connection saw.
//
// A data connection (all integers little-endian):
//
//	recipient: mode byte 'T' (a TLS handshake follows, everything after
//	           it is inside TLS) or 'P' (plain)
//	recipient: hello: streamMagic, then the 16-byte token
//	donor:     frame 'O' (accepted) or 'E' (refused: the message)
//	recipient: request: 'R', u32 file index in the manifest, u64 offset,
//	           u64 length, u8 flags (1: compressed frames)
//	donor:     frames 'D' (raw) or 'Z' (zstd) until length bytes, or 'E'
//	recipient: the next request, or closes the connection
//
// A frame is a 13-byte header (kind u8, raw length u32, wire length u32,
// CRC-32C of the raw bytes u32) and wire-length bytes.

// streamMagic opens a data connection's hello (version 1).
const streamMagic = "PTRLCLN1"

// TokenSize is the size of a stream token.
const TokenSize = 16

// FrameSize is the raw size of a data frame the donor sends.
const FrameSize = 1 << 20

// maxFrameWire bounds a frame's wire length as the recipient reads it (a
// compressed frame of incompressible bytes is a little larger than raw).
const maxFrameWire = 2 * FrameSize

const (
	frameOK         = 'O'
	frameData       = 'D'
	frameCompressed = 'Z'
	frameError      = 'E'

	modeTLS   = 'T'
	modePlain = 'P'

	requestKind     = 'R'
	requestCompress = 1

	frameHeaderSize = 13
	requestSize     = 1 + 4 + 8 + 8 + 1
	helloSize       = len(streamMagic) + TokenSize
)

type frameHeader struct {
	kind      byte
	raw, wire uint32
	crc       uint32
}

func (h frameHeader) encode(b *[frameHeaderSize]byte) {
	b[0] = h.kind
	binary.LittleEndian.PutUint32(b[1:], h.raw)
	binary.LittleEndian.PutUint32(b[5:], h.wire)
	binary.LittleEndian.PutUint32(b[9:], h.crc)
}

func readFrameHeader(r io.Reader, b *[frameHeaderSize]byte) (frameHeader, error) {
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return frameHeader{}, err
	}
	return frameHeader{kind: b[0], raw: binary.LittleEndian.Uint32(b[1:]),
		wire: binary.LittleEndian.Uint32(b[5:]), crc: binary.LittleEndian.Uint32(b[9:])}, nil
}

// writeErrorFrame sends msg as an 'E' frame (best effort: the connection
// is closed after it).
func writeErrorFrame(w io.Writer, msg string) {
	if len(msg) > 1024 {
		msg = msg[:1024]
	}
	var b [frameHeaderSize]byte
	frameHeader{kind: frameError, wire: uint32(len(msg))}.encode(&b)
	w.Write(append(b[:], msg...))
}

// readErrorFrame reads the message of an 'E' frame.
func readErrorFrame(r io.Reader, h frameHeader) error {
	if h.wire > 1024 {
		return &ProtocolError{Msg: fmt.Sprintf("stream error frame of %d bytes", h.wire)}
	}
	msg := make([]byte, h.wire)
	if _, err := io.ReadFull(r, msg); err != nil {
		return streamIOError(err)
	}
	return &ProtocolError{Msg: "the donor's stream: " + string(msg)}
}

// request is one range the recipient asks for on a data connection.
type request struct {
	file     uint32
	off, n   uint64
	compress bool
}

func (q request) encode() []byte {
	b := make([]byte, 0, requestSize)
	b = append(b, requestKind)
	b = binary.LittleEndian.AppendUint32(b, q.file)
	b = binary.LittleEndian.AppendUint64(b, q.off)
	b = binary.LittleEndian.AppendUint64(b, q.n)
	var f byte
	if q.compress {
		f = requestCompress
	}
	return append(b, f)
}

func decodeRequest(b []byte) (request, error) {
	if len(b) != requestSize || b[0] != requestKind || b[requestSize-1]&^requestCompress != 0 {
		return request{}, errors.New("malformed request")
	}
	return request{file: binary.LittleEndian.Uint32(b[1:]), off: binary.LittleEndian.Uint64(b[5:]),
		n: binary.LittleEndian.Uint64(b[13:]), compress: b[21] == requestCompress}, nil
}

// streamIOError is a broken data connection as the recipient reports it:
// the client error a cut SQL link gives (2013), so it maps the same way.
func streamIOError(err error) error {
	return &DonorError{Num: mysqlerr.CrServerLost, State: mysqlerr.State(mysqlerr.CrServerLost), Msg: "Lost connection to the donor's data stream: " + err.Error()}
}
