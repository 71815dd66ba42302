package sqlengine

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/admission"
	"petrel/internal/base"
	"petrel/internal/mysqlerr"
	"petrel/sqlengine/arith"
	"petrel/sqlengine/explain"
	"petrel/sqlengine/rewrite"
	"petrel/sqlengine/sqlerr"
	"petrel/sqlengine/stmtstat"
	"petrel/sqlengine/wire"
	"petrel/storage"
)

// Session is one client connection's state. GMS drives it from a single
// goroutine per connection; it is not safe for concurrent use.
type Session struct {
	*sql.BaseSession
	eng *Engine
	// handlers are the session's open HANDLERs by lower-case name
	// (tablehandler.go).
	handlers map[string]*tableHandler
	// stmts counts the statements the client sent, by kind (Questions,
	// Com_*: stmtcount.go).
	stmts stmtstat.Counters
	// explainJSON: the last EXPLAIN parsed asked for FORMAT=JSON
	// (rewrite/explain.go).
	explainJSON atomic.Bool
	// profile is set while EXPLAIN ANALYZE runs its statement
	// (explain/analyze.go).
	profile *explain.Profile
	// internal sessions (the replication applier) may write on a
	// read-only server.
	internal bool
	// origin marks the session's transactions as another server's
	// (statements the replication applier replays).
	origin *storage.Origin
	// conn is the client connection's shutdown state (nil for internal
	// sessions).
	conn *connState
	// started are the transactions begun during the current command: GMS
	// sometimes drops one (SetTransaction(nil)) without rolling it back.
	started []*Transaction
	// call is the CALL being run, callPending its result sets still to
	// send (callresults.go).
	call *callCapture
	// running counts the procedures running on the session by
	// db.name (enterRoutine: recursion).
	running map[string]int
	// executing counts the prepared statements a routine is running by
	// name (routinerun.go: 1444).
	executing   map[string]int
	callPending []pendingResult
	// acct is the account statement being run (accounts.go).
	acct *acctChange
	// tableOpts are the storage options of the CREATE TABLE being run
	// (tablecompress.go).
	tableOpts *tableOptions
	// timeFSP are the TIME columns' precisions the CREATE or ALTER TABLE
	// being run declares (timefsp.go).
	timeFSP *timeNotes
	// resultDec are the decimals of the running statement's DOUBLE
	// result columns (doubledecimals.go).
	resultDec *resultDecimals
	// alterCommentPid is the statement whose ALTER TABLE ... COMMENT was
	// applied (altercomment.go).
	alterCommentPid uint64
	// adminQuery is the admin statement being answered, as written.
	adminQuery string
	// routineText is the CREATE or DROP FUNCTION statement being run
	// through its hidden procedure (storedfuncs.go): the binary log
	// records it, and the catalog keeps the CREATE.
	routineText string
	// fnDepth counts the stored function calls running (storedfuncs.go).
	fnDepth int
	// fnRunning names the functions running, outermost first.
	fnRunning []string
	// viewDB: the statement made a view's database current, having none
	// (viewWithoutDatabase); CommandEnd takes it back.
	viewDB bool
	// callTx is the caller's transaction a running procedure's
	// statements use (shareTransaction, routines.go).
	callTx *Transaction
	// nextIso is the level SET TRANSACTION ISOLATION LEVEL (no scope)
	// gave the next transaction (isolation.go).
	nextIso *storage.Isolation
	// nextReadOnly is the access mode SET TRANSACTION READ ONLY / READ
	// WRITE (no scope) gave the next transaction (readonly.go).
	nextReadOnly *bool
	// attrs are the client's connection attributes (connattrs.go), set
	// before the session is listed and never changed.
	attrs []wire.Attr
	// ticket: the session's transaction holds one of the admission gate's
	// slots (ticketGate's) until it ends (admission.go).
	ticket     bool
	ticketGate *admitGate
	ticketID   admission.ID
	// lockingStmt: the statement being run has a lock clause (FOR
	// UPDATE, FOR SHARE, LOCK IN SHARE MODE), from its parse
	// (lockparse.go); cleared when a command starts and ends.
	lockingStmt bool
	// lockWait: its NOWAIT or SKIP LOCKED (lockparse.go).
	lockWait storage.LockWait
	// varGen moves whenever a session variable is set: fast plans made
	// before are checked again (fastgate.go).
	varGen uint64
	// extraAffected: rows a REPLACE deleted that GMS's affected-row count
	// misses (a new row colliding with two or more rows: MySQL counts each
	// deleted row); added to the statement's OK (status.go).
	extraAffected uint64
	// fewerAffected: rows a multiple-table UPDATE matched again after
	// writing them, which GMS counted and Petrel did not write (the
	// editor's joinDone); taken off its affected rows.
	fewerAffected uint64
	// moreAffected: rows a multiple-table UPDATE wrote beyond those GMS
	// counted (rows of equal content in a table without a primary key,
	// editor.updateKeyless); added to its affected rows.
	moreAffected uint64
	// temps are the session's temporary tables by database and name
	// (tempKey); tempDDL: the statement created, changed or dropped one
	// (never logged: temptables.go).
	temps   map[string]*tempRef
	tempDDL bool
	// setDone: the statement was a SET, which MySQL answers with 0 rows
	// affected (GMS counts its one row of values; setstmt.go).
	setDone bool
	// updateJoin: the command runs a multiple-table UPDATE (set when
	// buildExactUpdate builds it), whose editors keep joinDone.
	updateJoin bool
	// prevWarnings and prevErrors count the previous statement's
	// conditions, for @@warning_count and @@error_count (diagnostics.go).
	prevWarnings, prevErrors int
	// prevNewest is the newest condition the previous statement left:
	// still the newest when a statement fails, GMS never reached the
	// point where it clears them (a parse or name error).
	prevNewest *sql.Warning
	// nbe caches whether sql_mode has NO_BACKSLASH_ESCAPES, as of
	// varGen+1 == nbeGen (status.go).
	nbe    bool
	nbeGen uint64
	// tz caches the zone of time_zone for TIMESTAMP values (nil: UTC),
	// as of varGen+1 == tzGen (tszone.go).
	tz    *time.Location
	tzGen uint64
}

