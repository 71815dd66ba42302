package sqlengine

import (
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
	"petrel/storage"
)

// Transaction isolation as InnoDB provides it (storage/snapshot.go has the
// read views):
//   - REPEATABLE-READ (the default): plain SELECTs read the snapshot taken
//     at the transaction's first consistent read, or at START TRANSACTION
//     WITH CONSISTENT SNAPSHOT;
//   - READ-COMMITTED: each statement reads its own snapshot;
//   - READ-UNCOMMITTED behaves as READ-COMMITTED (it never shows
//     uncommitted rows, which the level permits but does not require);
//   - SERIALIZABLE is refused (ER_NOT_SUPPORTED_YET): InnoDB's turns
//     plain reads into shared next-key locks, and Petrel has neither
//     shared nor gap locks, so it could only be weaker.
//
// Locking reads (FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE), UPDATE and
// DELETE read the latest committed version under a lock, and the SELECT of
// INSERT ... SELECT the latest version, at every level.
//
// The level comes from the session's transaction_isolation (SET [SESSION |
// GLOBAL] TRANSACTION ISOLATION LEVEL, SET @@transaction_isolation, the
// option file's transaction-isolation) when the transaction starts (START
// TRANSACTION; under autocommit=0, its first read or write), or from SET
// TRANSACTION ISOLATION LEVEL without a scope, which applies to the next
// transaction only. tx_isolation, MySQL 5.7's spelling that
// MySQL 8.0 removed, is not defined: a server that accepted it would
// report a level it does not use.

// registerIsolation replaces GMS's isolation variables: transaction_isolation
// refuses SERIALIZABLE; tx_isolation is hidden.
func registerIsolation(g *Globals) {
	both := sql.GetMysqlScope(sql.SystemVariableScope_Both)
	g.Add(&sql.MysqlSystemVariable{
		Name:          "transaction_isolation",
		Scope:         both,
		Dynamic:       true,
		Type:          types.NewSystemEnumType("transaction_isolation", "READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE"),
		Default:       "REPEATABLE-READ",
		NotifyChanged: checkIsolation,
	})
	hideVariable("tx_isolation")
}

func checkIsolation(_ *sql.Context, _ sql.SystemVariableScope, v sql.SystemVarValue) error {
	if s, _ := v.Val.(string); strings.EqualFold(s, "SERIALIZABLE") {
		return errSerializable()
	}
	return nil
}

func errSerializable() error {
	return mysqlerr.New(mysqlerr.ErNotSupportedYet,
		"This version of MySQL doesn't yet support 'SERIALIZABLE isolation level: Petrel has no shared or gap locks; use REPEATABLE READ and SELECT ... FOR UPDATE'")
}

// isolationOf maps a transaction_isolation value to storage's level.
func isolationOf(v any) storage.Isolation {
	s, _ := v.(string)
	switch strings.ToUpper(s) {
	case "READ-COMMITTED", "READ-UNCOMMITTED":
		return storage.ReadCommitted
	}
	return storage.RepeatableRead
}

// isolation is the session's transaction_isolation.
func (s *Session) isolation() storage.Isolation {
	v, err := s.BaseSession.GetSessionVariable(nil, "transaction_isolation")
	if err != nil {
		return storage.RepeatableRead
	}
	return isolationOf(v)
}

// beginIsolation sets a new transaction's level: the one-shot level of
// SET TRANSACTION ISOLATION LEVEL if one is pending, else the session's.
func (s *Session) beginIsolation(t *Transaction) {
	if s.nextIso != nil {
		t.txn.SetIsolation(*s.nextIso)
		t.isoFixed = true
		s.nextIso = nil
		return
	}
	t.txn.SetIsolation(s.isolation())
}

// statementStart readies the session's transaction for a client
// statement: a transaction GMS opened implicitly (autocommit=0) that has
// neither read nor written yet has not started in MySQL's sense, so it
// takes the session's level now (a SET SESSION TRANSACTION after COMMIT
// applies to the next transaction); under READ COMMITTED the previous
// statement's snapshot ends.
func (s *Session) statementStart(t *Transaction) {
	if !t.isoFixed && !t.txn.Active() {
		t.txn.SetIsolation(s.isolation())
	}
	if !t.modeFixed && !t.txn.Active() {
		t.readOnly = s.sessionReadOnly()
	}
	t.txn.NewStatement()
}

// mayBegin is beginStatement's cheap first test (it runs for every
// statement): the first word, after spaces, is BEGIN or START.
func mayBegin(q string) bool {
	i := 0
	for i < len(q) && (q[i] == ' ' || q[i] >= '\t' && q[i] <= '\r') {
		i++
	}
	return hasPrefixFold(q[i:], "begin") || hasPrefixFold(q[i:], "start")
}

// hasPrefixFold reports whether q starts with p (lower-case ASCII),
// ignoring ASCII case.
func hasPrefixFold(q, p string) bool {
	if len(q) < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		if q[j]|0x20 != p[j] {
			return false
		}
	}
	return true
}

// beginStatement matches BEGIN and START TRANSACTION.
var beginStatement = regexp.MustCompile(`(?is)^\s*(START\s+TRANSACTION|BEGIN)\b`)

// consistentSnapshot matches START TRANSACTION ... WITH CONSISTENT
// SNAPSHOT (also inside a /*!40100 ... */ comment, as mysqldump and
// mariadb-dump send it). GMS's parser accepts the clause and drops it.
var consistentSnapshot = regexp.MustCompile(`(?is)^\s*START\s+TRANSACTION\b.*\bWITH\s+CONSISTENT\s+SNAPSHOT\b`)

// startSnapshot takes the read view of START TRANSACTION WITH CONSISTENT
// SNAPSHOT, or warns as MySQL does when the level has no snapshot.
func (s *Session) startSnapshot(ctx *sql.Context, t *Transaction) {
	if !consistentSnapshot.MatchString(ctx.Query()) {
		return
	}
	if !t.txn.StartSnapshot() {
		s.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.WarnHAUnsupported,
			Message: "InnoDB: WITH CONSISTENT SNAPSHOT was ignored because this phrase can only be used with REPEATABLE READ isolation level."})
	}
}
