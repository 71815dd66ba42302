package wire

import (
	"bufio"
	"container/list"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/mysqlerr"
)

// Conn is the server's end of one client connection, under vitess,
// which runs the handshake and the command loop on it. It reads the byte
// stream as MySQL packets (3-byte length, sequence id), which lets it do
// what vitess does not:
//   - connect_timeout: the handshake must complete within it (one deadline
//     set at accept), and a handshake frame over maxHandshakeFrame is
//     refused with ER_HANDSHAKE_ERROR (1043);
//   - wait_timeout (interactive_timeout for interactive clients) while
//     waiting for a command, net_read_timeout while a packet, or data a
//     running command asked for, is arriving, net_write_timeout on every
//     write;
//   - max_allowed_packet before a packet is read: a larger one is answered
//     with ER_NET_PACKET_TOO_LARGE (1153) and the connection closed, as
//     MySQL does, without buffering it;
//   - large packets take memory from the server's packet budget before
//     they are read (packetmem.go);
//   - replication commands are parsed here (replconn.go).
//
// Only vitess's goroutine for the connection calls Read; Write may be
// called by a statement's goroutine too, Close by any goroutine.
type Conn struct {
	net.Conn
	gate *Gate
	br   *bufio.Reader
	// done is closed by Close: a wait for packet memory ends with it.
	done      chan struct{}
	closeOnce sync.Once
	// closed is set when the server closes the connection on purpose
	// (shutdown, a commit of unknown outcome, connect_timeout): vitess then
	// sees a clean end of stream instead of logging an error per
	// connection.
	closed atomic.Bool
	phase  atomic.Int32 // connPhase
	// aborted: counted in Aborted_clients (abortClient).
	aborted atomic.Bool

	// Per-connection limits, set at authentication from the global values
	// and by SET SESSION (sessionvars.go); nanoseconds and bytes.
	waitTimeout     atomic.Int64
	netReadTimeout  atomic.Int64
	netWriteTimeout atomic.Int64
	maxPacket       atomic.Int64
	// state is the connection's command state (sqlengine's), linked at
	// authentication: a command running means reads are data it asked for
	// (LOAD DATA LOCAL), under net_read_timeout.
	state atomic.Pointer[commandsBox]
	// wrSetAt is when the write deadline was last set (unix ns; 0: not
	// under net_write_timeout yet).
	wrSetAt atomic.Int64

	// greeted is set once the greeting went out, greetHdr once its
	// header did (writes come from the connection's one goroutine until
	// then).
	greeted, greetHdr bool
	// authSwitched is set once vitess sent an AuthSwitchRequest during the
	// handshake (authHdr: the header of a handshake packet went out
	// alone, its payload is next).
	authSwitched, authHdr bool

	// Reader state, used by vitess's goroutine only.
	pending   []byte // bytes for vitess not yet read
	frameLeft int    // payload bytes of the current frame still to pass through
	seq       byte   // sequence id of the last frame read
	cont      bool   // the last frame was full-size: the packet continues
	packetLen int64  // bytes of the current packet so far
	buf       []byte // reused for small frames
	rdKind    deadlineKind
	rdDur     time.Duration // the timeout rdKind had when set
	rdSetAt   time.Time
	// clientFlags are the capability flags of the handshake response.
	clientFlags uint32
	// respChecked: the handshake response was checked (handshake.go).
	respChecked bool
	// checkPrepare checks COM_STMT_PREPARE's text (stmtguard.go); set
	// before the command loop starts.
	checkPrepare func(*mysql.Conn, string) *mysql.SQLError
	// info fixes the next OK packet with info text (okinfo.go); written
	// by the statement's goroutine, which is then the only writer.
	info infoState

	// TLS (tlsconn.go). tlsCfg is the server's configuration (nil: TLS
	// off); tc is the TLS layer once the client asked for it, between the
	// socket and the framing here: vitess sees plaintext packets. seqShift
	// is how far the real sequence ids are ahead of vitess's during the
	// handshake (the SSLRequest and packets written here are hidden from
	// it); wrLeft is the payload still to pass of the packet being
	// written while shifting.
	tlsCfg   *tls.Config
	tc       atomic.Pointer[tls.Conn]
	seqShift atomic.Int32
	wrLeft   int

	// held is the packet memory reserved for the current command
	// (packetmem.go); heldMu because Close releases it from any goroutine.
	heldMu sync.Mutex
	held   int64

	// Accounting (connlimit.go), under gate.mu.
	handshake *list.Element // in gate.handshakes while authenticating
	account   string        // counted against max_connections once admitted
	admitted  bool

	// gather collects written bytes while a scan streams (gather.go);
	// nil otherwise.
	gather *[]byte
	// gatherSent: some gathered bytes were written since startGather.
	gatherSent bool
	// prepGather: the connection gathers a COM_STMT_PREPARE's response,
	// which vitess writes packet by packet (one column definition per
	// parameter and per result column, each a socket write), or another
	// reply vitess writes unbuffered (gathersReply); Read sends it in one
	// write when vitess asks for the next command.
	prepGather bool

	// comp is protocol compression (compressconn.go), nil when the client
	// did not ask for it; set by the handshake response, used by
	// vitess's goroutine and by writers once on.
	comp        *compState
	compChecked bool
	// attrs are the connection attributes of the handshake response
	// (connattrs.go), set before vitess reads it.
	attrs []Attr

	mu       sync.Mutex
	register *RegisterRequest
	dump     *dumpCommand
	bad      error // the last replication command was malformed
}

