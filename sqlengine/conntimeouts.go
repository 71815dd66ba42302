package sqlengine

import (
	"strings"

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
	cc := s.cmdConn()
	if cc == nil {
		return
	}
	if cc.clientFlags&clientInteractive != 0 {
		_ = s.BaseSession.SetSessionVariable(sql.NewEmptyContext(), "wait_timeout", globalInt("interactive_timeout", 28800))
	}
	s.syncConn()
}

func (s *Session) cmdConn() *cmdConn {
	if s.conn == nil || s.conn.c == nil {
		return nil
	}
	cc, _ := s.conn.c.Conn.(*cmdConn)
	return cc
}

// syncConn copies the session's timeouts and max_allowed_packet to its
// connection.
func (s *Session) syncConn() {
	cc := s.cmdConn()
	if cc == nil {
		return
	}
	cc.waitTimeout.Store(int64(seconds(s.intVar("wait_timeout", 28800))))
	cc.netReadTimeout.Store(int64(seconds(s.intVar("net_read_timeout", 30))))
	cc.netWriteTimeout.Store(int64(seconds(s.intVar("net_write_timeout", 60))))
	cc.maxPacket.Store(s.intVar("max_allowed_packet", 64<<20))
	// The next write sets the write deadline from the new value.
	cc.wrSetAt.Store(0)
}

func (s *Session) intVar(name string, def int64) int64 {
	v, err := s.BaseSession.GetSessionVariable(nil, name)
	if err != nil {
		return def
	}
	if n, ok := toInt64(v); ok {
		return n
	}
	return def
}
