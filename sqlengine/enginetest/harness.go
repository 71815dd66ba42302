// Package enginetest runs go-mysql-server's own engine test suites
// (github.com/dolthub/go-mysql-server/enginetest) against Petrel's storage
// backend, through a GMS Harness built on sqlengine and storage.
//
// Every engine the harness hands out is a fresh Petrel server: a new
// storage.Engine on an in-memory Pebble filesystem (vfs.NewMem), a new
// sqlengine.Engine over it, and the GMS engine it built (Engine.GMS()), so
// the queries run through exactly the provider, tables, indexes, sessions
// and transactions a Petrel server uses. Sessions are Petrel sessions made
// by Engine.NewSession, as for a client connection of root@localhost.
//
// See docs/ENGINETEST.md for how to run the suites and count results.
package enginetest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	sqle "github.com/dolthub/go-mysql-server"
	gmstest "github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/enginetest/scriptgen/setup"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/sqlengine"
	"petrel/storage"
)

// Harness is a gmstest.Harness over Petrel. It is not safe for concurrent
// use by several tests (neither is GMS's memory harness).
type Harness struct {
	// LockWaitTimeout is the global innodb_lock_wait_timeout of every
	// engine (seconds). GMS's suites drive several sessions from one
	// goroutine, so a lock conflict can only end by timing out; keep it
	// short. Default 1.
	LockWaitTimeout int
	// Server runs each engine behind GMS's MySQL protocol server and
	// queries it over the wire (gmstest.ServerQueryEngine), so Petrel's
	// session lifecycle hooks (CommandBegin/CommandEnd) run as they do in
	// production. Default false: queries go straight to the engine
	// (sqle.Engine.Query), as GMS's own harnesses do, and those hooks
	// never run.
	Server bool
	// StrictSetup makes a setup statement that Petrel rejects as a
	// feature it lacks fail the whole test, as gmstest.RunSetupScripts
	// does. By default such statements (foreign keys:
	// sql.ErrNoForeignKeySupport; FULLTEXT/SPATIAL/VECTOR indexes and
	// savepoints: sql.ErrUnsupportedFeature) are dropped and counted in
	// SkippedSetup, so a suite whose shared setup declares one foreign key
	// (TestQueries' SimpleSetup) or one vector index
	// (TestComplexIndexQueries) still runs its other tests. This applies
	// to harness setup data only, never to a script's own statements.
	StrictSetup bool
	// SkippedSetup counts setup statements dropped (see StrictSetup).
	SkippedSetup int

	mu        sync.Mutex
	setupData []setup.SetupScript
	eng       *sqlengine.Engine // the engine of the latest NewEngine
	session   sql.Session
	skip      func(string) bool
	stores    []*storage.Engine
}

var (
	_ gmstest.Harness             = (*Harness)(nil)
	_ gmstest.IndexHarness        = (*Harness)(nil)
	_ gmstest.ForeignKeyHarness   = (*Harness)(nil)
	_ gmstest.KeylessTableHarness = (*Harness)(nil)
	_ gmstest.TransactionHarness  = (*Harness)(nil)
	_ gmstest.ClientHarness       = (*Harness)(nil)
	_ gmstest.ServerHarness       = (*Harness)(nil)
	_ gmstest.SkippingHarness     = (*Harness)(nil)
	_ gmstest.ValidatingHarness   = (*Harness)(nil)
)

// NewHarness returns a harness that runs every test.
func NewHarness() *Harness { return &Harness{LockWaitTimeout: 1} }

// WithSkips makes the harness skip the queries and scripts for which
// skip returns true (gmstest.SkippingHarness).
func (h *Harness) WithSkips(skip func(query string) bool) *Harness {
	h.skip = skip
	return h
}

// SkipQueryTest implements gmstest.SkippingHarness.
func (h *Harness) SkipQueryTest(query string) bool {
	return h.skip != nil && h.skip(query)
}

