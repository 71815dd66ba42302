package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/sqlengine/stmtstat"
)

// Statements counted by kind, as MySQL's Questions, Queries and Com_*
// status variables (sqlengine/stmtstat). GMS keeps none of them but
// Com_insert, Com_update and Com_delete, which it counts while planning
// (so never for the fast paths): the handler counts every statement at
// its one decision point, in its session's counters. The session's
// values overlay GMS's session map; the global values are the sum of the
// live sessions' counts and of the closed sessions' (retired), summed
// when read, so no counter is shared by the connections on the hot path.

// countStatement counts text statement q for session s. A connection's
// first statement runs before GMS made its session (s nil): the returned
// func, run when the statement ends, counts it then (nil when there is
// nothing left to count).
func (e *Engine) countStatement(s *Session, connID uint32, q string) func() {
	k := stmtstat.Of(q)
	if s != nil {
		s.stmts.Statement(k)
		return nil
	}
	return func() {
		if s := e.session(connID); s != nil {
			s.stmts.Statement(k)
		}
	}
}

// countExecute counts an execution of prepared statement q.
func (e *Engine) countExecute(s *Session, q string) {
	if s != nil {
		s.stmts.Execute(stmtstat.Of(q))
	}
}

// countPrepare counts a COM_STMT_PREPARE.
func (e *Engine) countPrepare(s *Session) {
	if s != nil {
		s.stmts.Prepare()
	}
}

// retireStatements keeps a closing session's counts in the engine's.
func (e *Engine) retireStatements(s *Session) {
	s.stmts.AddTo(&e.stmts)
}

// statementTotal is the global value of counted status variable name.
func (e *Engine) statementTotal(name string) uint64 {
	v, _ := e.stmts.Value(name)
	e.sessMu.Lock()
	defer e.sessMu.Unlock()
	for _, s := range e.sessions {
		n, _ := s.stmts.Value(name)
		v += n
	}
	return v
}

// registerStatementStatus makes the statement counts global status.
func (e *Engine) registerStatementStatus() {
	for _, name := range stmtstat.AllNames() {
		e.RegisterStatus(name, func() any { return e.statementTotal(name) })
	}
}

// GetStatusVariable reads the session's counts of statements, else GMS's
// session status.
func (s *Session) GetStatusVariable(ctx *sql.Context, name string) (interface{}, error) {
	if v, ok := s.stmts.Value(name); ok {
		return v, nil
	}
	return s.BaseSession.GetStatusVariable(ctx, name)
}

// GetAllStatusVariables is GMS's session status with the session's
// counts of statements over it (SHOW SESSION STATUS).
func (s *Session) GetAllStatusVariables(ctx *sql.Context) map[string]sql.StatusVarValue {
	m := s.BaseSession.GetAllStatusVariables(ctx)
	for _, name := range stmtstat.AllNames() {
		v, _ := s.stmts.Value(name)
		m[name] = &sql.ImmutableStatusVarValue{
			Var: &sql.MySQLStatusVariable{Name: name, Scope: sql.StatusVariableScope_Both, Type: types.Uint64, Default: uint64(0)},
			Val: v,
		}
	}
	return m
}

// IncrementStatusVariable ignores GMS's counts of the statements Petrel
// counts itself (its planner's Com_insert, Com_update, Com_delete).
func (s *Session) IncrementStatusVariable(ctx *sql.Context, name string, val int) {
	if _, ok := s.stmts.Value(name); ok {
		return
	}
	s.BaseSession.IncrementStatusVariable(ctx, name, val)
}
