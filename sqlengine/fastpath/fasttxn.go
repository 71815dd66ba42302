package fastpath

import (
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/sqlengine"
)

// BEGIN / START TRANSACTION, COMMIT and ROLLBACK, prepared (sysbench
// prepares them) or as text (database/sql's Begin, Commit and Rollback
// send them so), run without the parser and planner, doing exactly what
// GMS's nodes do.
const (
	txnBegin    = "begin"
	txnCommit   = "commit"
	txnRollback = "rollback"
)

func txnStatement(q string) string {
	if len(q) > 40 {
		return ""
	}
	switch strings.ToUpper(strings.Join(strings.Fields(strings.TrimRight(strings.TrimSpace(q), ";")), " ")) {
	case "BEGIN", "START TRANSACTION", "BEGIN WORK":
		return txnBegin
	case "COMMIT", "COMMIT WORK":
		return txnCommit
	case "ROLLBACK", "ROLLBACK WORK":
		return txnRollback
	}
	return ""
}

// tryTxnText answers a text BEGIN, COMMIT or ROLLBACK; handled=false means
// "let GMS do it".
func (e *Executor) tryTxnText(ctx context.Context, c *mysql.Conn, s *sqlengine.Session, q string, cb mysql.ResultSpoolFn) (handled bool, err error) {
	kind := txnStatement(q)
	if kind == "" || !e.e.ExecutorOn() {
		return false, nil
	}
	return e.execTxnStatement(ctx, s, kind, func(r *sqltypes.Result) error { return cb(r, false) })
}

// execTxnStatement runs BEGIN or COMMIT; ok=false means "let GMS do it".
func (e *Executor) execTxnStatement(ctx context.Context, s *sqlengine.Session, kind string, cb func(*sqltypes.Result) error) (bool, error) {
	sctx := e.NewContext(ctx, s)
	cur, _ := s.GetTransaction().(*sqlengine.Transaction)
	switch kind {
	case txnBegin:
		if s.GetTransaction() != nil {
			return false, nil // GMS commits the open one first
		}
		if !e.e.ExecutorOnFor(s) {
			return false, nil // BEGIN releases table locks (Petrel's parse hook)
		}
		tx, err := s.StartTransaction(sctx, sql.ReadWrite)
		if err != nil {
			return true, sqlengine.ToMySQLError(err)
		}
		tx.(*sqlengine.Transaction).FixIsolation() // as START TRANSACTION's
		s.SetTransaction(tx)
		s.SetIgnoreAutoCommit(true)
	case txnCommit:
		if s.GetTransaction() == nil {
			break
		}
		if cur == nil || cur.Aborted() != nil {
			return false, nil
		}
		err := s.CommitTransaction(sctx, cur)
		s.SetIgnoreAutoCommit(false)
		s.SetTransaction(nil)
		if err != nil {
			return true, err
		}
	case txnRollback:
		if s.GetTransaction() == nil {
			break
		}
		if cur == nil {
			return false, nil
		}
		err := s.Rollback(sctx, cur)
		s.SetIgnoreAutoCommit(false)
		s.SetTransaction(nil)
		if err != nil {
			return true, err
		}
	default:
		return false, nil
	}
	s.ClearWarnings()
	return true, cb(&sqltypes.Result{})
}
