package sqlengine

import (
	"context"
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/arith"
	"petrel/storage"
)

// READ ONLY transactions, as MySQL has them: a transaction's access mode
// comes from START TRANSACTION READ ONLY / READ WRITE, else from SET
// TRANSACTION READ ONLY / READ WRITE without a scope (the next
// transaction only, isolation.go's nextIso alike), else from the
// session's transaction_read_only (SET SESSION TRANSACTION READ ONLY,
// SET @@transaction_read_only; a new session takes the global value).
// A write in a read-only transaction, autocommit statements included,
// fails with ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION (1792, SQLSTATE
// 25006). DDL is refused in a read-only session (transaction_read_only),
// not in a read-only transaction, which it commits first, as in MySQL.
//
// GMS's analyzer refuses writes of a read-only transaction before they
// run (validateReadOnlyTransaction; it needs the table to say whether it
// is temporary, see Table.IsTemporary); writeTxn refuses every row write
// again, which covers prepared statements and the fast write path
// (fastwrite.go leaves read-only transactions to GMS).

// The server's read_only and super_read_only: every write statement
// checks them (checkWritable), so a change is pushed to the engine whose
// session set it (the engine's Globals hold the value: globals.go), and
// New takes the start-up values; no statement reads them by name.
func readOnlyVariables() []sql.SystemVariable {
	global := sql.GetMysqlScope(sql.SystemVariableScope_Global)
	def := func(name string, set func(e *Engine, on bool)) sql.SystemVariable {
		return &sql.MysqlSystemVariable{Name: name, Scope: global, Dynamic: true, Type: types.NewSystemBoolType(name), Default: int8(0),
			NotifyChanged: func(ctx *sql.Context, _ sql.SystemVariableScope, v sql.SystemVarValue) error {
				if e := engineOf(ctx); e != nil {
					if truthy(v.Val) {
						if err := e.tlocks.readOnlyOn(ctx); err != nil { // locktables.go
							return err
						}
					}
					set(e, truthy(v.Val))
				}
				return nil
			}}
	}
	return []sql.SystemVariable{
		def("read_only", func(e *Engine, on bool) { e.readOnly.Store(on) }),
		def("super_read_only", func(e *Engine, on bool) { e.superReadOnly.Store(on) }),
	}
}

// engineOf is the engine of ctx's session, nil for a context without a
// Petrel session (the option file's values, applied before any session).
func engineOf(ctx *sql.Context) *Engine {
	if ctx == nil {
		return nil
	}
	if s, ok := ctx.Session.(*Session); ok {
		return s.eng
	}
	return nil
}

func errReadOnlyTransaction() error {
	return mysqlerr.New(mysqlerr.ErReadOnlyTransaction,
		"Cannot execute statement in a READ ONLY transaction.")
}

// readWriteStart matches START TRANSACTION ... READ WRITE, which
// overrides the session's transaction_read_only.
var readWriteStart = regexp.MustCompile(`(?is)^\s*START\s+TRANSACTION\b.*\bREAD\s+WRITE\b`)

// sessionReadOnly is the session's transaction_read_only.
func (s *Session) sessionReadOnly() bool {
	v, err := s.BaseSession.GetSessionVariable(nil, "transaction_read_only")
	if err != nil {
		return false
	}
	n, _ := arith.ToInt64(v)
	return n != 0
}

// beginAccessMode sets a new transaction's access mode (with
// beginIsolation: the one-shot mode is used up here).
func (s *Session) beginAccessMode(ctx *sql.Context, t *Transaction, tc sql.TransactionCharacteristic) {
	next := s.nextReadOnly
	s.nextReadOnly = nil
	switch {
	case tc == sql.ReadOnly:
		t.readOnly = true
	case mayBegin(ctx.Query()) && readWriteStart.MatchString(ctx.Query()):
		t.readOnly = false
	case next != nil:
		t.readOnly = *next
		t.modeFixed = true
	default:
		t.readOnly = s.sessionReadOnly()
	}
	if tc == sql.ReadOnly || ctx.GetTransaction() != nil {
		t.modeFixed = true
	}
}

// checkReadOnly refuses a row write of a read-only transaction.
func checkReadOnly(ctx *sql.Context) error {
	if t, ok := ctx.GetTransaction().(*Transaction); ok && t != nil && t.readOnly {
		return errReadOnlyTransaction()
	}
	return nil
}

// txnCharacteristic matches one characteristic of SET TRANSACTION.
const txnCharacteristic = `(ISOLATION LEVEL (?:READ UNCOMMITTED|READ COMMITTED|REPEATABLE READ|SERIALIZABLE)|READ ONLY|READ WRITE)`

// setNextTransactionPattern is SET TRANSACTION without GLOBAL or SESSION:
// one or two characteristics, comma-separated.
const setNextTransactionPattern = `SET TRANSACTION ` + txnCharacteristic + `(?: ?, ?` + txnCharacteristic + `)?`

// setNextTransaction answers SET TRANSACTION characteristic[,
// characteristic] without a scope: they apply to the next transaction
// only (GMS would make them the session's). Inside a transaction that has
// read or written it is refused, as MySQL refuses it; an autocommit=0
// transaction GMS opened that has done neither has not started in
// MySQL's sense, so it takes them.
func (e *Engine) setNextTransaction(_ context.Context, s *Session, m []string) (*AdminResult, error) {
	var level *storage.Isolation
	var readOnly *bool
	for _, c := range m[1:] {
		c = strings.ToUpper(spaceRun.ReplaceAllString(c, " "))
		switch c {
		case "":
			continue
		case "READ ONLY", "READ WRITE":
			if readOnly != nil {
				return nil, errParse("Duplicate READ ONLY/READ WRITE characteristic")
			}
			ro := c == "READ ONLY"
			readOnly = &ro
			continue
		}
		if level != nil {
			return nil, errParse("Duplicate ISOLATION LEVEL characteristic")
		}
		var l storage.Isolation
		switch strings.TrimPrefix(c, "ISOLATION LEVEL ") {
		case "READ UNCOMMITTED", "READ COMMITTED":
			l = storage.ReadCommitted
		case "REPEATABLE READ":
			l = storage.RepeatableRead
		default: // SERIALIZABLE
			return nil, errSerializable()
		}
		level = &l
	}
	if t, ok := s.GetTransaction().(*Transaction); ok && t != nil && !t.txn.Done() {
		if t.txn.Active() || s.GetIgnoreAutoCommit() {
			return nil, mysqlerr.New(mysqlerr.ErCantChangeTxCharacteristics,
				"Transaction characteristics can't be changed while a transaction is in progress")
		}
		if level != nil {
			t.txn.SetIsolation(*level)
			t.isoFixed = true
		}
		if readOnly != nil {
			t.readOnly = *readOnly
			t.modeFixed = true
		}
		return &AdminResult{}, nil
	}
	if level != nil {
		s.nextIso = level
	}
	if readOnly != nil {
		s.nextReadOnly = readOnly
	}
	return &AdminResult{}, nil
}

// errParse is ER_PARSE_ERROR with MySQL's prefix.
func errParse(detail string) error {
	return mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax; %s", detail)
}

// varAlias maps tx_read_only, MySQL 5.7's name that MariaDB keeps, to
// transaction_read_only: GMS defines both as separate variables, and one
// set through either must read the same through both.
func varAlias(name string) string {
	if len(name) == len("tx_read_only") && strings.EqualFold(name, "tx_read_only") {
		return "transaction_read_only"
	}
	return name
}
