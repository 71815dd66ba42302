package proxy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"petrel/internal/base"
	"petrel/internal/mysqlerr"
)

// session is one client connection's command loop. Owned by its
// goroutine.
type session struct {
	srv  *Server
	cl   *packetConn
	cred credential
	id   uint32
	caps uint32
	db   string
	rs   Session
	// dedicated is the session's own primary connection while it is in a
	// transaction or pinned.
	dedicated *backendConn
	stmts     map[uint32]*pstmt
	nextStmt  uint32
	// lastInsertID is the last nonzero insert id a backend's OK packet
	// gave this session (SELECT LAST_INSERT_ID() is answered from it).
	lastInsertID uint64
	// frames counts response frames relayed to the client (a failed
	// backend's read is retried only when none of its answer went out).
	frames int
	// held is the pooled connection the session keeps between
	// statements (see hold), nil when none.
	held *backendConn
	// execBuf is reused for the backend's COM_STMT_EXECUTE.
	execBuf []byte
}

// errClientGone ends a session whose client connection failed.
var errClientGone = errors.New("proxy: client connection lost")

func (s *session) serve() {
	for {
		s.cl.ensureDeadline(s.srv.opts.ClientIdleTimeout)
		pkt, err := s.cl.readCommand(s.srv.opts.MaxAllowedPacket)
		if errors.Is(err, errPacketTooLarge) {
			_ = s.sendErr(mysqlerr.ErNetPacketTooLarge, "Got a packet bigger than 'max_allowed_packet' bytes")
			return
		}
		if err != nil {
			return
		}
		if len(pkt) == 0 {
			_ = s.sendErr(mysqlerr.ErMalformedPacket, "Malformed communication packet.")
			return
		}
		if err := s.command(pkt); err != nil {
			return
		}
	}
}

// end returns or closes the session's connections.
func (s *session) end() {
	s.srv.mu.Lock()
	s.srv.router.Leave(&s.rs)
	s.srv.mu.Unlock()
	s.dropHeld()
	if s.dedicated != nil {
		// Its state (a transaction, variables, locks) is the session's:
		// closing it rolls back and releases, as a client disconnect does.
		s.dedicated.broken = true
		s.srv.pool.put(s.dedicated)
		s.dedicated = nil
	}
}

func (s *session) command(pkt []byte) error {
	switch pkt[0] {
	case comQuit:
		return io.EOF
	case comPing:
		return s.send(okPacket(0, 0, s.status()))
	case comQuery:
		return s.comQuery(pkt)
	case comInitDB:
		return s.use(string(pkt[1:]), pkt)
	case comStmtPrepare:
		return s.prepare(pkt)
	case comStmtExecute:
		return s.execute(pkt)
	case comStmtSendLongData:
		if len(pkt) >= 7 {
			if ps := s.stmts[binary.LittleEndian.Uint32(pkt[1:])]; ps != nil {
				ps.long = append(ps.long, append([]byte(nil), pkt[5:]...))
			}
		}
		return nil // no response
	case comStmtClose:
		if len(pkt) >= 5 {
			delete(s.stmts, binary.LittleEndian.Uint32(pkt[1:]))
		}
		return nil // no response
	case comStmtReset:
		if len(pkt) < 5 || s.stmts[binary.LittleEndian.Uint32(pkt[1:])] == nil {
			return s.sendErr(mysqlerr.ErUnknownStmtHandler, "Unknown prepared statement handler given to mysqld_stmt_reset")
		}
		s.stmts[binary.LittleEndian.Uint32(pkt[1:])].long = nil
		return s.send(okPacket(0, 0, s.status()))
	case comFieldList, comStatistics:
		return s.forward(Statement{Kind: KindOther, Why: "command"}, pkt)
	case comResetConnection:
		s.end()
		s.rs = Session{Mode: s.srv.opts.DefaultMode}
		s.stmts = map[uint32]*pstmt{}
		return s.send(okPacket(0, 0, statusAutocommit))
	case comSetOption:
		return s.send(eofPacket(s.status()))
	}
	return s.sendErr(mysqlerr.ErUnknownCom, "Unknown command")
}

