// Package sqlengine is Petrel's SQL layer: go-mysql-server (GMS) wired to
// Petrel's Pebble storage. It owns the GMS database provider, tables and
// indexes, sessions and transactions, system and status variables, users
// and grants persistence, and applies the one table of MySQL error
// numbers (internal/mysqlerr) to Petrel's and GMS's errors (sqlerr/errtable.go).
// Its handler offers every statement first to the Executor (executor.go;
// the fast paths of sqlengine/fastpath), which reaches this package only
// through its executor API (execapi.go); GMS runs what it declines.
// More: docs/design/sql.md and docs/design/fastpaths.md.
//
// Contract: every committed transaction passes through storage's commit
// pipeline (and so through the commit sink) before the client's OK. Each
// Engine owns its system variables (Globals): engines in one process
// keep their values apart, except the few reads GMS makes without a
// session (docs/design/one-server.md).
package sqlengine

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/base"
	"petrel/internal/mysqlerr"
	"petrel/sqlengine/arith"
	"petrel/sqlengine/auth"
	"petrel/sqlengine/charset"
	"petrel/sqlengine/collate"
	"petrel/sqlengine/functions"
	"petrel/sqlengine/planstats"
	"petrel/sqlengine/rewrite"
	"petrel/sqlengine/sqlerr"
	"petrel/sqlengine/sqlmode"
	"petrel/sqlengine/stmtstat"
	"petrel/sqlengine/subquery"
	"petrel/sqlengine/wire"
	"petrel/storage"
)

// Version is the server version string clients see.
const Version = "8.0.40-petrel"

// Options configures an Engine. Zero values take the defaults noted.
type Options struct {
	// Store is the storage engine. Required.
	Store *storage.Engine
	// Clock is the planner statistics' clock (when an analysis was made,
	// when one is due again); nil: time.Now.
	Clock func() time.Time
	// ServerID is server_id; default 1.
	ServerID uint32
	// ServerUUID is server_uuid. Required.
	ServerUUID string
	// Logger; default slog.Default().
	Logger *slog.Logger
	// Variables are initial global variable values (from the config file),
	// by MySQL name.
	Variables map[string]string
	// TLS is the server's TLS configuration (ServerTLS); nil: clients
	// cannot use TLS (have_ssl=DISABLED).
	TLS *tls.Config
	// RSAKeys is caching_sha2_password's key pair (LoadRSAKeys); nil:
	// a client without TLS that needs full authentication is refused.
	RSAKeys *wire.RSAKeys
	// Globals are the server's system variables, with those its
	// components defined before the engine opened (their hooks bound
	// to this server's owners); nil: NewGlobals(). The engine defines
	// its own on it and applies Variables to it.
	Globals *Globals
	// GMSCreateText keeps go-mysql-server's SHOW CREATE TABLE column text
	// (no DEFAULT NULL: defaultnull.go), for GMS's own engine tests,
	// whose expected statements are written so. Servers leave it off.
	GMSCreateText bool
}

