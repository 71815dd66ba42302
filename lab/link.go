package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Why not toxiproxy. The design named github.com/Shopify/toxiproxy/v2 as a
// library, and v2.5.0 (the newest on the module proxy) was tried. Its Proxy
// gives no handle on current connections, so it cannot cut or reset them
// without restarting the listener, and its reset_peer toxic sets SO_LINGER
// only on connections opened after it is added (measured on an existing
// connection: no RST, nor anything else within 1 s, even after sending). Its pipeline strands a goroutine per
// connection when a client goes away while the upstream is still sending
// (20 reset clients left 20 LatencyToxic.Pipe goroutines blocked on a
// channel send, still there after Proxy.Stop), which breaks the leak check
// every lab component has. Its black hole (the timeout toxic) drops bytes
// and closes the connection when removed, so a partition cannot heal, and
// removing a toxic drops chunks a writer cannot take within 5 s
// (ToxicLink.RemoveToxic). What is
// left to reuse, a latency loop, is smaller than the code working around
// the rest.

// A Link is a userspace TCP proxy on 127.0.0.1 between clients and one
// upstream address, with faults a test switches on and off while
// connections are open: one-way latency, a black hole, cuts, resets and an
// outage. It stands in for a WAN path (the kernel here has no netem).
//
// Faults, as the two ends see them:
//   - SetLatency(d): every byte is delivered d after the link read it, in
//     both directions, so a request/response round trip takes at least 2d.
//     Order is kept; a change applies to bytes read after it.
//   - BlackHole(true): nothing is delivered in either direction and new
//     connections are accepted but not connected upstream, so both ends see
//     a silent, open connection that only a read timeout detects. Bytes are
//     held, not dropped (up to linkWindow per direction, then the sender
//     blocks, as on a TCP path with a closed window); BlackHole(false)
//     delivers them and the connections carry on, as after a partition
//     shorter than every timeout.
//   - Cut: current connections are closed (FIN) on both sides; new ones work.
//   - Reset: current connections are aborted (RST) on both sides.
//   - Down(true): the listener is closed (new connections are refused) and
//     current connections are closed, as when the upstream host dies;
//     Down(false) listens again on the same port.
//
// A Link owns its goroutines: an accept loop while it listens and, per
// connection, a handler with a reader and a writer per direction, which
// end when the connection closes (Cut, Reset, Down(true), Close, or either
// end closing or failing). Close returns after all of them have ended.
// Methods are safe for concurrent use.
type Link struct {
	upstream string
	addr     *net.TCPAddr // fixed at StartLink; Down(false) listens on it again

	accepted   atomic.Int64
	upBytes    atomic.Int64
	downBytes  atomic.Int64
	loops      sync.WaitGroup // the accept loops and connection handlers
	closedOnce sync.Once

	mu struct {
		sync.Mutex
		ln        net.Listener  // nil while Down or after Close
		acceptEnd chan struct{} // closed when the current accept loop returns
		latency   time.Duration
		blackhole bool
		healed    chan struct{} // closed when the black hole is lifted
		conns     map[*linkConn]struct{}
		closed    bool
	}
}

const (
	// linkDialTimeout bounds the dial to the upstream for each connection.
	linkDialTimeout = 5 * time.Second
	// linkWindow is the most bytes a Link holds per direction of one
	// connection (in-flight latency or a black hole) before it stops
	// reading from the sender, like a TCP receive window.
	linkWindow = 4 << 20
	// linkReadSize is the largest chunk read from a socket at once.
	linkReadSize = 64 << 10
	// linkAcceptBackoff is the pause after a failed Accept (e.g. EMFILE).
	linkAcceptBackoff = 50 * time.Millisecond
)

// LinkStats is a snapshot of a Link's counters.
type LinkStats struct {
	Accepted   int64 // client connections accepted since StartLink
	Active     int   // connections open now
	Upstream   int64 // bytes delivered from clients to the upstream
	Downstream int64 // bytes delivered from the upstream to clients
}

