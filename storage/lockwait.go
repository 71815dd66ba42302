package storage

import (
	"context"
	"errors"

	"petrel/internal/base"
)

// NOWAIT and SKIP LOCKED (issue 31): a locking read's row lock is tried,
// never waited for. NOWAIT fails the statement at a row another
// transaction holds (3572); SKIP LOCKED leaves the row out of the result
// (the queue idiom: workers each take rows nobody else holds). Both hold
// the locks they do get, as a locking read does.

// LockWait is how a locking read treats a row another transaction holds.
type LockWait uint8

const (
	LockWaitBlock  LockWait = iota // wait up to the lock wait timeout
	LockWaitNoWait                 // fail at once
	LockWaitSkip                   // skip the row
)

// errLockNoWait is NOWAIT's failure.
var errLockNoWait = errors.New("lock not granted at once (NOWAIT)")

// SetLockWait sets how the transaction's locking reads treat rows others
// hold, until SetLockingReads(false).
func (t *Txn) SetLockWait(w LockWait) { t.lockWait = w }

// readLock locks key for a locking read; skip reports that the row is
// another transaction's and SKIP LOCKED leaves it out.
func (t *Txn) readLock(ctx context.Context, key []byte) (skip bool, err error) {
	switch t.lockWait {
	case LockWaitNoWait, LockWaitSkip:
		if !t.e.locks.TryAcquire(t.id, key) {
			if t.lockWait == LockWaitSkip {
				return true, nil
			}
			return false, base.Wrap(base.ClassLockNoWait, errLockNoWait, "storage")
		}
		t.locked = true
		return false, nil
	}
	return false, t.lock(ctx, key)
}