// Setup implements gmstest.Harness.
func (h *Harness) Setup(scripts ...[]setup.SetupScript) {
	h.setupData = nil
	for _, s := range scripts {
		h.setupData = append(h.setupData, s...)
	}
}

// quiet discards Petrel's and Pebble's logging: thousands of engines are
// opened and dropped per suite.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// newPetrel opens a fresh, empty Petrel: in-memory Pebble, SQL engine,
// root account. The store is closed when t ends (or at Close).
func (h *Harness) newPetrel(t *testing.T) (*sqlengine.Engine, error) {
	st, err := storage.Open(storage.Options{
		Dir:             "/petrel",
		FS:              vfs.NewMem(),
		Logger:          quiet,
		LockWaitTimeout: time.Duration(max(h.LockWaitTimeout, 1)) * time.Second,
		MemTableSize:    4 << 20,
	})
	if err != nil {
		return nil, err
	}
	eng, err := sqlengine.New(sqlengine.Options{
		Store:      st,
		ServerUUID: "3e11fa47-71ca-11e1-9e33-c80aa9429562",
		Logger:     quiet,
		// GMS's suites assert GMS's default collation (utf8mb4_0900_bin) in
		// SHOW CREATE output and in literal comparisons; Petrel defaults to
		// MySQL 8.0's utf8mb4_0900_ai_ci. Run them configured as GMS is, as
		// an option file's collation-server would.
		// Their statements assume GMS's default sql_mode too (zero dates
		// stored, a division by zero written as NULL); Petrel's is MySQL
		// 8's (variables.go MySQLDefaultSQLMode).
		Variables: map[string]string{"collation_server": "utf8mb4_0900_bin", "collation_connection": "utf8mb4_0900_bin",
			"sql_mode": sql.DefaultSqlMode},
		// GMS's expected SHOW CREATE TABLE text has no DEFAULT NULL
		// (MySQL's, which Petrel's servers print).
		GMSCreateText: true,
	})
	if err != nil {
		st.Close()
		return nil, err
	}
	if err := eng.Globals().SetFromString("innodb_lock_wait_timeout", fmt.Sprint(max(h.LockWaitTimeout, 1))); err != nil {
		st.Close()
		return nil, err
	}
	// As gmstest.NewEngineWithProvider: every test runs as root with all
	// privileges.
	eng.GMS().Analyzer.Catalog.MySQLDb.AddRootAccount()

	h.mu.Lock()
	h.stores = append(h.stores, st)
	h.mu.Unlock()
	if t != nil {
		t.Cleanup(func() { h.closeStore(st) })
	}
	return eng, nil
}

func (h *Harness) closeStore(st *storage.Engine) {
	h.mu.Lock()
	for i, s := range h.stores {
		if s == st {
			h.stores = append(h.stores[:i], h.stores[i+1:]...)
			h.mu.Unlock()
			_ = st.Close()
			return
		}
	}
	h.mu.Unlock()
}

// Close closes every store the harness still holds open.
func (h *Harness) Close() {
	h.mu.Lock()
	stores := h.stores
	h.stores = nil
	h.mu.Unlock()
	for _, st := range stores {
		_ = st.Close()
	}
}

// engine returns the current Petrel engine, creating an empty one if no
// NewEngine has run yet (some suites ask for a context first).
func (h *Harness) engine() *sqlengine.Engine {
	if h.eng == nil {
		eng, err := h.newPetrel(nil)
		if err != nil {
			panic(fmt.Sprintf("enginetest: open petrel: %v", err))
		}
		h.eng = eng
	}
	return h.eng
}

