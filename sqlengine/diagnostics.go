package sqlengine

import (
	"errors"
	"fmt"
	"strings"

	"petrel/sqlengine/sqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/mysqlerr"
)

// The diagnostics area as MySQL keeps it: a failed statement's error is
// listed by the SHOW WARNINGS that follows (with any warnings it raised
// first), and @@warning_count / @@error_count count the previous
// statement's conditions (all of them / the errors). GMS clears a
// session's warnings when each statement starts, so the counts are taken
// before (noteDiagnostics) and read from there.

// diagnosticsVariables are warning_count and error_count: session,
// read-only, computed.
func diagnosticsVariables() []sql.SystemVariable {
	session := sql.GetMysqlScope(sql.SystemVariableScope_Session)
	return []sql.SystemVariable{
		&sql.MysqlSystemVariable{Name: "warning_count", Scope: session, Type: types.NewSystemUintType("warning_count", 0, 65535), Default: uint64(0)},
		&sql.MysqlSystemVariable{Name: "error_count", Scope: session, Type: types.NewSystemUintType("error_count", 0, 65535), Default: uint64(0)},
	}
}

// noteDiagnostics records the counts of the conditions the previous
// statement left, before the next statement clears them.
func (s *Session) noteDiagnostics() {
	s.prevWarnings, s.prevErrors, s.prevNewest = 0, 0, nil
	ws := s.Warnings()
	if len(ws) > 0 {
		s.prevNewest = ws[len(ws)-1]
	}
	for _, w := range ws {
		s.prevWarnings++
		if w.Level == "Error" {
			s.prevErrors++
		}
	}
}

// diagnosticsVariable answers @@warning_count and @@error_count.
func (s *Session) diagnosticsVariable(name string) (any, bool) {
	switch strings.ToLower(name) {
	case "warning_count":
		return uint64(s.prevWarnings), true
	case "error_count":
		return uint64(s.prevErrors), true
	}
	return nil, false
}

// noteError lists a failed statement's error in the session's conditions.
func (s *Session) noteError(err error) {
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		return
	}
	if ws := s.Warnings(); s.prevNewest != nil && len(ws) > 0 && ws[len(ws)-1] == s.prevNewest && len(ws) == s.prevWarnings {
		// The statement failed before GMS cleared the previous one's
		// conditions (MySQL clears them as any statement starts).
		s.ClearWarnings()
	}
	s.Warn(&sql.Warning{Level: "Error", Code: se.Num, Message: se.Message})
}

// noteDiagnostics is Session.noteDiagnostics for c's session.
func (h *errHandler) noteDiagnostics(c *mysql.Conn) {
	if s := h.e.session(c.ConnectionID); s != nil {
		s.noteDiagnostics()
	}
}

// Warn implements sql.Session: GMS files the errors INSERT IGNORE and
// UPDATE IGNORE turn into warnings at level Note; MySQL lists them as
// Warnings (a duplicate key 1062, a NULL into NOT NULL 1048, a foreign
// key's missing parent 1452 or remaining child 1451). GMS's 1831 for an
// index that duplicates none is dropped (dupindex.go), and its warning
// 0 for a statement of comments only, which MySQL answers with a plain OK.
// Errors GMS turned into uncoded (1105) notes that way get their MySQL
// number and level through the one error mapping (an invalid JSON text:
// Warning 3140).
func (s *Session) Warn(w *sql.Warning) {
	if w != nil && w.Level == "Note" && (w.Code == 1062 || w.Code == 1048 || w.Code == mysqlerr.ErNoReferencedRow2 || w.Code == mysqlerr.ErRowIsReferenced2) {
		c := *w
		c.Level = "Warning"
		w = &c
	}
	if w != nil && w.Code == mysqlerr.ErUnknown {
		var se *mysql.SQLError
		if errors.As(sqlerr.FixSQLError(mysqlerr.Relay(w.Code, "HY000", "%s", w.Message)), &se) && se.Num != mysqlerr.ErUnknown {
			w = &sql.Warning{Level: "Warning", Code: se.Num, Message: se.Message}
		}
	}
	if w != nil && w.Code == mysqlerr.ErDupEntry {
		// INSERT IGNORE's and UPDATE IGNORE's warning carries GMS's
		// text of the error ("duplicate primary key given: 1"); MySQL's
		// is the error's own.
		c := *w
		if k, ok := strings.CutPrefix(w.Message, "duplicate primary key given: "); ok {
			c.Message = fmt.Sprintf("Duplicate entry '%s' for key 'PRIMARY'", k)
		} else if k, ok := strings.CutPrefix(w.Message, "duplicate unique key given: "); ok {
			c.Message = sqlerr.DuplicateUniqueText(k)
		}
		w = &c
	}
	if w != nil && w.Code == 1831 && s.falseDuplicateIndex(w) { // dupindex.go
		return
	}
	if w != nil && w.Code == 0 && w.Message == gmsEmptyWarning {
		return // a statement of comments only: MySQL answers OK, no warning
	}
	s.BaseSession.Warn(w)
}

// Warnings implements sql.Session: the conditions in the order they were
// raised, as MySQL's SHOW WARNINGS lists them (GMS's lists the newest
// first, so '1e2x' + '1ex' listed the second operand's 1292 first).
func (s *Session) Warnings() []*sql.Warning {
	ws := s.BaseSession.Warnings()
	for i, j := 0, len(ws)-1; i < j; i, j = i+1, j-1 {
		ws[i], ws[j] = ws[j], ws[i]
	}
	return ws
}

// gmsEmptyWarning is the warning GMS adds for a statement that is only
// comments (planbuilder's Parse).
const gmsEmptyWarning = "query was empty after trimming comments, so it will be ignored"
