package proxy

import (
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/internal/base"
	"petrel/internal/mysqlerr"
)

// Options configures a proxy Server.
type Options struct {
	// Listen is the clients' address. Default "127.0.0.1:6033".
	Listen string
	// AdminListen is the admin port's address (SHOW SERVERS). Default
	// "127.0.0.1:6032"; "-" for none.
	AdminListen string
	// MetricsListen, when set, serves Prometheus metrics at
	// http://MetricsListen/metrics. Default: none.
	MetricsListen string
	// TLS, when set, is offered to clients (CLIENT_SSL). Default: a
	// self-signed certificate made at Start (TLSCertFile and TLSKeyFile
	// name a PEM pair instead); set NoTLS to offer none.
	TLSCertFile, TLSKeyFile string
	NoTLS                   bool
	// Primary and Replicas are the backends' host:port. Primary is
	// required. ReplicaSites[i], when given, is Replicas[i]'s site (see
	// RouterOptions.Site; default 0).
	Primary      string
	Replicas     []string
	ReplicaSites []int
	// Discover adds, while the proxy runs, the replicas its backends
	// list in SHOW REPLICAS (the primary's registered replicas, and
	// theirs: a relay's are its site's), each checked from then on. A
	// relay itself shows as a replica whose lag is unknown (it applies
	// nothing) and gets no reads. Default off.
	Discover bool
	// LayoutFile, when set, is a JSON file naming the primary and the
	// replicas with their sites (see Layout), read at start and again
	// whenever it changes (checked every CheckInterval): replicas it
	// names are added, and a primary it names that is not slot 0's is
	// followed at once. `petrel cluster` writes one.
	LayoutFile string
	// BackendSSL is TLS to the backends (the clients' sessions and the
	// checks): "off" (the default: plain, as on a loopback or a private
	// network), "preferred" (TLS when the backend offers it) or
	// "required" (a backend without TLS is refused). BackendSSLCA, when
	// set, is a PEM file of the CA certificates backends are verified
	// against; when empty their certificates are not verified (Petrel
	// generates a self-signed one per server).
	BackendSSL, BackendSSLCA string
	// MonitorUser and MonitorPassword are the account the proxy checks
	// backends with and reads the primary's accounts (mysql.user) with.
	// Default "root" and "".
	MonitorUser, MonitorPassword string
	// Router is the routing core's settings (max_replication_lag, ...).
	Router RouterOptions
	// DefaultMode is a new session's read mode. Default
	// ModeReadYourWrites.
	DefaultMode Mode
	// CheckInterval is how often each backend is checked. Default 500ms.
	CheckInterval time.Duration
	// CheckTimeout bounds one check (connect and queries); a check that
	// takes longer failed (unknown lag). Default 1s.
	CheckTimeout time.Duration
	// MaxConnsPerBackend caps the connections open to each backend.
	// Default 100.
	MaxConnsPerBackend int
	// MaxClients caps client connections; more get error 1040. Default
	// 10000.
	MaxClients int
	// MaxAllowedPacket is the largest client packet accepted (error 1153
	// past it). Default 64 MiB.
	MaxAllowedPacket int
	// ClientIdleTimeout closes a client connection idle that long
	// (wait_timeout). Default 8h.
	ClientIdleTimeout time.Duration
	// BackendIdleTimeout closes pooled connections idle that long.
	// Default 60s.
	BackendIdleTimeout time.Duration
	// HoldIdle: a session keeps its backend connection between
	// statements (no pool hand-off per statement) until it has sent
	// none for this long; then the connection goes back to the pool
	// (checked every CheckInterval). A session that would wait for a
	// connection takes an idle held one at once. Default 1s.
	HoldIdle time.Duration
	// ConnectTimeout bounds a backend connection's dial and login, and a
	// client's handshake. Default 5s.
	ConnectTimeout time.Duration
	// PoolWait bounds the wait for a backend connection when the backend
	// has MaxConnsPerBackend open. Default 10s.
	PoolWait time.Duration
	// QueryTimeout bounds the wait for a backend's response to one
	// statement (a socket read deadline). Default 1h.
	QueryTimeout time.Duration
	// Logger receives state changes and errors. Default: discard.
	Logger *slog.Logger
	// Clock is the routing core's time source. Default: the wall clock.
	Clock base.Clock
}