func (s *session) status() uint16 {
	st := uint16(statusAutocommit)
	if s.rs.InTxn {
		st |= statusInTrans
	}
	return st
}

// send writes one response packet (sequence after the client's).
func (s *session) send(p []byte) error {
	if s.cl.writePacket(p) != nil || s.cl.flush() != nil {
		return errClientGone
	}
	return nil
}

func (s *session) sendErr(code int, msg string) error {
	return s.send(errPacket(uint16(code), mysqlerr.State(code), msg))
}

func (s *session) comQuery(pkt []byte) error {
	st := s.srv.classes.classify(string(pkt[1:]))
	if st.Multi && s.caps&capMultiStatements == 0 {
		// The backends' connections allow several statements; this
		// client did not ask for them.
		return s.sendErr(mysqlerr.ErParse, "You have an error in your SQL syntax: several statements in one query (CLIENT_MULTI_STATEMENTS is off)")
	}
	switch st.Kind {
	case KindProxySet:
		if st.Err != nil {
			return s.sendErr(mysqlerr.ErWrongValueForVar, st.Err.Error())
		}
		s.rs.Mode = st.Mode
		return s.send(okPacket(0, 0, s.status()))
	case KindUse:
		return s.use(st.DB, pkt)
	case KindLastInsertID:
		if !s.rs.Dedicated() {
			v := strconv.FormatUint(s.lastInsertID, 10)
			return s.sendResult([]column{{name: st.Column, typ: typeLongLong, flags: flagNotNull | flagUnsigned | flagBinary, charset: 63, length: 20}}, [][]*string{{&v}})
		}
		// On the session's own connection the backend knows it.
		st.Kind = KindRead
	}
	return s.forward(st, pkt)
}

// use runs USE (or COM_INIT_DB) on the primary and makes db the
// session's database once it succeeded.
func (s *session) use(db string, pkt []byte) error {
	ok, err := s.run(Statement{Kind: KindOther, Why: "use"}, func(c *backendConn) (bool, error) {
		ok, err := s.relay(c, nil, pkt)
		if ok {
			c.db = db
		}
		return ok, err
	})
	if ok {
		s.db = db
	}
	return err
}

// forward sends a client command to the backend its statement is routed
// to and relays the response.
func (s *session) forward(st Statement, pkt []byte) error {
	_, err := s.run(st, func(c *backendConn) (bool, error) { return s.relay(c, nil, pkt) })
	return err
}