type connPhase int32

const (
	phaseHandshake connPhase = iota // until authentication succeeds
	phaseCommand                    // the command loop
	phaseDetached                   // a replication dump owns the socket
)

// deadlineKind is which timeout the read deadline currently enforces.
type deadlineKind uint8

const (
	dlNone deadlineKind = iota
	dlIdle
	dlPacket
)

const (
	// maxHandshakeFrame bounds what a client may send before it is
	// authenticated: a handshake response is user, auth data, database and
	// connection attributes (libmysqlclient caps those at 64 KiB).
	maxHandshakeFrame = 64<<10 + 4<<10
	// smallFrame: frames up to this size are read whole (replication
	// commands are parsed, nothing is reserved); larger ones pass through
	// to vitess under the packet budget.
	smallFrame = 64 << 10
	// keptBuffer is the largest frame buffer a connection keeps between
	// commands.
	keptBuffer = 16 << 10
	// ClientInteractive is CLIENT_INTERACTIVE: wait_timeout starts as
	// interactive_timeout.
	ClientInteractive = 1 << 10
	// maxTimeout caps timeouts (MySQL's maximum for them is one year).
	maxTimeout = 31536000 * time.Second
)

// errClosedByServer ends a connection the server refused (bad handshake,
// oversized packet) after its ERR packet was sent.
var errClosedByServer = errors.New("sqlengine: connection closed by the server")

func newConn(c net.Conn, g *Gate) *Conn {
	cc := &Conn{Conn: c, gate: g, br: bufio.NewReaderSize(c, 16<<10), done: make(chan struct{})}
	// MySQL's defaults until authentication sets the server's values.
	cc.waitTimeout.Store(int64(28800 * time.Second))
	cc.netReadTimeout.Store(int64(30 * time.Second))
	cc.netWriteTimeout.Store(int64(60 * time.Second))
	cc.maxPacket.Store(64 << 20)
	return cc
}

// Close closes the connection; reads then end with io.EOF and writes
// are dropped. Its max_connections slot and packet memory are released.
// NetConn returns the connection under the wrapper (internal/tcptune sets
// a replication socket's options on it).
func (c *Conn) NetConn() net.Conn { return c.Conn }

func (c *Conn) Close() error {
	c.closed.Store(true)
	err := c.Conn.Close()
	c.closeOnce.Do(func() {
		close(c.done)
		if c.gate != nil {
			c.gate.closed(c)
		}
		c.releaseHeld()
	})
	return err
}

