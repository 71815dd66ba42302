package binlog

// Binary log transaction compression (MySQL 8.0.20's
// binlog_transaction_compression): a row transaction's events after its
// GTID event travel as one TRANSACTION_PAYLOAD_EVENT holding them zstd
// compressed. The event stays compressed in the binlog, on the wire and
// in a replica's relay log; only readers that need the rows (the applier,
// recovery, `petrel binlog`, SHOW BINLOG EVENTS) expand it.
//
// Body: header fields, each a (type, length, value) triple of packed
// integers, ended by the type 0 marker, then the compressed bytes:
//   2 compression type (0 zstd, 255 none), 3 uncompressed size,
//   1 payload size (the compressed bytes that follow the marker).
// The events inside have the common header with log_pos 0 and no
// checksum (the outer event's CRC32 covers them).

import (
	"encoding/binary"
	"sync"

	"github.com/klauspost/compress/zstd"

	"petrel/internal/mysqlcompress"
)

// TransactionPayloadEvent is TRANSACTION_PAYLOAD_EVENT (MySQL 8.0.20).
const TransactionPayloadEvent byte = 40

// Compression types of a payload event.
const (
	CompressionZstd byte = 0
	CompressionNone byte = 255
)

// Payload header field types.
const (
	payloadEndMark          = 0
	payloadSizeField        = 1
	payloadCompressionField = 2
	payloadUncompressedSize = 3
)

// maxPayload bounds an expanded payload (MySQL's max_allowed_packet
// ceiling): a larger declared or actual size is corruption.
const maxPayload = 1 << 30

// DefaultCompressionLevel is binlog_transaction_compression_level_zstd's
// default.
const DefaultCompressionLevel = 3

// zstdDecoder is shared (DecodeAll is safe for concurrent use); the
// encoder is the protocol's (mysqlcompress.ZstdAppend).
var (
	zstdDecOnce sync.Once
	zstdDecoder *zstd.Decoder
)

func decoder() *zstd.Decoder {
	zstdDecOnce.Do(func() {
		zstdDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxPayload), zstd.WithDecoderMaxWindow(maxPayload))
	})
	return zstdDecoder
}

// payloadInner turns framed events (header, body, checksum; as encoded
// for the log) into the payload's uncompressed form: no checksum, log_pos
// 0, the size field without the checksum.
func payloadInner(dst, events []byte, ends []int) []byte {
	prev := 0
	for _, end := range ends {
		ev := events[prev:end]
		at := len(dst)
		dst = append(dst, ev[:len(ev)-ChecksumLen]...)
		binary.LittleEndian.PutUint32(dst[at+9:], uint32(len(ev)-ChecksumLen))
		binary.LittleEndian.PutUint32(dst[at+13:], 0)
		prev = end
	}
	return dst
}

// appendPayloadBody appends a TRANSACTION_PAYLOAD body compressing inner
// (the events in their payload form) at zstd level.
func appendPayloadBody(b, inner []byte, level int) []byte {
	z := mysqlcompress.ZstdAppend(nil, inner, level)
	field := func(typ, v uint64) {
		b = appendPackedInt(b, typ)
		b = appendPackedInt(b, uint64(packedIntLen(v)))
		b = appendPackedInt(b, v)
	}
	field(payloadCompressionField, uint64(CompressionZstd))
	field(payloadUncompressedSize, uint64(len(inner)))
	field(payloadSizeField, uint64(len(z)))
	b = append(b, payloadEndMark)
	return append(b, z...)
}

// Payload is a TRANSACTION_PAYLOAD event's decoded header.
type Payload struct {
	Compression      byte
	Size             uint64 // compressed bytes
	UncompressedSize uint64
	Data             []byte // the compressed bytes
}

// CompressionName is the payload's compression as MySQL prints it.
func (p Payload) CompressionName() string {
	switch p.Compression {
	case CompressionZstd:
		return "ZSTD"
	case CompressionNone:
		return "NONE"
	}
	return "UNKNOWN"
}

// ParsePayload decodes a TRANSACTION_PAYLOAD body's header. It never
// panics; unknown field types are skipped by their length, as MySQL does.
func ParsePayload(body []byte) (Payload, error) {
	var p Payload
	haveSize, haveType := false, false
	b := body
	for {
		typ, n, ok := readPackedInt(b)
		if !ok {
			return p, corrupt("TRANSACTION_PAYLOAD: truncated header")
		}
		b = b[n:]
		if typ == payloadEndMark {
			break
		}
		length, n, ok := readPackedInt(b)
		if !ok || length > uint64(len(b)-n) {
			return p, corrupt("TRANSACTION_PAYLOAD: bad field length")
		}
		b = b[n:]
		field := b[:length]
		b = b[length:]
		var v uint64
		switch typ {
		case payloadSizeField, payloadCompressionField, payloadUncompressedSize:
			var k int
			if v, k, ok = readPackedInt(field); !ok || k != len(field) {
				return p, corrupt("TRANSACTION_PAYLOAD: bad value of field %d", typ)
			}
		}
		switch typ {
		case payloadSizeField:
			p.Size, haveSize = v, true
		case payloadCompressionField:
			if v != uint64(CompressionZstd) && v != uint64(CompressionNone) {
				return p, corrupt("TRANSACTION_PAYLOAD: unknown compression type %d", v)
			}
			p.Compression, haveType = byte(v), true
		case payloadUncompressedSize:
			p.UncompressedSize = v
		}
	}
	if !haveSize || !haveType {
		return p, corrupt("TRANSACTION_PAYLOAD: header without payload size or compression type")
	}
	if p.Size != uint64(len(b)) {
		return p, corrupt("TRANSACTION_PAYLOAD: payload size %d, event holds %d bytes", p.Size, len(b))
	}
	if p.UncompressedSize > maxPayload {
		return p, corrupt("TRANSACTION_PAYLOAD: uncompressed size %d exceeds %d", p.UncompressedSize, maxPayload)
	}
	p.Data = b
	return p, nil
}

