package wire

import (
	"container/list"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
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

// Gate guards the client port. Safe for concurrent use.
type Gate struct {
	log      *slog.Logger
	settings Settings
	// rewrite, when set, rewrites a command packet before vitess reads it
	// (sqlengine: a prepared DO).
	rewrite func([]byte) []byte
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
		handshakes list.List // *Conn, oldest first
		counts     connCounts
	}

	handshakeTimeouts, evictions, badHandshakes, acceptErrors, refusals *rateLog
}

func NewGate(o GateOptions) *Gate {
	log := o.Logger
	g := &Gate{log: log, settings: o.Settings, account: o.Account, rewrite: o.Rewrite, tlsCfg: o.TLS, requiresSSL: o.RequiresSSL}
	g.handshakeTimeouts = newRateLog(func(n int, last string) {
		log.Warn("sqlengine: closed connections that did not complete the handshake within connect_timeout",
			"connections", n, "connect_timeout", Seconds(g.settings.Int("connect_timeout", 10)), "last_client", last)
	})
	g.evictions = newRateLog(func(n int, last string) {
		log.Warn("sqlengine: too many connections authenticating at once; closed the oldest",
			"connections", n, "limit", g.handshakeLimit(), "last_client", last)
	})
	g.badHandshakes = newRateLog(func(n int, last string) {
		log.Warn("sqlengine: refused malformed handshakes (error 1043)", "connections", n, "last", last)
	})
	g.acceptErrors = newRateLog(func(n int, last string) {
		log.Error("sqlengine: accepting connections failed; retrying", "errors", n, "last", last)
	})
	g.refusals = newRateLog(func(n int, last string) {
		log.Warn("sqlengine: refused connections over the limit", "connections", n,
			"max_connections", g.settings.Int("max_connections", 151), "last", last)
	})
	return g
}

func (g *Gate) handshakeLimit() int64 {
	return max(minHandshakes, g.settings.Int("max_connections", 151))
}

// accepted wraps a new socket and starts its handshake under
// connect_timeout.
func (g *Gate) accepted(c net.Conn) net.Conn {
	cc := newConn(c, g)
	cc.tlsCfg = g.tlsCfg
	_ = c.SetDeadline(time.Now().Add(Seconds(g.settings.Int("connect_timeout", 10))))
	limit := g.handshakeLimit()
	g.mu.Lock()
	cc.handshake = g.mu.handshakes.PushBack(cc)
	var evict *Conn
	if int64(g.mu.handshakes.Len()) > limit {
		evict = g.mu.handshakes.Remove(g.mu.handshakes.Front()).(*Conn)
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
func (g *Gate) evictOldest() {
	g.mu.Lock()
	var evict *Conn
	if f := g.mu.handshakes.Front(); f != nil {
		evict = g.mu.handshakes.Remove(f).(*Conn)
		evict.handshake = nil
	}
	g.mu.Unlock()
	if evict != nil {
		g.evictions.note(evict.RemoteAddr().String())
		evict.Close()
	}
}

// handshaking is the number of sockets authenticating.
func (g *Gate) handshaking() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mu.handshakes.Len()
}

// admitted is the number of connections counted against max_connections.
func (g *Gate) admitted() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mu.counts.total
}

// closed forgets a connection (Conn.Close).
func (g *Gate) closed(c *Conn) {
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
func (g *Gate) handshakeTimedOut(c *Conn) {
	sql.StatusVariables.IncrementGlobal("Aborted_connects", 1)
	g.handshakeTimeouts.note(c.RemoteAddr().String())
}

// Admit counts an authenticated connection against max_connections and
// max_user_connections, or refuses it with MySQL's error.
func (g *Gate) Admit(c *mysql.Conn, ud mysql.Getter) error {
	cc, ok := c.Conn.(*Conn)
	if !ok {
		return nil
	}
	u, _ := ud.(sql.MysqlConnectionUser)
	account, admin := g.account(u.User, u.Host)
	maxConns := g.settings.Int("max_connections", 151)
	maxUser := g.settings.Int("max_user_connections", 0)
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
	cs, _ := c.ClientData.(Commands)
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

// listener wraps accepted connections in Conn and keeps accepting
// through transient errors.
type listener struct {
	net.Listener
	gate      *Gate
	closing   chan struct{}
	closeOnce sync.Once
}

func NewListener(ln net.Listener, g *Gate) *listener {
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

// RequiresSSL reports an account that must log in over TLS.
func (g *Gate) RequiresSSL(user, host string) bool {
	return g.requiresSSL != nil && g.requiresSSL(user, host)
}

// Handshaking is the number of sockets authenticating.
func (g *Gate) Handshaking() int { return g.handshaking() }

// Admitted is the number of connections counted against max_connections.
func (g *Gate) Admitted() int64 { return g.admitted() }

// PacketMemory is the packet budget's bytes in use, waits and refusals.
func (g *Gate) PacketMemory() (inUse int64, waits, refused uint64) {
	return g.budget.inUse(), g.budget.waits.Load(), g.budget.refused.Load()
}
