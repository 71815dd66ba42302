package sqlengine

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/sqlerr"
	"petrel/sqlengine/storedfn"
)

// Admin statements are MySQL statements GMS does not parse (SHOW BINLOG
// EVENTS, PURGE BINARY LOGS, RESET MASTER, ...). Components register a
// handler for a statement pattern; the protocol handler answers matching
// statements before GMS sees them. Patterns match the whole statement,
// case-insensitively, with whitespace runs normalised to one space.

// AdminResult is a statement's answer: columns and rows of strings (nil =
// NULL), or an OK with RowsAffected when Columns is empty.
type AdminResult struct {
	Columns      []string
	Rows         [][]*string
	RowsAffected uint64
}

// AdminFunc answers one statement; m holds the pattern's submatches.
type AdminFunc func(ctx context.Context, s *Session, m []string) (*AdminResult, error)

type adminStmt struct {
	re *regexp.Regexp
	fn AdminFunc
	// priv is the privilege the statement needs (SUPER-like statements).
	priv sql.PrivilegeType
}

type adminRegistry struct {
	mu    sync.RWMutex
	stmts []adminStmt
}

// RegisterAdmin adds a statement. pattern is a regexp over the normalised
// statement text (no trailing semicolon), anchored by the registry.
func (e *Engine) RegisterAdmin(pattern string, priv sql.PrivilegeType, fn AdminFunc) {
	re := regexp.MustCompile(`(?is)^` + pattern + `$`)
	e.admin.mu.Lock()
	e.admin.stmts = append(e.admin.stmts, adminStmt{re: re, fn: fn, priv: priv})
	e.admin.mu.Unlock()
}

// Str makes a nullable cell.
func Str(s string) *string { return &s }

var spaceRun = regexp.MustCompile(`\s+`)

// splitFirst returns the first statement of a multi-statement text and the
// rest, splitting at the first ';' outside quotes and comments.
func splitFirst(q string) (first, rest string) {
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == '\\' && quote != '`' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == ';':
			return q[:i], q[i+1:]
		}
	}
	return q, ""
}

// maxAdminStatement: longer statements are never admin statements (a
// GTID set in WAIT_FOR_EXECUTED_GTID_SET is the longest text they take),
// so a large statement is not copied to be normalised.
const maxAdminStatement = 1 << 20

// adminVerbs are the words admin statements start with.
var adminVerbs = []string{"SHOW", "PURGE", "RESET", "FLUSH", "INSTALL", "UNINSTALL", "START", "STOP", "CHANGE", "SET", "SELECT", "ALTER", "CLONE", "GET", "CHECKSUM", "OPTIMIZE", "CHECK", "REPAIR", "CREATE", "DROP", "DELETE", "HANDLER"}

// matchAdmin finds the handler for a statement, if any.
func (e *Engine) matchAdmin(stmt string) (*adminStmt, []string) {
	if strings.HasPrefix(stmt, "/*!") {
		// A statement in a version comment, as dumps write some.
		stmt = storedfn.Unwrap(stmt)
	}
	// Cheap filter on the text as written: admin statements start with
	// one of adminVerbs.
	if len(stmt) > maxAdminStatement || !hasAdminVerb(stmt) {
		return nil, nil
	}
	norm := strings.TrimSpace(spaceRun.ReplaceAllString(stmt, " "))
	norm = strings.TrimRight(norm, "; ")
	if norm == "" {
		return nil, nil
	}
	e.admin.mu.RLock()
	defer e.admin.mu.RUnlock()
	for i := range e.admin.stmts {
		if m := e.admin.stmts[i].re.FindStringSubmatch(norm); m != nil {
			return &e.admin.stmts[i], m
		}
	}
	return nil, nil
}

func hasAdminVerb(stmt string) bool {
	w := strings.TrimLeft(stmt, " \t\r\n\f\v")
	if i := strings.IndexFunc(w, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }); i >= 0 {
		w = w[:i]
	}
	if strings.EqualFold(w, "DELETE") {
		// The one admin DELETE is of mysql.columns_priv (columnspriv.go):
		// other DELETEs skip the patterns.
		return strings.Contains(strings.ToLower(stmt), "columns_priv")
	}
	for _, v := range adminVerbs {
		if strings.EqualFold(w, v) {
			return true
		}
	}
	return false
}

// runAdmin executes a matched statement and sends its result.
func (e *Engine) runAdmin(ctx context.Context, c *mysql.Conn, st *adminStmt, m []string, stmt string, cb mysql.ResultSpoolFn, more bool) error {
	s, err := e.connSession(ctx, c, m[0])
	if err != nil {
		return err
	}
	s.adminQuery = stmt
	defer func() { s.adminQuery = "" }()
	if st.priv != 0 {
		sctx := e.NewContext(ctx, s)
		udb := e.gms.Analyzer.Catalog.MySQLDb
		if udb.Enabled() && !udb.UserHasPrivileges(sctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{}, st.priv)) {
			return mysqlerr.New(mysqlerr.ErSpecificAccessDenied,
				"Access denied; you need (at least one of) the %s privilege(s) for this operation", st.priv.String())
		}
	}
	res, err := st.fn(ctx, s, m)
	if err != nil {
		return sqlerr.ToMySQL(err)
	}
	out := &sqltypes.Result{RowsAffected: res.RowsAffected}
	for _, c := range res.Columns {
		out.Fields = append(out.Fields, &querypb.Field{Name: c, Type: sqltypes.VarChar, Charset: 33, ColumnLength: 1024})
	}
	for _, r := range res.Rows {
		row := make([]sqltypes.Value, len(r))
		for i, v := range r {
			if v == nil {
				row[i] = sqltypes.NULL
			} else {
				row[i] = sqltypes.MakeTrusted(sqltypes.VarChar, []byte(*v))
			}
		}
		out.Rows = append(out.Rows, row)
	}
	return cb(out, more)
}

// ParseDuration parses a MySQL-ish timeout in seconds (may be fractional).
func ParseSeconds(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("invalid timeout %q", s)
	}
	return time.Duration(f * float64(time.Second)), nil
}
