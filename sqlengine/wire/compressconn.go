package wire

import (
	"bufio"
	"bytes"
	"net"
	"strings"

	"petrel/internal/mysqlcompress"
)

// Protocol compression on client connections (CLIENT_COMPRESS, zlib, as
// `mariadb --compress` and go-sql-driver's compress=true ask for;
// CLIENT_ZSTD_COMPRESSION_ALGORITHM, zstd at the level byte the client
// puts after its handshake response). Like TLS (tlsconn.go) it is a
// layer under Conn's framing: from the first byte after the server's
// authentication OK, reads come out of mysqlcompress.Reader and writes go
// into mysqlcompress.Writer, so every limit and timeout here applies to
// the plain packets. protocol_compression_algorithms decides what the
// greeting offers.

// compState is a connection's compression: negotiated at the handshake
// response, armed when authentication succeeds, on once the OK packet is
// written.
type compState struct {
	algo  mysqlcompress.Algorithm
	level int
	// stream: the client asked for streamed zstd (mysqlcompress.StreamAttr)
	// and protocol_compression_stream allows it; what the server writes
	// is one zstd stream.
	stream bool
	armed  bool
	okLen  int // bytes of the OK packet still to write uncompressed (-1: header not seen)
	seq    mysqlcompress.Seq
	w      *mysqlcompress.Writer
	r      *mysqlcompress.Reader
}

// compressionOffered reads protocol_compression_algorithms.
func compressionOffered(set Settings) (zlib, zstd bool) {
	s := strings.ToLower(set.String("protocol_compression_algorithms", "zlib,zstd,uncompressed"))
	return strings.Contains(s, "zlib"), strings.Contains(s, "zstd")
}

// offerCompression adds the compression capabilities to the greeting's
// flags: lower at lo (2 bytes), upper at hi (2 bytes).
func offerCompression(set Settings, p []byte, lo, hi int) {
	zl, zs := compressionOffered(set)
	if zl && lo < len(p) {
		p[lo] |= mysqlcompress.ClientCompress
	}
	if zs && hi+1 < len(p) {
		p[hi+1] |= byte(mysqlcompress.ClientZstd >> 24)
	}
}

// negotiateCompression decides the connection's compression from its
// HandshakeResponse41 (payload p): zstd if the client asked for it (its
// level is the byte after the response's fields), else zlib.
func (c *Conn) negotiateCompression(p []byte) {
	if len(p) < 4 {
		return
	}
	caps := uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
	zl, zs := compressionOffered(c.gate.settings)
	switch {
	case caps&mysqlcompress.ClientZstd != 0 && zs:
		level := mysqlcompress.DefaultZstdLevel
		if end := handshakeResponseEnd(p); end >= 0 && end < len(p) && p[end] >= 1 && p[end] <= 22 {
			level = int(p[end])
		}
		c.comp = &compState{algo: mysqlcompress.Zstd, level: level, okLen: -1, stream: asksStream(p) && streamAllowed(c.gate.settings)}
	case caps&mysqlcompress.ClientCompress != 0 && zl:
		c.comp = &compState{algo: mysqlcompress.Zlib, okLen: -1}
	}
}

// asksStream: the handshake response's connection attributes ask for
// streamed zstd.
func asksStream(p []byte) bool {
	for _, a := range parseConnAttrs(p) {
		if a.Name == mysqlcompress.StreamAttr && a.Value == "zstd" {
			return true
		}
	}
	return false
}

// StreamVar is Petrel's protocol_compression_stream: whether a client
// that asks for streamed zstd gets it (ON by default).
const StreamVar = "protocol_compression_stream"

func streamAllowed(set Settings) bool { return set.Int(StreamVar, 1) != 0 }

// Compression reports the connection's protocol compression.
func (c *Conn) Compression() (mysqlcompress.Algorithm, int) {
	if c.comp == nil {
		return mysqlcompress.None, 0
	}
	return c.comp.algo, c.comp.level
}