var (
	_ sql.Session               = (*Session)(nil)
	_ sql.TransactionSession    = (*Session)(nil)
	_ sql.LifecycleAwareSession = (*Session)(nil)
)

// Transaction is the GMS face of a storage transaction.
type Transaction struct {
	txn      *storage.Txn
	readOnly bool
	// savepoints by name (SAVEPOINT, and GMS's trigger rollbacks).
	savepoints map[string]storage.Mark
	// abort is set when the whole transaction was rolled back (deadlock
	// victim, failed DDL): every later use returns it; the session clears
	// the transaction at the end of the command.
	abort error
	// isoFixed: the level was fixed when the transaction started (START
	// TRANSACTION, or SET TRANSACTION ISOLATION LEVEL for this one); a
	// transaction GMS opened implicitly (autocommit=0) takes the
	// session's level until it first reads or writes.
	isoFixed bool
	// modeFixed: likewise for the access mode (readOnly).
	modeFixed bool
}

func (t *Transaction) String() string   { return "petrel transaction" }
func (t *Transaction) IsReadOnly() bool { return t.readOnly }

// StartTransaction implements sql.TransactionSession. It is called before
// every statement outside a transaction, reads included, so it allocates
// nothing in storage until the first write.
func (s *Session) StartTransaction(ctx *sql.Context, tc sql.TransactionCharacteristic) (sql.Transaction, error) {
	if t := s.callTx; t != nil && t.abort == nil && !t.txn.Done() {
		return t, nil // a procedure's statement, in its caller's transaction
	}
	txn := s.eng.store.Begin()
	txn.SetSession(s.ID())
	runTxnHook(ctx, s, txn)
	if s.origin != nil {
		txn.SetOrigin(*s.origin)
	}
	if d := s.lockWaitTimeout(ctx); d > 0 {
		txn.SetLockTimeout(d)
	}
	t := &Transaction{txn: txn, readOnly: tc == sql.ReadOnly}
	// GMS opens an implicit transaction for every statement run with
	// none open, START TRANSACTION included, which then commits it and
	// starts its own: the one-shot level and WITH CONSISTENT SNAPSHOT
	// belong to the second.
	implicit := ctx.GetTransaction() == nil && mayBegin(ctx.Query()) && beginStatement.MatchString(ctx.Query())
	if implicit {
		t.txn.SetIsolation(s.isolation())
		t.readOnly = s.sessionReadOnly()
	} else {
		s.beginIsolation(t)
		s.beginAccessMode(ctx, t, tc)
	}
	if ctx.GetTransaction() != nil {
		// START TRANSACTION fixes the level, as MySQL's does: a later
		// SET SESSION TRANSACTION applies from the next transaction.
		t.isoFixed = true
		s.startSnapshot(ctx, t)
	}
	live := s.started[:0]
	for _, st := range s.started {
		if !st.txn.Done() {
			live = append(live, st)
		}
	}
	clear(s.started[len(live):])
	s.started = append(live, t)
	return t, nil
}