func (o *Options) applyDefaults() error {
	if o.Primary == "" {
		return errors.New("proxy: a primary is required")
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:6033"
	}
	if o.AdminListen == "" {
		o.AdminListen = "127.0.0.1:6032"
	}
	if o.MonitorUser == "" {
		o.MonitorUser = "root"
	}
	if o.CheckInterval <= 0 {
		o.CheckInterval = 500 * time.Millisecond
	}
	if o.CheckTimeout <= 0 {
		o.CheckTimeout = time.Second
	}
	if o.MaxConnsPerBackend <= 0 {
		o.MaxConnsPerBackend = 100
	}
	if o.MaxClients <= 0 {
		o.MaxClients = 10000
	}
	if o.MaxAllowedPacket <= 0 {
		o.MaxAllowedPacket = 64 << 20
	}
	if o.ClientIdleTimeout <= 0 {
		o.ClientIdleTimeout = 8 * time.Hour
	}
	if o.BackendIdleTimeout <= 0 {
		o.BackendIdleTimeout = 60 * time.Second
	}
	if o.HoldIdle <= 0 {
		o.HoldIdle = time.Second
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 5 * time.Second
	}
	if o.PoolWait <= 0 {
		o.PoolWait = 10 * time.Second
	}
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = time.Hour
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Clock = base.ClockOr(o.Clock)
	return nil
}

// Server is a running proxy: its listeners, sessions, pools and
// checkers. Safe for concurrent use; every goroutine it starts ends in
// Close.
type Server struct {
	opts  Options
	addrs []string // primary first
	pool  *pool
	accts *accounts
	sha2  sha2Cache
	// classes caches statement kinds by shape.
	classes classCache
	mon     []*sql.DB // per backend slot, the monitor account's (under mu)
	// slotGen[i] changes when a promotion puts another backend in slot i
	// (under mu).
	slotGen []uint64

	ln, adminLn net.Listener
	tls         *tls.Config // nil: no TLS offered
	metrics     *http.Server

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	nextID  atomic.Uint32
	clients atomic.Int64

	// layout watches Options.LayoutFile (nil: none); tickLoop's.
	layout *layoutWatch

	mu     sync.Mutex // guards router and conns
	router *Router
	conns  map[net.Conn]struct{}
}

// Start opens the listeners and starts the checkers and accept loops.
func Start(opts Options) (*Server, error) {
	if err := opts.applyDefaults(); err != nil {
		return nil, err
	}
	s := &Server{opts: opts, conns: map[net.Conn]struct{}{}}
	s.addrs = append([]string{opts.Primary}, opts.Replicas...)
	s.router = NewRouter(opts.Router, opts.Primary, opts.Replicas)
	if len(s.addrs) > maxBackends {
		return nil, fmt.Errorf("proxy: %d backends, at most %d", len(s.addrs), maxBackends)
	}
	for i, site := range opts.ReplicaSites {
		if i < len(opts.Replicas) {
			s.router.SetSite(i+1, site)
		}
	}
	s.pool = newPool(s.addrs, opts.MaxConnsPerBackend, opts.BackendIdleTimeout, opts.ConnectTimeout)
	bt, err := clientTLS(opts.BackendSSL, opts.BackendSSLCA)
	if err != nil {
		return nil, err
	}
	s.pool.tls = bt
	for _, a := range s.addrs {
		db, err := s.monitorDB(a)
		if err != nil {
			s.closeMon()
			return nil, err
		}
		s.mon = append(s.mon, db)
		s.slotGen = append(s.slotGen, 0)
	}
	if !opts.NoTLS {
		cfg, err := serverTLS(opts.TLSCertFile, opts.TLSKeyFile)
		if err != nil {
			s.closeMon()
			return nil, err
		}
		s.tls = cfg
	}
	s.accts = &accounts{db: s.mon[Primary], every: 100 * time.Millisecond}
	if s.ln, err = net.Listen("tcp", opts.Listen); err != nil {
		s.closeMon()
		return nil, fmt.Errorf("proxy: listen: %w", err)
	}
	if opts.AdminListen != "-" {
		if s.adminLn, err = net.Listen("tcp", opts.AdminListen); err != nil {
			s.ln.Close()
			s.closeMon()
			return nil, fmt.Errorf("proxy: admin listen: %w", err)
		}
	}
	var metricsLn net.Listener
	if opts.MetricsListen != "" {
		if metricsLn, err = net.Listen("tcp", opts.MetricsListen); err != nil {
			s.ln.Close()
			if s.adminLn != nil {
				s.adminLn.Close()
			}
			s.closeMon()
			return nil, fmt.Errorf("proxy: metrics listen: %w", err)
		}
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if metricsLn != nil {
		s.serveMetrics(metricsLn)
	}
	for i := range s.addrs {
		s.wg.Add(1)
		go s.checkLoop(i)
	}
	if opts.LayoutFile != "" {
		s.layout = &layoutWatch{path: opts.LayoutFile}
		s.followLayout()
	}
	s.wg.Add(1)
	go s.tickLoop()
	s.wg.Add(1)
	go s.acceptLoop(s.ln, false)
	if s.adminLn != nil {
		s.wg.Add(1)
		go s.acceptLoop(s.adminLn, true)
	}
	opts.Logger.Info("proxy: listening", "addr", s.ln.Addr().String(), "admin", s.AdminAddr(),
		"primary", opts.Primary, "replicas", opts.Replicas, "max_replication_lag", s.router.Options().MaxLag)
	return s, nil
}

// Addr is the clients' listening address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// MetricsAddr is the metrics server's address ("" when none).
func (s *Server) MetricsAddr() string {
	if s.metrics == nil {
		return ""
	}
	return s.opts.MetricsListen
}

// AdminAddr is the admin port's address ("" when none).
func (s *Server) AdminAddr() string {
	if s.adminLn == nil {
		return ""
	}
	return s.adminLn.Addr().String()
}

// Close stops accepting, closes every client and backend connection and
// waits for the proxy's goroutines.
func (s *Server) Close() error {
	s.cancel()
	if s.metrics != nil {
		s.metrics.Close()
	}
	s.ln.Close()
	if s.adminLn != nil {
		s.adminLn.Close()
	}
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.pool.cutAll()
	s.wg.Wait()
	s.pool.closeIdle(true)
	s.closeMon()
	return nil
}

func (s *Server) closeMon() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, db := range s.mon {
		db.Close()
	}
}

