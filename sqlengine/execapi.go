package sqlengine

import (
	"context"
	"strings"
	"time"

	"petrel/sqlengine/storeval"

	"petrel/sqlengine/sqlerr"

	"petrel/sqlengine/charset"

	"petrel/sqlengine/arith"

	"petrel/sqlengine/sqlmode"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"petrel/sqlengine/wire"
	"petrel/storage"
	"petrel/storage/keys"
)

// What an Executor (package sqlengine/fastpath) may use of the backend:
// sessions and their transactions, the statement lifecycle GMS would run
// (fast paths run outside it), and the MySQL value rules the backend
// applies, so an executor answers exactly as GMS through this backend
// would. Nothing here is needed by anything else.

// SetExecutor makes x the engine's executor (nil: GMS answers every
// statement). Set before the server listens.
func (e *Engine) SetExecutor(x Executor) {
	if x == nil {
		x = noExecutor{}
	}
	e.executor = x
}

// Session is the session of a client connection, nil when it has none.
func (e *Engine) Session(connID uint32) *Session { return e.session(connID) }

// CheckWritable refuses a write under read_only (1290), as GMS's write
// nodes do through this backend.
func (e *Engine) CheckWritable(ctx *sql.Context) error { return e.checkWritable(ctx) }

// Grants is the account and privilege database.
func (e *Engine) Grants() *mysql_db.MySQLDb { return e.gms.Analyzer.Catalog.MySQLDb }

// VarGen moves whenever a session variable is set: a plan made under
// another generation must be made again.
func (s *Session) VarGen() uint64 { return s.varGen }

// StatementStart begins a statement in the explicit transaction t, as
// GMS's statement start does (isolation and access mode taken if the
// transaction has not started, a new statement snapshot).
func (s *Session) StatementStart(t *Transaction) { s.statementStart(t) }

// EndAborted ends a transaction a statement aborted (a deadlock victim)
// as CommandEnd would.
func (s *Session) EndAborted() { s.endAborted() }

// Autocommit is the session's autocommit.
func (s *Session) Autocommit() bool { return s.autocommit() }

// TxnCharacteristicsPending reports a SET TRANSACTION ISOLATION LEVEL or
// READ ONLY/WRITE that the next transaction takes (readOnly: the access
// mode only).
func (s *Session) TxnCharacteristicsPending(readOnly bool) bool {
	if readOnly {
		return s.nextReadOnly != nil
	}
	return s.nextIso != nil
}

// ReadOnlySession is transaction_read_only of the session.
func (s *Session) ReadOnlySession() bool { return s.sessionReadOnly() }

// LockWaitTimeout is innodb_lock_wait_timeout, 0 when unreadable.
func (s *Session) LockWaitTimeout(ctx *sql.Context) time.Duration { return s.lockWaitTimeout(ctx) }

// CommitError maps a commit's error for the client; an unknown outcome is
// noted for the reply.
func (s *Session) CommitError(err error) error { return s.commitError(err) }

// Storage is the transaction's storage transaction.
func (t *Transaction) Storage() *storage.Txn { return t.txn }

// Aborted is the error that aborted the transaction, nil while it may go
// on.
func (t *Transaction) Aborted() error { return t.abort }

// Abort marks the transaction aborted by err (its client sees err's MySQL
// form at COMMIT).
func (t *Transaction) Abort(err error) { t.abort = sqlerr.ToMySQL(err) }

// ReadOnly reports a READ ONLY transaction.
func (t *Transaction) ReadOnly() bool { return t.readOnly }

// FixIsolation keeps the transaction's isolation level as START
// TRANSACTION does.
func (t *Transaction) FixIsolation() { t.isoFixed = true }

// RunTxnHook runs the transaction hook for a write about to commit in txn.
func RunTxnHook(ctx *sql.Context, s *Session, txn *storage.Txn) { runTxnHook(ctx, s, txn) }

// ToMySQLError is the error table applied to err.
func ToMySQLError(err error) error { return sqlerr.ToMySQL(err) }

// OperatorText reports a statement that s's sql_mode reads differently
// from GMS's parser (PIPES_AS_CONCAT, HIGH_NOT_PRECEDENCE).
func OperatorText(s *Session, q string) bool { return operatorText(s, q) }

// ModeText rewrites q's string literals for NO_BACKSLASH_ESCAPES and
// ANSI_QUOTES as the backend's parser does.
func ModeText(q string, nbe, ansiQuotes bool) (string, []int) {
	return sqlmode.Text(q, nbe, ansiQuotes)
}

// ModeOn reports a sql_mode flag.
func ModeOn(m *sql.SqlMode, flag string) bool { return sqlmode.On(m, flag) }

