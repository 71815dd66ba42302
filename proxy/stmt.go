package proxy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"petrel/internal/mysqlerr"
)

// Prepared statements. A client's statement id is the proxy's: it maps
// to the statement's text, and each backend connection prepares the text
// the first time an execution lands there (cached per connection, shared
// by the sessions that check it out). Every execution is routed by the
// statement's kind, as a text query would be.

// pstmt is a client's prepared statement: the proxy prepares it again
// on whichever backend connection an execution is routed to.
type pstmt struct {
	id     uint32
	query  string
	db     string
	st     Statement
	params int
	// types are the parameter types last bound (every execution sends
	// them, so a connection that never saw the statement gets them).
	types []byte
	// long holds COM_STMT_SEND_LONG_DATA payloads (param id + data) until
	// the next execution.
	long [][]byte
}

// prepare answers COM_STMT_PREPARE from the primary (a prepared
// statement's executions are routed one by one).
func (s *session) prepare(pkt []byte) error {
	query := string(pkt[1:])
	st := s.srv.classes.classify(query)
	if st.Kind == KindLastInsertID {
		// Its executions' binary answer is the backend's to build: run
		// it on the session's own connection.
		st.Kind = KindSessionState
	}
	var answer [][]byte
	var mysqlErr *mysqlError
	prep := Statement{Kind: KindOther, Why: "prepare"}
	_, err := s.run(prep, func(c *backendConn) (bool, error) {
		id, params, cols, pkts, err := c.prepare(query, s.srv.opts.QueryTimeout)
		if err != nil {
			var me *mysqlError
			if errors.As(err, &me) {
				mysqlErr = me
				return false, nil
			}
			return false, err
		}
		s.nextStmt++
		ps := &pstmt{id: s.nextStmt, query: query, db: c.db, st: st, params: params}
		s.stmts[ps.id] = ps
		c.remember(c.db, query, id, params)
		_ = cols
		binary.LittleEndian.PutUint32(pkts[0][1:], ps.id)
		answer = pkts
		return true, nil
	})
	if err != nil {
		return err
	}
	if mysqlErr != nil {
		return s.send(errPacket(mysqlErr.Code, mysqlErr.State, mysqlErr.Message))
	}
	for _, p := range answer {
		if s.cl.writePacket(p) != nil {
			return errClientGone
		}
	}
	if s.cl.flush() != nil {
		return errClientGone
	}
	return nil
}

// execute routes a COM_STMT_EXECUTE as its statement's kind, prepares
// the statement on the chosen connection if it is new there, and relays
// the answer.
func (s *session) execute(pkt []byte) error {
	if len(pkt) < 10 {
		return s.sendErr(mysqlerr.ErMalformedPacket, "Malformed communication packet.")
	}
	ps := s.stmts[binary.LittleEndian.Uint32(pkt[1:])]
	if ps == nil {
		return s.sendErr(mysqlerr.ErUnknownStmtHandler, "Unknown prepared statement handler given to mysqld_stmt_execute")
	}
	// The backend's command is built in the session's buffer: the
	// statement id is the connection's, filled in once it is known.
	cmd, err := appendExecuteBody(append(s.execBuf[:0], comStmtExecute, 0, 0, 0, 0), pkt, ps)
	if err != nil {
		return s.sendErr(mysqlerr.ErMalformedPacket, err.Error())
	}
	s.execBuf = cmd
	long := ps.long
	ps.long = nil
	var mysqlErr *mysqlError
	_, err = s.run(ps.st, func(c *backendConn) (bool, error) {
		restore := c.db
		if err := c.useDB(ps.db, s.srv.opts.ConnectTimeout); err != nil {
			return false, err
		}
		id, err := c.ensurePrepared(ps, s.srv.opts.QueryTimeout)
		if err != nil {
			var me *mysqlError
			if errors.As(err, &me) {
				mysqlErr = me
				return false, nil
			}
			return false, err
		}
		var pre [][]byte
		for _, l := range long {
			p := append([]byte{comStmtSendLongData}, binary.LittleEndian.AppendUint32(nil, id)...)
			pre = append(pre, append(p, l...))
		}
		binary.LittleEndian.PutUint32(cmd[1:], id)
		ok, err := s.relay(c, pre, cmd)
		if err == nil && restore != c.db {
			err = c.useDB(restore, s.srv.opts.ConnectTimeout)
		}
		return ok, err
	})
	if err != nil {
		return err
	}
	if mysqlErr != nil {
		return s.send(errPacket(mysqlErr.Code, mysqlErr.State, mysqlErr.Message))
	}
	return nil
}

// executeBody is an execution's packet after its statement id: no
// cursor, and the parameter types always bound (the last ones the client
// sent, when it sent none this time).
func executeBody(pkt []byte, ps *pstmt) ([]byte, error) { return appendExecuteBody(nil, pkt, ps) }