// Engine is the SQL engine. Safe for concurrent use.
type Engine struct {
	opts  Options
	store *storage.Engine
	// globals are the server's system variables (globals.go).
	globals *Globals
	gms     *sqle.Engine
	prov    *Provider
	log     *slog.Logger
	// lockWaitSecs is innodb_lock_wait_timeout's global value
	// (LockWaitTimeout), pushed by the variable's hook.
	lockWaitSecs atomic.Int64
	// stats are the planner's table and index statistics (planstats).
	stats *planstats.Provider
	// statementPanics counts statements that panicked (panics.go).
	statementPanics atomic.Int64

	sessMu   sync.Mutex
	sessions map[uint32]*Session // by connection id
	// executor answers what it can before GMS (executor.go).
	executor Executor
	// txnHook runs as a client transaction begins (txnhook.go).
	txnHook atomic.Pointer[TxnHook]
	admin   adminRegistry
	sm      *server.SessionManager
	repl    ReplicationSource
	// conns are the client connections, for shutdown (shutdown.go).
	conns connSet
	// readOnly and superReadOnly are read_only and super_read_only,
	// pushed on change (readonly.go).
	readOnly, superReadOnly atomic.Bool
	// tlocks are LOCK TABLES' and FLUSH TABLES WITH READ LOCK's locks
	// (locktables.go).
	tlocks *tableLocks
	// fastWrites lets the executor answer (petrel_fast_paths; tests
	// switch it off to compare with GMS).
	fastWrites atomic.Bool
	// admission limits the reads running at once (admission.go).
	admission *admitGate
	// acctMu runs account statements one at a time (accounts.go).
	acctMu sync.Mutex
	// nextPid numbers statements run on a client's behalf (execOnSession).
	nextPid atomic.Uint64
	// gate enforces the connection limits (connlimit.go).
	gate *wire.Gate
	// exec is the analyzer's exec builder (GMS's, with execOverrides).
	exec sql.NodeExecBuilder
	// sha2 is the caching_sha2_password method (auth/sha2auth.go).
	sha2 *auth.Sha2
	// requireSSL is the set of accounts that must log in over TLS
	// (requiressl.go); replaced whole on change.
	requireSSL atomic.Pointer[sslSet]
	// subqueryCache counts remembered subquery results used and
	// evaluations that found none (subquery/subqmemo.go; Subquery_cache_hit and
	// Subquery_cache_miss, MariaDB's names).
	subqueryCache subquery.Counters
	// status is the engine's computed global status variables
	// (RegisterStatus).
	status statusSet
	// stmts holds the statement counts of closed sessions (Questions,
	// Com_*: stmtcount.go).
	stmts stmtstat.Counters
	// groupItersBuilt counts the GROUP BY iterators built in place of
	// GMS's (iters.GroupBy; its tests read it).
	groupItersBuilt atomic.Uint64
	// groupItersInOrder counts those answering groups as their grouped
	// input came (groupstream.go).
	groupItersInOrder atomic.Uint64
}

const usersMetaKey = "mysql_db"

