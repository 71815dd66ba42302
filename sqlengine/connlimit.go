package sqlengine

import (
	"container/list"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"petrel/internal/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// Connections as MySQL limits them (docs/design/connections.md):
//
//   - A connection counts against max_connections once it has
//     authenticated: a client beyond the limit gets ER_CON_COUNT_ERROR
//     (1040) as an ERR packet, except that one more is let in for an
//     account with SUPER or CONNECTION_ADMIN, as MySQL reserves it;
//     max_user_connections (when not 0) limits the connections of each
//     account (1203).
//   - Sockets still authenticating do not count (in MySQL they do, so that
//     idle sockets lock out even the reserved connection): each must
//     finish the handshake within connect_timeout, and at most
//     max(minHandshakes, max_connections) are held at once, the oldest
//     closed to make room; both are logged at most once a second.
//   - Accept errors (out of file descriptors) are retried with backoff,
//     closing the oldest handshake, instead of ending the accept loop.

// minHandshakes is the fewest unauthenticated sockets held at once.
const minHandshakes = 1024

// connGate guards the client port. Safe for concurrent use.
type connGate struct {
	log *slog.Logger
	// account maps a login to its account ("user@host pattern") and
	// whether it may take the reserved connection.
	account func(user, host string) (string, bool)
	budget  packetBudget
	// tlsCfg is the server's TLS configuration (nil: no TLS); set before
	// the listener starts.
	tlsCfg *tls.Config
	// requiresSSL reports accounts that must log in over TLS (nil: none).
	requiresSSL func(user, host string) bool

	mu struct {
		sync.Mutex
		handshakes list.List // *cmdConn, oldest first
		counts     connCounts
	}

	handshakeTimeouts, evictions, badHandshakes, acceptErrors, refusals *rateLog
}

func newConnGate(log *slog.Logger, account func(user, host string) (string, bool)) *connGate {
	g := &connGate{log: log, account: account}
	g.handshakeTimeouts = newRateLog(func(n int, last string) {
		log.Warn("sqlengine: closed connections that did not complete the handshake within connect_timeout",
			"connections", n, "connect_timeout", globalSeconds("connect_timeout", 10), "last_client", last)
	})
	g.evictions = newRateLog(func(n int, last string) {
		log.Warn("sqlengine: too many connections authenticating at once; closed the oldest",
			"connections", n, "limit", handshakeLimit(), "last_client", last)
	})
	g.badHandshakes = newRateLog(func(n int, last string) {
		log.Warn("sqlengine: refused malformed handshakes (error 1043)", "connections", n, "last", last)
	})
	g.acceptErrors = newRateLog(func(n int, last string) {
		log.Error("sqlengine: accepting connections failed; retrying", "errors", n, "last", last)
	})
	g.refusals = newRateLog(func(n int, last string) {
		log.Warn("sqlengine: refused connections over the limit", "connections", n,
			"max_connections", globalInt("max_connections", 151), "last", last)
	})
	return g
}

func handshakeLimit() int64 { return max(minHandshakes, globalInt("max_connections", 151)) }

// accepted wraps a new socket and starts its handshake under
// connect_timeout.
func (g *connGate) accepted(c net.Conn) net.Conn {
	cc := newCmdConn(c, g)
	cc.tlsCfg = g.tlsCfg
	_ = c.SetDeadline(time.Now().Add(globalSeconds("connect_timeout", 10)))
	limit := handshakeLimit()
	g.mu.Lock()
	cc.handshake = g.mu.handshakes.PushBack(cc)
	var evict *cmdConn
	if int64(g.mu.handshakes.Len()) > limit {
		evict = g.mu.handshakes.Remove(g.mu.handshakes.Front()).(*cmdConn)
		evict.handshake = nil
	}
	g.mu.Unlock()
	if evict != nil {
		g.evictions.note(evict.RemoteAddr().String())
		evict.Close()
	}
	return cc
}

// evictOldest closes the oldest connection still authenticating, if any.
func (g *connGate) evictOldest() {
	g.mu.Lock()
	var evict *cmdConn
	if f := g.mu.handshakes.Front(); f != nil {
		evict = g.mu.handshakes.Remove(f).(*cmdConn)
		evict.handshake = nil
	}
	g.mu.Unlock()
	if evict != nil {
		g.evictions.note(evict.RemoteAddr().String())
		evict.Close()
	}
}

// handshaking is the number of sockets authenticating.
func (g *connGate) handshaking() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mu.handshakes.Len()
}