// CommitTransaction implements sql.TransactionSession. It returns only
// when the transaction is durable (and acknowledged, with semi-sync); the
// client's OK is written after it.
func (s *Session) CommitTransaction(ctx *sql.Context, tx sql.Transaction) error {
	t, ok := tx.(*Transaction)
	if !ok || t == nil {
		return nil
	}
	if t.abort != nil {
		return t.abort
	}
	if t.txn.ChangesRows() && s.eng != nil {
		// A transaction that wrote before read_only went on cannot
		// commit (MySQL's 1290; it stays open, as there).
		if err := s.eng.checkWritable(ctx); err != nil {
			return err
		}
	}
	q := ctx.Query()
	if s.routineText != "" {
		q = s.routineText
	}
	if t.txn.HasWrites() && isDDL(q) && !s.tempDDL {
		fk, err := s.GetSessionVariable(ctx, "foreign_key_checks")
		off := err == nil && fmt.Sprint(fk) == "0"
		t.txn.LogQueryOf(storage.Query{Database: ctx.GetCurrentDatabase(), SQL: q, NoForeignKeyChecks: off})
	}
	if err := t.txn.Commit(ctx); err != nil {
		return s.commitError(err)
	}
	return nil
}

// Rollback implements sql.TransactionSession.
func (s *Session) Rollback(_ *sql.Context, tx sql.Transaction) error {
	if t, ok := tx.(*Transaction); ok && t != nil {
		return t.txn.Rollback()
	}
	return nil
}

// CreateSavepoint implements sql.TransactionSession.
func (s *Session) CreateSavepoint(_ *sql.Context, tx sql.Transaction, name string) error {
	t, ok := tx.(*Transaction)
	if !ok || t == nil {
		return nil
	}
	if t.savepoints == nil {
		t.savepoints = map[string]storage.Mark{}
	}
	t.savepoints[strings.ToLower(name)] = t.txn.Savepoint()
	return nil
}

// RollbackToSavepoint implements sql.TransactionSession.
func (s *Session) RollbackToSavepoint(_ *sql.Context, tx sql.Transaction, name string) error {
	t, ok := tx.(*Transaction)
	if !ok || t == nil {
		return nil
	}
	m, ok := t.savepoints[strings.ToLower(name)]
	if !ok {
		return sql.ErrSavepointDoesNotExist.New(name)
	}
	// Savepoints set after this one are gone, as in MySQL.
	for k, o := range t.savepoints {
		if o.After(m) {
			delete(t.savepoints, k)
		}
	}
	return t.txn.RollbackTo(m)
}

// ReleaseSavepoint implements sql.TransactionSession.
func (s *Session) ReleaseSavepoint(_ *sql.Context, tx sql.Transaction, name string) error {
	t, ok := tx.(*Transaction)
	if !ok || t == nil {
		return nil
	}
	if _, ok := t.savepoints[strings.ToLower(name)]; !ok {
		return sql.ErrSavepointDoesNotExist.New(name)
	}
	delete(t.savepoints, strings.ToLower(name))
	return nil
}

// CommandBegin implements sql.LifecycleAwareSession.
func (s *Session) CommandBegin() error {
	s.extraAffected = 0
	s.fewerAffected = 0
	s.moreAffected = 0
	s.setDone = false
	s.tempDDL = false
	s.updateJoin = false
	if t, ok := s.GetTransaction().(*Transaction); ok && t != nil {
		t.txn.SetLockingReads(false)
		t.txn.ResetStatement()
		s.statementStart(t)
		s.started = append(s.started[:0], t)
	} else {
		s.forgetStarted()
	}
	return nil
}