// Write passes p on under net_write_timeout (the connect deadline while
// authenticating); after Close it drops p (the reply of a statement whose
// connection the server closed is not sent, by design). The first
// write is the server's greeting, whose character set byte is set to the
// server's default collation (greetingCharset).
func (c *Conn) Write(p []byte) (int, error) {
	if connPhase(c.phase.Load()) == phaseCommand {
		c.refreshWriteDeadline()
	} else if c.greeted {
		c.noteAuthSwitch(p)
	}
	switch {
	case c.greeted:
	case len(p) == 4 && p[3] == 0:
		// vitess may write the packet header alone, then the payload.
		c.greetHdr = true
	default:
		c.greeted = true
		if c.greetHdr {
			c.editGreeting(p)
		} else if len(p) > 4 && p[3] == 0 {
			c.editGreeting(p[4:])
		}
	}
	if c.info.armed.Load() {
		p = c.fixInfoOK(p)
	}
	if sh := c.seqShift.Load(); sh != 0 {
		c.renumber(p, byte(sh))
	}
	if c.gather != nil {
		*c.gather = append(*c.gather, p...)
		if len(*c.gather) >= GatherMax {
			if err := c.FlushGather(); err != nil {
				return 0, err
			}
		}
		return len(p), nil
	}
	return c.emit(p)
}

// emit writes p to the client (the compressed layer, or TLS, or the
// socket).
func (c *Conn) emit(p []byte) (int, error) {
	var n int
	var err error
	if c.comp != nil && c.comp.armed {
		n, err = c.writeArmed(p)
	} else {
		n, err = c.out().Write(p)
	}
	if err != nil && c.closed.Load() {
		return len(p), nil
	}
	if err != nil && isTimeout(err) {
		// net_write_timeout: vitess ends the connection.
		c.abortClient()
	}
	return n, err
}

// abortClient counts the connection in Aborted_clients, once: the server
// ends it because of a timeout or an oversized packet.
func (c *Conn) abortClient() {
	if c.gate != nil && c.aborted.CompareAndSwap(false, true) {
		sql.StatusVariables.IncrementGlobal("Aborted_clients", 1)
	}
}

// refreshWriteDeadline keeps the write deadline net_write_timeout ahead,
// resetting it at most every slack(timeout): a deadline costs a timer
// update, and a reply is often many writes.
func (c *Conn) refreshWriteDeadline() {
	d := time.Duration(c.netWriteTimeout.Load())
	now := time.Now()
	if now.UnixNano()-c.wrSetAt.Load() < int64(slack(d)) {
		return
	}
	c.wrSetAt.Store(now.UnixNano())
	_ = c.Conn.SetWriteDeadline(now.Add(d))
}

// slack is how stale a deadline may get before it is set again: the
// timeout is enforced to within it.
func slack(d time.Duration) time.Duration {
	return min(time.Second, d/10)
}

// Read hands vitess the byte stream, frame by frame.
func (c *Conn) Read(p []byte) (int, error) {
	if c.prepGather && len(c.pending) == 0 {
		// vitess wrote the whole response and reads on.
		c.prepGather = false
		if err := c.EndGather(); err != nil {
			return 0, err
		}
	}
	for len(c.pending) == 0 && c.frameLeft == 0 {
		if err := c.nextFrame(); err != nil {
			return 0, c.readErr(err)
		}
	}
	if len(c.pending) > 0 {
		k := copy(p, c.pending)
		c.pending = c.pending[k:]
		return k, nil
	}
	if len(p) > c.frameLeft {
		p = p[:c.frameLeft]
	}
	if c.br.Buffered() == 0 {
		c.setReadDeadline(dlPacket)
	}
	n, err := c.br.Read(p)
	c.frameLeft -= n
	if err != nil {
		return n, c.readErr(err)
	}
	return n, nil
}

