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
// caching_sha2_password is Petrel's (sha2auth.go), and the greeting
// proposes it, as MySQL 8's does.
type unknownUserAuth struct {
	mysql.AuthServer
	gate *connGate
	sha2 *sha2Auth
}

func (a unknownUserAuth) DefaultAuthMethodDescription() mysql.AuthMethodDescription {
	return mysql.CachingSha2Password
}

func (a unknownUserAuth) AuthMethods() []mysql.AuthMethod {
	ms := append([]mysql.AuthMethod(nil), a.AuthServer.AuthMethods()...)
	for i, m := range ms {
		if m.Name() == mysql.CachingSha2Password && a.sha2 != nil {
			ms[i] = a.sha2
		}
	}
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
	lc.AuthServer = unknownUserAuth{AuthServer: lc.AuthServer, gate: e.gate, sha2: e.sha2}
	return server.MySQLProtocolListenerFactory(cfg, lc, sel)
}