// admitted is the number of connections counted against max_connections.
func (g *connGate) admitted() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mu.counts.total
}

// closed forgets a connection (cmdConn.Close).
func (g *connGate) closed(c *cmdConn) {
	g.mu.Lock()
	if c.handshake != nil {
		g.mu.handshakes.Remove(c.handshake)
		c.handshake = nil
	}
	if c.admitted {
		g.mu.counts.release(c.account)
		c.admitted = false
	}
	g.mu.Unlock()
}

// handshakeTimedOut reports a socket closed by connect_timeout.
func (g *connGate) handshakeTimedOut(c *cmdConn) {
	sql.StatusVariables.IncrementGlobal("Aborted_connects", 1)
	g.handshakeTimeouts.note(c.RemoteAddr().String())
}

// admit counts an authenticated connection against max_connections and
// max_user_connections, or refuses it with MySQL's error.
func (g *connGate) admit(c *mysql.Conn, ud mysql.Getter) error {
	cc, ok := c.Conn.(*cmdConn)
	if !ok {
		return nil
	}
	u, _ := ud.(sql.MysqlConnectionUser)
	account, admin := g.account(u.User, u.Host)
	maxConns := globalInt("max_connections", 151)
	maxUser := globalInt("max_user_connections", 0)
	g.mu.Lock()
	var err error
	if cc.closed.Load() {
		err = errClosedByServer
	} else if err = g.mu.counts.admit(account, u.User, admin, maxConns, maxUser); err == nil {
		cc.account, cc.admitted = account, true
		if cc.handshake != nil {
			g.mu.handshakes.Remove(cc.handshake)
			cc.handshake = nil
		}
	}
	g.mu.Unlock()
	if err != nil {
		var se *mysql.SQLError
		if errors.As(err, &se) && se.Num == mysqlerr.ErConCount {
			sql.StatusVariables.IncrementGlobal("Connection_errors_max_connections", 1)
		}
		g.refusals.note(fmt.Sprintf("%s: %v", account, err))
		return err
	}
	cs, _ := c.ClientData.(*connState)
	cc.startCommands(cs)
	return nil
}

// connCounts counts admitted connections, in total and per account. Not
// safe for concurrent use.
type connCounts struct {
	total      int64
	perAccount map[string]int64
}

// admit counts one more connection of account (user's) unless
// max_connections (maxConns, one more for an admin) or
// max_user_connections (maxUser; 0 is no limit) forbids it.
func (n *connCounts) admit(account, user string, admin bool, maxConns, maxUser int64) error {
	limit := maxConns
	if admin {
		limit++
	}
	if n.total >= limit {
		return mysqlerr.New(mysqlerr.ErConCount, "Too many connections")
	}
	if maxUser > 0 && n.perAccount[account] >= maxUser {
		return mysqlerr.New(mysqlerr.ErTooManyUserConnections,
			"User %s already has more than 'max_user_connections' active connections", user)
	}
	if n.perAccount == nil {
		n.perAccount = map[string]int64{}
	}
	n.total++
	n.perAccount[account]++
	return nil
}

func (n *connCounts) release(account string) {
	n.total--
	if n.perAccount[account]--; n.perAccount[account] <= 0 {
		delete(n.perAccount, account)
	}
}

// connAccount is the account a login matched and whether it holds SUPER
// or CONNECTION_ADMIN.
func (e *Engine) connAccount(user, host string) (string, bool) {
	udb := e.gms.Analyzer.Catalog.MySQLDb
	if !udb.Enabled() {
		return user + "@" + host, true
	}
	rd := udb.Reader()
	defer rd.Close()
	u := udb.GetUser(rd, user, host, false)
	if u == nil {
		return user + "@" + host, false
	}
	admin := u.IsSuperUser || u.PrivilegeSet.Has(sql.PrivilegeType_Super) || u.PrivilegeSet.HasDynamic("connection_admin")
	return u.User + "@" + u.Host, admin
}

// listener wraps accepted connections in cmdConn and keeps accepting
// through transient errors.
type listener struct {
	net.Listener
	gate      *connGate
	closing   chan struct{}
	closeOnce sync.Once
}

func newListener(ln net.Listener, g *connGate) *listener {
	return &listener{Listener: ln, gate: g, closing: make(chan struct{})}
}

