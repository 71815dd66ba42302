package sqlengine

import (
	"context"
	"net"

	"petrel/sqlengine/auth"

	"petrel/sqlengine/wire"

	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/vitess/go/mysql"
)

// unknownUserAuth makes an unknown user fail authentication the way a
// wrong password does (error 1045), as MySQL answers, instead of vitess's
// "no authentication methods available" handshake error, which also tells
// a client which user names exist.
// Every method is wrapped in gatedAuth, which counts the connection
// against max_connections once it authenticated (connlimit.go).
// caching_sha2_password is Petrel's (auth/sha2auth.go), and the greeting
// proposes it, as MySQL 8's does.
type unknownUserAuth struct {
	mysql.AuthServer
	gate *wire.Gate
	sha2 *auth.Sha2
	g    *Globals
}

func (a unknownUserAuth) DefaultAuthMethodDescription() mysql.AuthMethodDescription {
	if defaultPlugin(a.g) == string(mysql.MysqlNativePassword) {
		return mysql.MysqlNativePassword
	}
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
			m = acceptAnyUser{AuthMethod: m, all: ms, sha2: a.sha2}
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
// It also asks again, with an AuthSwitchRequest, when a client answered
// the greeting's caching_sha2_password proposal with an empty
// mysql_native_password response (libmysqlclient-style clients without
// that plugin, MariaDB's replication client among them: they leave the
// scramble to the server's switch), as MySQL does.
type acceptAnyUser struct {
	mysql.AuthMethod
	all  []mysql.AuthMethod
	sha2 *auth.Sha2
}

func (m acceptAnyUser) HandleAuthPluginData(c *mysql.Conn, user string, serverData, clientData []byte, addr net.Addr) (mysql.Getter, error) {
	if len(clientData) == 0 && m.sha2 != nil {
		if u := m.sha2.Lookup(user, addr); u != nil && u.AuthString != "" {
			// Not when vitess already switched the client to this
			// method: an empty answer then is an empty password.
			if cc, ok := c.Conn.(*wire.Conn); ok && !cc.AuthSwitched() {
				salt, err := mysql.NewSalt()
				if err != nil {
					return nil, err
				}
				serverData = append(salt, 0)
				pkt := append([]byte{mysql.AuthSwitchRequestPacket}, mysql.MysqlNativePassword+"\x00"...)
				if err := cc.WriteAuthPacket(append(pkt, serverData...)); err != nil {
					return nil, err
				}
				resp, err := c.ReadPacket(context.Background())
				if err != nil {
					return nil, err
				}
				clientData = append([]byte(nil), resp...)
			}
		}
	}
	return m.AuthMethod.HandleAuthPluginData(c, user, serverData, clientData, addr)
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
	lc.AuthServer = unknownUserAuth{AuthServer: lc.AuthServer, gate: e.gate, sha2: e.sha2, g: e.globals}
	return server.MySQLProtocolListenerFactory(cfg, lc, sel)
}
