package proxy

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The forwarding path's benchmarks: a client executes a prepared point
// select through one session (the session's own goroutine, as a real
// client connection gets) to a replica that answers at once with a fixed
// one-row result. The backend does no work, so ns/op is the round trip
// plus what the proxy adds, and allocs/op the proxy's allocations per
// query. BenchmarkForwardDirect is the same client on the backend
// itself: the difference is the proxy's cost.
//
//	go test -run '^$' -bench Forward -benchmem ./proxy

// cannedBackend is a MySQL-protocol listener that logs anyone in and
// answers a prepared statement of one parameter and one column, its
// executions with one row, and any text query with OK. It stands for a
// backend whose own cost is nil, to isolate the proxy's.
type cannedBackend struct {
	// raw, when set before the first connection, answers a COM_QUERY
	// with these exact bytes (frames, headers included) instead of OK.
	raw []byte
	ln  net.Listener
	wg  sync.WaitGroup
	mu  sync.Mutex
	cs  []net.Conn
}

func startCanned(tb testing.TB) *cannedBackend { return startCannedOn(tb, &cannedBackend{}) }

// startCannedOn starts cb's listener.
func startCannedOn(tb testing.TB, cb *cannedBackend) *cannedBackend {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	cb.ln = ln
	cb.wg.Add(1)
	go func() {
		defer cb.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			cb.mu.Lock()
			cb.cs = append(cb.cs, c)
			cb.mu.Unlock()
			cb.wg.Add(1)
			go func() {
				defer cb.wg.Done()
				defer c.Close()
				cb.serve(newPacketConn(c))
			}()
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		cb.mu.Lock()
		for _, c := range cb.cs {
			c.Close()
		}
		cb.mu.Unlock()
		cb.wg.Wait()
	})
	return cb
}

func (cb *cannedBackend) addr() string { return cb.ln.Addr().String() }

func colDef(name string, typ byte) []byte {
	b := appendLenencString(nil, "def")
	for _, s := range []string{"db", "t", "t", name, name} {
		b = appendLenencString(b, s)
	}
	b = append(b, 0x0c, 63, 0, 20, 0, 0, 0, typ, 0, 0, 0, 0, 0)
	return b
}

func (cb *cannedBackend) serve(pc *packetConn) {
	salt := []byte("abcdefghijklmnopqrst")
	g := []byte{10}
	g = append(g, "8.0.36-canned\x00"...)
	g = append(g, 1, 0, 0, 0)
	g = append(g, salt[:8]...)
	g = append(g, 0)
	caps := uint32(proxyCaps)
	g = binary.LittleEndian.AppendUint16(g, uint16(caps))
	g = append(g, 255, 2, 0)
	g = binary.LittleEndian.AppendUint16(g, uint16(caps>>16))
	g = append(g, 21)
	g = append(g, make([]byte, 10)...)
	g = append(g, salt[8:]...)
	g = append(g, 0)
	g = append(g, "mysql_native_password\x00"...)
	pc.seq = 0
	if pc.writePacket(g) != nil || pc.flush() != nil {
		return
	}
	if _, err := pc.readPacket(0); err != nil {
		return
	}
	if pc.writePacket(okPacket(0, 0, statusAutocommit)) != nil || pc.flush() != nil {
		return
	}
	col := colDef("c", 0xfd)
	for {
		p, err := pc.readPacket(0)
		if err != nil || len(p) == 0 {
			return
		}
		var out [][]byte
		switch p[0] {
		case comQuit:
			return
		case comStmtClose, comStmtSendLongData:
			continue
		case comStmtPrepare:
			ok := []byte{0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0}
			out = [][]byte{ok, colDef("?", 0x08), eofPacket(statusAutocommit), col, eofPacket(statusAutocommit)}
		case comStmtExecute:
			row := append([]byte{0, 0}, appendLenencString(nil, "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopq")...)
			out = [][]byte{{1}, col, eofPacket(statusAutocommit), row, eofPacket(statusAutocommit)}
		case comQuery:
			if cb.raw != nil {
				if _, err := pc.w.Write(cb.raw); err != nil || pc.flush() != nil {
					return
				}
				continue
			}
			out = [][]byte{okPacket(0, 0, statusAutocommit)}
		default:
			out = [][]byte{okPacket(0, 0, statusAutocommit)}
		}
		for _, o := range out {
			if pc.writePacket(o) != nil {
				return
			}
		}
		if pc.flush() != nil {
			return
		}
	}
}

// benchClient is the client side: it prepares the point select and
// executes it.
type benchClient struct {
	pc   *packetConn
	exec []byte
}

