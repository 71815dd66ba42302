package lab

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// testServer is a TCP server on 127.0.0.1 that echoes what it reads, or
// with stream set writes an endless byte stream. It counts accepted
// connections and closes everything in Close.
type testServer struct {
	ln       net.Listener
	stream   bool
	accepted atomic.Int64
	wg       sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func startTestServer(t *testing.T, stream bool) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{ln: ln, stream: stream, conns: make(map[net.Conn]struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			s.mu.Lock()
			s.conns[c] = struct{}{}
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer func() {
					c.Close()
					s.mu.Lock()
					delete(s.conns, c)
					s.mu.Unlock()
				}()
				if !s.stream {
					io.Copy(c, c)
					return
				}
				buf := bytes.Repeat([]byte("0123456789abcdef"), 2048)
				for {
					if _, err := c.Write(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(s.Close)
	return s
}

func (s *testServer) Addr() string { return s.ln.Addr().String() }

func (s *testServer) Close() {
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func startTestLink(t *testing.T, upstream string) *Link {
	t.Helper()
	l, err := StartLink(upstream)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		closeLink(t, l)
		checkNoLinkGoroutines(t)
	})
	return l
}

// closeLink fails the test if Close does not return promptly, rather than
// hanging the test binary on a leaked goroutine.
func closeLink(t *testing.T, l *Link) {
	t.Helper()
	done := make(chan struct{})
	go func() { l.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_, sample := linkGoroutines()
		t.Fatalf("Link.Close blocked; a link goroutine:\n%s", sample)
	}
}

// linkGoroutines counts goroutines running Link code.
func linkGoroutines() (int, string) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	var sample string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "petrel/lab.(*Link)") {
			n++
			sample = g
		}
	}
	return n, sample
}

// checkNoLinkGoroutines fails if Link goroutines outlive Close by more
// than the moment a returning goroutine takes to disappear.
func checkNoLinkGoroutines(t *testing.T) {
	t.Helper()
	waitFor(t, time.Second, "link goroutines to end", func() bool {
		n, _ := linkGoroutines()
		return n == 0
	})
}

func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			_, sample := linkGoroutines()
			t.Fatalf("timed out after %v waiting for %s (a link goroutine: %s)", d, what, sample)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func dialLink(t *testing.T, l *Link) *net.TCPConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", l.Addr(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*net.TCPConn)
}