// NewEngine implements gmstest.Harness: a fresh Petrel holding exactly
// the setup data given to Setup (GMS's MydbData when none was).
func (h *Harness) NewEngine(t *testing.T) (gmstest.QueryEngine, error) {
	eng, err := h.newPetrel(t)
	if err != nil {
		return nil, err
	}
	h.eng = eng
	h.session = nil
	data := h.setupData
	if len(data) == 0 {
		data = setup.MydbData
	}
	gms := eng.GMS()
	if err := h.runSetup(gmstest.NewContext(h), gms, data); err != nil {
		return nil, err
	}
	// Tests start with a clean session, as with the memory harness.
	h.session = nil
	if h.Server {
		return gmstest.NewServerQueryEngine(t, gms, h.SessionBuilder())
	}
	return gms, nil
}

// runSetup is gmstest.RunSetupScripts, but for StrictSetup.
func (h *Harness) runSetup(ctx *sql.Context, e *sqle.Engine, scripts []setup.SetupScript) error {
	for _, script := range scripts {
		for _, q := range script {
			qctx := ctx.WithQuery(q)
			_, iter, _, err := e.Query(qctx, q)
			if err == nil {
				_, err = sql.RowIterToRows(qctx, iter)
			}
			if err != nil {
				if !h.StrictSetup && (sql.ErrNoForeignKeySupport.Is(err) || sql.ErrUnsupportedFeature.Is(err)) {
					h.SkippedSetup++
					continue
				}
				return fmt.Errorf("setup %q: %w", q, err)
			}
		}
	}
	return nil
}

func (h *Harness) newSession(client sql.Client) sql.Session {
	conn := &mysql.Conn{ConnectionID: 1, UserData: sql.MysqlConnectionUser{User: client.User, Host: client.Address}}
	s, err := h.engine().NewSession(context.Background(), conn, "address")
	if err != nil {
		panic(fmt.Sprintf("enginetest: new session: %v", err))
	}
	return s
}

var rootClient = sql.Client{Address: "localhost", User: "root"}

// NewContext implements gmstest.Harness. The session lives until the next
// NewEngine or NewSession.
func (h *Harness) NewContext() *sql.Context {
	if h.session == nil {
		h.session = h.newSession(rootClient)
	}
	return sql.NewContext(context.Background(), sql.WithSession(h.session))
}

// NewSession implements gmstest.TransactionHarness.
func (h *Harness) NewSession() *sql.Context {
	h.session = h.newSession(rootClient)
	return h.NewContext()
}

// NewContextWithClient implements gmstest.ClientHarness.
func (h *Harness) NewContextWithClient(client sql.Client) *sql.Context {
	return sql.NewContext(context.Background(), sql.WithSession(h.newSession(client)))
}

// SessionBuilder implements gmstest.ServerHarness: Petrel's own builder.
func (h *Harness) SessionBuilder() server.SessionBuilder {
	return func(ctx context.Context, c *mysql.Conn, addr string) (sql.Session, error) {
		return h.engine().NewSession(ctx, c, addr)
	}
}

// SupportsNativeIndexCreation implements gmstest.IndexHarness.
func (h *Harness) SupportsNativeIndexCreation() bool { return true }

// SupportsForeignKeys implements gmstest.ForeignKeyHarness: Petrel's
// tables implement sql.ForeignKeyTable (sqlengine/foreignkeys.go).
func (h *Harness) SupportsForeignKeys() bool { return true }

// SupportsKeylessTables implements gmstest.KeylessTableHarness (hidden
// row ids, as InnoDB's DB_ROW_ID).
func (h *Harness) SupportsKeylessTables() bool { return true }

// ValidateEngine implements gmstest.ValidatingHarness with the memory
// harness's check: every table a database lists resolves, under that name.
func (h *Harness) ValidateEngine(ctx *sql.Context, e *sqle.Engine) error {
	for _, db := range e.Analyzer.Catalog.AllDatabases(ctx) {
		names, err := db.GetTableNames(ctx)
		if err != nil {
			return err
		}
		for _, name := range names {
			t, ok, err := db.GetTableInsensitive(ctx, name)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("expected to find table %s", name)
			}
			if t.Name() != name {
				return fmt.Errorf("unexpected table name (%s != %s)", name, t.Name())
			}
		}
	}
	return nil
}
