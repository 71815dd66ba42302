package sqlengine

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/arith"
)

// max_execution_time and KILL QUERY (issue 29). GMS defines
// max_execution_time but does not enforce it, and a statement KILL QUERY
// cancels reaches the client as "context canceled" (1105). Here a read
// statement (SELECT, WITH: MySQL's scope for the variable) runs under a
// context that ends after the session's max_execution_time milliseconds
// (0: no limit), which ends it as KILL QUERY would, and the error a
// cancelled statement returns becomes MySQL's: 3024 when its time ran
// out, else 1317. What the statement held (rows of a join in flight, its
// iterators) is let go as it unwinds, so a plan that would read far more
// than the data is bounded in time and memory.

// errExecTimeout is the cause of a statement context whose
// max_execution_time ran out.
var errExecTimeout = errors.New("sqlengine: max_execution_time exceeded")

// execTimeout returns the context a statement q runs under: ctx with the
// session's max_execution_time for a read, else ctx itself. stop ends it.
func (h *errHandler) execTimeout(ctx context.Context, c *mysql.Conn, q string) (_ context.Context, stop func()) {
	if statementKind(q) != kindRead {
		return ctx, noop
	}
	cs, ok := c.ClientData.(*connState)
	s := h.e.session(c.ConnectionID)
	if !ok || s == nil {
		return ctx, noop
	}
	v, err := s.GetSessionVariable(nil, "max_execution_time")
	ms, _ := arith.ToInt64(v)
	if err != nil || ms <= 0 {
		return ctx, noop
	}
	ctx, cancel := context.WithTimeoutCause(ctx, time.Duration(ms)*time.Millisecond, errExecTimeout)
	// Only the connection's goroutine runs its commands, and reply runs
	// before stop: a plain field.
	cs.stmtCtx = ctx
	return ctx, func() {
		cs.stmtCtx = nil
		cancel()
	}
}

// interrupted is MySQL's error for a statement that ended because its
// context did: 3024 when its max_execution_time ran out, 1317 when KILL
// QUERY (or the connection's end) cancelled it; any other error as is.
func interrupted(c *mysql.Conn, err error) error {
	if err == nil || !isCancelled(err) {
		return err
	}
	if cs, ok := c.ClientData.(*connState); ok && cs.stmtCtx != nil && context.Cause(cs.stmtCtx) == errExecTimeout {
		return mysqlerr.New(mysqlerr.ErQueryTimeout, "Query execution was interrupted, maximum statement execution time exceeded")
	}
	return mysqlerr.New(mysqlerr.ErQueryInterrupted, "Query execution was interrupted")
}

// isCancelled reports whether err is a context's end, as GMS passes it
// on (wrapped, or as its text in an unknown error).
func isCancelled(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errExecTimeout) {
		return true
	}
	var se *mysql.SQLError
	if errors.As(err, &se) && se.Num != mysqlerr.ErUnknown {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, context.Canceled.Error()) || strings.Contains(msg, context.DeadlineExceeded.Error()) ||
		strings.Contains(msg, errExecTimeout.Error())
}
