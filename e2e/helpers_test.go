package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
)

// rootPassword is the root password every test server is started with.
const rootPassword = "e2e-r00t"

// strictEnv, when "1" (CI), turns a missing client tool into a failure.
const strictEnv = "PETREL_LAB_STRICT"

// Error codes the tests expect, by MySQL name.
const (
	erAccessDenied       = 1045 // ER_ACCESS_DENIED_ERROR
	erBadDB              = 1049 // ER_BAD_DB_ERROR
	erDupEntry           = 1062 // ER_DUP_ENTRY
	erParse              = 1064 // ER_PARSE_ERROR
	erNetPacketTooLarge  = 1153 // ER_NET_PACKET_TOO_LARGE
	erNoSuchTable        = 1146 // ER_NO_SUCH_TABLE
	erLockWaitTimeout    = 1205 // ER_LOCK_WAIT_TIMEOUT
	erLockDeadlock       = 1213 // ER_LOCK_DEADLOCK
	erOptionPreventsStmt = 1290 // ER_OPTION_PREVENTS_STATEMENT
	erWrongValueForVar   = 1231 // ER_WRONG_VALUE_FOR_VAR
)

// requireTool finds a client tool on PATH (or at fallback). It skips the
// test when the tool is missing, unless PETREL_LAB_STRICT=1.
func requireTool(t *testing.T, name, fallback string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if _, err := os.Stat(fallback); err == nil {
		return fallback
	}
	if os.Getenv(strictEnv) == "1" {
		t.Fatalf("%s not found on PATH or at %s, and %s=1", name, fallback, strictEnv)
	}
	t.Skipf("%s not installed; run scripts/deps.sh", name)
	return ""
}

// testContext returns a context that ends at d from now, or a little
// before the test binary's own deadline, whichever is first.
func testContext(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	deadline := time.Now().Add(d)
	if td, ok := t.Deadline(); ok && td.Add(-10*time.Second).Before(deadline) {
		deadline = td.Add(-10 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	t.Cleanup(cancel)
	return ctx
}

// startPetrel starts a server on a fresh t.TempDir() datadir and a free
// port with rootPassword. Cleanup stops it, failing the test if the stop
// was not clean or the server's log shows a panic (recovered or not), and
// prints the server's log if the test failed.
func startPetrel(t *testing.T, ctx context.Context, opts lab.PetrelOptions) *lab.Petrel {
	t.Helper()
	if opts.Datadir == "" {
		opts.Datadir = t.TempDir()
	}
	if opts.RootPassword == "" {
		opts.RootPassword = rootPassword
	}
	p, err := lab.StartPetrel(ctx, opts)
	if err != nil {
		t.Fatalf("start petrel: %v", err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
		defer cancel()
		if err := p.Stop(sctx); err != nil {
			t.Errorf("stop petrel: %v", err)
		}
		if line := panicLine(p.Log()); line != "" {
			t.Errorf("the server's log shows a panic: %s", line)
		}
		if t.Failed() {
			t.Logf("petrel log (tail):\n%s", tail(p.Log(), 16<<10))
		}
	})
	return p
}

// clientConfig is a driver config for user on p, database db ("" for
// none). The driver's own logger is silenced: tests that kill the server
// would otherwise fill the output with "unexpected EOF".
func clientConfig(t *testing.T, p *lab.Petrel, user, password, db string) *mysql.Config {
	t.Helper()
	cfg, err := mysql.ParseDSN(p.DSN(db))
	if err != nil {
		t.Fatalf("parse DSN: %v", err)
	}
	cfg.User = user
	cfg.Passwd = password
	cfg.Logger = &mysql.NopLogger{}
	return cfg
}

// openConfig opens a *sql.DB for cfg and closes it when the test ends.
func openConfig(t *testing.T, cfg *mysql.Config) *sql.DB {
	t.Helper()
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatalf("connector: %v", err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

// rootDB opens a *sql.DB for root on p, database db.
func rootDB(t *testing.T, p *lab.Petrel, db string) *sql.DB {
	t.Helper()
	return openConfig(t, clientConfig(t, p, "root", rootPassword, db))
}

// querier is what *sql.DB, *sql.Conn and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// mustExec runs each statement and fails the test on the first error.
func mustExec(t *testing.T, ctx context.Context, q querier, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := q.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// queryInt runs a query returning one integer (NULL reads as 0).
func queryInt(t *testing.T, ctx context.Context, q querier, query string, args ...any) int64 {
	t.Helper()
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, query, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return v.Int64
}

// queryString runs a query returning one string.
func queryString(t *testing.T, ctx context.Context, q querier, query string, args ...any) string {
	t.Helper()
	var v sql.NullString
	if err := q.QueryRowContext(ctx, query, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return v.String
}

// globalStatus reads one SHOW GLOBAL STATUS counter; it fails the test if
// the server does not report it.
func globalStatus(t *testing.T, ctx context.Context, q querier, name string) int64 {
	t.Helper()
	var n string
	var v sql.NullString
	err := q.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v)
	if errors.Is(err, sql.ErrNoRows) {
		t.Fatalf("SHOW GLOBAL STATUS has no %s", name)
	}
	if err != nil {
		t.Fatalf("SHOW GLOBAL STATUS LIKE '%s': %v", name, err)
	}
	var x int64
	if _, err := fmt.Sscan(v.String, &x); err != nil {
		t.Fatalf("status %s = %q is not a number", name, v.String)
	}
	return x
}

// errNo is the MySQL error number in err, or 0 if err is not a server
// error.
func errNo(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// wantErrNo fails the test unless err is the server error code want.
func wantErrNo(t *testing.T, what string, err error, want uint16) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: succeeded; want error %d", what, want)
		return
	}
	if got := errNo(err); got != want {
		t.Errorf("%s: got error %d (%v); want %d", what, got, err, want)
	}
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "[...]\n" + s[len(s)-n:]
}

// conn takes one connection from db for statements that must share a
// session (BEGIN ... COMMIT, session variables).
func conn(t *testing.T, ctx context.Context, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// lines splits CLI output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// panicMark matches how a panic shows in a server log: one vitess
// recovered around a connection ("mysql_server caught panic"), one GMS
// turned into a statement's error ("handler caught panic", "panic while
// running query"), or one nobody recovered (the runtime's "panic: " and
// goroutine dump).
var panicMark = regexp.MustCompile(`caught panic|panic while running query|(?m)^panic: |(?m)^goroutine \d+ \[running\]`)

// panicLine returns the first log line that shows a panic (cut to 300
// bytes), or "".
func panicLine(log string) string {
	loc := panicMark.FindStringIndex(log)
	if loc == nil {
		return ""
	}
	start := strings.LastIndexByte(log[:loc[0]], '\n') + 1
	end := len(log)
	if i := strings.IndexByte(log[loc[0]:], '\n'); i >= 0 {
		end = loc[0] + i
	}
	return log[start:min(end, start+300)]
}