func (c *Conn) readErr(err error) error {
	if c.closed.Load() || errors.Is(err, errClosedByServer) {
		return io.EOF
	}
	if isTimeout(err) {
		return c.timedOut(err)
	}
	if errors.Is(err, io.EOF) && c.frameLeft > 0 {
		return io.ErrUnexpectedEOF
	}
	return err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// timedOut handles a read that hit its deadline and returns what vitess
// sees. connect_timeout: counted and logged here (rate-limited), a clean
// end of stream for vitess; wait_timeout: answered as MySQL 8 does (error
// 4031, then the connection closes); net_read_timeout: the error itself
// (vitess logs the connection it ends).
func (c *Conn) timedOut(err error) error {
	switch {
	case connPhase(c.phase.Load()) == phaseHandshake:
		if c.gate != nil {
			c.gate.handshakeTimedOut(c)
		}
		return io.EOF
	case c.rdKind == dlIdle && !c.cont && c.frameLeft == 0:
		c.writeErr(0, mysqlerr.New(mysqlerr.ErClientInteractionTimeout,
			"The client was disconnected by the server because of inactivity. See wait_timeout and interactive_timeout for configuring this behavior."))
		c.abortClient()
		return io.EOF
	}
	c.abortClient()
	return fmt.Errorf("sqlengine: net_read_timeout (%v) passed inside a packet from %s: %w",
		time.Duration(c.netReadTimeout.Load()), c.RemoteAddr(), err)
}

// setReadDeadline puts the read deadline kind's timeout ahead of now,
// unless it already is (within slack). During the handshake the connect
// deadline, set at accept, stands.
func (c *Conn) setReadDeadline(kind deadlineKind) {
	if connPhase(c.phase.Load()) != phaseCommand {
		return
	}
	var d time.Duration
	if kind == dlIdle {
		d = time.Duration(c.waitTimeout.Load())
	} else {
		d = time.Duration(c.netReadTimeout.Load())
	}
	now := time.Now()
	if kind == c.rdKind && d == c.rdDur && now.Sub(c.rdSetAt) < slack(d) {
		return
	}
	c.rdKind, c.rdDur, c.rdSetAt = kind, d, now
	_ = c.Conn.SetReadDeadline(now.Add(d))
}

// headerKind is the timeout that applies while waiting for the next frame
// header: between commands wait_timeout; inside a packet, or while a
// command runs (data it asked for), net_read_timeout.
func (c *Conn) headerKind() deadlineKind {
	if c.cont {
		return dlPacket
	}
	if st := c.state.Load(); st != nil && st.Running() {
		return dlPacket
	}
	return dlIdle
}

// nextFrame reads the next frame header and decides how its payload
// reaches vitess: read here (small frames, the handshake), passed
// through (large frames, under the packet budget), or not at all
// (refused).
func (c *Conn) nextFrame() error {
	kind := c.headerKind()
	if kind == dlIdle {
		// vitess reads the next command only once the previous one has
		// finished: its packet memory is free.
		c.releaseHeld()
	}
	if c.br.Buffered() < 4 {
		c.setReadDeadline(kind)
	}
	var hdr [4]byte
	if _, err := io.ReadFull(c.br, hdr[:]); err != nil {
		return err
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	c.seq = hdr[3]
	if sh := c.seqShift.Load(); sh != 0 {
		if connPhase(c.phase.Load()) != phaseHandshake {
			// The first command: sequence ids start again at 0.
			c.seqShift.Store(0)
		} else {
			hdr[3] -= byte(sh)
		}
	}
	switch {
	case connPhase(c.phase.Load()) == phaseHandshake:
		return c.handshakeFrame(hdr, n)
	case c.cont:
		return c.continuation(hdr, n)
	default:
		return c.commandFrame(hdr, n)
	}
}

// handshakeFrame reads a frame of the handshake (bounded).
func (c *Conn) handshakeFrame(hdr [4]byte, n int) error {
	if n > maxHandshakeFrame {
		// vitess sees the end of stream, not an aborted connection: the
		// count is taken here.
		sql.StatusVariables.IncrementGlobal("Aborted_connects", 1)
		c.RefuseHandshake(fmt.Sprintf("a %d-byte handshake packet", n))
		return errClosedByServer
	}
	b, err := c.readSmall(hdr, n)
	if err != nil {
		return err
	}
	if !c.respChecked {
		// The first frame is the handshake response (handshake.go).
		c.respChecked = true
		if !validHandshakeResponse(b[4:]) {
			sql.StatusVariables.IncrementGlobal("Aborted_connects", 1)
			c.RefuseHandshake("a malformed handshake response")
			return errClosedByServer
		}
	}
	if c.clientFlags == 0 && n >= 4 {
		c.clientFlags = binary.LittleEndian.Uint32(b[4:])
	}
	if !c.compChecked && n > sslRequestLen {
		// The handshake response (after the SSLRequest, under TLS).
		c.compChecked = true
		c.negotiateCompression(b[4:])
		c.attrs = parseConnAttrs(b[4:])
	}
	if c.tc.Load() == nil && c.seq == 1 && n >= 4 {
		if binary.LittleEndian.Uint32(b[4:])&clientSSL != 0 && n == sslRequestLen {
			// SSLRequest: the rest of the conversation is TLS.
			return c.startTLS()
		}
		if c.gate.settings.Bool("require_secure_transport") {
			sql.StatusVariables.IncrementGlobal("Aborted_connects", 1)
			c.writeErr(c.seq+1, mysqlerr.New(mysqlerr.ErSecureTransportRequired, "Connections using insecure transport are prohibited while --require_secure_transport=ON."))
			c.Close()
			return errClosedByServer
		}
	}
	c.pending = b
	return nil
}

// readSmall reads a frame's payload whole and returns header and payload
// in one buffer, reused for frames up to keptBuffer.
func (c *Conn) readSmall(hdr [4]byte, n int) ([]byte, error) {
	var b []byte
	if n+4 <= keptBuffer {
		if cap(c.buf) < n+4 {
			c.buf = make([]byte, keptBuffer)
		}
		b = c.buf[:n+4]
	} else {
		b = make([]byte, n+4)
	}
	copy(b, hdr[:])
	if c.br.Buffered() < n {
		c.setReadDeadline(dlPacket)
	}
	if _, err := io.ReadFull(c.br, b[4:]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}

// commandFrame starts a packet: a command (sequence 0), or data a running
// command asked for.
func (c *Conn) commandFrame(hdr [4]byte, n int) error {
	c.packetLen = int64(n)
	c.cont = n == maxFrame
	if int64(n) > c.maxPacket.Load() {
		return c.tooLarge()
	}
	command := hdr[3] == 0
	if n <= smallFrame {
		b, err := c.readSmall(hdr, n)
		if err != nil {
			return err
		}
		if command && n > 0 && !c.cont && b[4] == comChangeUser {
			return c.changeUser(b[4:]) // changeuser.go
		}
		if command && n > 0 && !c.cont {
			if p := c.inspect(b[4:]); len(p) != n || &p[0] != &b[4] {
				// A replication command, replaced for vitess.
				b = append([]byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), hdr[3]}, p...)
			} else if g := c.guard(p); g.reply != nil || g.drop {
				// Answered (or dropped) here; vitess reads the next.
				if g.reply != nil {
					c.writeErr(1, g.reply)
				}
				return nil
			} else if g.replace != nil {
				b = append([]byte{byte(len(g.replace)), byte(len(g.replace) >> 8), byte(len(g.replace) >> 16), hdr[3]}, g.replace...)
			}
		}
		c.pending = b
		if command && n > 0 && !c.cont && gathersReply(b[4]) && c.gather == nil {
			c.StartGather()
			c.prepGather = c.gather != nil
		}
		return nil
	}
	if !command {
		// Data a command asked for (LOAD DATA LOCAL): the command bounds
		// what it keeps.
		c.passThrough(hdr, n)
		return nil
	}
	if c.br.Buffered() == 0 {
		c.setReadDeadline(dlPacket)
	}
	first, err := c.br.Peek(1)
	if err != nil {
		return err
	}
	if cmd := first[0]; cmd == comRegisterSlave || cmd == comBinlogDump || cmd == comBinlogDumpGTID {
		// Never this large; refused by the handler, never parsed.
		if err := c.discardPacket(n); err != nil {
			return err
		}
		p := c.inspect([]byte{cmd})
		c.mu.Lock()
		c.bad = fmt.Errorf("a %d-byte replication command packet", c.packetLen)
		c.mu.Unlock()
		c.pending = append([]byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), 0}, p...)
		return nil
	}
	if first[0] == comStmtExecute && c.manyParams() {
		return c.bigExecute(hdr, n)
	}
	if ok, err := c.reservePacket(n); !ok {
		return err
	}
	c.passThrough(hdr, n)
	return nil
}

