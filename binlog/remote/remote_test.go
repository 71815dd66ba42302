package remote

import (
	"bufio"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"petrel/binlog"
)

// pipeStream is a Stream over one end of a pipe; the test plays the
// server on the other.
func pipeStream(t *testing.T, timeout time.Duration) (*Stream, net.Conn) {
	t.Helper()
	c, srv := net.Pipe()
	t.Cleanup(func() { c.Close(); srv.Close() })
	opts := Options{Host: "server", Port: 1, Timeout: timeout}
	return &Stream{opts: opts, raw: c, br: bufio.NewReader(c)}, srv
}

func packet(payload []byte) []byte {
	return append([]byte{byte(len(payload)), byte(len(payload) >> 8), byte(len(payload) >> 16), 0}, payload...)
}

// Heartbeats keep a quiet stream alive; silence longer than the timeout
// is a dead link; the server's EOF and error packets are told apart.
func TestNextDeadlines(t *testing.T) {
	s, srv := pipeStream(t, 300*time.Millisecond)
	hb := binlog.Heartbeat(1, "binlog.000001", 4)
	go func() {
		for i := 0; i < 5; i++ { // 5 x 150 ms: longer than the timeout in all
			time.Sleep(150 * time.Millisecond)
			srv.Write(packet(append([]byte{0}, hb...)))
		}
	}()
	start := time.Now()
	for i := 0; i < 5; i++ {
		ev, err := s.Next()
		if err != nil || ev[4] != binlog.HeartbeatEvent {
			t.Fatalf("heartbeat %d after %v: %v", i, time.Since(start), err)
		}
	}
	_, err := s.Next()
	if err == nil || !strings.Contains(err.Error(), "link is down") {
		t.Fatalf("after silence: %v, want the link declared down", err)
	}

	s, srv = pipeStream(t, time.Second)
	go srv.Write(packet([]byte{0xfe, 0, 0, 2, 0}))
	if _, err := s.Next(); !errors.Is(err, ErrEnd) {
		t.Fatalf("EOF packet: %v, want ErrEnd", err)
	}
	go srv.Write(packet(append([]byte{0xff, 0xc4, 0x04, '#', 'H', 'Y', '0', '0', '0'}, "Could not find first log file name in binary log index file"...)))
	if _, err := s.Next(); err == nil || !strings.Contains(err.Error(), "error 1220") || !strings.Contains(err.Error(), "Could not find") {
		t.Fatalf("error packet: %v", err)
	}
	go srv.Close()
	if _, err := s.Next(); err == nil || !strings.Contains(err.Error(), "lost the connection") {
		t.Fatalf("closed link: %v", err)
	}
}