// StartLink listens on 127.0.0.1 on a free port and forwards each accepted
// connection to upstream ("host:port"), with no faults until one is set.
func StartLink(upstream string) (*Link, error) {
	if _, _, err := net.SplitHostPort(upstream); err != nil {
		return nil, fmt.Errorf("lab: link upstream %q: %w", upstream, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("lab: link listen: %w", err)
	}
	l := &Link{upstream: upstream, addr: ln.Addr().(*net.TCPAddr)}
	l.mu.conns = make(map[*linkConn]struct{})
	l.mu.healed = closedChan()
	l.mu.Lock()
	l.startAcceptLocked(ln)
	l.mu.Unlock()
	return l, nil
}

// Addr is the address clients connect to, "127.0.0.1:port".
func (l *Link) Addr() string { return l.addr.String() }

// Port is the port clients connect to.
func (l *Link) Port() int { return l.addr.Port }

// Upstream is the address the link forwards to.
func (l *Link) Upstream() string { return l.upstream }

// Stats returns the link's counters.
func (l *Link) Stats() LinkStats {
	l.mu.Lock()
	active := len(l.mu.conns)
	l.mu.Unlock()
	return LinkStats{
		Accepted:   l.accepted.Load(),
		Active:     active,
		Upstream:   l.upBytes.Load(),
		Downstream: l.downBytes.Load(),
	}
}

// SetLatency sets the one-way delay added in each direction (0 removes
// it). A round trip through the link takes at least twice oneWay: 45ms
// emulates a 90ms-RTT WAN.
func (l *Link) SetLatency(oneWay time.Duration) {
	if oneWay < 0 {
		oneWay = 0
	}
	l.mu.Lock()
	l.mu.latency = oneWay
	l.mu.Unlock()
}

// BlackHole stops (on) or resumes (off) all delivery; see Link.
func (l *Link) BlackHole(on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if on == l.mu.blackhole {
		return
	}
	l.mu.blackhole = on
	if on {
		l.mu.healed = make(chan struct{})
	} else {
		close(l.mu.healed)
	}
}

// Cut closes every current connection on both sides (the ends read EOF);
// new connections are accepted as before. It returns how many it closed.
func (l *Link) Cut() int { return l.closeConns(false) }

// Reset aborts every current connection on both sides with a TCP RST (the
// ends read "connection reset by peer"); new connections are accepted as
// before. It returns how many it aborted.
func (l *Link) Reset() int { return l.closeConns(true) }

// Down(true) closes the listener, so connecting is refused, and closes
// every current connection; Down(false) listens on the same port again. The
// error is from listening again (another process may have taken the port
// meanwhile) or ErrLinkClosed.
func (l *Link) Down(on bool) error {
	l.mu.Lock()
	if l.mu.closed {
		l.mu.Unlock()
		return ErrLinkClosed
	}
	if !on {
		defer l.mu.Unlock()
		if l.mu.ln != nil {
			return nil
		}
		ln, err := net.Listen("tcp", l.addr.String())
		if err != nil {
			return fmt.Errorf("lab: link listen again on %s: %w", l.addr, err)
		}
		l.startAcceptLocked(ln)
		return nil
	}
	end := l.stopAcceptLocked()
	l.mu.Unlock()
	// Wait for the accept loop so that no connection accepted just before
	// the listener closed escapes the cut below.
	<-end
	l.closeConns(false)
	return nil
}

// ErrLinkClosed is returned by Down after Close.
var ErrLinkClosed = errors.New("lab: link closed")

// Close stops listening, closes every connection and returns once all the
// link's goroutines have ended. It is idempotent.
func (l *Link) Close() error {
	l.closedOnce.Do(func() {
		l.mu.Lock()
		l.mu.closed = true
		l.stopAcceptLocked()
		l.mu.Unlock()
		l.closeConns(false)
	})
	// Handlers started after the closeConns above see closed and end at once.
	l.loops.Wait()
	return nil
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func (l *Link) startAcceptLocked(ln net.Listener) {
	end := make(chan struct{})
	l.mu.ln = ln
	l.mu.acceptEnd = end
	l.loops.Add(1)
	go l.acceptLoop(ln, end)
}

// stopAcceptLocked closes the listener, if any, and returns a channel
// closed when its accept loop has returned.
func (l *Link) stopAcceptLocked() <-chan struct{} {
	end := l.mu.acceptEnd
	if l.mu.ln != nil {
		l.mu.ln.Close()
		l.mu.ln = nil
	}
	if end == nil {
		return closedChan()
	}
	return end
}

func (l *Link) acceptLoop(ln net.Listener, end chan struct{}) {
	defer l.loops.Done()
	defer close(end)
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(linkAcceptBackoff) // transient (EMFILE, ECONNABORTED)
			continue
		}
		l.accepted.Add(1)
		lc := newLinkConn(c.(*net.TCPConn))
		l.mu.Lock()
		if l.mu.closed {
			l.mu.Unlock()
			c.Close()
			continue
		}
		l.mu.conns[lc] = struct{}{}
		l.loops.Add(1)
		l.mu.Unlock()
		go l.handle(lc)
	}
}

func (l *Link) closeConns(reset bool) int {
	l.mu.Lock()
	conns := make([]*linkConn, 0, len(l.mu.conns))
	for c := range l.mu.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		c.close(reset)
	}
	return len(conns)
}