// ContainsNot reports a NOT that HIGH_NOT_PRECEDENCE reads differently.
func ContainsNot(q string) bool { return sqlmode.ContainsNot(q) }

// StoreExact converts v for col as a strict INSERT would, refusing any
// value not stored exactly (notes included).
func StoreExact(ctx *sql.Context, col *sql.Column, v any) (any, error) {
	return storeval.Value(ctx, storeval.Mode{Strict: true, Exact: true}, col, v, 1)
}

// RoundTimespan rounds a TIME to fsp fractional digits as MySQL stores it.
func RoundTimespan(ctx *sql.Context, ts types.Timespan, fsp int) types.Timespan {
	return arith.RoundTimespan(ctx, ts, fsp)
}

// RowsIdentical reports byte-equal rows (an UPDATE that changes nothing).
func RowsIdentical(ctx *sql.Context, a, b sql.Row, sch sql.Schema) (bool, error) {
	return rowsIdentical(ctx, a, b, sch)
}

// ExactSumValue is an integer column's SUM as MySQL sends it (DECIMAL).
func ExactSumValue(sum int64) sqltypes.Value { return arith.ExactSumValue(sum) }

// ExactSumField makes f the field of SUM over an integer column col as
// MySQL types it; false when col's SUM is not exact here.
func ExactSumField(f *querypb.Field, col sql.Type) bool { return arith.ExactSumField(f, col) }

// IsASCIIText reports a string of ASCII bytes only.
func IsASCIIText(s string) bool { return isASCIIText(s) }

// PadSpace reports a PAD SPACE collation.
func PadSpace(c sql.CollationID) bool { return keys.PadSpace(c) }

// ASCIIPassThrough reports a result character set whose encoder sends
// ASCII text as it is (charset/resultenc.go).
func ASCIIPassThrough(results sql.CharacterSetID) bool { return charset.ASCIIPassThrough(results) }

// Gathered is a client connection gathering its writes (gather.go), for
// an executor that writes a result's row packets itself.
type Gathered struct{ c *wire.Conn }

// GatherMax is the most a connection gathers before it writes.
const GatherMax = wire.GatherMax

// Gather is c's gathered writes, nil for a connection not served here.
func Gather(c *mysql.Conn) *Gathered {
	if cc, ok := c.Conn.(*wire.Conn); ok {
		return &Gathered{cc}
	}
	return nil
}

// Start makes the connection gather its writes until End.
func (g *Gathered) Start() { g.c.StartGather() }

// End writes what was gathered and stops gathering.
func (g *Gathered) End() error { return g.c.EndGather() }

// Flush writes the gathered bytes.
func (g *Gathered) Flush() error { return g.c.FlushGather() }

// Buf is the gathered bytes, nil when not gathering.
func (g *Gathered) Buf() *[]byte { return g.c.GatherBuf() }

// Seq is the sequence id after the last packet gathered; ok only when the
// gathered bytes are whole packets.
func (g *Gathered) Seq() (byte, bool) { return g.c.GatheredSeq() }

// Wrote notes n packets written past vitess.
func (g *Gathered) Wrote(n byte) { g.c.Wrote(n) }

// noExecutor declines every statement.
type noExecutor struct{}

func (noExecutor) Text(_ context.Context, _ *mysql.Conn, _ *Session, _ string, cb mysql.ResultSpoolFn) (bool, mysql.ResultSpoolFn, error) {
	return false, cb, nil
}

func (noExecutor) Prepare(_ *mysql.Conn, _ *Session, _ string, _ int, prepare func() ([]*querypb.Field, error)) ([]*querypb.Field, error) {
	return prepare()
}

func (noExecutor) Execute(context.Context, *mysql.Conn, *Session, string, map[string]*querypb.BindVariable, func(*sqltypes.Result) error, func() func(*sqltypes.Result) error) (bool, error) {
	return false, nil
}

func (noExecutor) Closed(uint32) {}

// operatorText reports whether q may read differently under session s's
// operator modes: the fast paths, which parse the client's text
// themselves, leave such statements to GMS.
func operatorText(s *Session, q string) bool {
	hasPipes, hasNot := strings.Contains(q, "||"), sqlmode.ContainsNot(q)
	if !hasPipes && !hasNot {
		return false // the common case, without allocating
	}
	pipes, high := sqlmode.OperatorModes(sql.NewContext(context.Background(), sql.WithSession(s)))
	return (pipes && hasPipes) || (high && hasNot)
}

// InstallResultEncoders wraps the ASCII-preserving encoders as New does,
// for tests that encode results without an engine.
func InstallResultEncoders() { charset.InstallASCIIEncoders() }
