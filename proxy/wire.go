package proxy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	"petrel/internal/mysqlerr"
)

// The MySQL client/server protocol as the proxy needs it: packet framing,
// length-encoded values, OK/ERR/EOF packets and the result-set shape. The
// proxy forwards a backend's response frames untouched (header and
// sequence ids included); it reads into them only as far as it must to
// find their end and the final status flags.

const maxFrame = 1<<24 - 1

// Capability flags.
const (
	capLongPassword     = 1 << 0
	capFoundRows        = 1 << 1
	capLongFlag         = 1 << 2
	capConnectWithDB    = 1 << 3
	capProtocol41       = 1 << 9
	capSSL              = 1 << 11
	capTransactions     = 1 << 13
	capSecureConnection = 1 << 15
	capMultiStatements  = 1 << 16
	capMultiResults     = 1 << 17
	capPSMultiResults   = 1 << 18
	capPluginAuth       = 1 << 19
	capConnectAttrs     = 1 << 20
	capPluginAuthLenenc = 1 << 21
	capDeprecateEOF     = 1 << 24
)

// proxyCaps is what the proxy offers clients and asks of backends: the
// same set on both sides, so that a backend's response frames are what
// the client expects. No DEPRECATE_EOF (classic EOF packets both ways),
// no compression, no TLS, no LOCAL INFILE, no session tracking.
const proxyCaps = capLongPassword | capLongFlag | capConnectWithDB | capProtocol41 | capTransactions |
	capSecureConnection | capMultiStatements | capMultiResults | capPSMultiResults | capPluginAuth |
	capConnectAttrs | capPluginAuthLenenc

// Status flags.
const (
	statusInTrans     = 0x0001
	statusAutocommit  = 0x0002
	statusMoreResults = 0x0008
	statusCursor      = 0x0040
)

// Commands.
const (
	comQuit             = 0x01
	comInitDB           = 0x02
	comQuery            = 0x03
	comFieldList        = 0x04
	comStatistics       = 0x09
	comPing             = 0x0e
	comChangeUser       = 0x11
	comStmtPrepare      = 0x16
	comStmtExecute      = 0x17
	comStmtSendLongData = 0x18
	comStmtClose        = 0x19
	comStmtReset        = 0x1a
	comSetOption        = 0x1b
	comStmtFetch        = 0x1c
	comResetConnection  = 0x1f
)

// packetConn frames packets over a connection. Not safe for concurrent
// use.
type packetConn struct {
	c   net.Conn
	r   *bufio.Reader
	w   *bufio.Writer
	seq uint8
	// until is the socket deadline set last (zero: none).
	until time.Time
	// hdr is the frame header being read or written (a field, not a
	// local: a slice of a local passed to the reader escapes, one
	// allocation per frame).
	hdr [4]byte
	// buf is readCommand's packet, reused; head is the start of a frame
	// too large for the read buffer (forwardFrame).
	buf, head []byte
}

// connBuffer is each direction's buffer size: a frame that fits is
// forwarded from the read buffer without a copy.
const connBuffer = 16 << 10

// maxKeptBuffer: a command buffer grown past this (a large query) is
// dropped after use rather than held by an idle session.
const maxKeptBuffer = 1 << 20

func newPacketConn(c net.Conn) *packetConn {
	return &packetConn{c: c, r: bufio.NewReaderSize(c, connBuffer), w: bufio.NewWriterSize(c, connBuffer)}
}

// readHeader reads a frame header and returns its payload length; the
// sequence id moves past it.
func (p *packetConn) readHeader() (int, error) {
	if _, err := io.ReadFull(p.r, p.hdr[:]); err != nil {
		return 0, err
	}
	p.seq = p.hdr[3] + 1
	return int(p.hdr[0]) | int(p.hdr[1])<<8 | int(p.hdr[2])<<16, nil
}

// readPacket reads a whole packet (joining frames of 2^24-1 bytes) into
// a fresh slice; a packet over limit bytes (limit > 0) is
// errPacketTooLarge, its frames read and dropped.
func (p *packetConn) readPacket(limit int) ([]byte, error) {
	return p.appendPacket(nil, limit)
}

