package proxy

import (
	"context"
	"fmt"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Kind is what a statement does, as far as routing cares.
type Kind uint8

const (
	// KindRead: an autocommit read (SELECT, UNION) with no side effect on
	// its connection: it may go to a replica.
	KindRead Kind = iota
	// KindWrite: changes data or the schema (and locking reads): primary.
	KindWrite
	// KindBegin starts a transaction: primary, on the session's own
	// connection until the transaction ends.
	KindBegin
	// KindEnd: COMMIT or ROLLBACK.
	KindEnd
	// KindSessionState changes the connection's state (SET, temporary
	// tables, user locks, LOCK TABLES, SQL PREPARE, user variables,
	// functions reading the previous statement's state) or cannot be
	// told apart from one (statements the parser refuses, several
	// statements in one): the session is pinned to its primary
	// connection.
	KindSessionState
	// KindUse: USE db.
	KindUse
	// KindProxySet: SET of the proxy's own variable (petrel_read_mode).
	KindProxySet
	// KindOther: anything else (SHOW, EXPLAIN, administration): primary,
	// no pin.
	KindOther
	// KindLastInsertID is exactly SELECT LAST_INSERT_ID() [AS name]: the
	// proxy answers it from the session's last OK packet (the session's
	// insert may have run on any pooled primary connection).
	KindLastInsertID
)

var kindNames = [...]string{"read", "write", "begin", "end", "session-state", "use", "proxy-set", "other", "last-insert-id"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// ProxyVariable is the session variable that sets a session's read mode:
// SET petrel_read_mode = 'read-your-writes'.
const ProxyVariable = "petrel_read_mode"

// hintKey is a read's comment hint: SELECT /* petrel_read=primary */ ...
const hintKey = "petrel_read="

var nilCtx = context.Background()

// Statement is a classified statement.
type Statement struct {
	Kind Kind
	// Why names what made it its kind (for logs and tests).
	Why string
	// Hint is a read's own mode from a comment hint (nil: none).
	Hint *Mode
	// DB is USE's database.
	DB string
	// Mode is KindProxySet's value; Err, when set, refuses the statement
	// (a bad value).
	Mode Mode
	Err  error
	// Multi: the text holds several statements (refused unless the
	// client asked for CLIENT_MULTI_STATEMENTS).
	Multi bool
	// Column is KindLastInsertID's column name.
	Column string
}

// stateFuncs are functions whose result or effect belongs to one
// connection: user-level locks, and the previous statement's results.
var stateFuncs = map[string]bool{
	"get_lock": true, "release_lock": true, "release_all_locks": true,
	"is_free_lock": true, "is_used_lock": true,
	"last_insert_id": true, "found_rows": true, "row_count": true,
}

// Classify parses a COM_QUERY text (or a prepared statement's) with
// vitess's parser and returns its kind. A comment or a string literal
// never changes the kind: the parser, not a pattern, reads the text.
func Classify(query string) Statement {
	stmt, rest, err := ast.ParseOne(nilCtx, query)
	if err != nil {
		return Statement{Kind: KindSessionState, Why: "unparsed"}
	}
	if strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(query[min(rest, len(query)):]), ";")) != "" {
		return Statement{Kind: KindSessionState, Why: "several statements", Multi: true}
	}
	switch s := stmt.(type) {
	case *ast.Select:
		if col, ok := lastInsertID(s); ok {
			return Statement{Kind: KindLastInsertID, Why: "last_insert_id()", Column: col}
		}
		return classifySelect(s, s.Comments, s.Lock, s.Into)
	case *ast.SetOp:
		return classifySelect(s, firstComments(s), s.Lock, s.Into)
	case *ast.ParenSelect:
		return classifySelect(s, firstComments(s.Select), "", nil)
	case *ast.Set:
		return classifySet(s)
	case *ast.Begin:
		return Statement{Kind: KindBegin, Why: "begin"}
	case *ast.Commit:
		return Statement{Kind: KindEnd, Why: "commit"}
	case *ast.Rollback:
		return Statement{Kind: KindEnd, Why: "rollback"}
	case *ast.Use:
		return Statement{Kind: KindUse, Why: "use", DB: s.DBName.String()}
	case *ast.DDL:
		if s.Temporary {
			return Statement{Kind: KindSessionState, Why: "temporary table"}
		}
		return Statement{Kind: KindWrite, Why: "ddl"}
	case *ast.LockTables, *ast.UnlockTables:
		return Statement{Kind: KindSessionState, Why: "table locks"}
	case *ast.Prepare, *ast.Execute, *ast.Deallocate:
		return Statement{Kind: KindSessionState, Why: "sql prepare"}
	case *ast.Call:
		// A procedure may set variables or start a transaction.
		return Statement{Kind: KindSessionState, Why: "call"}
	case *ast.Insert, *ast.Update, *ast.Delete, *ast.Load, *ast.DBDDL, *ast.AlterTable:
		return Statement{Kind: KindWrite, Why: "write"}
	}
	return Statement{Kind: KindOther, Why: fmt.Sprintf("%T", stmt)}
}

