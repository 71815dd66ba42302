package sqlengine

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"petrel/sqlengine/arith"
)

// Executor answers the statements it can without go-mysql-server: the
// fast paths. It is the one decision point of "who answers this
// statement?": the handler offers it every text statement, prepare and
// execution, in one place each, after admission, the admin statements and
// DO; whatever it declines, GMS runs. Its own gate (fastgate.go) decides
// whether a cached plan may still run.
type Executor interface {
	// Text offers a text statement: a COM_QUERY, or the only statement of
	// a multi-statement packet. cb formats text results as MySQL does
	// (textFloats). handled=false: GMS runs q with run as its callback
	// (nothing was read or written).
	Text(ctx context.Context, c *mysql.Conn, s *Session, q string, cb mysql.ResultSpoolFn) (handled bool, run mysql.ResultSpoolFn, err error)
	// Prepare wraps GMS's COM_STMT_PREPARE of q (prepare runs it and
	// returns its result fields); the executor plans q once GMS has, and
	// drops or replaces an earlier plan of the same text.
	Prepare(c *mysql.Conn, s *Session, q string, nparams int, prepare func() ([]*querypb.Field, error)) ([]*querypb.Field, error)
	// Execute offers a COM_STMT_EXECUTE of q. Reads answer on raw (their
	// fields were fixed at prepare); writes on wrapped(), the callback
	// GMS's results get too. handled=false: GMS runs it.
	Execute(ctx context.Context, c *mysql.Conn, s *Session, q string, binds map[string]*querypb.BindVariable, raw func(*sqltypes.Result) error, wrapped func() func(*sqltypes.Result) error) (handled bool, err error)
	// Closed forgets a closed connection's plans.
	Closed(connID uint32)
}

// fastPathsVar is Petrel's switch of every fast path.
const fastPathsVar = "petrel_fast_paths"

// fastPathsVariable defines petrel_fast_paths for e: a SET GLOBAL turns
// e's fast paths on or off at once (the process's one server).
func (e *Engine) fastPathsVariable() sql.SystemVariable {
	return &sql.MysqlSystemVariable{
		Name: fastPathsVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: true,
		Type: types.NewSystemBoolType(fastPathsVar), Default: int8(1),
		NotifyChanged: func(_ *sql.Context, _ sql.SystemVariableScope, v sql.SystemVarValue) error {
			n, _ := arith.ToInt64(v.Val)
			e.SetFastWrites(n != 0)
			return nil
		},
	}
}

// ExecutorOn reports whether the executor may answer (petrel_fast_paths,
// SetFastWrites).
func (e *Engine) ExecutorOn() bool { return e.fastWrites.Load() }

// ExecutorOnFor is ExecutorOn for a statement of session s: never while
// s has a temporary table, which may shadow a table by its name (the
// executors resolve names in the catalog; temptables.go), nor while s
// reads TIMESTAMPs in a zone other than UTC (the executors read and
// write stored values: tszone.go), nor while any
// session holds a table lock or the global read lock (the statement's
// tables are checked against them in GMS's plan: lockrule.go).
func (e *Engine) ExecutorOnFor(s *Session) bool {
	return e.fastWrites.Load() && (s == nil || len(s.temps) == 0 && !s.TimestampsConverted()) && !e.tlocks.Active()
}