// monitorDB opens the monitor account's connections to addr (at most
// two: a check, and the accounts' reload on the primary).
func (s *Server) monitorDB(addr string) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = s.opts.MonitorUser, s.opts.MonitorPassword, "tcp", addr
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = s.opts.CheckTimeout, s.opts.CheckTimeout, s.opts.CheckTimeout
	cfg.Logger = &mysql.NopLogger{}
	if bt := s.pool.tls; bt.cfg != nil {
		cfg.TLS = bt.cfg.Clone()
		if host, _, err := net.SplitHostPort(addr); err == nil && cfg.TLS.ServerName == "" {
			cfg.TLS.ServerName = host
		}
		cfg.AllowFallbackToPlaintext = !bt.required
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(2)
	db.SetMaxIdleConns(2)
	db.SetConnMaxIdleTime(30 * time.Second)
	return db, nil
}

func (s *Server) acceptLoop(ln net.Listener, admin bool) {
	defer s.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if s.ctx.Err() != nil {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			s.opts.Logger.Warn("proxy: accept", "err", err)
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				c.Close()
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
			}()
			s.serveConn(c, admin)
		}()
	}
}

// serveConn runs one client connection: the handshake, then commands.
func (s *Server) serveConn(c net.Conn, admin bool) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	pc := newPacketConn(c)
	if n := s.clients.Add(1); n > int64(s.opts.MaxClients) {
		defer s.clients.Add(-1)
		pc.deadline(s.opts.ConnectTimeout)
		_ = pc.writePacket(errPacket(mysqlerr.ErConCount, mysqlerr.State(mysqlerr.ErConCount), "Too many connections"))
		_ = pc.flush()
		return
	}
	defer s.clients.Add(-1)
	sess, ok := s.handshake(pc)
	if !ok {
		return
	}
	if admin {
		s.serveAdmin(sess)
		return
	}
	sess.serve()
	sess.end()
}

