package proxy

import (
	"crypto/tls"
	"net"
	"testing"
	"time"
)

// TestTLSRequestWithClientHello: a client that sends its SSLRequest and
// its TLS ClientHello in one write (both in the proxy's read buffer)
// still gets its TLS handshake.
func TestTLSRequestWithClientHello(t *testing.T) {
	cfg, err := serverTLS("", "")
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	done := make(chan error, 1)
	go func() {
		pc := newPacketConn(b)
		req, err := pc.readPacket(0)
		if err != nil {
			done <- err
			return
		}
		if h, err := parseHello(req); err != nil || !h.sslRequest {
			done <- err
			return
		}
		tc := tls.Server(bufferedConn{pc.c, pc.r}, cfg)
		_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
		done <- tc.Handshake()
	}()
	// SSLRequest: caps with CLIENT_SSL and PROTOCOL_41, 32 bytes.
	req := []byte{32, 0, 0, 1, 0x00, 0x0a, 0x00, 0x00, 0, 0, 0, 1, 33}
	req = append(req, make([]byte, 23)...)
	tc := tls.Client(&prefixConn{Conn: a, prefix: req}, &tls.Config{InsecureSkipVerify: true})
	_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
	if err := tc.Handshake(); err != nil {
		t.Fatalf("client handshake: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("server handshake: %v", err)
	}
}

// prefixConn sends prefix in the same write as the first one.
type prefixConn struct {
	net.Conn
	prefix []byte
	sent   bool
}

func (c *prefixConn) Write(p []byte) (int, error) {
	if !c.sent {
		c.sent = true
		if _, err := c.Conn.Write(append(append([]byte(nil), c.prefix...), p...)); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}