// New builds the SQL engine over opts.Store and loads users and grants.
func New(opts Options) (*Engine, error) {
	if opts.Store == nil {
		return nil, errors.New("sqlengine: Options.Store is required")
	}
	if opts.ServerUUID == "" {
		return nil, errors.New("sqlengine: Options.ServerUUID is required")
	}
	if opts.ServerID == 0 {
		opts.ServerID = 1
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	charset.InstallASCIIEncoders()
	collate.InstallFastSorters()
	if opts.Globals == nil {
		opts.Globals = NewGlobals()
	}
	e := &Engine{opts: opts, store: opts.Store, log: opts.Logger, sessions: map[uint32]*Session{}, globals: opts.Globals, tlocks: newTableLocks()}
	e.fastWrites.Store(true)
	e.executor = noExecutor{}
	e.prov = NewProvider(opts.Store)
	installAnalyzerRules()
	installRoutineParser()      // routineparse.go
	installServerScopeRule()    // serverscope.go
	installKeylessJoinRule()    // keylessjoin.go
	installDMLExistsRule()      // dmlexists.go
	installIgnoreSubqueryRule() // ignoresubq.go
	a := analyzer.NewDefault(e.prov)
	e.stats = planstats.New(planstats.Options{
		Store: opts.Store, Log: opts.Logger, TableOf: e.prov.tableOf,
		AutoRecalc: func() bool { return e.globals.Bool("innodb_stats_auto_recalc") },
		Now:        opts.Clock,
	})
	e.prov.stats = e.stats
	opts.Store.Go(func(closing <-chan struct{}) {
		// Statistics kept fresh as tables change, not only when a plan
		// reads them (planstats.RefreshChanged).
		t := time.NewTicker(planstats.CheckInterval)
		defer t.Stop()
		for {
			select {
			case <-closing:
				return
			case <-t.C:
				e.stats.RefreshChanged()
			}
		}
	})
	a.Catalog.StatsProvider = e.stats
	a.Coster = planstats.NewCoster(a.Coster, e.stats)
	if err := e.installCardinality(a.Catalog); err != nil {
		return nil, err
	}
	if err := e.installTableSizes(a.Catalog); err != nil {
		return nil, err
	}
	if err := e.installProcessListState(a.Catalog); err != nil { // locktables.go
		return nil, err
	}
	if err := readPerDatabase(a.Catalog, information_schema.TriggersTableName); err != nil { // infoschemahook.go
		return nil, err
	}
	if err := e.installDatabaseCollations(a.Catalog); err != nil { // dbcollation.go
		return nil, err
	}
	installSystemVariablesTable(a.Catalog) // sysvarstable.go
	e.exec = rowexec.NewOverrideBuilder(execOverrides{e})
	e.subqueryCache.Exec = e.exec
	a.ExecBuilder = e.exec
	e.gms = sqle.New(a, &sqle.Config{})
	a.Runner = callRunner{inner: a.Runner}                                   // CALL's result sets (callresults.go)
	e.gms.Parser = rewrite.ExplainParser{Parser: schemaParser{e.gms.Parser}} // rewrite/explain.go
	if err := registerVariables(e.globals, opts, e); err != nil {
		return nil, err
	}
	// Calls GMS makes without a session answer from the engine opened
	// last (globals.go), as its SHOW STATUS does.
	procVars.attach(e.globals)
	e.lockWaitSecs.Store(e.globals.Int("innodb_lock_wait_timeout", 50))
	e.readOnly.Store(e.globals.Bool("read_only"))
	e.superReadOnly.Store(e.globals.Bool("super_read_only"))
	e.globals.Add(e.fastPathsVariable())
	registerStatus(e)
	for _, f := range append(append(functions.MySQL(), functions.Windows()...), functions.Collated()...) {
		e.RegisterFunction(f)
	}
	e.RegisterFunction(releaseLockFunction(e.gms.LS)) // namedlocks.go
	e.registerConnectAttrs()
	e.registerMetadataLocks() // lockmdl.go
	e.registerPerfSchemaTables()
	e.admission = newAdmitGate(int(e.globals.Int(concurrencyVar, defaultConcurrency())), time.Now)
	e.registerAdmissionStatus()
	e.gate = wire.NewGate(wire.GateOptions{
		Logger: opts.Logger, Settings: globalSettings{e.globals}, Account: e.connAccount,
		TLS: opts.TLS, RequiresSSL: e.requiresSSL, Rewrite: rewritePrepare,
	})
	e.sha2 = auth.NewSha2(func() *mysql_db.MySQLDb { return e.gms.Analyzer.Catalog.MySQLDb }, opts.RSAKeys)
	e.RegisterStatus("Petrel_sha2_fast_auths", func() any { return e.sha2.Fast.Load() })
	e.RegisterStatus("Petrel_statement_panics", func() any { return e.statementPanics.Load() })
	e.RegisterStatus("Petrel_sha2_full_auths", func() any { return e.sha2.Full.Load() })
	wire.LimitVitessLog()
	e.registerConnStatus()
	e.RegisterAdmin(`SET PASSWORD(?: FOR .+?)? ?= ?.+`, 0, e.setPassword)
	e.RegisterAdmin(getDiagnosticsPattern, 0, e.getDiagnostics)
	e.RegisterAdmin(checksumTablePattern, 0, e.checksumTable)
	e.RegisterAdmin(tableHandlerPattern, 0, e.tableHandlerStmt) // tablehandler.go
	e.prov.callFunction = e.callStoredFunction
	e.registerFunctionStatements()                                  // storedfuncs.go
	e.registerDiagnosticStatements()                                // showerrors.go
	e.RegisterAdmin(dropTempIfExistsPattern, 0, e.dropTempIfExists) // temptables.go
	e.RegisterAdmin(dropTempPattern, 0, e.dropTemp)                 // after it
	e.RegisterAdmin(optimizeTablePattern, 0, e.optimizeTable)
	e.RegisterAdmin(checkTablePattern, 0, e.checkTable)
	e.RegisterAdmin(repairTablePattern, 0, e.repairTable)
	e.RegisterAdmin(flushStatusPattern, sql.PrivilegeType_Reload, e.flushStatus) // flushstatus.go
	e.RegisterAdmin(flushHostsPattern, sql.PrivilegeType_Reload, e.flushHosts)   // flushstatus.go
	e.RegisterAdmin(flushTablesPattern, sql.PrivilegeType_Reload, e.flushTables) // lockflush.go
	e.RegisterAdmin(`SET (NAMES|CHARACTER SET|CHARSET) ('[^']*'|"[^"]*"|[A-Za-z0-9_]+)(?: COLLATE ('[^']*'|"[^"]*"|[A-Za-z0-9_]+))?`, 0, e.setNames)
	e.RegisterAdmin(setNextTransactionPattern, 0, e.setNextTransaction)
	e.RegisterAdmin(columnsPrivDeletePattern, sql.PrivilegeType_Delete, e.deleteColumnsPriv) // columnspriv.go
	e.RegisterAdmin(`ALTER USER (?:IF EXISTS )?\S+ REQUIRE (?:SSL|X509|NONE)`, sql.PrivilegeType_CreateUser, e.adminAlterRequire)

	udb := a.Catalog.MySQLDb
	blob, err := opts.Store.GetMeta(usersMetaKey)
	if err != nil {
		return nil, err
	}
	if blob != nil {
		if err := udb.LoadData(sql.NewEmptyContext(), blob); err != nil {
			return nil, base.Wrap(base.ClassCorrupt, err, "sqlengine: users and grants")
		}
		udb.SetEnabled(true)
	}
	udb.SetPersister(usersPersister{opts.Store})
	if err := e.loadRequireSSL(); err != nil {
		return nil, base.Wrap(base.ClassCorrupt, err, "sqlengine: REQUIRE SSL accounts")
	}
	if blob != nil {
		if err := e.ensureSessionAccount(); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// sessionAccount is the account internal sessions (the replication
// applier) run as, like MySQL's mysql.session: a superuser whose random
// password is never stored or shown, so nobody can log in with it.
const sessionUser, sessionHost = "mysql.session", "localhost"

func (e *Engine) ensureSessionAccount() error {
	udb := e.gms.Analyzer.Catalog.MySQLDb
	rd := udb.Reader()
	u := udb.GetUser(rd, sessionUser, sessionHost, false)
	rd.Close()
	if u != nil {
		return nil
	}
	ed := udb.Editor()
	udb.AddSuperUser(ed, sessionUser, sessionHost, randomSecret())
	err := udb.Persist(sql.NewEmptyContext(), ed)
	ed.Close()
	return err
}

func randomSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // documented never to fail
	return hex.EncodeToString(b)
}

// HasUsers reports whether any account exists (the datadir is initialised).
func (e *Engine) HasUsers() bool {
	blob, err := e.store.GetMeta(usersMetaKey)
	return err == nil && blob != nil
}

// CreateRoot creates root@localhost and root@% with the given password and
// persists only its hash.
func (e *Engine) CreateRoot(password string) error {
	udb := e.gms.Analyzer.Catalog.MySQLDb
	ed := udb.Editor()
	udb.AddSuperUser(ed, "root", "localhost", password)
	udb.AddSuperUser(ed, "root", "%", password)
	ctx := sql.NewEmptyContext()
	err := udb.Persist(ctx, ed)
	ed.Close()
	if err != nil {
		return err
	}
	return e.ensureSessionAccount()
}

// GMS exposes the underlying GMS engine (tests, the replication applier).
func (e *Engine) GMS() *sqle.Engine { return e.gms }

// SetFastWrites lets the executor answer, or makes GMS answer every
// statement (default on; petrel_fast_paths).
func (e *Engine) SetFastWrites(on bool) { e.fastWrites.Store(on) }

// Store returns the storage engine.
func (e *Engine) Store() *storage.Engine { return e.store }

type usersPersister struct{ s *storage.Engine }

// Persist stores the account tables. During an account statement it only
// hands the blob to the statement, which commits it with its binlog event
// (accounts.go); other writers (initialisation) store it at once.
func (p usersPersister) Persist(ctx *sql.Context, data []byte) error {
	if ctx != nil {
		if s, ok := ctx.Session.(*Session); ok && s.acct != nil {
			s.acct.blob = append([]byte(nil), data...)
			return nil
		}
	}
	return p.s.SetMetaSync(usersMetaKey, data)
}

// NewSession builds a session for a connection.
func (e *Engine) NewSession(_ context.Context, conn *mysql.Conn, addr string) (sql.Session, error) {
	host, user := "", ""
	if u, ok := conn.UserData.(sql.MysqlConnectionUser); ok {
		host, user = u.Host, u.User
	}
	client := sql.Client{Address: host, User: user, Capabilities: conn.Capabilities}
	s := &Session{BaseSession: e.newBaseSession(addr, client, conn.ConnectionID), eng: e}
	s.conn, _ = conn.ClientData.(*connState)
	e.startConnSession(s)
	if cc, ok := conn.Conn.(*wire.Conn); ok {
		if st := cc.TLSState(); st != nil {
			ctx := sql.NewEmptyContext()
			_ = s.SetStatusVariable(ctx, "Ssl_cipher", tls.CipherSuiteName(st.CipherSuite))
			_ = s.SetStatusVariable(ctx, "Ssl_version", wire.TLSVersionName(st.Version))
		}
		noteCompression(s, cc)
		s.attrs = cc.Attrs()
	}
	if err := s.applyHandshake(sql.NewEmptyContext(), conn.CharacterSet); err != nil {
		return nil, err
	}
	e.sessMu.Lock()
	e.sessions[conn.ConnectionID] = s
	e.sessMu.Unlock()
	// The process list learns the account now: GMS tells it only when a
	// database is chosen (COM_INIT_DB), so a connection opened without
	// one showed as "unauthenticated user" in SHOW PROCESSLIST.
	if e.gms.ProcessList != nil {
		e.gms.ProcessList.ConnectionReady(s)
	}
	return s, nil
}

func (e *Engine) session(connID uint32) *Session {
	e.sessMu.Lock()
	defer e.sessMu.Unlock()
	return e.sessions[connID]
}

// connSession returns the connection's session, creating it the way GMS
// does when a connection's first statement is one Petrel answers itself.
func (e *Engine) connSession(ctx context.Context, c *mysql.Conn, q string) (*Session, error) {
	if s := e.session(c.ConnectionID); s != nil {
		return s, nil
	}
	sctx, err := e.sm.NewContextWithQuery(ctx, c, q)
	if err != nil {
		return nil, err
	}
	s, ok := sctx.Session.(*Session)
	if !ok {
		return nil, fmt.Errorf("sqlengine: session %T is not Petrel's", sctx.Session)
	}
	return s, nil
}

func (e *Engine) connectionClosed(connID uint32) {
	if e.repl != nil {
		e.repl.Disconnected(connID)
	}
	e.sessMu.Lock()
	if s := e.sessions[connID]; s != nil {
		e.retireStatements(s)
		e.dropTempTables(s)
	}
	delete(e.sessions, connID)
	e.sessMu.Unlock()
	e.executor.Closed(connID)
	e.tlocks.release(connID)
}

// NewInternalSession builds a session not tied to a connection (the
// replication applier, tests).
func (e *Engine) NewInternalSession() *Session {
	client := sql.Client{User: sessionUser, Address: sessionHost}
	return &Session{BaseSession: e.newBaseSession("", client, 0), eng: e, internal: true}
}

// NewContext returns a query context over session s.
func (e *Engine) NewContext(ctx context.Context, s *Session) *sql.Context {
	return sql.NewContext(ctx, sql.WithSession(s), sql.WithProcessList(e.gms.ProcessList))
}

// Listen starts the MySQL protocol server on addr. The returned server
// runs until Close.
func (e *Engine) Listen(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("sqlengine: listen %s: %w", addr, err)
	}
	cfg := server.Config{
		Protocol: "tcp",
		Address:  ln.Addr().String(),
		Listener: wire.NewListener(ln, e.gate),
		Version:  Version,
		// No vitess limit: it would count sockets still authenticating;
		// wire.Gate counts authenticated connections (max_connections).
		MaxConnections: 0,

		ProtocolListenerFactory: e.listenerFactory,
	}
	s, err := server.NewServerWithHandler(cfg, e.gms, sql.NewContext, e.NewSession, nil, e.wrapHandler)
	if err != nil {
		ln.Close()
		return nil, err
	}
	e.sm = s.SessionManager()
	srv := &Server{s: s, addr: ln.Addr().String(), done: make(chan error, 1)}
	go func() { srv.done <- s.Start() }()
	return srv, nil
}

// Server is a running MySQL protocol listener.
type Server struct {
	s    *server.Server
	addr string
	done chan error
}

// Addr is the listening address.
func (s *Server) Addr() string { return s.addr }

// Close stops accepting connections and closes existing ones.
func (s *Server) Close() error {
	err := s.s.Close()
	<-s.done
	return err
}

// checkWritable enforces read_only / super_read_only and refused writes.
func (e *Engine) checkWritable(ctx *sql.Context) error {
	if err := e.store.WriteError(); err != nil {
		return sqlerr.ToMySQL(err)
	}
	s, _ := ctx.Session.(*Session)
	if s != nil && s.internal {
		return nil
	}
	if e.superReadOnly.Load() {
		return mysqlerr.New(mysqlerr.ErOptionPreventsStatement,
			"The MySQL server is running with the --super-read-only option so it cannot execute this statement")
	}
	if e.readOnly.Load() && !e.hasSuper(ctx) {
		return mysqlerr.New(mysqlerr.ErOptionPreventsStatement,
			"The MySQL server is running with the --read-only option so it cannot execute this statement")
	}
	return nil
}

func (e *Engine) hasSuper(ctx *sql.Context) bool {
	udb := e.gms.Analyzer.Catalog.MySQLDb
	if !udb.Enabled() {
		return true
	}
	client := ctx.Session.Client()
	rd := udb.Reader()
	defer rd.Close()
	u := udb.GetUser(rd, client.User, client.Address, false)
	return u != nil && (u.IsSuperUser || u.PrivilegeSet.Has(sql.PrivilegeType_Super))
}

// schemaParser rewrites CREATE/DROP SCHEMA to CREATE/DROP DATABASE: GMS
// rejects CREATE SCHEMA without a current database, which mysqlslap sends.
// It also marks the session of a locking SELECT (lockparse.go), and reads
// string literals under the session's sql_mode (sqlmode/modetext.go).
type schemaParser struct{ sql.Parser }

// clipSubStatement keeps a DDL's body (a view's SELECT, a trigger's or
// routine's body) within the statement text a: in a multi-statement
// query vitess ends it one past the ';', which GMS trims from a, and
// GMS's slice of the body then failed (CREATE VIEW ...; DROP VIEW: 1105
// "unable to get sub statement"; CREATE PROCEDURE ...; SELECT: a panic
// that dropped the connection).
func clipSubStatement(st ast.Statement, a string, multi bool) {
	if d, ok := st.(*ast.DDL); ok && multi && d.SubStatementPositionEnd > len(a) {
		d.SubStatementPositionEnd = len(a)
	}
}

// keepViewText keeps a CREATE VIEW's SELECT as text in the statement,
// the client's text q of it, r being the text it was parsed from (q
// after sqlmode's rewrites, which added bytes at added). GMS slices it
// out of the query being run, which for a prepared CREATE VIEW (PREPARE
// s FROM '...', parsed again by ParseOneWithOptions for the cache) is
// the EXECUTE: 1105 "unable to get sub statement" (mtr's
// information_schema_prepare); and with a rewrite that added bytes (the
// function INTERVAL(N, N1, ...) quoted, intervalunit.go) its offsets
// into r were off in q: the same error, or a cut SELECT (mtr's
// view_alias).
func keepViewText(st ast.Statement, q, r string, added []int) {
	d, ok := st.(*ast.DDL)
	if !ok || d.ViewSpec == nil || d.SubStatementStr != "" {
		return
	}
	i, j := d.SubStatementPositionStart, d.SubStatementPositionEnd
	if i < 0 || i > j || j > len(r) {
		return
	}
	if added != nil {
		i, j = sqlmode.OriginalOffset(i, added), sqlmode.OriginalOffset(j, added)
		if i < 0 || i > j || j > len(q) {
			return
		}
	}
	d.SubStatementStr = q[i:j]
}

// originalBodySpan maps the body offsets of a CREATE TRIGGER, PROCEDURE,
// FUNCTION or EVENT parsed from r, a rewrite of the client's text that
// added bytes at added, back to the client's text, which GMS slices the
// body out of (and stores): a DO in the body, rewritten
// (sqlmode/routinedo.go), made those offsets run past the text (1105 on
// a recovered panic, mtr's trigger_no_defaults-11698). The stored text
// is rewritten again each time it is parsed.
func originalBodySpan(st ast.Statement, added []int) {
	d, ok := st.(*ast.DDL)
	if !ok || added == nil || (d.TriggerSpec == nil && d.ProcedureSpec == nil && d.EventSpec == nil) {
		return
	}
	d.SubStatementPositionStart = sqlmode.OriginalOffset(d.SubStatementPositionStart, added)
	d.SubStatementPositionEnd = sqlmode.OriginalOffset(d.SubStatementPositionEnd, added)
}

func fixSchema(stmt ast.Statement) ast.Statement {
	if d, ok := stmt.(*ast.DBDDL); ok && strings.EqualFold(d.SchemaOrDatabase, "schema") {
		d.SchemaOrDatabase = "database"
	}
	rewrite.SelectClauses(stmt)        // rewrite/namedwindow.go, groupconst.go
	arith.ProtectDecimalLiterals(stmt) // arith/decliteral.go
	rewrite.AliasSubqueryTables(stmt)  // rewrite/subqalias.go
	rewrite.AlterRename(stmt)          // rewrite/alterrename.go
	rewrite.ODKUAlias(stmt)            // rewrite/odkualias.go
	rewrite.HavingVariables(stmt)      // rewrite/havingvar.go
	rewrite.CTEAuth(stmt)              // rewrite/cteauth.go
	castZeroMark(stmt)                 // castzero.go
	bitLiterals(stmt)                  // bitliteral.go
	intervalArith(stmt)                // intervalarith.go
	maskRoutine(stmt)                  // routinecond.go
	columnsPrivReads(stmt)             // columnspriv.go
	dbDDLAuth(stmt)                    // dbddlauth.go
	return stmt
}

// checked is a parse's outcome of the text q: st and err, or no statement and the
// error MySQL's parser reports for a routine's conditions that vitess's
// does not (routinecheck.go). No statement, as for vitess's own errors:
// GMS's multi-statement path ignores the error of a parse that gave one.
func checked(q string, st ast.Statement, err error) (ast.Statement, error) {
	if err != nil {
		return st, windowFrameError(err) // windowcheck.go
	}
	if st == nil {
		return st, err
	}
	st, rerr := rewrite.Rollup(st, fixSchema) // rewrite/rollup.go
	if rerr != nil {
		return nil, rerr
	}
	if cerr := checkRoutine(st); cerr != nil {
		return nil, cerr
	}
	if cerr := checkTemporalPrecision(st); cerr != nil { // timefsp.go
		return nil, cerr
	}
	if cerr := checkFloatDigits(st); cerr != nil { // floatdigits.go
		return nil, cerr
	}
	if cerr := checkCharsetClauses(st); cerr != nil { // charsetclauses.go
		return nil, cerr
	}
	if cerr := checkInvisible(st, q); cerr != nil { // invisible.go
		return nil, cerr
	}
	if cerr := checkIdentifiers(st); cerr != nil { // identcheck.go
		return nil, cerr
	}
	if cerr := checkWindowUse(st); cerr != nil { // windowcheck.go
		return nil, cerr
	}
	if cerr := checkLikeSelf(st); cerr != nil { // likeself.go
		return nil, cerr
	}
	if cerr := checkVarTableName(st, q); cerr != nil { // vartable.go
		return nil, cerr
	}
	if cerr := emptyDBName(st, q); cerr != nil { // dbnameempty.go
		return nil, cerr
	}
	return topLevelResignal(st), nil
}

func (p schemaParser) ParseSimple(q string) (ast.Statement, error) {
	r, _ := sqlmode.Text(q, false, false)
	st, _, _, err := withColumnsSelect(r, false, func(s string) (ast.Statement, string, string, error) { // ctascolumns.go
		st, err := p.Parser.ParseSimple(s)
		return st, s, "", err
	})
	arith.RewriteBitNot(q, st)
	rewriteQuantified(st)              // quantified.go
	st, err = windowDefsError(st, err) // windowcheck.go, before fixSchema inlines named windows
	st, err = checked(r, fixSchema(st), err)
	return st, err
}

func (p schemaParser) Parse(ctx *sql.Context, q string, multi bool) (ast.Statement, string, string, error) {
	r, added := sqlmode.SessionText(ctx, q)
	st, a, b, err := withColumnsSelect(r, sql.LoadSqlMode(ctx).AnsiQuotes(), func(s string) (ast.Statement, string, string, error) { // ctascolumns.go
		return p.Parser.Parse(ctx, s, multi)
	})
	clipSubStatement(st, a, multi)
	if added != nil {
		keepViewText(st, q, r, added)
	}
	originalBodySpan(st, added)
	if added != nil && err == nil {
		a, b = sqlmode.RewrittenRemainder(q, r, b, ';', added)
	}
	sqlmode.OriginalNames(q, r, added, st)
	markLocking(ctx, q, st)
	joinDMLRewrites(ctx, st)    // keylessjoin.go
	insertIntoViews(ctx, st)    // viewinsert.go
	updateThroughViews(ctx, st) // viewupdate.go
	noteStatement(ctx, st)
	noteClientStatement(ctx, st)                    // stmterr.go
	if perr := unpreparable(ctx, st); perr != nil { // psrefuse.go
		st, err = nil, perr
	}
	noteTimePrecisions(ctx, st)
	arith.RewriteBitNot(q, st)
	rewriteQuantified(st)                                           // quantified.go
	if derr := selectDefaults(ctx, st); derr != nil && err == nil { // defaultfunc.go
		st, err = nil, derr
	}
	st, err = windowDefsError(st, err) // windowcheck.go, before fixSchema inlines named windows
	st, err = checked(r, fixSchema(st), err)
	return st, a, b, err
}

func (p schemaParser) ParseWithOptions(ctx context.Context, q string, delim rune, multi bool, o ast.ParserOptions) (ast.Statement, string, string, error) {
	r, added := sqlmode.SessionText(ctx, q)
	st, a, b, err := withColumnsSelect(r, o.AnsiQuotes, func(s string) (ast.Statement, string, string, error) { // ctascolumns.go
		return p.Parser.ParseWithOptions(ctx, s, delim, multi, o)
	})
	clipSubStatement(st, a, multi)
	if !multi || added != nil {
		keepViewText(st, q, r, added)
	}
	originalBodySpan(st, added)
	if added != nil && err == nil {
		a, b = sqlmode.RewrittenRemainder(q, r, b, delim, added)
	}
	sqlmode.OriginalNames(q, r, added, st)
	markLocking(ctx, q, st)
	joinDMLRewrites(ctx, st)    // keylessjoin.go
	insertIntoViews(ctx, st)    // viewinsert.go
	updateThroughViews(ctx, st) // viewupdate.go
	noteStatement(ctx, st)
	noteClientStatement(ctx, st)                    // stmterr.go
	if perr := unpreparable(ctx, st); perr != nil { // psrefuse.go
		st, err = nil, perr
	}
	if !multi {
		prepareCheckOrderBy(ctx, st) // psorderby.go
	}
	noteTimePrecisions(ctx, st)
	arith.RewriteBitNot(q, st)
	rewriteQuantified(st)                                           // quantified.go
	if derr := selectDefaults(ctx, st); derr != nil && err == nil { // defaultfunc.go
		st, err = nil, derr
	}
	st, err = windowDefsError(st, err) // windowcheck.go, before fixSchema inlines named windows
	st, err = checked(r, fixSchema(st), err)
	return st, a, b, err
}

func (p schemaParser) ParseOneWithOptions(ctx context.Context, q string, o ast.ParserOptions) (ast.Statement, int, error) {
	r, added := sqlmode.SessionText(ctx, q)
	st, a, _, err := withColumnsSelect(r, o.AnsiQuotes, func(s string) (ast.Statement, string, string, error) { // ctascolumns.go
		st, m, err := p.Parser.ParseOneWithOptions(ctx, s, o)
		m = max(0, min(m, len(s)))
		return st, s[:m], s[m:], err
	})
	n := len(a) // where the statement ends in r
	keepViewText(st, q, r, added)
	originalBodySpan(st, added)
	if added != nil {
		n = sqlmode.OriginalOffset(n, added)
	}
	sqlmode.OriginalNames(q, r, added, st)
	markLocking(ctx, q, st)
	joinDMLRewrites(ctx, st)    // keylessjoin.go
	insertIntoViews(ctx, st)    // viewinsert.go
	updateThroughViews(ctx, st) // viewupdate.go
	noteStatement(ctx, st)
	noteTimePrecisions(ctx, st)
	arith.RewriteBitNot(q, st)
	rewriteQuantified(st)              // quantified.go
	st, err = windowDefsError(st, err) // windowcheck.go, before fixSchema inlines named windows
	st, err = checked(r, fixSchema(st), err)
	return st, n, err
}