func newBenchClient(tb testing.TB, c net.Conn) *benchClient {
	bc := &benchClient{pc: newPacketConn(c)}
	bc.pc.seq = 0
	if bc.pc.writePacket(append([]byte{comStmtPrepare}, "SELECT c FROM sbtest1 WHERE id=?"...)) != nil || bc.pc.flush() != nil {
		tb.Fatal("prepare: write")
	}
	first, err := bc.pc.readPacket(0)
	if err != nil || len(first) < 12 || first[0] != 0 {
		tb.Fatalf("prepare: %x %v", first, err)
	}
	for range 4 {
		if _, err := bc.pc.readPacket(0); err != nil {
			tb.Fatal(err)
		}
	}
	id := binary.LittleEndian.Uint32(first[1:])
	bc.exec = []byte{comStmtExecute, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0x08, 0}
	binary.LittleEndian.PutUint32(bc.exec[1:], id)
	bc.exec = binary.LittleEndian.AppendUint64(bc.exec, 4242)
	return bc
}

// execute runs one execution and checks its answer's shape (5 packets,
// the row's).
func (bc *benchClient) execute() error {
	bc.pc.seq = 0
	if err := bc.pc.writePacket(bc.exec); err != nil {
		return err
	}
	if err := bc.pc.flush(); err != nil {
		return err
	}
	for i := range 5 {
		p, err := bc.pc.readPacket(0)
		if err != nil {
			return err
		}
		if isERR(p) {
			return parseERR(p)
		}
		if i == 3 && (len(p) < 100 || p[0] != 0) {
			return errors.New("unexpected row")
		}
	}
	return nil
}

// benchServer is a Server with only what a session needs (no listeners,
// no checkers): its backends are backend, and the replica is online.
func benchServer(tb testing.TB, backend string) *Server {
	return benchServerOf(tb, RouterOptions{}, backend, backend)
}

// benchServerOf is benchServer with router options, a primary and
// replicas (all online).
func benchServerOf(tb testing.TB, ro RouterOptions, primary string, replicas ...string) *Server {
	s := &Server{opts: Options{Primary: primary, Replicas: replicas, DefaultMode: ModeBounded, Router: ro}}
	if err := s.opts.applyDefaults(); err != nil {
		tb.Fatal(err)
	}
	s.addrs = append([]string{primary}, replicas...)
	s.router = NewRouter(s.opts.Router, primary, replicas)
	now := time.Now()
	s.router.Observe(Primary, Sample{At: now})
	for i := range replicas {
		for range 2 {
			s.router.Observe(i+1, Sample{At: now, LagKnown: true})
		}
	}
	s.pool = newPool(s.addrs, s.opts.MaxConnsPerBackend, s.opts.BackendIdleTimeout, s.opts.ConnectTimeout)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	tb.Cleanup(func() {
		s.cancel()
		s.pool.cutAll()
		s.pool.closeIdle(true)
	})
	return s
}

// sessionIDs numbers the tests' sessions (a held connection's lease
// names its session).
var sessionIDs atomic.Uint32