// waitHealed waits until no black hole is on; false if done closed first.
func (l *Link) waitHealed(done <-chan struct{}) bool {
	l.mu.Lock()
	healed := l.mu.healed
	l.mu.Unlock()
	select {
	case <-done:
		return false
	default:
	}
	select {
	case <-healed:
		return true
	case <-done:
		return false
	}
}

func (l *Link) latency() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.latency
}

// handle connects one accepted client to the upstream and pipes both
// directions until both have ended or the connection is closed.
func (l *Link) handle(c *linkConn) {
	defer l.loops.Done()
	defer func() {
		c.close(false)
		l.mu.Lock()
		delete(l.mu.conns, c)
		l.mu.Unlock()
	}()
	// Under a black hole the client sees an accepted, silent connection;
	// the upstream sees nothing until the black hole lifts.
	if !l.waitHealed(c.done) {
		return
	}
	ctx, cancel := context.WithTimeout(c.ctx, linkDialTimeout)
	var d net.Dialer
	up, err := d.DialContext(ctx, "tcp", l.upstream)
	cancel()
	if err != nil {
		return
	}
	if !c.setUpstream(up.(*net.TCPConn)) {
		return // closed while dialling; setUpstream closed up
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); l.pipe(c, c.client, c.upstream, &l.upBytes) }()
	go func() { defer wg.Done(); l.pipe(c, c.upstream, c.client, &l.downBytes) }()
	wg.Wait()
}

type linkChunk struct {
	data []byte
	due  time.Time
}

// pipe copies src to dst through a queue that delays each chunk by the
// latency and holds it during a black hole. A reader goroutine fills the
// queue while pipe writes. On EOF from src it half-closes dst, so each
// direction ends on its own, as TCP's do; on any other error it aborts
// the whole connection.
func (l *Link) pipe(c *linkConn, src, dst *net.TCPConn, delivered *atomic.Int64) {
	queue := make(chan linkChunk, linkWindow/1024)
	space := make(chan struct{}, 1) // a writer freed window
	var queued atomic.Int64
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(queue)
		var due time.Time
		for {
			for queued.Load() >= linkWindow {
				select {
				case <-space:
				case <-c.done:
					return
				}
			}
			buf := make([]byte, linkReadSize)
			n, err := src.Read(buf)
			if n > 0 {
				// Keep order when the latency shrinks: never due before
				// the chunk ahead.
				if d := time.Now().Add(l.latency()); d.After(due) {
					due = d
				}
				queued.Add(int64(n))
				select {
				case queue <- linkChunk{data: buf[:n], due: due}:
				case <-c.done:
					return
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					c.close(true)
				}
				return
			}
		}
	}()
	defer func() { <-readerDone }()

	var timer *time.Timer
	for {
		var ch linkChunk
		var ok bool
		select {
		case ch, ok = <-queue:
		case <-c.done:
			return
		}
		if !ok {
			select {
			case <-c.done:
			default:
				dst.CloseWrite()
			}
			return
		}
		if wait := time.Until(ch.due); wait > 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
				defer timer.Stop()
			} else {
				timer.Reset(wait)
			}
			select {
			case <-timer.C:
			case <-c.done:
				return
			}
		}
		if !l.waitHealed(c.done) {
			return
		}
		if _, err := dst.Write(ch.data); err != nil {
			c.close(true)
			return
		}
		delivered.Add(int64(len(ch.data)))
		queued.Add(-int64(len(ch.data)))
		select {
		case space <- struct{}{}:
		default:
		}
	}
}

// linkConn is one proxied connection: the accepted client socket and, once
// dialled, the upstream socket. close is idempotent and safe from any
// goroutine.
type linkConn struct {
	client *net.TCPConn
	ctx    context.Context // cancelled by close; cancels the upstream dial
	cancel context.CancelFunc
	done   <-chan struct{} // ctx.Done()

	mu       sync.Mutex
	upstream *net.TCPConn
	closed   bool
}

func newLinkConn(client *net.TCPConn) *linkConn {
	ctx, cancel := context.WithCancel(context.Background())
	return &linkConn{client: client, ctx: ctx, cancel: cancel, done: ctx.Done()}
}

// setUpstream records up, or closes it and returns false if the
// connection was closed meanwhile.
func (c *linkConn) setUpstream(up *net.TCPConn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		up.Close()
		return false
	}
	c.upstream = up
	return true
}

// close closes both sockets; with reset, SO_LINGER 0 makes the kernel send
// RST instead of FIN.
func (c *linkConn) close(reset bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	for _, s := range []*net.TCPConn{c.client, c.upstream} {
		if s == nil {
			continue
		}
		if reset {
			s.SetLinger(0)
		}
		s.Close()
	}
	c.cancel()
}