// run routes st, takes a backend connection, waits for the session's
// writes on a replica when read-your-writes asks, and calls do with it.
// do reports whether the backend answered without an error. A session
// error (the client is gone) is returned; backend failures become error
// packets.
func (s *session) run(st Statement, do func(c *backendConn) (bool, error)) (bool, error) {
	s.srv.mu.Lock()
	d := s.srv.router.Route(&s.rs, st.Kind, st.Hint)
	s.srv.mu.Unlock()
	wasPinned := s.rs.Pinned
	if d.Pin {
		s.rs.Pinned = true
	}
	for attempt := 0; ; attempt++ {
		if d.NeedFloor {
			floor, err := s.primaryExecuted()
			if err != nil {
				d = Decision{Backend: Primary, Reason: "the primary's gtid_executed is unknown"}
			} else {
				if d.WaitFor != nil {
					floor.AddSet(d.WaitFor)
				}
				d.WaitFor, d.NeedFloor = floor, false
			}
		}
		c, err := s.acquire(d)
		if err != nil {
			if d.Backend != Primary && attempt == 0 {
				// A replica we cannot reach: the read goes to the primary.
				d = Decision{Backend: Primary, Reason: "replica unreachable"}
				continue
			}
			return false, s.backendFailed(err, false)
		}
		if d.WaitFor != nil {
			applied, werr := c.waitGTIDs(d.WaitFor.String(), d.WaitTimeout)
			if werr == nil && applied {
				s.srv.mu.Lock()
				s.srv.router.Applied(d.Backend, d.WaitFor)
				s.srv.mu.Unlock()
			} else {
				s.release(c)
				d = Decision{Backend: Primary, Reason: "wait for the session's writes timed out"}
				continue
			}
		}
		ctr := &s.srv.pool.stats[c.backend]
		ctr.queries.Add(1)
		ctr.inFlight.Add(1)
		sent := s.frames
		ok, err := do(c)
		ctr.inFlight.Add(-1)
		if err != nil {
			var bio errBackendIO
			if errors.As(err, &bio) {
				ctr.errors.Add(1)
				nothingSent := sent == s.frames
				dedicated := c == s.dedicated
				s.release(c)
				if !dedicated && nothingSent && st.Kind == KindRead && attempt == 0 {
					// An autocommit read whose backend failed before any
					// of its answer reached the client is safe to retry.
					d = Decision{Backend: Primary, Reason: "retry after a backend failure"}
					continue
				}
				return false, s.backendFailed(err, dedicated || !nothingSent)
			}
			var me *mysqlError
			if errors.As(err, &me) && sent == s.frames {
				// The backend refused a step before the statement (its
				// database, a statement it could not prepare): the
				// client gets its error; the connection is sound.
				s.release(c)
				return false, s.backendFailed(err, false)
			}
			c.broken = true
			s.release(c)
			return false, err
		}
		if ok && d.TrackWrite && !s.rs.InTxn && c.backend == Primary {
			s.trackWrite(c)
		}
		if ok && st.Kind == KindRead && s.rs.Moved(c.backend) {
			s.srv.mu.Lock()
			s.srv.router.ReadOn(&s.rs, c.backend)
			s.srv.mu.Unlock()
		}
		if !ok && d.Pin && !wasPinned && !st.Multi {
			// The backend refused the statement, so it changed nothing
			// (a syntax error among them): no reason to pin.
			s.rs.Pinned = false
		}
		s.release(c)
		return ok, nil
	}
}

// primaryExecuted reads the primary's gtid_executed on a pooled
// connection: the upper bound of what any replica read can have shown.
func (s *session) primaryExecuted() (*base.GTIDSet, error) {
	c, err := s.srv.pool.get(s.srv.ctx, Primary, s.cred, s.srv.opts.PoolWait)
	if err != nil {
		return nil, err
	}
	defer s.srv.pool.put(c)
	rows, _, err := c.query("SELECT @@GLOBAL.gtid_executed", s.srv.opts.ConnectTimeout)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 || len(rows[0]) != 1 || rows[0][0] == nil {
		return nil, errors.New("proxy: no gtid_executed from the primary")
	}
	return base.ParseGTIDSet(*rows[0][0])
}

// trackWrite reads the primary's gtid_executed after a session's write:
// a superset of the write's GTID, which its next reads must see.
func (s *session) trackWrite(c *backendConn) {
	rows, _, err := c.query("SELECT @@GLOBAL.gtid_executed", s.srv.opts.QueryTimeout)
	if err != nil || len(rows) != 1 || len(rows[0]) != 1 || rows[0][0] == nil {
		// Unknown: the next reads go to the primary.
		s.rs.Mode = ModePrimary
		return
	}
	if set, err := base.ParseGTIDSet(*rows[0][0]); err == nil {
		s.rs.Wrote(set)
	}
}

