package sqlengine

import (
	"context"

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
func markLocking(ctx context.Context, stmt ast.Statement) {
	if stmt == nil || !lockingClause(stmt) {
		return
	}
	if c, ok := ctx.(*sql.Context); ok && c != nil {
		if s, ok := c.Session.(*Session); ok {
			s.lockingStmt = true
		}
	}
}

// lockingStatement reports whether the statement running on ctx asked
// for locking reads.
func lockingStatement(ctx *sql.Context) bool {
	s, ok := ctx.Session.(*Session)
	return ok && s.lockingStmt
}

// preparedLocking reports whether the prepared statement q of session s
// has a lock clause, from the statement GMS parsed at prepare time.
func (e *Engine) preparedLocking(s *Session, q string) bool {
	if e.gms.PreparedDataCache == nil {
		return false
	}
	stmt, ok := e.gms.PreparedDataCache.GetCachedStmt(s.ID(), q)
	return ok && lockingClause(stmt)
}
