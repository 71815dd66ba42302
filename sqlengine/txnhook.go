package sqlengine

import (
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage"
)

// A TxnHook gives a client transaction, as it begins, settings a later
// stage reads at commit from the session's variables (the binlog's
// transaction compression). It must be cheap: it runs before every
// statement outside a transaction.
type TxnHook func(ctx *sql.Context, s *Session, txn *storage.Txn)

var txnHook atomic.Pointer[TxnHook]

// SetTxnHook installs the hook (nil removes it); one per process, like
// the variable registry it reads.
func SetTxnHook(h TxnHook) {
	if h == nil {
		txnHook.Store(nil)
		return
	}
	txnHook.Store(&h)
}

func runTxnHook(ctx *sql.Context, s *Session, txn *storage.Txn) {
	if h := txnHook.Load(); h != nil {
		(*h)(ctx, s, txn)
	}
}