// handshake greets the client and checks its login; the session's first
// backend connection (to the primary) confirms the account and database.
func (s *Server) handshake(pc *packetConn) (*session, bool) {
	pc.deadline(s.opts.ConnectTimeout)
	defer pc.deadline(0)
	id := s.nextID.Add(1)
	salt, err := newSalt()
	if err != nil {
		return nil, false
	}
	pc.seq = 0
	caps := uint32(proxyCaps)
	if s.tls != nil {
		caps |= capSSL
	}
	if pc.writePacket(greeting(id, salt, caps)) != nil || pc.flush() != nil {
		return nil, false
	}
	pkt, err := pc.readPacket(64 << 10)
	if err != nil {
		return nil, false
	}
	h, err := parseHello(pkt)
	secure := false
	if err == nil && h.sslRequest {
		if s.tls == nil {
			err = errHandshake
		} else {
			// The TLS handshake reads through the packet reader: the
			// client's ClientHello may already sit in its buffer.
			tc := tls.Server(bufferedConn{pc.c, pc.r}, s.tls)
			_ = tc.SetDeadline(time.Now().Add(s.opts.ConnectTimeout))
			if err := tc.Handshake(); err != nil {
				return nil, false
			}
			seq := pc.seq
			pc = newPacketConn(tc)
			pc.seq = seq
			pc.deadline(s.opts.ConnectTimeout)
			defer pc.deadline(0)
			secure = true
			if pkt, err = pc.readPacket(64 << 10); err != nil {
				return nil, false
			}
			h, err = parseHello(pkt)
			if err == nil && h.sslRequest {
				err = errHandshake
			}
		}
	}
	if err != nil {
		s.opts.Logger.Debug("proxy: bad handshake", "err", err, "packet", fmt.Sprintf("%x", pkt))
		_ = pc.writePacket(errPacket(mysqlerr.ErHandshake, mysqlerr.State(mysqlerr.ErHandshake), "Bad handshake"))
		_ = pc.flush()
		return nil, false
	}
	host := "unknown"
	if ta, ok := pc.c.RemoteAddr().(*net.TCPAddr); ok {
		host = ta.IP.String()
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.ConnectTimeout)
	defer cancel()
	cred, ok := s.checkLogin(ctx, pc, h, host, salt, secure)
	if !ok {
		_ = pc.writePacket(accessDenied(h.user, host, len(h.auth) > 0))
		_ = pc.flush()
		return nil, false
	}
	cred.collation = h.charset
	sess := &session{srv: s, cl: pc, cred: cred, id: id, caps: h.caps, db: h.db,
		rs: Session{Mode: s.opts.DefaultMode}, stmts: map[uint32]*pstmt{}}
	// The first backend connection proves the account and database on
	// the primary (a locked account, a missing database).
	bc, err := s.pool.get(ctx, Primary, cred, s.opts.ConnectTimeout)
	if err == nil && h.db != "" {
		err = bc.useDB(h.db, s.opts.ConnectTimeout)
	}
	if err != nil {
		if bc != nil {
			s.pool.put(bc)
		}
		var me *mysqlError
		if errors.As(err, &me) {
			_ = pc.writePacket(errPacket(me.Code, me.State, me.Message))
		} else {
			_ = pc.writePacket(errPacket(mysqlerr.CrServerLost, mysqlerr.State(mysqlerr.CrServerLost), "proxy: primary unavailable: "+err.Error()))
		}
		_ = pc.flush()
		return nil, false
	}
	s.pool.put(bc)
	if pc.writePacket(okPacket(0, 0, statusAutocommit)) != nil || pc.flush() != nil {
		return nil, false
	}
	return sess, true
}

// checkLogin checks a login against the primary's accounts, reloading
// them once on a miss or a mismatch (a new account, a changed password).
// mysql_native_password is checked from the greeting's answer (the client
// is switched to it if it answered with another method);
// caching_sha2_password accounts go through sha2Login.
func (s *Server) checkLogin(ctx context.Context, pc *packetConn, h clientHello, host string, salt []byte, secure bool) (credential, bool) {
	ac, ok := s.accts.lookup(ctx, h.user, host, false)
	if !ok {
		ac, ok = s.accts.lookup(ctx, h.user, host, true)
	}
	if !ok {
		return s.authFail("no such account")
	}
	switch ac.plugin {
	case "caching_sha2_password":
		return s.sha2Login(pc, h, ac, salt, secure)
	case "mysql_native_password":
	default:
		return credential{}, false
	}
	if h.plugin != "" && h.plugin != "mysql_native_password" {
		sw := append([]byte{0xfe}, "mysql_native_password\x00"...)
		sw = append(append(sw, salt...), 0)
		if pc.writePacket(sw) != nil || pc.flush() != nil {
			return credential{}, false
		}
		var err error
		if h.auth, err = pc.readPacket(1024); err != nil {
			return credential{}, false
		}
		h.plugin = "mysql_native_password"
	}
	if stage1, ok := checkNative(ac, salt, h.auth); ok {
		return credential{user: h.user, stage1: stage1}, true
	}
	// The password may have changed since the accounts were read.
	if ac2, ok := s.accts.lookup(ctx, h.user, host, true); ok && ac2.plugin == "mysql_native_password" {
		if stage1, ok := checkNative(ac2, salt, h.auth); ok {
			return credential{user: h.user, stage1: stage1}, true
		}
	}
	return credential{}, false
}

// log writes a routing state change.
func (s *Server) logChange(c Change) {
	if c.Promoted != 0 {
		s.opts.Logger.Warn("proxy: promoted to primary", "backend", c.Name, "slot", c.Promoted, "reason", c.Reason)
		return
	}
	s.opts.Logger.Info("proxy: backend state", "backend", c.Name, "from", c.From.String(), "to", c.To.String(), "reason", c.Reason)
}

// bufferedConn reads through r (which has read ahead of the connection).
type bufferedConn struct {
	net.Conn
	r io.Reader
}

func (c bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
