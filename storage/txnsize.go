package storage

import (
	"math"
	"sync/atomic"

	"petrel/internal/base"
)

// Transaction size limit. A transaction's pending writes live in memory
// (its Pebble batch, its undo records and row images) until it commits, so
// a transaction of unbounded size is unbounded memory. The limit is
// MySQL's max_binlog_cache_size: a write that finds the batch already
// past it fails with ClassTxnTooLarge (1197 ER_TRANS_CACHE_FULL) and the
// SQL layer rolls the transaction back whole, as MySQL does. Two kinds
// are exempt: the replication applier's (the source committed it;
// refusing it would stop replication for good) and DDL (a table rewrite
// copies the table in one transaction, which MySQL's binlog cache never
// holds either).

// SetMaxTxnSize sets the limit in bytes of pending writes (0 or less: no
// limit). It applies from the next write of every transaction.
func (e *Engine) SetMaxTxnSize(n int64) {
	e.maxTxnSize.Store(max(n, 0))
}

// MaxTxnSize is the limit SetMaxTxnSize set (0: none).
func (e *Engine) MaxTxnSize() int64 { return e.maxTxnSize.Load() }

// PendingSize is the bytes of the transaction's pending writes (its
// batch's encoded size), what the limit counts.
func (t *Txn) PendingSize() int64 {
	n := uint64(t.spillBytes) // batchspill.go
	if t.batch != nil {
		n += uint64(t.batch.Len())
	}
	return int64(min(n, math.MaxInt64))
}

// LargeTxnBytes is the pending writes past which a transaction counts as
// large (LargeTxns).
const LargeTxnBytes = 32 << 20

// largeTxns counts the open transactions of the process whose pending
// writes passed LargeTxnBytes.
var largeTxns atomic.Int64

// LargeTxns is how many open transactions of the process hold more than
// LargeTxnBytes of pending writes: while there are any, the server bounds
// the collector's headroom (cmd/petrel/gc.go), which it does not
// otherwise, so that small transactions keep GOGC's pace.
func LargeTxns() int64 { return largeTxns.Load() }

// largeTxnHook runs when a transaction becomes large (OnLargeTxn).
var largeTxnHook atomic.Pointer[func()]

// OnLargeTxn makes fn run, in the writing session, whenever a transaction
// of the process becomes large. The server bounds the collector's
// headroom then, not at the next collection: under GOGC=400 that comes
// only when the heap is five times the live heap of the last one, 2 GB
// into a large UPDATE after a 400 MB heap (issue 29).
// A nil fn removes the hook.
func OnLargeTxn(fn func()) {
	if fn == nil {
		largeTxnHook.Store(nil)
		return
	}
	largeTxnHook.Store(&fn)
}

// noteLarge counts the transaction as large once it is (dropChanges
// uncounts it).
func (t *Txn) noteLarge() {
	if !t.large && t.PendingSize() > LargeTxnBytes {
		t.large = true
		largeTxns.Add(1)
		if h := largeTxnHook.Load(); h != nil {
			(*h)()
		}
	}
}

// checkSize refuses a write once the pending writes passed the limit.
func (t *Txn) checkSize() error {
	t.noteLarge()
	limit := t.e.maxTxnSize.Load()
	if limit <= 0 || t.origin != nil || t.catalogDirty {
		return nil
	}
	if n := t.PendingSize(); n > limit {
		return base.Errorf(base.ClassTxnTooLarge, "storage: the transaction's pending writes (%d bytes) passed max_binlog_cache_size (%d bytes)", n, limit)
	}
	return nil
}