// backendFailed answers a failed backend: an error packet, and the end
// of the session when its state was on that connection or an answer was
// cut half-way.
func (s *session) backendFailed(err error, fatal bool) error {
	s.srv.opts.Logger.Debug("proxy: backend failure", "session", s.id, "err", err)
	var me *mysqlError
	if errors.As(err, &me) {
		if e := s.send(errPacket(me.Code, me.State, me.Message)); e != nil {
			return e
		}
	} else if e := s.sendErr(mysqlerr.CrServerLost, fmt.Sprintf("Lost connection to backend: %v", err)); e != nil {
		return e
	}
	if fatal {
		return errClientGone
	}
	return nil
}

// acquire takes the connection a decision names: the session's own
// primary connection for dedicated work, else the connection it holds to
// that backend, else a pooled one; set to the session's database.
func (s *session) acquire(d Decision) (*backendConn, error) {
	ctx, wait := s.srv.ctx, s.srv.opts.PoolWait
	var c *backendConn
	if d.Backend == Primary && (d.Dedicated || s.dedicated != nil) {
		if s.dedicated == nil {
			// The held connection would sit idle beside it.
			s.dropHeld()
			bc, err := s.srv.pool.get(ctx, Primary, s.cred, wait)
			if err != nil {
				return nil, err
			}
			s.dedicated = bc
		}
		c = s.dedicated
	} else if c = s.takeHeld(d.Backend); c == nil {
		bc, err := s.srv.pool.get(ctx, d.Backend, s.cred, wait)
		if err != nil {
			return nil, err
		}
		c = bc
	}
	if err := c.useDB(s.db, s.srv.opts.ConnectTimeout); err != nil {
		var me *mysqlError
		if !errors.As(err, &me) {
			c.broken = true
		}
		s.release(c)
		return nil, err
	}
	return c, nil
}

// release gives a connection back: the dedicated one stays while the
// session is in a transaction or pinned; a pooled one the session keeps
// (hold) unless another session waits for that backend.
func (s *session) release(c *backendConn) {
	if c == s.dedicated {
		if !c.broken && s.rs.Dedicated() {
			return
		}
		s.dedicated = nil
		if c.broken {
			// The session's state was there: it is gone.
			s.rs.InTxn = false
		}
		s.srv.pool.put(c)
		return
	}
	p := s.srv.pool
	if c.broken || p.waiting(c.backend) {
		if c == s.held {
			s.held = nil
			p.unhold(c)
		}
		c.lease.Store(0)
		p.put(c)
		return
	}
	if c != s.held {
		s.dropHeld()
		s.held = c
		p.hold(c)
	}
	c.heldSince.Store(time.Now().UnixNano())
	c.lease.Store(leaseFor(s.id, leaseIdle))
}

// takeHeld returns the connection the session holds when it is to
// backend i and no other session took it meanwhile (a session waiting
// for a connection to a full backend takes idle held ones: see
// pool.steal); otherwise the held one goes back to the pool.
func (s *session) takeHeld(i int) *backendConn {
	c := s.held
	if c == nil {
		return nil
	}
	if c.backend != i {
		s.dropHeld()
		return nil
	}
	if !c.lease.CompareAndSwap(leaseFor(s.id, leaseIdle), leaseFor(s.id, leaseBusy)) {
		s.held = nil // taken
		return nil
	}
	return c
}

// dropHeld gives the held connection back to the pool (unless it was
// taken).
func (s *session) dropHeld() {
	c := s.held
	if c == nil {
		return
	}
	s.held = nil
	if c.lease.CompareAndSwap(leaseFor(s.id, leaseIdle), 0) {
		s.srv.pool.unhold(c)
		s.srv.pool.put(c)
	}
}

