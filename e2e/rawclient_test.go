package e2e

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"testing"
	"time"
)

// rawClient speaks the MySQL client protocol over a plain socket, for
// what drivers hide: the ERR packet of a refused handshake, a packet that
// stalls halfway, a socket that never authenticates, a client that stops
// reading. Every read and write has a deadline.
type rawClient struct {
	c   net.Conn
	seq byte // sequence id of the next packet to write
	// id is the connection id the server's greeting gave.
	id uint32
}

// Client capability flags (MySQL's CLIENT_*).
const (
	clientLongPassword     = 1
	clientProtocol41       = 0x200
	clientInteractiveFlag  = 0x400
	clientTransactions     = 0x2000
	clientSecureConnection = 0x8000
	clientPluginAuth       = 0x80000
)

// rawErr is an ERR packet.
type rawErr struct {
	Number  uint16
	State   string
	Message string
}

func (e *rawErr) Error() string { return fmt.Sprintf("ERR %d (%s): %s", e.Number, e.State, e.Message) }

// rawErrNo is the error number of an ERR packet in err, or 0.
func rawErrNo(err error) uint16 {
	var e *rawErr
	if errors.As(err, &e) {
		return e.Number
	}
	return 0
}

// dialRaw opens a socket to port on loopback.
func dialRaw(t *testing.T, port int) *rawClient {
	t.Helper()
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 10*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawClient{c: c}
}

// readPacket reads one packet within d.
func (r *rawClient) readPacket(d time.Duration) ([]byte, error) {
	_ = r.c.SetReadDeadline(time.Now().Add(d))
	var hdr [4]byte
	if _, err := io.ReadFull(r.c, hdr[:]); err != nil {
		return nil, err
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	p := make([]byte, n)
	if _, err := io.ReadFull(r.c, p); err != nil {
		return nil, err
	}
	r.seq = hdr[3] + 1
	return p, nil
}

// writePacket sends payload as one packet within 10 s.
func (r *rawClient) writePacket(payload []byte) error {
	_ = r.c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	n := len(payload)
	b := append([]byte{byte(n), byte(n >> 8), byte(n >> 16), r.seq}, payload...)
	r.seq++
	_, err := r.c.Write(b)
	return err
}

// parseErr decodes an ERR packet.
func parseErr(p []byte) *rawErr {
	e := &rawErr{}
	if len(p) >= 3 {
		e.Number = binary.LittleEndian.Uint16(p[1:3])
		rest := p[3:]
		if len(rest) >= 6 && rest[0] == '#' {
			e.State, rest = string(rest[1:6]), rest[6:]
		}
		e.Message = string(rest)
	}
	return e
}

// greeting reads the server's handshake packet and returns its salt.
func (r *rawClient) greeting() ([]byte, error) {
	p, err := r.readPacket(10 * time.Second)
	if err != nil {
		return nil, fmt.Errorf("read greeting: %w", err)
	}
	if len(p) > 0 && p[0] == 0xff {
		return nil, parseErr(p)
	}
	if len(p) < 1 || p[0] != 10 {
		return nil, fmt.Errorf("greeting: protocol %v, want 10", p[:min(1, len(p))])
	}
	i := bytes.IndexByte(p[1:], 0)
	if i < 0 {
		return nil, errors.New("greeting: no server version")
	}
	q := p[1+i+1:]
	if len(q) < 4+8+1+2+1+2+2+1+10 {
		return nil, errors.New("greeting: short")
	}
	r.id = binary.LittleEndian.Uint32(q[:4])
	salt := append([]byte(nil), q[4:12]...)
	q = q[4+8+1+2+1+2+2+1+10:]
	if len(q) >= 12 {
		salt = append(salt, q[:12]...)
	}
	return salt, nil
}

// nativeScramble is mysql_native_password's answer to salt.
func nativeScramble(pw string, salt []byte) []byte {
	if pw == "" {
		return nil
	}
	a := sha1.Sum([]byte(pw))
	b := sha1.Sum(a[:])
	h := sha1.New()
	h.Write(salt)
	h.Write(b[:])
	c := h.Sum(nil)
	for i := range c {
		c[i] ^= a[i]
	}
	return c
}

// login authenticates with mysql_native_password; flags are added to the
// client's capability flags. An ERR packet is returned as *rawErr.
func (r *rawClient) login(user, pw string, flags uint32) error {
	salt, err := r.greeting()
	if err != nil {
		return err
	}
	caps := uint32(clientLongPassword|clientProtocol41|clientTransactions|clientSecureConnection|clientPluginAuth) | flags
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, caps)
	b = binary.LittleEndian.AppendUint32(b, 1<<24)
	b = append(b, 45)
	b = append(b, make([]byte, 23)...)
	b = append(b, user...)
	b = append(b, 0)
	auth := nativeScramble(pw, salt)
	b = append(b, byte(len(auth)))
	b = append(b, auth...)
	b = append(b, "mysql_native_password"...)
	b = append(b, 0)
	if err := r.writePacket(b); err != nil {
		return err
	}
	for range 3 {
		p, err := r.readPacket(20 * time.Second)
		if err != nil {
			return fmt.Errorf("read login result: %w", err)
		}
		switch {
		case len(p) > 0 && p[0] == 0x00:
			return nil
		case len(p) > 0 && p[0] == 0xff:
			return parseErr(p)
		case len(p) > 0 && p[0] == 0xfe:
			// Auth switch: plugin name, then the new salt.
			i := bytes.IndexByte(p[1:], 0)
			if i < 0 || string(p[1:1+i]) != "mysql_native_password" {
				return fmt.Errorf("auth switch to %q", p[1:])
			}
			s := bytes.TrimRight(p[1+i+1:], "\x00")
			if err := r.writePacket(nativeScramble(pw, s)); err != nil {
				return err
			}
		default:
			return fmt.Errorf("login: unexpected packet %x", p[:min(8, len(p))])
		}
	}
	return errors.New("login: too many auth round trips")
}

