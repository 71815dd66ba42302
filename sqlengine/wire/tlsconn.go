package wire

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"net"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// TLS on client connections is layered under Conn's framing, not
// above it: when the client's SSLRequest arrives, Conn runs the TLS
// handshake on the socket itself and from then on reads and writes
// through the TLS connection, so max_allowed_packet, the packet budget,
// the timeouts and the replication commands work as on plaintext
// connections. vitess is given no TLS configuration and never sees the
// SSLRequest: it reads the handshake response that follows as if it had
// been the first. Its sequence ids are then one behind the client's,
// which Conn corrects during the handshake (seqShift), in both
// directions, until the first command (sequence ids restart at 0).
// The CLIENT_SSL capability is added to vitess's greeting here.

const (
	// clientSSL is CLIENT_SSL.
	clientSSL = 0x800
	// sslRequestLen is the payload length of an SSLRequest packet:
	// capabilities(4), max packet(4), character set(1), reserved(23).
	sslRequestLen = 32
)

// wire is what the connection's bytes go through: the TLS layer once
// started, else the socket.
func (c *Conn) wire() net.Conn {
	if tc := c.tc.Load(); tc != nil {
		return tc
	}
	return c.Conn
}

// startTLS runs the server side of the TLS handshake after the client's
// SSLRequest, under the connect deadline set at accept; a client that
// fails it is closed (counted in Aborted_connects).
func (c *Conn) startTLS() error {
	if c.tlsCfg == nil {
		// CLIENT_SSL was not offered.
		sql.StatusVariables.IncrementGlobal("Aborted_connects", 1)
		c.RefuseHandshake("an SSLRequest, but TLS is not configured")
		return errClosedByServer
	}
	sql.StatusVariables.IncrementGlobal("Ssl_accepts", 1)
	// The client may have sent its ClientHello right behind the
	// SSLRequest: the handshake reads what br holds first.
	tc := tls.Server(&bufferedConn{Conn: c.Conn, r: c.br}, c.tlsCfg)
	if err := tc.Handshake(); err != nil {
		sql.StatusVariables.IncrementGlobal("Aborted_connects", 1)
		if c.gate != nil {
			c.gate.badHandshakes.note(fmt.Sprintf("%s: TLS handshake: %v", c.RemoteAddr(), err))
		}
		c.Close()
		return errClosedByServer
	}
	sql.StatusVariables.IncrementGlobal("Ssl_finished_accepts", 1)
	c.br = bufio.NewReaderSize(tc, 16<<10)
	c.tc.Store(tc)
	c.seqShift.Store(1)
	return nil
}

// TLSState is the connection's TLS state, nil on a plaintext connection.
func (c *Conn) TLSState() *tls.ConnectionState {
	tc := c.tc.Load()
	if tc == nil {
		return nil
	}
	st := tc.ConnectionState()
	return &st
}

// renumber adds shift to the sequence id of every packet header in p, a
// piece of the stream vitess writes (it writes headers whole).
func (c *Conn) renumber(p []byte, shift byte) {
	for i := 0; i < len(p); {
		if c.wrLeft > 0 {
			k := min(c.wrLeft, len(p)-i)
			i += k
			c.wrLeft -= k
			continue
		}
		if len(p)-i < 4 {
			return
		}
		c.wrLeft = int(p[i]) | int(p[i+1])<<8 | int(p[i+2])<<16
		p[i+3] += shift
		i += 4
	}
}

// writeAuthPacket writes one packet of the authentication exchange that
// vitess does not know of (caching_sha2_password's), following the last
// packet read; vitess's sequence ids fall one more behind.
func (c *Conn) WriteAuthPacket(payload []byte) error {
	n := len(payload)
	b := make([]byte, 0, 4+n)
	b = append(b, byte(n), byte(n>>8), byte(n>>16), c.seq+1)
	b = append(b, payload...)
	if _, err := c.wire().Write(b); err != nil {
		return err
	}
	c.seqShift.Add(1)
	return nil
}

// noteAuthSwitch records an AuthSwitchRequest among vitess's writes after
// the greeting, while authenticating (one goroutine: no locking).
func (c *Conn) noteAuthSwitch(p []byte) {
	switch {
	case c.authHdr:
		c.authHdr = false
		if len(p) > 0 && p[0] == mysql.AuthSwitchRequestPacket {
			c.authSwitched = true
		}
	case len(p) == 4:
		c.authHdr = true
	case len(p) > 4 && p[4] == mysql.AuthSwitchRequestPacket:
		c.authSwitched = true
	}
}

// editGreeting adjusts vitess's HandshakeV10 payload: the character set
// (setGreetingCharset) and, when TLS is configured, CLIENT_SSL.
func (c *Conn) editGreeting(p []byte) {
	setGreetingCharset(p)
	if len(p) < 1 || p[0] != 10 {
		return
	}
	end := bytes.IndexByte(p[1:], 0)
	if end < 0 {
		return
	}
	// protocol(1) version NUL, connection id(4), auth data(8), filler(1),
	// capabilities (low 2 bytes), character set(1), status(2),
	// capabilities (high 2 bytes)
	pos := 1 + end + 1 + 4 + 8 + 1
	offerCompression(c.gate.settings, p, pos, pos+5)
	if c.tlsCfg == nil {
		return
	}
	if pos+1 < len(p) {
		p[pos+1] |= clientSSL >> 8
	}
}

// TLSVersionName is a TLS version as MySQL's Ssl_version shows it.
func TLSVersionName(v uint16) string {
	switch v {
	case tls.VersionTLS12:
		return "TLSv1.2"
	case tls.VersionTLS13:
		return "TLSv1.3"
	}
	return fmt.Sprintf("TLS(%#x)", v)
}