// serveSession runs a session of s on a loopback connection and returns
// the client's end.
func serveSession(tb testing.TB, s *Server) net.Conn {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	cl, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := ln.Accept()
	if err != nil {
		tb.Fatal(err)
	}
	sess := &session{srv: s, cl: newPacketConn(sc), cred: credential{user: "u"}, id: sessionIDs.Add(1), caps: proxyCaps,
		rs: Session{Mode: s.opts.DefaultMode}, stmts: map[uint32]*pstmt{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer sc.Close()
		sess.serve()
		sess.end()
	}()
	tb.Cleanup(func() {
		cl.Close()
		<-done
	})
	return cl
}

func BenchmarkForwardProxy(b *testing.B) {
	cb := startCanned(b)
	s := benchServer(b, cb.addr())
	bc := newBenchClient(b, serveSession(b, s))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := bc.execute(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if n := s.pool.stats[1].queries.Load(); n < int64(b.N) {
		b.Fatalf("%d executions reached the replica, want %d", n, b.N)
	}
}

func BenchmarkForwardDirect(b *testing.B) {
	cb := startCanned(b)
	c, err := net.Dial("tcp", cb.addr())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	pc := newPacketConn(c)
	if _, err := pc.readPacket(0); err != nil {
		b.Fatal(err)
	}
	if pc.writePacket(make([]byte, 40)) != nil || pc.flush() != nil {
		b.Fatal("login")
	}
	if _, err := pc.readPacket(0); err != nil {
		b.Fatal(err)
	}
	bc := newBenchClient(b, c)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := bc.execute(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestForwardBench keeps the benchmark's setup honest in the suite: 100
// executions through a session all reach the replica and answer the row.
func TestForwardBench(t *testing.T) {
	cb := startCanned(t)
	s := benchServer(t, cb.addr())
	bc := newBenchClient(t, serveSession(t, s))
	for range 100 {
		if err := bc.execute(); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.pool.stats[1].queries.Load(); n != 100 {
		t.Fatalf("%d executions reached the replica, want 100", n)
	}
}

// TestHeldConnection: a session keeps its replica connection between
// statements, and another session that would wait for a connection to
// that backend (its cap reached) takes it from the idle holder instead;
// the holder then takes another. One connection serves both sessions,
// none waits out PoolWait.
func TestHeldConnection(t *testing.T) {
	cb := startCanned(t)
	s := benchServer(t, cb.addr())
	s.opts.PoolWait = 3 * time.Second
	s.pool = newPool(s.addrs, 1, s.opts.BackendIdleTimeout, s.opts.ConnectTimeout)
	a := newBenchClient(t, serveSession(t, s))
	b := newBenchClient(t, serveSession(t, s))
	start := time.Now()
	for i := range 20 {
		c := a
		if i%4 >= 2 {
			c = b
		}
		if err := c.execute(); err != nil {
			t.Fatalf("execution %d: %v", i, err)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("20 executions took %v: a session waited for the other's held connection", d)
	}
	if n := s.pool.stats[1].queries.Load(); n != 20 {
		t.Fatalf("%d executions on the replica, want 20", n)
	}
	if n := s.pool.stats[1].open.Load(); n != 1 {
		t.Fatalf("%d connections open to the replica, want 1 (the cap)", n)
	}
	s.pool.mu.Lock()
	held := len(s.pool.held[1])
	s.pool.mu.Unlock()
	if held != 1 {
		t.Fatalf("%d held connections, want 1 (the last session's)", held)
	}
	// Its session idle past HoldIdle, the connection goes back to the
	// pool (and the next statement takes it from there).
	if n := s.pool.releaseHeld(time.Hour); n != 0 {
		t.Fatalf("%d held connections released before their time", n)
	}
	time.Sleep(5 * time.Millisecond)
	if n := s.pool.releaseHeld(time.Millisecond); n != 1 {
		t.Fatalf("%d held connections released, want 1", n)
	}
	s.pool.mu.Lock()
	held, idle := len(s.pool.held[1]), len(s.pool.idle[poolKey{1, "u", 0}])
	s.pool.mu.Unlock()
	if held != 0 || idle != 1 {
		t.Fatalf("after the release: %d held, %d idle; want 0 and 1", held, idle)
	}
	if err := b.execute(); err != nil {
		t.Fatal(err)
	}
	if n := s.pool.stats[1].open.Load(); n != 1 {
		t.Fatalf("%d connections open to the replica, want 1", n)
	}
}

// TestSessionBadInput: malformed commands after the login get MySQL's
// error numbers and leave the session serving (an execution still
// answers); a packet past max_allowed_packet gets 1153, an empty packet
// 1835, and both end the session (the stream's framing is not to be
// trusted after them), as MySQL does.
func TestSessionBadInput(t *testing.T) {
	cb := startCanned(t)
	s := benchServer(t, cb.addr())
	s.opts.MaxAllowedPacket = 1 << 10
	errNo := func(bc *benchClient, cmd []byte) uint16 {
		t.Helper()
		bc.pc.seq = 0
		if bc.pc.writePacket(cmd) != nil || bc.pc.flush() != nil {
			t.Fatal("write")
		}
		p, err := bc.pc.readPacket(0)
		if err != nil || !isERR(p) {
			t.Fatalf("command %x: want an error packet, got %x, %v", cmd[:min(len(cmd), 16)], p, err)
		}
		return parseERR(p).Code
	}
	bc := newBenchClient(t, serveSession(t, s))
	for _, tc := range []struct {
		what string
		cmd  []byte
		want uint16
	}{
		{"a short COM_STMT_EXECUTE", []byte{comStmtExecute, 1, 0, 0}, 1835},
		{"an execution without its parameters' types", append([]byte{comStmtExecute}, bc.exec[1:11]...), 1835},
		{"an unknown statement", []byte{comStmtExecute, 99, 0, 0, 0, 0, 1, 0, 0, 0}, 1243},
		{"COM_STMT_RESET of an unknown statement", []byte{comStmtReset, 99, 0, 0, 0}, 1243},
		{"an unknown command", []byte{0x55, 1, 2}, 1047},
		{"COM_CHANGE_USER", []byte{comChangeUser, 'u', 0}, 1047},
	} {
		if n := errNo(bc, tc.cmd); n != tc.want {
			t.Errorf("%s: error %d, want %d", tc.what, n, tc.want)
		}
		if err := bc.execute(); err != nil {
			t.Fatalf("after %s: %v", tc.what, err)
		}
	}
	for _, tc := range []struct {
		what string
		cmd  []byte
		want uint16
	}{
		{"an empty packet", []byte{}, 1835},
		{"a packet past max_allowed_packet", append([]byte{comQuery}, make([]byte, 2<<10)...), 1153},
	} {
		bc := newBenchClient(t, serveSession(t, s))
		if n := errNo(bc, tc.cmd); n != tc.want {
			t.Errorf("%s: error %d, want %d", tc.what, n, tc.want)
		}
		bc.pc.deadline(5 * time.Second)
		if _, err := bc.pc.readPacket(0); err == nil {
			t.Errorf("after %s the session still answers", tc.what)
		}
	}
}