// ExpandPayload returns the events a TRANSACTION_PAYLOAD event (whole,
// with its checksum) holds, each framed as a log event again: with a
// CRC32 and the payload event's next position, so every reader of log
// events takes them as they are. It never panics: a malformed header, a
// bad zstd frame, a size that does not match, or an inner event that does
// not fit is an ErrCorrupt error.
func ExpandPayload(ev []byte) ([][]byte, error) {
	h, err := ParseHeader(ev)
	if err != nil {
		return nil, err
	}
	if h.Type != TransactionPayloadEvent {
		return nil, corrupt("event type %d is not TRANSACTION_PAYLOAD", h.Type)
	}
	p, err := ParsePayload(Body(ev))
	if err != nil {
		return nil, err
	}
	raw, err := p.Uncompressed()
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for len(raw) > 0 {
		if len(raw) < HeaderLen {
			return nil, corrupt("TRANSACTION_PAYLOAD: %d bytes left, less than an event header", len(raw))
		}
		size := binary.LittleEndian.Uint32(raw[9:])
		if size < HeaderLen || uint64(size) > uint64(len(raw)) {
			return nil, corrupt("TRANSACTION_PAYLOAD: inner event of size %d, %d bytes left", size, len(raw))
		}
		switch raw[4] {
		case TransactionPayloadEvent, GTIDEvent, FormatDescriptionEvent, RotateEvent:
			return nil, corrupt("TRANSACTION_PAYLOAD holds an event of type %d", raw[4])
		}
		e := make([]byte, size, size+ChecksumLen)
		copy(e, raw[:size])
		binary.LittleEndian.PutUint32(e[9:], size+ChecksumLen)
		binary.LittleEndian.PutUint32(e[13:], h.NextPos)
		e = binary.LittleEndian.AppendUint32(e, checksumOf(e))
		out = append(out, e)
		raw = raw[size:]
	}
	return out, nil
}

// Uncompressed returns the payload's events in their payload form.
func (p Payload) Uncompressed() ([]byte, error) {
	if p.Compression == CompressionNone {
		if p.UncompressedSize != 0 && p.UncompressedSize != p.Size {
			return nil, corrupt("TRANSACTION_PAYLOAD: uncompressed size %d, payload of %d bytes", p.UncompressedSize, p.Size)
		}
		return p.Data, nil
	}
	if fh := (zstd.Header{}); fh.Decode(p.Data) == nil && fh.HasFCS && fh.FrameContentSize > maxPayload {
		return nil, corrupt("TRANSACTION_PAYLOAD: zstd frame of %d bytes exceeds %d", fh.FrameContentSize, maxPayload)
	}
	raw, err := decoder().DecodeAll(p.Data, make([]byte, 0, min(p.UncompressedSize, 64<<20)))
	if err != nil {
		return nil, corrupt("TRANSACTION_PAYLOAD: zstd: %v", err)
	}
	if p.UncompressedSize != 0 && uint64(len(raw)) != p.UncompressedSize {
		return nil, corrupt("TRANSACTION_PAYLOAD: %d bytes uncompressed, header says %d", len(raw), p.UncompressedSize)
	}
	return raw, nil
}

// compressTxn replaces x's events (after the GTID room) by one
// TRANSACTION_PAYLOAD event holding them, compressed at level. x must be
// a row transaction not yet given its GTID event; its XID is xid (the
// payload is sealed before the commit turn, which cannot fill it in).
func (x *encodedTxn) compressTxn(serverID, ts uint32, level int, xid uint64) {
	if x.xid {
		binary.LittleEndian.PutUint64(x.buf[len(x.buf)-ChecksumLen-8:], xid)
		x.xid = false
	}
	events := x.buf[gtidEventMax:]
	ends := make([]int, len(x.ends))
	for i, e := range x.ends {
		ends[i] = e - gtidEventMax
	}
	inner := payloadInner(make([]byte, 0, len(events)), events, ends)
	x.rawSize = len(inner)
	buf := make([]byte, gtidEventMax, gtidEventMax+HeaderLen+len(inner)/2+64)
	buf, at := startEvent(buf, TransactionPayloadEvent, serverID, ts)
	buf = appendPayloadBody(buf, inner, level)
	x.buf = buf
	x.ends = x.ends[:0]
	x.endEvent(at)
	x.compressed = true
}
