package replica

import (
	"context"
	"errors"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/storage"
)

// A worker of the applier (applier.go): it applies the transactions the
// scheduling core starts on it, one at a time.

func (a *applier) worker(id int, ch <-chan *applyJob) {
	defer a.wg.Done()
	for j := range ch {
		a.r.workers.begin(id, j.txn.GTID.GTID, j.txn.GTID.OrigTime, a.r.opts.Clock.Now())
		err := a.run(j)
		a.r.workers.end(id, err, a.r.opts.Clock.Now())
		if err != nil {
			a.fail(j.seq, err)
		}
	}
}

// run applies one transaction and commits it when the core lets it. It
// is atomic: the rows and the GTID commit together, or nothing does.
func (a *applier) run(j *applyJob) error {
	r := a.r
	t := j.txn
	g := t.GTID
	h, err := binlog.ParseHeader(t.Events[0])
	if err != nil {
		return base.Wrap(base.ClassCorrupt, err, "transaction '%s'", g.GTID)
	}
	// The relay log holds the transaction durably (the receiver fsyncs it
	// after every burst) and a restarted applier re-applies from it what
	// the binlog lost: the commit skips its binlog fsync (unless
	// DurableApply). The binlog is synced before a relay file is purged
	// and when the applier stops.
	origin := storage.Origin{GTID: g.GTID, ServerID: h.ServerID, CommitTime: g.OrigTime, RelayDurable: r.relayDurable}
	r.mu.Lock()
	r.applying, r.caughtUp, r.applyingOrig = true, false, g.OrigTime
	r.mu.Unlock()
	// A stop lets started transactions finish: never half a commit.
	ctx := context.Background()
	if t.DDL {
		// The core started it alone, after everything before it.
		if !a.turn(j) {
			return nil
		}
		for _, ev := range t.Events[1:] {
			if ev[4] != binlog.QueryEvent {
				continue
			}
			q, err := binlog.ParseQuery(binlog.Body(ev))
			if err != nil {
				return err
			}
			if err := r.opts.ExecDDL(ctx, q, origin); err != nil {
				return base.Wrap(base.ClassOf(err), err, "Error executing '%s' of transaction '%s'", q.Query, g.GTID)
			}
		}
		r.mu.Lock()
		r.appliedTxns++
		r.mu.Unlock()
		a.committed(j.seq)
		a.finished(j.seq)
		return nil
	}
	var txn *storage.Txn
	rollback := func() {
		if rerr := txn.Rollback(); rerr != nil {
			r.opts.Logger.Warn("replica: rollback", "gtid", g.GTID.String(), "error", rerr)
		}
	}
	attempt := func() error {
		txn = r.opts.Store.Begin()
		txn.SetOrigin(origin)
		txn.SetStrictRows(r.Settings().StrictRows)
		txn.SetLockTimeout(r.opts.lockWaitTimeout())
		err := binlog.ApplyRowEvents(ctx, r.opts.Store, txn, t.Events[1:])
		if err != nil {
			rollback()
		}
		return err
	}
	var drainErr error
	err = r.retrying(a.stop, g.GTID.String(), func() error {
		err := attempt()
		if err != nil && a.serial && isDuplicate(err) {
			// The serial worker starts before the commits before it
			// complete: a unique key that one of them frees has its row
			// locked, but not the unique index entry it deletes, so this
			// transaction saw the entry. Once the pipeline is empty (the
			// worker is its only writer), apply again.
			if drainErr = a.pl.drain(); drainErr != nil {
				return drainErr
			}
			err = attempt()
		}
		return err
	})
	if drainErr != nil {
		return drainErr
	}
	if err != nil {
		return base.Wrap(base.ClassOf(err), err, "Could not apply transaction '%s'", g.GTID)
	}
	if !a.turn(j) {
		rollback() // the applier failed: what follows is not committed
		return nil
	}
	a.commitMu.Lock()
	defer a.commitMu.Unlock()
	finish, err := txn.CommitStart(ctx)
	if err != nil {
		return base.Wrap(base.ClassOf(err), err, "Could not commit transaction '%s'", g.GTID)
	}
	a.committed(j.seq)
	if finish == nil {
		r.mu.Lock()
		r.appliedTxns++
		r.mu.Unlock()
		a.finished(j.seq)
		return nil
	}
	return a.pl.add(pendingCommit{finish: finish, seq: j.seq, gtid: g.GTID})
}

// turn asks the core to commit and waits until it may; false when the
// applier failed meanwhile.
func (a *applier) turn(j *applyJob) bool {
	a.mu.Lock()
	a.take(a.core.Applied(j.seq))
	a.mu.Unlock()
	select {
	case <-j.grant:
		return true
	case <-a.failed:
		select {
		case <-j.grant: // granted before the failure: commit
			return true
		default:
			return false
		}
	}
}

func (a *applier) committed(seq uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.take(a.core.Committed(seq))
}

// footprint is what the core needs of t.
func (a *applier) footprint(t *binlog.Txn, executed bool) (schedTxn, error) {
	st := schedTxn{Executed: executed, Barrier: t.DDL, LastCommitted: t.GTID.LastCommitted, SeqNo: t.GTID.SeqNo}
	if executed {
		return st, nil
	}
	if t.DDL {
		for _, ev := range t.Events[1:] {
			if ev[4] == binlog.QueryEvent {
				if q, err := binlog.ParseQuery(binlog.Body(ev)); err == nil && q.Database != "" {
					st.DBs = append(st.DBs, q.Database)
				}
			}
		}
		return st, nil
	}
	// The replica's own write set, where the source's interval says
	// nothing (see sched.go).
	lc, sn := st.LastCommitted, st.SeqNo
	keys := a.core.opts.Policy == policyLogicalClock && ((lc == 0 && sn == 0) || (sn > 0 && lc == sn-1))
	fp, err := binlog.RowsFootprint(a.r.opts.Store, t.Events[1:], keys)
	if err != nil {
		// The footprint reads the rows with the tables' definitions as
		// they are when the transaction is queued: a DDL before it that
		// has not run yet (an ALTER adding the column its rows carry)
		// makes them unreadable now, not at its turn. Such a transaction
		// runs alone after everything before it, and its rows are read
		// when it is applied (where a real mismatch is its error).
		st.Barrier = true
		return st, nil
	}
	st.DBs = fp.DBs
	if keys {
		st.Writeset = fp.Hashes
	}
	// The serial policy reads NoKeys whatever the write set.
	if keys || a.serial {
		st.NoKeys = fp.NoKeys
	}
	return st, nil
}

// isDuplicate reports a duplicate key error: storage's class, or the
// go-mysql-server unique key error storage's unique checks return.
func isDuplicate(err error) bool {
	if base.ClassOf(err) == base.ClassDuplicate {
		return true
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if sql.ErrUniqueKeyViolation.Is(e) || sql.ErrPrimaryKeyViolation.Is(e) {
			return true
		}
	}
	return false
}

// setExec records the source position the applier executed up to.
func (r *Replica) setExec(p sourcePos) {
	r.mu.Lock()
	r.execFile, r.execPos = p.File, p.Pos
	r.mu.Unlock()
}
