package replica

import (
	"errors"
	"fmt"
	"time"

	"petrel/internal/base"
)

// Transaction retries (replica_transaction_retries): a transaction whose
// apply fails on a lock wait timeout or a deadlock, in practice a row a
// client transaction on the replica holds locked (SELECT ... FOR UPDATE
// in an open transaction), is rolled back and applied again, as MySQL's
// applier does, instead of stopping the applier at the first conflict.
// Each retry is counted (COUNT_TRANSACTIONS_RETRIES). Once the retries
// are spent the applier stops with the last error's number (1205, 1213).

// transient reports an apply error that a retry can cure.
func transient(err error) bool {
	c := base.ClassOf(err)
	return c == base.ClassLockTimeout || c == base.ClassDeadlock
}

// retryPause is the wait before retry n (from 1): 100 ms more each time,
// at most a second (MySQL waits n seconds, at most 5; Petrel's shorter
// pauses keep a catching-up replica moving, the lock wait itself being
// the long part).
func retryPause(n uint64) time.Duration {
	return min(time.Duration(n)*100*time.Millisecond, time.Second)
}

// errRetryStopped ends retries when the applier is stopping.
var errRetryStopped = errors.New("replica: applier stopping")

// retrying calls apply, which must leave nothing behind when it fails,
// until it succeeds, fails with an error a retry cannot cure, or failed
// replica_transaction_retries + 1 times. A close of stop ends the pauses
// between attempts (the last error is returned).
func (r *Replica) retrying(stop <-chan struct{}, gtid string, apply func() error) error {
	for n := uint64(1); ; n++ {
		err := apply()
		if err == nil || !transient(err) {
			return err
		}
		limit := r.Settings().TransactionRetries
		if n > limit {
			if limit == 0 {
				return err
			}
			return base.Wrap(base.ClassOf(err), err,
				"Replica SQL thread retried transaction %d time(s) in vain, giving up. Consider raising the value of the replica_transaction_retries variable", limit)
		}
		r.opts.Logger.Warn("replica: transaction failed on a row lock; retrying", "gtid", gtid, "retry", n, "of", limit, "error", err.Error())
		fired, cancel := r.opts.Clock.NewTimer(retryPause(n))
		select {
		case <-fired:
		case <-stop:
			cancel()
			return fmt.Errorf("%w: %w", err, errRetryStopped)
		}
		r.mu.Lock()
		r.retriedTxns++
		r.mu.Unlock()
	}
}