// armCompression: authentication succeeded; the next packet written is
// the OK, the last uncompressed one.
func (c *Conn) armCompression() {
	if c.comp != nil {
		c.comp.armed = true
	}
}

// writeArmed writes p while compression is armed: the OK packet as is,
// then compression starts (for anything after it in p too). The client
// sends nothing before it reads the OK, so the reader switches here.
func (c *Conn) writeArmed(p []byte) (int, error) {
	cs := c.comp
	if cs.okLen < 0 && len(p) >= 4 {
		cs.okLen = 4 + (int(p[0]) | int(p[1])<<8 | int(p[2])<<16)
	}
	k := min(len(p), max(cs.okLen, 0))
	n, err := c.wire().Write(p[:k])
	if err != nil {
		return n, err
	}
	cs.okLen -= k
	if cs.okLen != 0 {
		return n, nil
	}
	cs.armed = false
	if cs.stream {
		cs.w = mysqlcompress.NewStreamWriter(c.wire(), cs.level, &cs.seq)
	} else {
		cs.w = mysqlcompress.NewWriter(c.wire(), cs.algo, cs.level, &cs.seq)
	}
	cs.r = mysqlcompress.NewReader(&bufferedConn{Conn: c.wire(), r: c.br}, cs.algo, &cs.seq)
	c.br = bufio.NewReaderSize(cs.r, 16<<10)
	if k == len(p) {
		return n, nil
	}
	m, err := cs.w.Write(p[k:])
	return n + m, err
}

// out is where written bytes go: the compressed layer once on, else the
// wire.
func (c *Conn) out() interface{ Write([]byte) (int, error) } {
	if c.comp != nil && c.comp.w != nil {
		return c.comp.w
	}
	return c.wire()
}

// compNetConn is a compressed connection handed to a replication dump:
// it reads and writes plain packets.
type compNetConn struct {
	net.Conn
	r *bufio.Reader
	w *mysqlcompress.Writer
}

func (c *compNetConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *compNetConn) Write(p []byte) (int, error) { return c.w.Write(p) }

// NetConn is the socket (internal/tcptune sets its options).
func (c *compNetConn) NetConn() net.Conn { return c.Conn }

// handshakeResponseEnd is the offset just past a HandshakeResponse41's
// fields (connection attributes included), or -1.
func handshakeResponseEnd(p []byte) int {
	pos := handshakeAttrsAt(p)
	if pos < 0 {
		return -1
	}
	caps := uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
	if caps&0x100000 != 0 { // CLIENT_CONNECT_ATTRS
		l, next, ok := lenEnc(p, pos)
		if !ok || l > uint64(len(p)-next) {
			return -1
		}
		pos = next + int(l)
	}
	return pos
}

// handshakeAttrsAt returns the offset in a HandshakeResponse41 payload at
// which its connection attributes (CLIENT_CONNECT_ATTRS) begin: after
// the user, auth response, database and plugin name; -1 when the
// response is shorter than its fields.
func handshakeAttrsAt(p []byte) int {
	const fixed = 4 + 4 + 1 + 23
	if len(p) < fixed {
		return -1
	}
	caps := uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
	pos := fixed
	nul := func() bool {
		i := bytes.IndexByte(p[pos:], 0)
		if i < 0 {
			return false
		}
		pos += i + 1
		return true
	}
	if !nul() {
		return -1
	}
	switch {
	case caps&0x00200000 != 0: // CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
		l, next, ok := lenEnc(p, pos)
		if !ok || l > uint64(len(p)-next) {
			return -1
		}
		pos = next + int(l)
	case caps&0x8000 != 0: // CLIENT_SECURE_CONNECTION
		if pos >= len(p) || pos+1+int(p[pos]) > len(p) {
			return -1
		}
		pos += 1 + int(p[pos])
	default:
		if !nul() {
			return -1
		}
	}
	if caps&0x8 != 0 && !nul() { // CLIENT_CONNECT_WITH_DB
		return -1
	}
	if caps&0x80000 != 0 && !nul() { // CLIENT_PLUGIN_AUTH
		return -1
	}
	return pos
}
