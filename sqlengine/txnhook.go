package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage"
)

// A TxnHook gives a client transaction, as it begins, settings a later
// stage reads at commit from the session's variables (the binlog's
// transaction compression). It must be cheap: it runs before every
// statement outside a transaction.
type TxnHook func(ctx *sql.Context, s *Session, txn *storage.Txn)

// SetTxnHook installs e's hook (nil removes it).
func (e *Engine) SetTxnHook(h TxnHook) {
	if h == nil {
		e.txnHook.Store(nil)
		return
	}
	e.txnHook.Store(&h)
}

func runTxnHook(ctx *sql.Context, s *Session, txn *storage.Txn) {
	if h := s.eng.txnHook.Load(); h != nil {
		(*h)(ctx, s, txn)
	}
}
