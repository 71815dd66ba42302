package sqlengine

import (
	"fmt"
	"runtime/debug"

	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/mysqlerr"
)

// A panic while a statement runs (a bug of GMS's planner or executor
// that a client's SQL reaches: issue 31's mysql-test-run run found a
// MATCH ... AGAINST over a derived table) used to reach vitess, which
// recovers it by dropping the connection: the client saw 2013 and lost
// its session. The handler recovers it instead: the statement fails with
// 1105, the session's transaction is rolled back (its state after the
// panic is unknown, so nothing of it may commit: a later COMMIT reports
// the same error), the stack is logged, Petrel_statement_panics counts
// it, and the connection goes on.

// recoverStatement is deferred by each command handler; err is the
// handler's result.
func (h *errHandler) recoverStatement(c *mysql.Conn, err *error) {
	r := recover()
	if r == nil {
		return
	}
	h.e.statementPanics.Add(1)
	h.e.log.Error("sqlengine: a statement panicked; it failed and its transaction is rolled back",
		"connection", c.ConnectionID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	perr := mysqlerr.New(mysqlerr.ErUnknown, "Internal error: the statement failed (%v); its transaction was rolled back", r)
	if s := h.e.session(c.ConnectionID); s != nil {
		s.abortAfterPanic(perr)
	}
	h.setStatus(c)
	*err = perr
}

// abortAfterPanic rolls back the session's transactions and makes the
// current one fail with err until the session ends it.
func (s *Session) abortAfterPanic(err error) {
	if t, ok := s.GetTransaction().(*Transaction); ok && t != nil {
		if t.abort == nil {
			t.abort = err
		}
		_ = t.txn.Rollback()
	}
	for _, st := range s.started {
		if !st.txn.Done() {
			_ = st.txn.Rollback()
		}
	}
	s.forgetStarted()
	s.lockingStmt = false
}