func (l *listener) Accept() (net.Conn, error) {
	delay := 5 * time.Millisecond
	for {
		c, err := l.Listener.Accept()
		if err == nil {
			return l.gate.accepted(c), nil
		}
		if !retryAccept(err) {
			return nil, err
		}
		sql.StatusVariables.IncrementGlobal("Connection_errors_accept", 1)
		l.gate.acceptErrors.note(err.Error())
		if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
			// A socket that has not authenticated is the cheapest to lose.
			l.gate.evictOldest()
		}
		t := time.NewTimer(delay)
		select {
		case <-l.closing:
			t.Stop()
			return nil, net.ErrClosed
		case <-t.C:
		}
		delay = min(2*delay, time.Second)
	}
}

func (l *listener) Close() error {
	l.closeOnce.Do(func() { close(l.closing) })
	return l.Listener.Close()
}

// retryAccept: errors after which accepting can succeed later (vitess
// ends its accept loop on any error).
func retryAccept(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.EPROTO, syscall.EINTR, syscall.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// gatedAuth counts a connection against the limits once its password
// checked out (vitess then sends the ERR packet of a refusal).
type gatedAuth struct {
	mysql.AuthMethod
	gate *connGate
}

func (m gatedAuth) HandleAuthPluginData(c *mysql.Conn, user string, serverData, clientData []byte, addr net.Addr) (mysql.Getter, error) {
	ud, err := m.AuthMethod.HandleAuthPluginData(c, user, serverData, clientData, addr)
	if err != nil {
		return ud, err
	}
	if u, ok := ud.(sql.MysqlConnectionUser); ok && m.gate.requiresSSL != nil && m.gate.requiresSSL(u.User, u.Host) {
		if cc, ok := c.Conn.(*cmdConn); !ok || cc.TLSState() == nil {
			// REQUIRE SSL over plaintext: refused as a wrong password is.
			return nil, accessDenied(user, addr, len(clientData) > 0)
		}
	}
	if err := m.gate.admit(c, ud); err != nil {
		return nil, err
	}
	return ud, nil
}

// ConnectionAborted implements mysql.Handler: a handshake response vitess
// could not parse gets ER_HANDSHAKE_ERROR (1043) before the connection
// closes, as in MySQL (vitess closes it without a word).
func (h *errHandler) ConnectionAborted(c *mysql.Conn, reason string) error {
	// GMS counts Aborted_connects: before the client hears of it.
	err := h.Handler.ConnectionAborted(c, reason)
	if strings.HasPrefix(reason, "Cannot parse client handshake response") ||
		strings.HasPrefix(reason, "Cannot parse post-SSL client handshake response") {
		if cc, ok := c.Conn.(*cmdConn); ok {
			cc.refuseHandshake(reason)
		}
	}
	return err
}

// rateLog logs a kind of event at most once a second: the first at once,
// the others counted and reported together when the second is over.
// Safe for concurrent use.
type rateLog struct {
	emit  func(n int, last string)
	mu    sync.Mutex
	next  time.Time // no line before
	count int       // events not yet reported
	last  string
	armed bool
}

const rateLogInterval = time.Second

func newRateLog(emit func(n int, last string)) *rateLog { return &rateLog{emit: emit} }

func (r *rateLog) note(detail string) {
	r.mu.Lock()
	r.count++
	r.last = detail
	now := time.Now()
	if now.Before(r.next) {
		if !r.armed {
			r.armed = true
			time.AfterFunc(r.next.Sub(now), r.flush)
		}
		r.mu.Unlock()
		return
	}
	n := r.count
	r.count, r.next = 0, now.Add(rateLogInterval)
	r.mu.Unlock()
	r.emit(n, detail)
}

func (r *rateLog) flush() {
	r.mu.Lock()
	r.armed = false
	n, last := r.count, r.last
	if n == 0 {
		r.mu.Unlock()
		return
	}
	r.count, r.next = 0, time.Now().Add(rateLogInterval)
	r.mu.Unlock()
	r.emit(n, last)
}

// registerConnStatus adds the gate's status variables.
func (e *Engine) registerConnStatus() {
	g := e.gate
	RegisterStatus("Petrel_connections_authenticating", func() any { return uint64(g.handshaking()) })
	RegisterStatus("Petrel_connections_admitted", func() any { return uint64(g.admitted()) })
	RegisterStatus("Petrel_packet_memory", func() any { return uint64(g.budget.inUse()) })
	RegisterStatus("Petrel_packet_memory_waits", func() any { return g.budget.waits.Load() })
	RegisterStatus("Petrel_packet_memory_refused", func() any { return g.budget.refused.Load() })
}
