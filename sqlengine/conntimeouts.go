package sqlengine

import (
	"strings"

	"petrel/sqlengine/arith"
	"petrel/sqlengine/wire"

	"github.com/dolthub/go-mysql-server/sql"
)

// The connection wrapper (netconn.go) enforces these session variables;
// a session's SET reaches it at once.
var connVars = map[string]bool{
	"wait_timeout": true, "net_read_timeout": true, "net_write_timeout": true, "max_allowed_packet": true,
}

// noteConnVar passes a SET of a connection variable on to the
// connection wrapper (netconn.go) at once (SetSessionVariable, charset.go).
func (s *Session) noteConnVar(name string) {
	if connVars[strings.ToLower(name)] {
		s.syncConn()
	}
}

// startConnSession gives a client session its connection's settings: an
// interactive client's wait_timeout starts as interactive_timeout, as in
// MySQL.
func (e *Engine) startConnSession(s *Session) {
	cc := s.wireConn()
	if cc == nil {
		return
	}
	if cc.Interactive() {
		_ = s.BaseSession.SetSessionVariable(sql.NewEmptyContext(), "wait_timeout", s.eng.globals.Int("interactive_timeout", 28800))
	}
	s.syncConn()
}

func (s *Session) wireConn() *wire.Conn {
	if s.conn == nil || s.conn.c == nil {
		return nil
	}
	cc, _ := s.conn.c.Conn.(*wire.Conn)
	return cc
}

// syncConn copies the session's timeouts and max_allowed_packet to its
// connection.
func (s *Session) syncConn() {
	cc := s.wireConn()
	if cc == nil {
		return
	}
	cc.SetLimits(wire.Seconds(s.intVar("wait_timeout", 28800)), wire.Seconds(s.intVar("net_read_timeout", 30)),
		wire.Seconds(s.intVar("net_write_timeout", 60)), s.intVar("max_allowed_packet", 64<<20))
}

func (s *Session) intVar(name string, def int64) int64 {
	v, err := s.BaseSession.GetSessionVariable(nil, name)
	if err != nil {
		return def
	}
	if n, ok := arith.ToInt64(v); ok {
		return n
	}
	return def
}
