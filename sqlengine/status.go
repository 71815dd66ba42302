package sqlengine

import (
	"fmt"
	"strings"

	"petrel/sqlengine/wire"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Server status flags of OK and EOF packets and of the greeting.
//
// vitess writes them from mysql.Conn.StatusFlags; GMS updates that after
// the statements it runs itself, from its own idea of a transaction (one
// is open around every statement). The flags are set here instead, from
// the session, before each OK packet and before the end of each result
// set, whoever ran the statement (GMS, an admin statement, a fast path):
//   - SERVER_STATUS_AUTOCOMMIT: the session's autocommit (the greeting:
//     the global value, which a new session starts with);
//   - SERVER_STATUS_IN_TRANS: a transaction is open in MySQL's sense:
//     START TRANSACTION / BEGIN ran, or, under autocommit=0, a statement
//     read or wrote through the transaction GMS keeps open;
//   - SERVER_STATUS_NO_BACKSLASH_ESCAPES: the session's sql_mode has
//     NO_BACKSLASH_ESCAPES (drivers that quote values themselves, as
//     go-sql-driver's interpolateParams, then double quotes instead of
//     escaping them with a backslash);
//   - SERVER_MORE_RESULTS_EXISTS: vitess adds it for multi-statements;
//   - SERVER_STATUS_CURSOR_EXISTS / LAST_ROW_SENT: vitess, for cursors.
//
// SESSION_STATE_CHANGED is never set: Petrel does not offer
// CLIENT_SESSION_TRACK, so a client could not read the change data the
// flag announces. NO_INDEX_USED / NO_GOOD_INDEX_USED are not set (the
// plan is GMS's, and no client acts on them).
const statusOwned = uint16(mysql.ServerInTransaction | mysql.ServerStatusAutocommit | serverStatusNoBackslashEscapes)

// serverStatusNoBackslashEscapes is SERVER_STATUS_NO_BACKSLASH_ESCAPES.
const serverStatusNoBackslashEscapes = 0x0200

// sessionStatus is the status flags the session's state gives.
func sessionStatus(s *Session) uint16 {
	var f uint16
	if s.autocommit() {
		f |= mysql.ServerStatusAutocommit
	}
	if s.inTransaction() {
		f |= mysql.ServerInTransaction
	}
	if s.noBackslashEscapes() {
		f |= serverStatusNoBackslashEscapes
	}
	return f
}

// noBackslashEscapes reports whether the session's sql_mode has
// NO_BACKSLASH_ESCAPES, read again only after a SET.
func (s *Session) noBackslashEscapes() bool {
	if s.nbeGen != s.varGen+1 {
		v, err := s.BaseSession.GetSessionVariable(nil, "sql_mode")
		str, _ := v.(string)
		s.nbe = err == nil && strings.Contains(strings.ToUpper(str), "NO_BACKSLASH_ESCAPES")
		s.nbeGen = s.varGen + 1
	}
	return s.nbe
}

// inTransaction reports whether the session is inside a transaction as
// MySQL counts it.
func (s *Session) inTransaction() bool {
	t, ok := s.GetTransaction().(*Transaction)
	if !ok || t == nil || t.txn.Done() || t.abort != nil {
		return false
	}
	return s.GetIgnoreAutoCommit() || (!s.autocommit() && t.txn.Active())
}

// setStatus sets the connection's status flags from its session (the
// greeting's when it has none yet).
func (h *errHandler) setStatus(c *mysql.Conn) {
	h.okStatus(c, nil)
}

// okStatus is setStatus before an OK result res (nil for none): the rows
// a REPLACE deleted beyond GMS's count are added to its affected rows.
func (h *errHandler) okStatus(c *mysql.Conn, res *sqltypes.Result) {
	var f uint16
	if s := h.e.session(c.ConnectionID); s != nil {
		f = sessionStatus(s)
		if res != nil && s.setDone {
			res.RowsAffected = 0
		}
		if res != nil && s.extraAffected > 0 {
			res.RowsAffected += s.extraAffected
		}
		if res != nil && (s.fewerAffected > 0 || s.moreAffected > 0) {
			fewer, more := s.fewerAffected, s.moreAffected
			res.RowsAffected = res.RowsAffected + more - min(res.RowsAffected+more, fewer)
			var matched, changed, warnings uint64
			if n, _ := fmt.Sscanf(res.Info, "Rows matched: %d  Changed: %d  Warnings: %d", &matched, &changed, &warnings); n == 3 {
				res.Info = fmt.Sprintf("Rows matched: %d  Changed: %d  Warnings: %d",
					matched+more-min(matched+more, fewer), changed+more-min(changed+more, fewer), warnings)
			}
		}
		s.extraAffected, s.fewerAffected, s.moreAffected, s.setDone = 0, 0, 0, false
	} else if h.e.globals.Bool("autocommit") {
		f = mysql.ServerStatusAutocommit
	}
	c.StatusFlags = c.StatusFlags&^statusOwned | f
}

// statusSpool wraps a result callback: the status flags are set before a
// result without columns, which vitess answers with an OK packet at once.
func (h *errHandler) statusSpool(c *mysql.Conn, cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	return func(res *sqltypes.Result, more bool) error {
		if len(res.Fields) == 0 {
			h.okStatus(c, res)
			if res.Info != "" {
				wire.ExpectInfoOK(c)
			}
		}
		return cb(res, more)
	}
}

// statusRows is statusSpool for the binary protocol's callback.
func (h *errHandler) statusRows(c *mysql.Conn, cb func(*sqltypes.Result) error) func(*sqltypes.Result) error {
	return func(res *sqltypes.Result) error {
		if len(res.Fields) == 0 {
			h.okStatus(c, res)
		}
		return cb(res)
	}
}

// ComResetConnection implements mysql.Handler: the session is reset, and
// vitess's OK carries its fresh status.
func (h *errHandler) ComResetConnection(c *mysql.Conn) error {
	err := h.Handler.ComResetConnection(c)
	h.setStatus(c)
	return err
}