// readCommand is readPacket into the connection's own buffer: the
// result is valid until the next read (a session's command, read once
// per statement without an allocation).
func (p *packetConn) readCommand(limit int) ([]byte, error) {
	if cap(p.buf) > maxKeptBuffer {
		p.buf = nil
	}
	out, err := p.appendPacket(p.buf[:0], limit)
	p.buf = out
	return out, err
}

func (p *packetConn) appendPacket(out []byte, limit int) ([]byte, error) {
	total := 0
	for {
		n, err := p.readHeader()
		if err != nil {
			return nil, err
		}
		total += n
		if limit <= 0 || total <= limit {
			at := len(out)
			out = slices.Grow(out, n)[:at+n]
			if _, err := io.ReadFull(p.r, out[at:]); err != nil {
				return nil, err
			}
		} else if _, err := p.r.Discard(n); err != nil {
			return nil, err
		}
		if n < maxFrame {
			break
		}
	}
	if limit > 0 && total > limit {
		return nil, errPacketTooLarge
	}
	return out, nil
}

var errPacketTooLarge = errors.New("proxy: packet larger than max_allowed_packet")

// errDestination is forwardFrame's failure to write to its destination
// (as opposed to reading its source).
type errDestination struct{ err error }

func (e errDestination) Error() string { return e.err.Error() }
func (e errDestination) Unwrap() error { return e.err }

// forwardFrame copies one frame from p to dst, numbered with dst's next
// sequence id. A frame that fits p's read buffer goes from that buffer
// straight into dst's write buffer (no copy of its own, no allocation).
// It returns the frame's payload length and its first bytes: the whole
// payload when it fitted, else up to 64 bytes (enough for an OK, ERR or
// EOF packet's fields); valid until p's next read. A write error is
// errDestination.
func (p *packetConn) forwardFrame(dst *packetConn) (head []byte, n int, err error) {
	if n, err = p.readHeader(); err != nil {
		return nil, 0, err
	}
	if err := dst.writeHeader(n); err != nil {
		return nil, 0, errDestination{err}
	}
	if n <= p.r.Size() {
		payload, err := p.r.Peek(n)
		if err != nil {
			return nil, 0, err
		}
		if _, err := dst.w.Write(payload); err != nil {
			return nil, 0, errDestination{err}
		}
		_, _ = p.r.Discard(n)
		return payload, n, nil
	}
	first, err := p.r.Peek(64)
	if err != nil {
		return nil, 0, err
	}
	p.head = append(p.head[:0], first...)
	for left := n; left > 0; {
		chunk, err := p.r.Peek(min(left, p.r.Size()))
		if err != nil {
			return nil, 0, err
		}
		if _, err := dst.w.Write(chunk); err != nil {
			return nil, 0, errDestination{err}
		}
		_, _ = p.r.Discard(len(chunk))
		left -= len(chunk)
	}
	return p.head, n, nil
}

// writeHeader writes a frame header of length n with the next sequence
// id.
func (p *packetConn) writeHeader(n int) error {
	p.hdr = [4]byte{byte(n), byte(n >> 8), byte(n >> 16), p.seq}
	p.seq++
	_, err := p.w.Write(p.hdr[:])
	return err
}

// writePacket writes a packet with the next sequence id (buffered; see
// flush), split into frames as the protocol says.
func (p *packetConn) writePacket(payload []byte) error {
	for {
		n := min(len(payload), maxFrame)
		if err := p.writeHeader(n); err != nil {
			return err
		}
		if _, err := p.w.Write(payload[:n]); err != nil {
			return err
		}
		payload = payload[n:]
		if n < maxFrame {
			return nil
		}
	}
}

func (p *packetConn) flush() error { return p.w.Flush() }

// deadline sets the socket's deadline d from now (0: none).
func (p *packetConn) deadline(d time.Duration) {
	if d > 0 {
		p.until = time.Now().Add(d)
	} else {
		p.until = time.Time{}
	}
	_ = p.c.SetDeadline(p.until)
}

