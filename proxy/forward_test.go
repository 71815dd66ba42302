package proxy

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// frames encodes packets as a backend sends them after a command of
// sequence 0: sequence ids from 1, a packet of 2^24-1 bytes or more
// split into frames (and one of exactly a multiple ended by an empty
// frame).
func frames(packets ...[]byte) []byte {
	var out []byte
	seq := byte(1)
	for _, p := range packets {
		for {
			n := min(len(p), maxFrame)
			out = append(out, byte(n), byte(n>>8), byte(n>>16), seq)
			out = append(out, p[:n]...)
			seq++
			p = p[n:]
			if n < maxFrame {
				break
			}
		}
	}
	return out
}

// textRow is a text-protocol row of one column holding v.
func textRow(v []byte) []byte { return append(appendLenenc(nil, uint64(len(v))), v...) }

// TestForwardBytes: a response goes to the client byte for byte as the
// backend sent it (headers and sequence ids included), whatever its
// rows' sizes against the proxy's 16 KiB buffers: rows below, at and
// just past the buffer, one of 100 KB, one packet split over two frames
// (2^24-1 bytes and the rest), and a second result set after the first
// (SERVER_MORE_RESULTS_EXISTS). The next command's answer follows it
// (nothing extra was written, nothing held back).
func TestForwardBytes(t *testing.T) {
	pattern := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + i%23)
		}
		return b
	}
	more := eofPacket(statusAutocommit | statusMoreResults)
	var pkts [][]byte
	pkts = append(pkts, []byte{1}, colDef("c", 0xfc), eofPacket(statusAutocommit))
	for _, n := range []int{0, 1, 100, connBuffer - 8, connBuffer - 4, connBuffer - 3, connBuffer, connBuffer + 1, 100_000, maxFrame + 10} {
		pkts = append(pkts, textRow(pattern(n)))
	}
	pkts = append(pkts, more, []byte{1}, colDef("d", 0xfc), eofPacket(statusAutocommit), textRow([]byte("x")), eofPacket(statusAutocommit))
	want := frames(pkts...)
	if len(want) < maxFrame+100_000 {
		t.Fatalf("the response is %d bytes: the multi-frame row is missing", len(want))
	}

	cb := &cannedBackend{raw: want}
	startCannedOn(t, cb)
	s := benchServer(t, cb.addr())
	cl := serveSession(t, s)
	pc := newPacketConn(cl)
	for round := range 2 {
		pc.seq = 0
		if err := pc.writePacket(append([]byte{comQuery}, "SELECT c FROM t"...)); err != nil || pc.flush() != nil {
			t.Fatal("write the query")
		}
		_ = cl.SetReadDeadline(time.Now().Add(20 * time.Second))
		got := make([]byte, len(want))
		if _, err := io.ReadFull(pc.r, got); err != nil {
			t.Fatalf("round %d: reading %d bytes: %v", round, len(want), err)
		}
		if !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && got[i] == want[i] {
				i++
			}
			t.Fatalf("round %d: the client got different bytes from the backend's, first at offset %d of %d", round, i, len(want))
		}
		// The ping's answer comes next: the response ended where the
		// backend's did.
		pc.seq = 0
		if err := pc.writePacket([]byte{comPing}); err != nil || pc.flush() != nil {
			t.Fatal("write the ping")
		}
		p, err := pc.readPacket(0)
		if err != nil || !isOK(p) || pc.seq != 2 {
			t.Fatalf("round %d: after the response, the ping's answer: %x (next seq %d) %v", round, p, pc.seq, err)
		}
	}
	if n := s.pool.stats[1].queries.Load(); n != 2 {
		t.Fatalf("%d queries reached the replica, want 2", n)
	}
	if n := s.pool.stats[1].open.Load(); n != 1 {
		t.Fatalf("%d connections to the replica for one session, want 1", n)
	}
}

// TestPackSessions: with PackSessions 2, the sessions' reads fill one
// replica (2 sessions) before the next gets any; a session that ends is
// uncounted, and the next new one goes back to the first replica (the
// one serving the most while under 2). Counted by the executions each
// replica's connections ran.
func TestPackSessions(t *testing.T) {
	c1, c2 := startCanned(t), startCanned(t)
	s := benchServerOf(t, RouterOptions{PackSessions: 2}, c1.addr(), c1.addr(), c2.addr())
	counts := func() (int, int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.router.Sessions(1), s.router.Sessions(2)
	}
	queries := func() (int64, int64) { return s.pool.stats[1].queries.Load(), s.pool.stats[2].queries.Load() }
	var conns []net.Conn
	var clients []*benchClient
	for i := range 3 {
		c := serveSession(t, s)
		bc := newBenchClient(t, c)
		for range 2 {
			if err := bc.execute(); err != nil {
				t.Fatalf("session %d: %v", i, err)
			}
		}
		conns, clients = append(conns, c), append(clients, bc)
	}
	if q1, q2 := queries(); q1 != 4 || q2 != 2 {
		t.Fatalf("executions: %d on replica 1, %d on replica 2; want 4 and 2", q1, q2)
	}
	if n1, n2 := counts(); n1 != 2 || n2 != 1 {
		t.Fatalf("sessions counted: %d on replica 1, %d on replica 2; want 2 and 1", n1, n2)
	}
	// The first session ends: uncounted once its goroutine is done.
	conns[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for n1, _ := counts(); n1 != 1; n1, _ = counts() {
		if time.Now().After(deadline) {
			t.Fatalf("a session ended: %d sessions still counted on replica 1, want 1", n1)
		}
		time.Sleep(time.Millisecond)
	}
	d := newBenchClient(t, serveSession(t, s))
	if err := d.execute(); err != nil {
		t.Fatal(err)
	}
	if err := clients[2].execute(); err != nil {
		t.Fatal(err)
	}
	if q1, q2 := queries(); q1 != 5 || q2 != 3 {
		t.Fatalf("executions: %d on replica 1, %d on replica 2; want 5 and 3 (the new session on replica 1, the third still on 2)", q1, q2)
	}
}
