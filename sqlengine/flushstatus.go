package sqlengine

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"
)

// FLUSH STATUS, which GMS refuses (1105 "status not supported"): as in
// MySQL, the session's status counters are added to the global ones and
// reset to zero (the statement counts, Questions and Com_*, and GMS's
// own session counters); global values are not reset.
const flushStatusPattern = `FLUSH (?:LOCAL |NO_WRITE_TO_BINLOG )?STATUS`

func (e *Engine) flushStatus(_ context.Context, s *Session, _ []string) (*AdminResult, error) {
	s.stmts.MoveTo(&e.stmts)
	for _, v := range s.BaseSession.GetAllStatusVariables(nil) {
		m, ok := v.(*sql.MutableStatusVarValue)
		if !ok || m.Variable().GetScope() == sql.StatusVariableScope_Global {
			continue
		}
		_ = m.Set(uint64(0))
	}
	return &AdminResult{}, nil
}

// FLUSH HOSTS, which GMS refuses (1105 "HOSTS not supported"): MySQL
// empties its host cache and unblocks hosts that max_connect_errors
// blocked (8.0's `mysqladmin flush-hosts`, still run by operators'
// scripts). Petrel keeps no host cache and blocks no host, so there is
// nothing to empty: OK, with RELOAD as MySQL asks.
const flushHostsPattern = `FLUSH (?:LOCAL |NO_WRITE_TO_BINLOG )?HOSTS`

func (e *Engine) flushHosts(context.Context, *Session, []string) (*AdminResult, error) {
	return &AdminResult{}, nil
}