// query sends a COM_QUERY and reads the reply up to its end: nil for OK
// or a result set, *rawErr for ERR.
func (r *rawClient) query(q string, d time.Duration) error {
	r.seq = 0
	if err := r.writePacket(append([]byte{0x03}, q...)); err != nil {
		return err
	}
	p, err := r.readPacket(d)
	if err != nil {
		return err
	}
	switch {
	case len(p) > 0 && p[0] == 0x00:
		return nil
	case len(p) > 0 && p[0] == 0xff:
		return parseErr(p)
	}
	// A result set: column definitions, EOF, rows, EOF.
	for eofs := 0; eofs < 2; {
		p, err := r.readPacket(d)
		if err != nil {
			return err
		}
		if len(p) > 0 && p[0] == 0xff {
			return parseErr(p)
		}
		if len(p) > 0 && p[0] == 0xfe && len(p) < 9 {
			eofs++
		}
	}
	return nil
}

// waitClosed reads until the server closes the socket, within d. It
// returns the ERR packet read before the close, if any, and how long the
// close took.
func (r *rawClient) waitClosed(d time.Duration) (*rawErr, time.Duration, error) {
	start := time.Now()
	var last *rawErr
	for time.Since(start) < d {
		p, err := r.readPacket(d - time.Since(start))
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return last, time.Since(start), fmt.Errorf("still open after %v", d)
			}
			return last, time.Since(start), nil // EOF or reset: closed
		}
		if len(p) > 0 && p[0] == 0xff {
			last = parseErr(p)
		}
	}
	return last, time.Since(start), fmt.Errorf("still open after %v", d)
}

// queryValue runs a query returning one row and returns its first column
// as text (text protocol: column count, column definitions, EOF, rows,
// EOF).
func (r *rawClient) queryValue(q string, d time.Duration) (string, error) {
	r.seq = 0
	if err := r.writePacket(append([]byte{0x03}, q...)); err != nil {
		return "", err
	}
	var value *string
	for eofs := 0; eofs < 2; {
		p, err := r.readPacket(d)
		if err != nil {
			return "", err
		}
		switch {
		case len(p) > 0 && p[0] == 0xff:
			return "", parseErr(p)
		case len(p) > 0 && p[0] == 0xfe && len(p) < 9:
			eofs++
		case eofs == 1 && value == nil && len(p) > 0 && p[0] < 0xfb:
			// A row; its first value is short (one length byte).
			if n := int(p[0]); 1+n <= len(p) {
				v := string(p[1 : 1+n])
				value = &v
			}
		}
	}
	if value == nil {
		return "", errors.New("no row")
	}
	return *value, nil
}