// ensureDeadline makes sure at least d/2 of a deadline d is left,
// resetting it to d from now only then: a long deadline (a statement's,
// a client's idle time) costs no timer update per statement.
func (p *packetConn) ensureDeadline(d time.Duration) {
	if d <= 0 {
		return
	}
	now := time.Now()
	if p.until.IsZero() || p.until.Sub(now) < d/2 {
		p.until = now.Add(d)
		_ = p.c.SetDeadline(p.until)
	}
}

// Length-encoded values.

func appendLenenc(b []byte, n uint64) []byte {
	switch {
	case n < 251:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	b = append(b, 0xfe)
	return binary.LittleEndian.AppendUint64(b, n)
}

func appendLenencString(b []byte, s string) []byte {
	return append(appendLenenc(b, uint64(len(s))), s...)
}

// readLenenc reads a length-encoded integer at b[0:]; null reports 0xfb.
func readLenenc(b []byte) (n uint64, size int, null bool, ok bool) {
	if len(b) == 0 {
		return 0, 0, false, false
	}
	switch b[0] {
	case 0xfb:
		return 0, 1, true, true
	case 0xfc:
		if len(b) < 3 {
			return 0, 0, false, false
		}
		return uint64(binary.LittleEndian.Uint16(b[1:])), 3, false, true
	case 0xfd:
		if len(b) < 4 {
			return 0, 0, false, false
		}
		return uint64(b[1]) | uint64(b[2])<<8 | uint64(b[3])<<16, 4, false, true
	case 0xfe:
		if len(b) < 9 {
			return 0, 0, false, false
		}
		return binary.LittleEndian.Uint64(b[1:]), 9, false, true
	case 0xff:
		return 0, 0, false, false
	}
	return uint64(b[0]), 1, false, true
}

// OK, ERR and EOF packets.

func isOK(p []byte) bool  { return len(p) >= 7 && p[0] == 0x00 }
func isERR(p []byte) bool { return len(p) >= 1 && p[0] == 0xff }
func isEOF(p []byte) bool { return len(p) >= 1 && len(p) < 9 && p[0] == 0xfe }

// okInfo reads an OK packet's affected rows, last insert id and status.
func okInfo(p []byte) (affected, insertID uint64, status uint16, ok bool) {
	if !isOK(p) {
		return 0, 0, 0, false
	}
	b := p[1:]
	affected, n, _, ok1 := readLenenc(b)
	if !ok1 {
		return 0, 0, 0, false
	}
	b = b[n:]
	insertID, n, _, ok1 = readLenenc(b)
	if !ok1 || len(b) < n+2 {
		return 0, 0, 0, false
	}
	return affected, insertID, binary.LittleEndian.Uint16(b[n:]), true
}

// eofStatus is an EOF packet's status flags.
func eofStatus(p []byte) uint16 {
	if len(p) < 5 {
		return 0
	}
	return binary.LittleEndian.Uint16(p[3:])
}

// mysqlError is an ERR packet's content.
type mysqlError struct {
	Code    uint16
	State   string
	Message string
}

func (e *mysqlError) Error() string {
	return fmt.Sprintf("Error %d (%s): %s", e.Code, e.State, e.Message)
}

func parseERR(p []byte) *mysqlError {
	e := &mysqlError{Code: mysqlerr.ErUnknown, State: mysqlerr.State(mysqlerr.ErUnknown)}
	if len(p) < 3 {
		e.Message = "malformed error packet"
		return e
	}
	e.Code = binary.LittleEndian.Uint16(p[1:])
	rest := p[3:]
	if len(rest) >= 6 && rest[0] == '#' {
		e.State, rest = string(rest[1:6]), rest[6:]
	}
	e.Message = string(rest)
	return e
}

func errPacket(code uint16, state, msg string) []byte {
	b := []byte{0xff, byte(code), byte(code >> 8), '#'}
	b = append(b, state...)
	return append(b, msg...)
}

func okPacket(affected, insertID uint64, status uint16) []byte {
	b := []byte{0x00}
	b = appendLenenc(b, affected)
	b = appendLenenc(b, insertID)
	return append(b, byte(status), byte(status>>8), 0, 0)
}

func eofPacket(status uint16) []byte {
	return []byte{0xfe, 0, 0, byte(status), byte(status >> 8)}
}