// gathersReply reports whether the reply to command cmd is gathered
// until vitess reads the next command (prepGather): vitess writes it
// unbuffered, each packet's 4-byte header and its payload in two socket
// writes (a COM_PING's OK: the client wakes for 4 bytes, then for 7;
// go-tpc pings before each transaction), and a COM_STMT_PREPARE's
// response a packet per column besides. None of these commands reads
// from the client while it answers, so its reply is whole when vitess
// reads on.
func gathersReply(cmd byte) bool {
	switch cmd {
	case mysql.ComPrepare, mysql.ComPing, mysql.ComInitDB, mysql.ComStmtReset, mysql.ComSetOption, mysql.ComResetConnection:
		return true
	}
	return false
}

// continuation passes on the next frame of a packet.
func (c *Conn) continuation(hdr [4]byte, n int) error {
	c.packetLen += int64(n)
	c.cont = n == maxFrame
	if c.packetLen > c.maxPacket.Load() {
		return c.tooLarge()
	}
	if !c.cont {
		c.trimHeld(c.packetLen)
	}
	c.passThrough(hdr, n)
	return nil
}

func (c *Conn) passThrough(hdr [4]byte, n int) {
	if cap(c.buf) < 4 {
		c.buf = make([]byte, keptBuffer)
	}
	c.pending = append(c.buf[:0], hdr[:]...)
	c.frameLeft = n
}