// relay sends pre (commands without a response, each sequence 0) and
// cmd to c and copies cmd's response to the client, renumbered after the
// client's command. It reports whether the response was not an error,
// and keeps the session's transaction state from the final status flags.
func (s *session) relay(c *backendConn, pre [][]byte, cmd []byte) (bool, error) {
	c.pc.ensureDeadline(s.srv.opts.QueryTimeout)
	for _, p := range pre {
		c.pc.seq = 0
		if err := c.pc.writePacket(p); err != nil {
			c.broken = true
			return false, errBackendIO{err}
		}
	}
	c.pc.seq = 0
	if err := c.pc.writePacket(cmd); err != nil {
		c.broken = true
		return false, errBackendIO{err}
	}
	if err := c.pc.flush(); err != nil {
		c.broken = true
		return false, errBackendIO{err}
	}
	r := responseReader{s: s, c: c}
	status, ok, err := r.result()
	if err != nil {
		return false, err
	}
	if err := s.cl.flush(); err != nil {
		return false, errClientGone
	}
	s.noteStatus(c, status)
	return ok, nil
}

// noteStatus follows the backend's transaction state: a primary
// connection in a transaction becomes the session's own.
func (s *session) noteStatus(c *backendConn, status uint16) {
	inTxn := status&statusInTrans != 0
	if c.backend != Primary {
		if inTxn {
			// Reads never open transactions; never pool one that did.
			c.broken = true
		}
		return
	}
	s.rs.InTxn = inTxn
	if inTxn && s.dedicated == nil {
		if c == s.held {
			s.held = nil
			s.srv.pool.unhold(c)
			c.lease.Store(0)
		}
		s.dedicated = c
	}
}

// responseReader copies one response from a backend to the client.
type responseReader struct {
	s    *session
	c    *backendConn
	head []byte
}

// next copies one packet (all its frames) and returns its first
// frame's first bytes (see forwardFrame; valid until the next call).
func (r *responseReader) next() ([]byte, error) {
	var first []byte
	for i := 0; ; i++ {
		head, n, err := r.c.pc.forwardFrame(r.s.cl)
		if err != nil {
			r.c.broken = true
			var de errDestination
			if errors.As(err, &de) {
				return nil, errClientGone
			}
			return nil, errBackendIO{err}
		}
		r.s.frames++
		if i == 0 {
			first = head
			if n == maxFrame {
				// The next frames' reads reuse head's buffer.
				r.head = append(r.head[:0], head...)
				first = r.head
			}
		}
		if n < maxFrame {
			return first, nil
		}
	}
}

// result copies a COM_QUERY / COM_STMT_EXECUTE / COM_FIELD_LIST /
// COM_STATISTICS response: every result of it.
func (r *responseReader) result() (uint16, bool, error) {
	for {
		p, err := r.next()
		if err != nil {
			return 0, false, err
		}
		switch {
		case isERR(p):
			return 0, false, nil
		case isOK(p):
			_, id, st, _ := okInfo(p)
			if id != 0 {
				r.s.lastInsertID = id
			}
			if st&statusMoreResults != 0 {
				continue
			}
			return st, true, nil
		case isEOF(p):
			// COM_FIELD_LIST with no columns.
			return eofStatus(p), true, nil
		case len(p) > 0 && p[0] == 0xfb:
			r.c.broken = true
			return 0, false, errBackendIO{errors.New("LOAD DATA LOCAL is not supported through the proxy")}
		}
		n, _, _, ok := readLenenc(p)
		if !ok {
			// COM_STATISTICS answers one string packet.
			return 0, true, nil
		}
		if n == 0 {
			return 0, true, nil
		}
		for i := uint64(0); i < n; i++ {
			if _, err := r.next(); err != nil {
				return 0, false, err
			}
		}
		eof, err := r.next()
		if err != nil {
			return 0, false, err
		}
		if st := eofStatus(eof); st&statusCursor != 0 {
			return st, true, nil
		}
		var status uint16
		for {
			p, err := r.next()
			if err != nil {
				return 0, false, err
			}
			if isERR(p) {
				return 0, false, nil
			}
			if isEOF(p) {
				status = eofStatus(p)
				break
			}
		}
		if status&statusMoreResults == 0 {
			return status, true, nil
		}
	}
}