// lastInsertID recognises SELECT LAST_INSERT_ID() [AS name] and nothing
// more (no FROM, no argument, no other column).
func lastInsertID(s *ast.Select) (string, bool) {
	if len(s.From) != 0 || len(s.SelectExprs) != 1 || s.Where != nil || s.Into != nil || s.Lock != "" || s.With != nil {
		return "", false
	}
	ae, ok := s.SelectExprs[0].(*ast.AliasedExpr)
	if !ok {
		return "", false
	}
	f, ok := ae.Expr.(*ast.FuncExpr)
	if !ok || f.Name.Lowered() != "last_insert_id" || len(f.Exprs) != 0 || !f.Qualifier.IsEmpty() {
		return "", false
	}
	if !ae.As.IsEmpty() {
		return ae.As.String(), true
	}
	return "LAST_INSERT_ID()", true
}

func firstComments(s ast.SelectStatement) ast.Comments {
	for {
		switch v := s.(type) {
		case *ast.Select:
			return v.Comments
		case *ast.SetOp:
			s = v.Left
		case *ast.ParenSelect:
			s = v.Select
		default:
			return nil
		}
	}
}

func classifySelect(s ast.SQLNode, comments ast.Comments, lock string, into *ast.Into) Statement {
	if into != nil {
		if len(into.Variables) > 0 {
			return Statement{Kind: KindSessionState, Why: "select into variables"}
		}
		return Statement{Kind: KindWrite, Why: "select into file"}
	}
	if lock != "" {
		return Statement{Kind: KindWrite, Why: "locking read"}
	}
	why, locking := "", false
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		switch v := n.(type) {
		case *ast.FuncExpr:
			if name := v.Name.Lowered(); stateFuncs[name] {
				why = name
				return false, nil
			}
		case *ast.Select:
			if v.Lock != "" {
				locking = true
			}
			if v.Into != nil {
				why = "select into"
				return false, nil
			}
			if v.QueryOpts.SQLCalcFoundRows {
				why = "sql_calc_found_rows"
				return false, nil
			}
		case *ast.SetVarExpr, *ast.AssignmentExpr:
			why = "assignment"
			return false, nil
		}
		return true, nil
	}, s)
	if why != "" {
		return Statement{Kind: KindSessionState, Why: why}
	}
	if locking {
		return Statement{Kind: KindWrite, Why: "locking read"}
	}
	st := Statement{Kind: KindRead, Why: "select"}
	for _, c := range comments {
		if m, ok := hintOf(string(c)); ok {
			st.Hint = &m
		}
	}
	return st
}

// hintOf reads a comment's petrel_read=MODE token.
func hintOf(comment string) (Mode, bool) {
	body := strings.TrimSuffix(strings.TrimPrefix(comment, "/*"), "*/")
	body = strings.TrimPrefix(body, "+")
	for _, f := range strings.Fields(body) {
		if v, ok := strings.CutPrefix(strings.ToLower(f), hintKey); ok {
			return ParseMode(v)
		}
	}
	return 0, false
}

func classifySet(s *ast.Set) Statement {
	proxy, other := 0, 0
	var mode Mode
	var err error
	for _, e := range s.Exprs {
		name := e.Name.Name.Lowered()
		if e.Scope != ast.SetScope_User && name == ProxyVariable {
			proxy++
			if e.Scope == ast.SetScope_Global || e.Scope == ast.SetScope_Persist || e.Scope == ast.SetScope_PersistOnly {
				err = fmt.Errorf("Variable '%s' is a SESSION variable", ProxyVariable)
				continue
			}
			v := setValue(e.Expr)
			m, ok := ParseMode(strings.ToLower(v))
			if !ok {
				err = fmt.Errorf("Variable '%s' can't be set to the value of '%s'", ProxyVariable, v)
				continue
			}
			mode = m
			continue
		}
		other++
	}
	switch {
	case proxy > 0 && other > 0:
		return Statement{Kind: KindProxySet, Why: "proxy set", Err: fmt.Errorf("%s must be set alone", ProxyVariable)}
	case proxy > 0:
		return Statement{Kind: KindProxySet, Why: "proxy set", Mode: mode, Err: err}
	}
	if len(s.Exprs) == 1 && s.Exprs[0].Scope != ast.SetScope_User && s.Exprs[0].Name.Name.Lowered() == "autocommit" {
		switch strings.ToLower(setValue(s.Exprs[0].Expr)) {
		case "1", "on", "true":
			// The pooled connections' own state: nothing to pin (in a
			// transaction it commits it, on the session's connection).
			return Statement{Kind: KindOther, Why: "set autocommit=1"}
		}
	}
	for _, e := range s.Exprs {
		switch e.Scope {
		case ast.SetScope_Global, ast.SetScope_Persist, ast.SetScope_PersistOnly:
		default:
			return Statement{Kind: KindSessionState, Why: "set " + e.Name.Name.Lowered()}
		}
	}
	return Statement{Kind: KindWrite, Why: "set global"}
}

// setValue is a SET value's text: a string, a number or a bare word.
func setValue(e ast.Expr) string {
	switch v := e.(type) {
	case *ast.SQLVal:
		return string(v.Val)
	case *ast.ColName:
		return v.Name.String()
	}
	return ast.String(e)
}