// appendExecuteBody appends executeBody's packet to out.
func appendExecuteBody(out, pkt []byte, ps *pstmt) ([]byte, error) {
	out = append(out, 0)            // flags: no cursor (rows follow at once)
	out = append(out, pkt[6:10]...) // iteration count
	if ps.params == 0 {
		return out, nil
	}
	nm := (ps.params + 7) / 8
	if len(pkt) < 10+nm+1 {
		return nil, errors.New("malformed COM_STMT_EXECUTE")
	}
	nullmap, bound, rest := pkt[10:10+nm], pkt[10+nm], pkt[11+nm:]
	if bound == 1 {
		if len(rest) < 2*ps.params {
			return nil, errors.New("malformed COM_STMT_EXECUTE")
		}
		ps.types = append(ps.types[:0], rest[:2*ps.params]...)
		rest = rest[2*ps.params:]
	} else if ps.types == nil {
		return nil, errors.New("COM_STMT_EXECUTE without parameter types")
	}
	out = append(out, nullmap...)
	out = append(out, 1)
	out = append(out, ps.types...)
	return append(out, rest...), nil
}

// prepare prepares query on the connection; it returns the backend's
// statement id, its parameter and column counts and the response's
// packets (for the client).
func (b *backendConn) prepare(query string, timeout time.Duration) (id uint32, params, cols int, pkts [][]byte, err error) {
	b.pc.ensureDeadline(timeout)
	b.pc.seq = 0
	if err := b.pc.writePacket(append([]byte{comStmtPrepare}, query...)); err != nil {
		b.broken = true
		return 0, 0, 0, nil, errBackendIO{err}
	}
	if err := b.pc.flush(); err != nil {
		b.broken = true
		return 0, 0, 0, nil, errBackendIO{err}
	}
	read := func() ([]byte, error) {
		p, err := b.pc.readPacket(0)
		if err != nil {
			b.broken = true
			return nil, errBackendIO{err}
		}
		pkts = append(pkts, p)
		return p, nil
	}
	p, err := read()
	if err != nil {
		return 0, 0, 0, nil, err
	}
	if isERR(p) {
		return 0, 0, 0, nil, parseERR(p)
	}
	if len(p) < 12 || p[0] != 0 {
		b.broken = true
		return 0, 0, 0, nil, errBackendIO{errors.New("malformed prepare response")}
	}
	id = binary.LittleEndian.Uint32(p[1:])
	cols = int(binary.LittleEndian.Uint16(p[5:]))
	params = int(binary.LittleEndian.Uint16(p[7:]))
	for _, n := range []int{params, cols} {
		if n == 0 {
			continue
		}
		for i := 0; i <= n; i++ { // definitions and their EOF
			if _, err := read(); err != nil {
				return 0, 0, 0, nil, err
			}
		}
	}
	return id, params, cols, pkts, nil
}

// stmtKey names a statement prepared on a connection (a struct, not a
// joined string: a lookup allocates nothing).
type stmtKey struct{ db, query string }

// remember caches a statement prepared on this connection, closing the
// oldest past maxStmtsPerConn.
func (b *backendConn) remember(db, query string, id uint32, params int) {
	k := stmtKey{db, query}
	if _, ok := b.stmts[k]; ok {
		return
	}
	b.stmts[k] = id
	b.params[id] = params
	b.order = append(b.order, k)
	if len(b.order) > maxStmtsPerConn {
		old := b.order[0]
		b.order = b.order[1:]
		oid := b.stmts[old]
		delete(b.stmts, old)
		delete(b.params, oid)
		b.pc.seq = 0
		cmd := append([]byte{comStmtClose}, binary.LittleEndian.AppendUint32(nil, oid)...)
		if b.pc.writePacket(cmd) != nil || b.pc.flush() != nil {
			b.broken = true
		}
	}
}

// ensurePrepared returns the statement's id on this connection,
// preparing it there first if needed.
func (b *backendConn) ensurePrepared(ps *pstmt, timeout time.Duration) (uint32, error) {
	if id, ok := b.stmts[stmtKey{b.db, ps.query}]; ok {
		return id, nil
	}
	id, params, _, _, err := b.prepare(ps.query, timeout)
	if err != nil {
		return 0, err
	}
	if params != ps.params {
		b.broken = true
		return 0, &mysqlError{Code: mysqlerr.ErUnknownStmtHandler, State: mysqlerr.State(mysqlerr.ErUnknownStmtHandler),
			Message: fmt.Sprintf("prepared statement changed on the backend: %d parameters, had %d", params, ps.params)}
	}
	b.remember(b.db, ps.query, id, params)
	return id, nil
}