// echo writes msg and reads it back within timeout.
func echo(c net.Conn, msg []byte, timeout time.Duration) error {
	c.SetDeadline(time.Now().Add(timeout))
	defer c.SetDeadline(time.Time{})
	if _, err := c.Write(msg); err != nil {
		return err
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		return err
	}
	if !bytes.Equal(got, msg) {
		return errors.New("echo returned different bytes")
	}
	return nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// readErr reads one byte within d and returns the error (nil if a byte came).
func readErr(c net.Conn, d time.Duration) error {
	c.SetReadDeadline(time.Now().Add(d))
	defer c.SetReadDeadline(time.Time{})
	_, err := c.Read(make([]byte, 1))
	return err
}

func TestLinkForwardsBothWays(t *testing.T) {
	srv := startTestServer(t, false)
	l := startTestLink(t, srv.Addr())
	c := dialLink(t, l)

	msg := make([]byte, 3<<20) // larger than a socket buffer and a read chunk
	rand.New(rand.NewSource(1)).Read(msg)
	if err := echo(c, msg, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	// The link counts a chunk after its write returns, so the client may hold
	// the last bytes a moment before the counter does.
	n := int64(len(msg))
	waitFor(t, 2*time.Second, fmt.Sprintf("stats of 1 accepted, 1 active, %d bytes each way", n), func() bool {
		st := l.Stats()
		return st.Accepted == 1 && st.Active == 1 && st.Upstream == n && st.Downstream == n
	})

	// A half-close travels through: the server sees EOF, finishes, and the
	// client then reads EOF too.
	if err := c.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if err := readErr(c, 2*time.Second); err != io.EOF {
		t.Fatalf("after half-close: read %v, want EOF", err)
	}
	waitFor(t, 2*time.Second, "the connection to leave the link", func() bool { return l.Stats().Active == 0 })
}

func TestLinkLatency(t *testing.T) {
	srv := startTestServer(t, false)
	l := startTestLink(t, srv.Addr())
	c := dialLink(t, l)
	if err := echo(c, []byte("warm"), 2*time.Second); err != nil {
		t.Fatal(err)
	}

	const oneWay = 45 * time.Millisecond // a 90 ms RTT WAN
	l.SetLatency(oneWay)
	for i := 0; i < 3; i++ {
		start := time.Now()
		if err := echo(c, []byte("ping"), 5*time.Second); err != nil {
			t.Fatal(err)
		}
		rtt := time.Since(start)
		if rtt < 2*oneWay || rtt > 2*oneWay+time.Second {
			t.Fatalf("round trip %v with %v one-way latency; want >= %v and not far above", rtt, oneWay, 2*oneWay)
		}
	}

	// Pipelined bytes are delayed, not serialised: ten back-to-back
	// messages take about one round trip, not ten.
	start := time.Now()
	var all []byte
	for i := 0; i < 10; i++ {
		msg := []byte("msg" + string(rune('0'+i)))
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		all = append(all, msg...)
		time.Sleep(time.Millisecond)
	}
	got := make([]byte, len(all))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, all) {
		t.Fatalf("pipelined echo: %q, %v; want %q", got, err, all)
	}
	if d := time.Since(start); d < 2*oneWay || d > 5*2*oneWay {
		t.Fatalf("10 pipelined messages took %v; want about one round trip (%v)", d, 2*oneWay)
	}

	l.SetLatency(0)
	start = time.Now()
	if err := echo(c, []byte("fast"), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if rtt := time.Since(start); rtt >= 2*oneWay {
		t.Fatalf("round trip %v after SetLatency(0)", rtt)
	}
}

func TestLinkBlackHole(t *testing.T) {
	srv := startTestServer(t, false)
	l := startTestLink(t, srv.Addr())
	c := dialLink(t, l)
	if err := echo(c, []byte("before"), 2*time.Second); err != nil {
		t.Fatal(err)
	}

	l.BlackHole(true)
	if _, err := c.Write([]byte("held")); err != nil {
		t.Fatal(err)
	}
	if err := readErr(c, 300*time.Millisecond); !isTimeout(err) {
		t.Fatalf("read through a black hole: %v, want a timeout", err)
	}
	// A new connection is accepted but goes nowhere: the server never sees it.
	c2 := dialLink(t, l)
	if err := echo(c2, []byte("new"), 300*time.Millisecond); !isTimeout(err) {
		t.Fatalf("echo on a connection opened in a black hole: %v, want a timeout", err)
	}
	if n := srv.accepted.Load(); n != 1 {
		t.Fatalf("server accepted %d connections during the black hole, want 1 (the one from before)", n)
	}
	if st := l.Stats(); st.Active != 2 {
		t.Fatalf("stats %+v: both connections should still be open", st)
	}

	// Healing delivers the held bytes on the old connection, which carries
	// on, and connects the new one.
	l.BlackHole(false)
	got := make([]byte, 4)
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "held" {
		t.Fatalf("after healing: read %q, %v; want \"held\"", got, err)
	}
	if err := echo(c, []byte("after"), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	got = make([]byte, 3)
	c2.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.ReadFull(c2, got); err != nil || string(got) != "new" {
		t.Fatalf("new connection after healing: read %q, %v; want \"new\"", got, err)
	}
}

func TestLinkCut(t *testing.T) {
	srv := startTestServer(t, false)
	l := startTestLink(t, srv.Addr())
	c := dialLink(t, l)
	if err := echo(c, []byte("hello"), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if n := l.Cut(); n != 1 {
		t.Fatalf("Cut closed %d connections, want 1", n)
	}
	if err := readErr(c, 2*time.Second); err != io.EOF {
		t.Fatalf("read after Cut: %v, want EOF", err)
	}
	c2 := dialLink(t, l)
	if err := echo(c2, []byte("again"), 2*time.Second); err != nil {
		t.Fatalf("new connection after Cut: %v", err)
	}
}

func TestLinkReset(t *testing.T) {
	srv := startTestServer(t, false)
	l := startTestLink(t, srv.Addr())
	c := dialLink(t, l)
	if err := echo(c, []byte("hello"), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if n := l.Reset(); n != 1 {
		t.Fatalf("Reset aborted %d connections, want 1", n)
	}
	if err := readErr(c, 2*time.Second); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read after Reset: %v, want ECONNRESET", err)
	}
	c2 := dialLink(t, l)
	if err := echo(c2, []byte("again"), 2*time.Second); err != nil {
		t.Fatalf("new connection after Reset: %v", err)
	}
}

func TestLinkDown(t *testing.T) {
	srv := startTestServer(t, false)
	l := startTestLink(t, srv.Addr())
	c := dialLink(t, l)
	if err := echo(c, []byte("hello"), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := l.Down(true); err != nil {
		t.Fatal(err)
	}
	if err := readErr(c, 2*time.Second); err != io.EOF {
		t.Fatalf("read after Down: %v, want EOF", err)
	}
	if c, err := net.DialTimeout("tcp", l.Addr(), 2*time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("dial while down: %v, want ECONNREFUSED", err)
	}
	if err := l.Down(false); err != nil {
		t.Fatal(err)
	}
	c2 := dialLink(t, l)
	if err := echo(c2, []byte("up again"), 2*time.Second); err != nil {
		t.Fatalf("after Down(false): %v", err)
	}
	l.Close()
	if err := l.Down(false); !errors.Is(err, ErrLinkClosed) {
		t.Fatalf("Down after Close: %v, want ErrLinkClosed", err)
	}
}

func TestLinkUpstreamRefuses(t *testing.T) {
	port := boundNotListening(t)
	l := startTestLink(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	c := dialLink(t, l)
	if err := readErr(c, 2*time.Second); err == nil || isTimeout(err) {
		t.Fatalf("read from a link to a closed port: %v, want EOF or reset", err)
	}
}

// TestLinkNoLeaks tears connections down in the ways that strand
// goroutines in naive proxies: clients that reset while the upstream
// streams under latency, a client that stops reading, and Close during a
// black hole with bytes held.
func TestLinkNoLeaks(t *testing.T) {
	srv := startTestServer(t, true)
	l := startTestLink(t, srv.Addr())
	l.SetLatency(5 * time.Millisecond)
	for i := 0; i < 20; i++ {
		c := dialLink(t, l)
		if _, err := io.ReadFull(c, make([]byte, 100<<10)); err != nil {
			t.Fatal(err)
		}
		c.SetLinger(0)
		c.Close()
	}
	waitFor(t, 2*time.Second, "reset clients to leave the link", func() bool { return l.Stats().Active == 0 })
	waitFor(t, time.Second, "only the accept loop to remain", func() bool {
		n, _ := linkGoroutines()
		return n == 1
	})

	dialLink(t, l) // never reads: the link's writer blocks on it
	l.BlackHole(true)
	dialLink(t, l) // waits for the black hole to lift
	waitFor(t, 2*time.Second, "two active connections", func() bool { return l.Stats().Active == 2 })
	time.Sleep(50 * time.Millisecond)

	closeLink(t, l)
	checkNoLinkGoroutines(t)
}

// boundNotListening returns a loopback port held by a socket that is bound
// but never listens, for the test's lifetime: connecting to it is refused,
// and no other process (tests run in parallel) can start listening on it,
// as could happen to a port that was merely found free.
func boundNotListening(t *testing.T) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return sa.(*syscall.SockaddrInet4).Port
}