// discardPacket reads and drops the rest of a refused packet whose frame
// of n bytes has just begun, under net_read_timeout.
func (c *Conn) discardPacket(n int) error {
	for {
		if c.br.Buffered() < n {
			c.setReadDeadline(dlPacket)
		}
		if _, err := c.br.Discard(n); err != nil {
			return err
		}
		if !c.cont {
			return nil
		}
		var hdr [4]byte
		if c.br.Buffered() < 4 {
			c.setReadDeadline(dlPacket)
		}
		if _, err := io.ReadFull(c.br, hdr[:]); err != nil {
			return err
		}
		n = int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
		c.seq = hdr[3]
		c.packetLen += int64(n)
		c.cont = n == maxFrame
		if c.packetLen > c.maxPacket.Load() {
			return c.tooLarge()
		}
	}
}

// tooLarge answers a packet over max_allowed_packet as MySQL does:
// ER_NET_PACKET_TOO_LARGE, then the connection is closed (the rest of the
// packet is never read).
func (c *Conn) tooLarge() error {
	c.writeErr(c.seq+1, mysqlerr.New(mysqlerr.ErNetPacketTooLarge,
		"Got a packet bigger than 'max_allowed_packet' bytes"))
	c.abortClient()
	c.Close()
	return errClosedByServer
}

// refuseHandshake answers a malformed or oversized handshake with
// ER_HANDSHAKE_ERROR and closes the connection. (Aborted_connects is
// counted by the caller: GMS counts the handshakes vitess aborts.)
func (c *Conn) RefuseHandshake(why string) {
	c.writeErr(c.seq+1, mysqlerr.New(mysqlerr.ErHandshake, "Bad handshake"))
	if c.gate != nil {
		c.gate.badHandshakes.note(c.RemoteAddr().String() + ": " + why)
	}
	c.Close()
}

// writeErr sends an ERR packet with sequence id seq on the socket (best
// effort: the connection is usually about to close).
func (c *Conn) writeErr(seq byte, e *mysql.SQLError) {
	msg := e.Message
	state := e.SQLState()
	if len(state) != 5 {
		state = mysqlerr.State(mysqlerr.ErUnknown)
	}
	n := 1 + 2 + 1 + 5 + len(msg)
	b := make([]byte, 0, 4+n)
	b = append(b, byte(n), byte(n>>8), byte(n>>16), seq, mysql.ErrPacket)
	b = binary.LittleEndian.AppendUint16(b, uint16(e.Number()))
	b = append(b, '#')
	b = append(b, state...)
	b = append(b, msg...)
	d := time.Duration(c.netWriteTimeout.Load())
	if d <= 0 {
		d = 10 * time.Second
	}
	_ = c.Conn.SetWriteDeadline(time.Now().Add(d))
	c.wrSetAt.Store(0)
	_, _ = c.out().Write(b)
}

