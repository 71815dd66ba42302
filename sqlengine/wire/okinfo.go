package wire

import (
	"sync/atomic"

	"github.com/dolthub/vitess/go/mysql"
)

// The info text of an OK packet ("Statement prepared", "Rows matched: 1
// Changed: 1  Warnings: 0") goes after the warning count as a
// length-encoded string, as MySQL and MariaDB write it and libmysqlclient
// and libmariadb read it. vitess writes a '#' byte in place of the length
// (writeOKPacketWithInfo), which clients read as a length of 35: a
// shorter text (PREPARE's "Statement prepared") makes them fail with
// CR_MALFORMED_PACKET (2027). The result callback flushes what precedes
// such an OK packet and arms the connection (ExpectInfoOK); Conn.Write
// then puts the length in the '#' byte's place (texts under 251 bytes,
// whose length is one byte; a longer one is cut to 250).

// infoState is the connection's part in fixing one OK packet.
type infoState struct {
	// armed: the next packet written is an OK packet with info.
	armed atomic.Bool
	// hdr holds a header vitess wrote alone, before its payload.
	hdr    [4]byte
	hdrLen int
}

// ExpectInfoOK arms c's connection for an OK packet with info text.
func ExpectInfoOK(c *mysql.Conn) {
	cc, ok := c.Conn.(*Conn)
	if !ok {
		return
	}
	_ = c.FlushBuffer()
	cc.info.hdrLen = 0
	cc.info.armed.Store(true)
}

// fixInfoOK rewrites the armed OK packet at the start of p in place; it
// returns p unchanged when p does not start one.
func (c *Conn) fixInfoOK(p []byte) []byte {
	st := &c.info
	if len(p) == 4 && st.hdrLen == 0 {
		// The header alone; the payload follows in the next write.
		copy(st.hdr[:], p)
		st.hdrLen = 4
		return p
	}
	st.armed.Store(false)
	payload := p
	if st.hdrLen == 0 {
		if len(p) < 4 {
			return p
		}
		n := int(p[0]) | int(p[1])<<8 | int(p[2])<<16
		if len(p) < 4+n {
			return p
		}
		payload = p[4 : 4+n]
	}
	st.hdrLen = 0
	i := okInfoOffset(payload)
	if i < 0 || payload[i] != '#' {
		return p
	}
	n := len(payload) - i - 1
	if n > 250 {
		// One length byte: keep the packet's size, cut the text.
		n = 250
		for k := i + 1 + n; k < len(payload); k++ {
			payload[k] = ' '
		}
	}
	payload[i] = byte(n)
	return p
}

// okInfoOffset is where the info of an OK packet payload starts (after
// header byte, affected rows, insert id, status flags and warnings), or
// -1.
func okInfoOffset(p []byte) int {
	if len(p) < 1 || p[0] != mysql.OKPacket {
		return -1
	}
	i := 1
	for range 2 {
		if i >= len(p) {
			return -1
		}
		switch c := p[i]; {
		case c < 0xfb:
			i++
		case c == 0xfc:
			i += 3
		case c == 0xfd:
			i += 4
		case c == 0xfe:
			i += 9
		default:
			return -1
		}
	}
	i += 4
	if i >= len(p) {
		return -1
	}
	return i
}