// forgetStarted empties started, dropping the references its backing
// array holds: a finished transaction left there would keep its batch
// and row images alive until the session's next statement.
func (s *Session) forgetStarted() {
	clear(s.started)
	s.started = s.started[:0]
}

// CommandEnd implements sql.LifecycleAwareSession. GMS never rolls back a
// failed autocommit statement, nor a deadlock victim: do it here, so the
// next statement starts clean and no lock outlives its statement.
func (s *Session) CommandEnd() {
	s.lockingStmt, s.lockWait = false, storage.LockWaitBlock
	if s.viewDB {
		s.viewDB = false
		s.SetCurrentDatabase("")
	}
	t, ok := s.GetTransaction().(*Transaction)
	// Transactions GMS let go of without finishing them hold locks and
	// possibly catalog changes: roll them back.
	for _, st := range s.started {
		if st != t && !st.txn.Done() {
			_ = st.txn.Rollback()
		}
	}
	s.forgetStarted()
	if !ok || t == nil {
		return
	}
	t.txn.SetLockingReads(false)
	explicit := s.GetIgnoreAutoCommit() || !s.autocommit()
	if t.abort != nil || !explicit {
		_ = t.txn.Rollback()
		s.SetTransaction(nil)
		if t.abort != nil {
			s.SetIgnoreAutoCommit(false)
		}
	}
}

// endAborted ends a transaction a fast path aborted (a deadlock victim),
// as CommandEnd does after a GMS statement: fast paths run outside GMS's
// command lifecycle, and a later COMMIT must find no transaction (it
// answered 1213 again).
func (s *Session) endAborted() {
	if t, ok := s.GetTransaction().(*Transaction); ok && t != nil && t.abort != nil {
		_ = t.txn.Rollback()
		s.SetTransaction(nil)
		s.SetIgnoreAutoCommit(false)
	}
}

// SessionEnd implements sql.LifecycleAwareSession: a dropped connection
// rolls back its open transaction.
func (s *Session) SessionEnd() {
	if t, ok := s.GetTransaction().(*Transaction); ok && t != nil {
		_ = t.txn.Rollback()
		s.SetTransaction(nil)
	}
	s.releaseTicket()
	for _, st := range s.started {
		_ = st.txn.Rollback()
	}
	s.started = nil
}

func (s *Session) autocommit() bool {
	v, err := s.BaseSession.GetSessionVariable(nil, "autocommit")
	if err != nil {
		return true
	}
	n, _ := arith.ToInt64(v)
	return n != 0
}

// GetSessionVariable returns the live global value for global-only
// variables, so a session sees its own SET GLOBAL at once.
func (s *Session) GetSessionVariable(ctx *sql.Context, name string) (interface{}, error) {
	if v, ok := s.diagnosticsVariable(name); ok {
		return v, nil
	}
	name = varAlias(name)
	if sv, v, ok := s.eng.globals.Get(name); ok && sv.IsGlobalOnly() {
		return v, nil
	}
	return s.BaseSession.GetSessionVariable(ctx, name)
}

// GetAllSessionVariables: see GetSessionVariable.
func (s *Session) GetAllSessionVariables() map[string]interface{} {
	m := s.BaseSession.GetAllSessionVariables()
	for k := range m {
		if sv, v, ok := s.eng.globals.Get(k); ok && sv.IsGlobalOnly() {
			m[k] = v
		}
	}
	return m
}

// ToInt64 reads a system variable's integer (or boolean) value.
func ToInt64(v any) (int64, bool) { return arith.ToInt64(v) }

// readTxn returns the statement's storage transaction.
func readTxn(ctx *sql.Context) (*storage.Txn, error) {
	t, ok := ctx.GetTransaction().(*Transaction)
	if !ok || t == nil {
		s, ok := ctx.Session.(*Session)
		if !ok {
			return nil, base.Errorf(base.ClassInternal, "sqlengine: session %T is not Petrel's", ctx.Session)
		}
		tx, err := s.StartTransaction(ctx, sql.ReadWrite)
		if err != nil {
			return nil, err
		}
		ctx.SetTransaction(tx)
		t = tx.(*Transaction)
	}
	if t.abort != nil {
		return nil, t.abort
	}
	return t.txn, nil
}