// detach hands the socket to a replication dump, which reads and writes
// it directly with deadlines of its own; bytes already buffered here are
// read first.
func (c *Conn) Detach() net.Conn {
	c.phase.Store(int32(phaseDetached))
	_ = c.Conn.SetDeadline(time.Time{})
	if c.comp != nil && c.comp.w != nil {
		c.comp.r.Unfollow()
		return &compNetConn{Conn: c.wire(), r: c.br, w: c.comp.w}
	}
	if c.br.Buffered() > 0 {
		return &bufferedConn{Conn: c.wire(), r: c.br}
	}
	return c.wire()
}

type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// NetConn is the connection under the buffer (internal/tcptune finds the
// socket through it).
func (b *bufferedConn) NetConn() net.Conn { return b.Conn }

// startCommands ends the handshake: the connection is under the command
// loop's timeouts from now on.
func (c *Conn) startCommands(cs Commands) {
	if cs != nil {
		c.state.Store(&commandsBox{cs})
	}
	wait := "wait_timeout"
	if c.clientFlags&ClientInteractive != 0 {
		wait = "interactive_timeout"
	}
	st := c.gate.settings
	c.waitTimeout.Store(int64(Seconds(st.Int(wait, 28800))))
	c.netReadTimeout.Store(int64(Seconds(st.Int("net_read_timeout", 30))))
	c.netWriteTimeout.Store(int64(Seconds(st.Int("net_write_timeout", 60))))
	c.maxPacket.Store(st.Int("max_allowed_packet", 64<<20))
	c.rdKind = dlNone
	c.wrSetAt.Store(0)
	c.armCompression()
	c.phase.Store(int32(phaseCommand))
}

// Seconds is a timeout variable's value as a duration (at least 1 s, at
// most a year).
func Seconds(n int64) time.Duration {
	if n < 1 {
		n = 1
	}
	return min(time.Duration(n)*time.Second, maxTimeout)
}

// reservePacket takes packet memory for a packet of n bytes (this frame).
// A packet of one full-size frame continues; its size is unknown until it
// ends, so it reserves max_allowed_packet until then (a reservation taken
// frame by frame could deadlock with others). When the budget refuses it,
// the packet is discarded and the client answered with the error: ok is
// false and err nil, or err says why the connection must end.
func (c *Conn) reservePacket(n int) (ok bool, err error) {
	want := int64(n)
	if c.cont {
		want = max(want, c.maxPacket.Load())
	}
	if err := c.reserve(want); err != nil {
		var se *mysql.SQLError
		if !errors.As(err, &se) {
			return false, err
		}
		if derr := c.discardPacket(n); derr != nil {
			return false, derr
		}
		c.writeErr(c.seq+1, se)
		return false, nil
	}
	return true, nil
}

// Interactive reports a client that asked for interactive_timeout
// (CLIENT_INTERACTIVE).
func (c *Conn) Interactive() bool { return c.clientFlags&ClientInteractive != 0 }

// SetLimits sets the connection's wait, read and write timeouts and
// max_allowed_packet (a session's SET); the next write sets its deadline
// from the new write timeout.
func (c *Conn) SetLimits(wait, netRead, netWrite time.Duration, maxPacket int64) {
	c.waitTimeout.Store(int64(wait))
	c.netReadTimeout.Store(int64(netRead))
	c.netWriteTimeout.Store(int64(netWrite))
	c.maxPacket.Store(maxPacket)
	c.wrSetAt.Store(0)
}

// SetCheckPrepare sets the check of COM_STMT_PREPARE's text (stmtguard.go),
// sqlengine's parser: a statement it refuses is answered before vitess
// prepares it.
func (c *Conn) SetCheckPrepare(fn func(*mysql.Conn, string) *mysql.SQLError) { c.checkPrepare = fn }

// AuthSwitched reports that vitess sent an AuthSwitchRequest during the
// handshake.
func (c *Conn) AuthSwitched() bool { return c.authSwitched }

// GatherBuf is the gathered bytes while gathering, nil otherwise.
func (c *Conn) GatherBuf() *[]byte { return c.gather }

// Attrs are the connection attributes the client sent (connattrs.go).
func (c *Conn) Attrs() []Attr { return c.attrs }
