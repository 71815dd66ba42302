package sqlengine

import (
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/vitess/go/mysql"
)

// unknownUserAuth makes an unknown user fail authentication the way a
// wrong password does (error 1045), as MySQL answers, instead of vitess's
// "no authentication methods available" handshake error, which also tells
// a client which user names exist.
// Every method is wrapped in gatedAuth, which counts the connection
// against max_connections once it authenticated (connlimit.go).
type unknownUserAuth struct {
	mysql.AuthServer
	gate *connGate
}

func (a unknownUserAuth) AuthMethods() []mysql.AuthMethod {
	ms := a.AuthServer.AuthMethods()
	out := make([]mysql.AuthMethod, len(ms))
	for i, m := range ms {
		if m.Name() == mysql.MysqlNativePassword {
			m = acceptAnyUser{AuthMethod: m, all: ms}
		}
		if a.gate != nil {
			m = gatedAuth{AuthMethod: m, gate: a.gate}
		}
		out[i] = m
	}
	return out
}

// acceptAnyUser handles users no method claims, so the password check runs
// (and fails) for them.
type acceptAnyUser struct {
	mysql.AuthMethod
	all []mysql.AuthMethod
}

func (m acceptAnyUser) HandleUser(c *mysql.Conn, user string) bool {
	for _, o := range m.all {
		if o.HandleUser(c, user) {
			return o.Name() == m.Name()
		}
	}
	return true
}

// listenerFactory installs unknownUserAuth into the protocol listener.
func (e *Engine) listenerFactory(cfg server.Config, lc mysql.ListenerConfig, sel server.ServerEventListener) (server.ProtocolListener, error) {
	lc.AuthServer = unknownUserAuth{AuthServer: lc.AuthServer, gate: e.gate}
	return server.MySQLProtocolListenerFactory(cfg, lc, sel)
}
