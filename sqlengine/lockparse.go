package sqlengine

import (
	"context"

	"github.com/dolthub/vitess/go/mysql"

	"petrel/sqlengine/rewrite"

	"petrel/sqlengine/sqlmode"
	"petrel/storage"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Locking reads are recognised in the parsed statement, never in its text:
// a "for update" inside a string literal or a comment must not make a
// plain SELECT take row locks and lose its snapshot.
//
// GMS drops the lock clause when it builds the plan, so the statement's
// own parse marks the session (Session.lockingStmt), which scans read.
// A text statement is parsed after its command began (the parser wrapper
// marks it); a prepared statement's executions are not parsed again, so
// the handler reads the lock clause from the statement GMS cached at
// prepare time. The mark is cleared when each command starts and ends.

// lockingClause reports whether stmt is a SELECT (or a set operation, or a
// parenthesised SELECT) with FOR UPDATE, FOR SHARE or LOCK IN SHARE MODE.
func lockingClause(stmt ast.Statement) bool {
	switch s := stmt.(type) {
	case *ast.Select:
		return s.Lock != ""
	case *ast.SetOp:
		return s.Lock != "" || lockingClause(s.Left) || lockingClause(s.Right)
	case *ast.ParenSelect:
		return lockingClause(s.Select)
	}
	return false
}

// markLocking records a parsed statement's lock clause on the session of
// ctx. Only a locking statement marks: the parses GMS makes while planning
// (view definitions, triggers, CHECK expressions) never clear the mark of
// the statement being planned.
func markLocking(ctx context.Context, q string, stmt ast.Statement) {
	if stmt == nil || !lockingClause(stmt) {
		return
	}
	if c, ok := ctx.(*sql.Context); ok && c != nil {
		if s, ok := c.Session.(*Session); ok {
			s.lockingStmt = true
			s.lockWait = lockWaitOf(q)
		}
	}
}

// rewritePrepare rewrites a COM_STMT_PREPARE packet's text before vitess
// parses it: DO as its marked SELECT (rewrite.PrepareDo), the syntax the
// text protocol's parse rewrites (WITH ROLLUP, ALL/ANY, SUBSTRING FROM,
// two-part INTERVAL units, function names as aliases:
// sqlmode.PreparedText), and the locking-read clause as vitess parses it
// (FOR SHARE, OF, NOWAIT: sqlmode.PreparedLockClause). Other packets
// pass unchanged.
func rewritePrepare(p []byte) []byte {
	p = rewrite.PrepareDo(p)
	if len(p) < 2 || p[0] != mysql.ComPrepare {
		return p
	}
	q := string(p[1:])
	// Syntax vitess cannot parse but Petrel's parse rewrites, as the
	// text protocol's statements get it (sqlmode.PreparedText).
	r := sqlmode.PreparedLockClause(sqlmode.PreparedText(q))
	if r != q {
		return append([]byte{mysql.ComPrepare}, r...)
	}
	return p
}

// lockWaitOf is the lock wait statement text q asks for.
func lockWaitOf(q string) storage.LockWait {
	switch sqlmode.LockWaitOf(q) {
	case sqlmode.LockWaitNoWait:
		return storage.LockWaitNoWait
	case sqlmode.LockWaitSkip:
		return storage.LockWaitSkip
	}
	return storage.LockWaitBlock
}

// lockWaitFor sets txn's lock wait for the statement running on ctx
// (NOWAIT, SKIP LOCKED: storage/lockwait.go).
func lockWaitFor(ctx *sql.Context, txn *storage.Txn) {
	if s, ok := ctx.Session.(*Session); ok {
		txn.SetLockWait(s.lockWait)
	}
}

// lockingStatement reports whether the statement running on ctx asked
// for locking reads.
func lockingStatement(ctx *sql.Context) bool {
	s, ok := ctx.Session.(*Session)
	return ok && s.lockingStmt
}

// preparedLocking reports whether the prepared statement q of session s
// has a lock clause, from the statement GMS parsed at prepare time; w is
// its lock wait (lockWaitOf).
func (e *Engine) preparedLocking(s *Session, q string, w storage.LockWait) bool {
	if w != storage.LockWaitBlock {
		// NOWAIT or SKIP LOCKED come only with a lock clause (and a
		// marked text is not GMS's cache key).
		s.lockWait = w
		return true
	}
	if e.gms.PreparedDataCache == nil {
		return false
	}
	stmt, ok := e.gms.PreparedDataCache.GetCachedStmt(s.ID(), q)
	if !ok || !lockingClause(stmt) {
		return false
	}
	return true
}
