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
// its one decision point, for the session and the engine; the session's
// values overlay GMS's session map, the engine's are its global status.

// countStatement counts text statement q for the engine and for session
// s. A connection's first statement runs before GMS made its session
// (s nil): the returned func, run when the statement ends, counts it for
// the session then (nil when there is nothing left to count).
func (e *Engine) countStatement(s *Session, connID uint32, q string) func() {
	k := stmtstat.Of(q)
	e.stmts.Statement(k)
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
	k := stmtstat.Of(q)
	e.stmts.Execute(k)
	if s != nil {
		s.stmts.Execute(k)
	}
}

// countPrepare counts a COM_STMT_PREPARE.
func (e *Engine) countPrepare(s *Session) {
	e.stmts.Prepare()
	if s != nil {
		s.stmts.Prepare()
	}
}

// registerStatementStatus makes the engine's counts its global status.
func (e *Engine) registerStatementStatus() {
	for _, name := range stmtstat.AllNames() {
		e.RegisterStatus(name, func() any { v, _ := e.stmts.Value(name); return v })
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