// writeTxn is readTxn for writes: it refuses them on a read-only server
// (read_only for ordinary users, super_read_only for everyone but the
// replication applier).
func writeTxn(ctx *sql.Context) (*storage.Txn, error) {
	if err := checkReadOnly(ctx); err != nil {
		return nil, err
	}
	return rowTxn(ctx)
}

// ddlTxn is writeTxn for DDL: a READ ONLY transaction does not refuse it
// (it commits first), a READ ONLY session does (readonly.go).
func ddlTxn(ctx *sql.Context) (*storage.Txn, error) {
	if s, ok := ctx.Session.(*Session); ok {
		if err := s.eng.checkWritable(ctx); err != nil {
			return nil, err
		}
		if !s.internal && s.sessionReadOnly() {
			return nil, errReadOnlyTransaction()
		}
	}
	return readTxn(ctx)
}

// rowTxn is readTxn for row writes, after the checks of ddlTxn but the
// session's mode: the transaction's decides (checkReadOnly).
func rowTxn(ctx *sql.Context) (*storage.Txn, error) {
	if s, ok := ctx.Session.(*Session); ok {
		if err := s.eng.checkWritable(ctx); err != nil {
			return nil, err
		}
	}
	return readTxn(ctx)
}

// ddlError aborts the transaction of a failed DDL statement: its catalog
// changes are undone at once and nothing can commit the rest of it.
func ddlError(ctx *sql.Context, err error) error {
	if err == nil {
		return nil
	}
	err = sqlerr.ToMySQL(err)
	if t, ok := ctx.GetTransaction().(*Transaction); ok && t != nil && t.abort == nil {
		_ = t.txn.Rollback()
		t.abort = err
	}
	return err
}

func isDeadlock(err error) bool {
	var se *mysql.SQLError
	return errors.As(err, &se) && se.Num == mysqlerr.ErLockDeadlock
}

// sessionError maps a storage error for the client; a deadlock victim's
// transaction is rolled back whole, as InnoDB does, and so is one past
// max_binlog_cache_size (1197), as MySQL does.
func sessionError(ctx *sql.Context, err error) error {
	if err == nil {
		return nil
	}
	c := base.ClassOf(err)
	err = sqlerr.ToMySQL(err)
	if c == base.ClassDeadlock || c == base.ClassTxnTooLarge || isDeadlock(err) {
		if t, ok := ctx.GetTransaction().(*Transaction); ok && t != nil && t.abort == nil {
			_ = t.txn.Rollback()
			t.abort = err
		}
	}
	return err
}

func isDDL(q string) bool {
	w := firstWords(q, 1)
	if len(w) == 0 {
		return false
	}
	switch w[0] {
	case "CREATE", "DROP", "ALTER", "RENAME", "TRUNCATE":
		return true
	}
	return false
}

// firstWords is up to n leading words of q, upper-cased: it reads only
// as far as they go (a 64 KB INSERT is not split or upper-cased whole).
func firstWords(q string, n int) []string {
	var out []string
	for i := 0; i < len(q) && len(out) < n; {
		for i < len(q) && (q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r') {
			i++
		}
		j := i
		for j < len(q) && q[j] != ' ' && q[j] != '\t' && q[j] != '\n' && q[j] != '\r' {
			j++
		}
		if j > i {
			out = append(out, strings.ToUpper(q[i:j]))
		}
		i = j
	}
	return out
}

func asBase(err error, target **base.Error) bool { return errors.As(err, target) }

// lockWaitTimeout is the session's innodb_lock_wait_timeout, 0 when it
// cannot be read.
func (s *Session) lockWaitTimeout(ctx *sql.Context) time.Duration {
	if v, err := s.GetSessionVariable(ctx, "innodb_lock_wait_timeout"); err == nil {
		if n, ok := arith.ToInt64(v); ok && n > 0 {
			return time.Duration(n) * time.Second
		}
	}
	return 0
}

var _ rewrite.JSONNoter = (*Session)(nil)

// NoteExplainJSON implements rewrite.JSONNoter.
func (s *Session) NoteExplainJSON(json bool) { s.explainJSON.Store(json) }

// TakeExplainJSON implements rewrite.JSONNoter.
func (s *Session) TakeExplainJSON() bool { return s.explainJSON.Swap(false) }
