package replica

import (
	"context"
	"sync"
	"time"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/storage"
)

// The parallel applier (replica_parallel_workers > 1): the loop reads the
// relay log in order and offers every transaction to the scheduling core
// (sched.go); workers, goroutines owned by the applier, apply the
// transactions the core starts, straight to storage as the single
// applier does, each in its own storage transaction with its GTID (the
// rows and the GTID commit together, or nothing does), and commit when
// the core lets them (in relay order with replica_preserve_commit_order).
// Commits complete in the pipeline (applier.go), whose fsyncs they share.
//
// Exec_Source_Log_Pos moves in relay order: a transaction's position is
// taken once every transaction before it finished.

// parallelQueue bounds the transactions read ahead of the workers.
const parallelQueue = 256

// stopDeadline bounds how long a stop waits for started transactions.
const stopDeadline = 60 * time.Second

type parJob struct {
	seq   uint64
	txn   *binlog.Txn
	end   sourcePos
	grant chan struct{} // closed when the core lets it commit
}

// parApplier is the parallel applier's shell. Its mutex serialises the
// core's calls; workers and the loop call in.
type parApplier struct {
	r  *Replica
	pl *pipeline
	p  Parallel
	// stop is closed when the applier is asked to stop: a worker ends
	// its pauses between retries (retry.go).
	stop <-chan struct{}

	// commitMu orders CommitStart with the pipeline's queue (the storage
	// completes commits in CommitStart order).
	commitMu sync.Mutex

	mu     sync.Mutex
	core   *schedCore
	jobs   map[uint64]*parJob // arrived, not started
	grants map[uint64]*parJob // started
	err    error
	failed chan struct{} // closed at the first failure
	wake   chan struct{} // a start, a finish or a failure happened
	// exec: positions in relay order (execNext is the first transaction
	// not finished); posAfter holds positions of events outside
	// transactions read after a transaction.
	execNext uint64
	execDone map[uint64]sourcePos
	posAfter map[uint64]sourcePos
	seq      uint64

	work []chan *parJob
	wg   sync.WaitGroup
}

func newParApplier(r *Replica, p Parallel, stop <-chan struct{}) *parApplier {
	o := schedOptions{Policy: policyLogicalClock, Workers: p.Workers, PreserveOrder: p.PreserveOrder}
	if p.Type == ParallelDatabase {
		o.Policy = policyDatabase
	}
	a := &parApplier{r: r, p: p, stop: stop, core: newSchedCore(o), jobs: map[uint64]*parJob{}, grants: map[uint64]*parJob{},
		failed: make(chan struct{}), wake: make(chan struct{}, 1), execNext: 1,
		execDone: map[uint64]sourcePos{}, posAfter: map[uint64]sourcePos{}}
	a.pl = newPipeline(r, a.finished)
	for w := 0; w < p.Workers; w++ {
		ch := make(chan *parJob, 1)
		a.work = append(a.work, ch)
		a.wg.Add(1)
		go a.worker(w+1, ch)
	}
	return a
}

func (a *parApplier) signal() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// take carries out the core's decisions. Called with mu held.
func (a *parApplier) take(d schedDecision, err error) {
	if err != nil {
		a.failLocked(err)
		return
	}
	for _, s := range d.Start {
		j := a.jobs[s.Seq]
		delete(a.jobs, s.Seq)
		a.grants[s.Seq] = j
		a.work[s.Worker-1] <- j // the core gives a worker one job at a time
	}
	for _, s := range d.Commit {
		if j := a.grants[s]; j != nil {
			close(j.grant)
		}
	}
	if len(d.Start) > 0 {
		a.signal()
	}
}

func (a *parApplier) failLocked(err error) {
	if a.err == nil {
		a.err = err
		close(a.failed)
	}
	a.signal()
}

// fail stops the applier at a worker's error: nothing more starts or
// commits.
func (a *parApplier) fail(seq uint64, err error) {
	a.mu.Lock()
	a.core.Failed(seq)
	a.failLocked(err)
	a.mu.Unlock()
}

func (a *parApplier) failure() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// offer hands the next transaction to the core, waiting while too many
// wait to start.
func (a *parApplier) offer(ctx context.Context, t *binlog.Txn, end sourcePos, st schedTxn) error {
	for {
		a.mu.Lock()
		n, err := a.core.Waiting(), a.err
		a.mu.Unlock()
		if err != nil {
			return err
		}
		if n < parallelQueue {
			break
		}
		if err := a.wait(ctx); err != nil {
			return err
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq++
	st.Seq = a.seq
	if st.Executed {
		a.execDone[st.Seq] = end
		a.advanceExec()
	} else {
		a.jobs[st.Seq] = &parJob{seq: st.Seq, txn: t, end: end, grant: make(chan struct{})}
	}
	serialised := a.core.Waits().Serialised
	a.take(a.core.Arrive(st))
	if a.core.Waits().Serialised != serialised {
		a.r.opts.Logger.Warn("replica: impossible dependency interval; applied after everything before it",
			"gtid", t.GTID.GTID.String(), "last_committed", st.LastCommitted, "sequence_number", st.SeqNo)
	}
	return nil
}

// position records a source position reached outside transactions.
func (a *parApplier) position(p sourcePos) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.execNext > a.seq {
		a.r.setExec(p)
		return
	}
	a.posAfter[a.seq] = p
}

// advanceExec moves Exec_Source_Log_Pos over the finished prefix.
// Called with mu held.
func (a *parApplier) advanceExec() {
	for {
		p, ok := a.execDone[a.execNext]
		if !ok {
			return
		}
		delete(a.execDone, a.execNext)
		a.r.setExec(p)
		if q, ok := a.posAfter[a.execNext]; ok {
			delete(a.posAfter, a.execNext)
			a.r.setExec(q)
		}
		a.execNext++
	}
}

func (a *parApplier) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-a.wake:
		return nil
	}
}

// quiesce waits until every offered transaction finished.
func (a *parApplier) quiesce(ctx context.Context) error {
	for {
		a.mu.Lock()
		idle, err := a.core.Running() == 0 && a.core.Waiting() == 0, a.err
		a.mu.Unlock()
		if err != nil {
			return err
		}
		if idle {
			return a.pl.drain()
		}
		if err := a.wait(ctx); err != nil {
			return err
		}
	}
}

// close starts nothing more, lets the started transactions finish
// (bounded by stopDeadline), stops the workers and the pipeline.
func (a *parApplier) close() error {
	a.mu.Lock()
	a.core.Drain()
	a.mu.Unlock()
	timer := time.NewTimer(stopDeadline)
	defer timer.Stop()
	for {
		a.mu.Lock()
		idle, err := a.core.Running() == 0, a.err
		a.mu.Unlock()
		if idle || err != nil {
			break
		}
		select {
		case <-a.wake:
			continue
		case <-timer.C:
		}
		// A worker is stuck (a lock wait that does not end): leave it
		// and its pipeline behind rather than hang the stop.
		err = base.Errorf(base.ClassInternal, "replica: stop: started transactions did not finish within %s", stopDeadline)
		a.r.opts.Logger.Error("replica: applier stopped with transactions still running", "error", err)
		a.fail(0, err)
		for _, ch := range a.work {
			close(ch)
		}
		return err
	}
	for _, ch := range a.work {
		close(ch)
	}
	a.wg.Wait()
	err := a.pl.close()
	if ferr := a.failure(); ferr != nil {
		return ferr
	}
	return err
}

// finished is the pipeline's report: a commit completed (or failed).
func (a *parApplier) finished(seq uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if j := a.grants[seq]; j != nil {
		delete(a.grants, seq)
		a.execDone[seq] = j.end
		a.advanceExec()
	}
	if a.err != nil {
		return
	}
	if err := a.pl.failed(); err != nil {
		a.failLocked(err)
		return
	}
	a.take(a.core.Finished(seq))
	a.signal()
}

func (a *parApplier) worker(id int, ch <-chan *parJob) {
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

// run applies one transaction and commits it when the core lets it.
func (a *parApplier) run(j *parJob) error {
	r := a.r
	t := j.txn
	g := t.GTID
	h, err := binlog.ParseHeader(t.Events[0])
	if err != nil {
		return base.Wrap(base.ClassCorrupt, err, "transaction '%s'", g.GTID)
	}
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
			if err := r.opts.ExecDDL(ctx, q.Database, q.Query, origin); err != nil {
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
	err = r.retrying(a.stop, g.GTID.String(), func() error {
		txn = r.opts.Store.Begin()
		txn.SetOrigin(origin)
		txn.SetStrictRows(r.opts.strictRows())
		txn.SetLockTimeout(r.opts.lockWaitTimeout())
		err := binlog.ApplyRowEvents(ctx, r.opts.Store, txn, t.Events[1:])
		if err != nil {
			rollback()
		}
		return err
	})
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
	return a.pl.add(pendingCommit{finish: finish, seq: j.seq, gtid: g.GTID, noExec: true})
}

// turn asks the core to commit and waits until it may; false when the
// applier failed meanwhile.
func (a *parApplier) turn(j *parJob) bool {
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

func (a *parApplier) committed(seq uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.take(a.core.Committed(seq))
}

// footprint is what the core needs of t.
func (a *parApplier) footprint(t *binlog.Txn, executed bool) (schedTxn, error) {
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
		return st, base.Wrap(base.ClassOf(err), err, "transaction '%s'", t.GTID.GTID)
	}
	st.DBs = fp.DBs
	if keys {
		st.Writeset, st.NoKeys = fp.Hashes, fp.NoKeys
	}
	return st, nil
}

// applyParallel is apply (applier.go) with workers.
func (r *Replica) applyParallel(ctx context.Context, p Parallel) (err error) {
	r.workers.reset(p.Workers)
	a := newParApplier(r, p, ctx.Done())
	r.mu.Lock()
	r.par = a
	r.mu.Unlock()
	defer func() {
		a.mu.Lock()
		w := a.core.Waits()
		a.mu.Unlock()
		r.mu.Lock()
		r.par, r.parWaits = nil, r.parWaits.plus(w)
		r.mu.Unlock()
		if cerr := a.close(); err == nil || ctx.Err() != nil && cerr != nil {
			err = cerr
		}
		if serr := r.opts.Log.SyncForStorage(); err == nil {
			err = serr
		}
	}()
	st, err := openStream(r.relay)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := st.Close(); err == nil {
			err = cerr
		}
	}()
	r.mu.Lock()
	r.sqlState = "Replica has read all relay log; waiting for more updates"
	r.mu.Unlock()
	srcFile := ""
	for {
		if err := a.failure(); err != nil {
			return err
		}
		it, err := st.Next()
		if err != nil {
			return err
		}
		switch it.kind {
		case streamPos:
			a.position(it.end)
		case streamTxn:
			r.mu.Lock()
			r.relayReadFile, r.relayReadPos = it.txn.File, it.txn.End
			r.mu.Unlock()
			if srcFile != "" && it.end.File != srcFile {
				a.mu.Lock()
				a.core.Rotate()
				a.mu.Unlock()
			}
			srcFile = it.end.File
			executed := r.opts.Log.HasExecuted(it.txn.GTID.GTID)
			if executed {
				r.mu.Lock()
				r.skippedTxns++
				r.mu.Unlock()
			}
			sched, err := a.footprint(it.txn, executed)
			if err != nil {
				return err
			}
			if err := a.offer(ctx, it.txn, it.end, sched); err != nil {
				return err
			}
		case streamFileEnd:
			if err := a.quiesce(ctx); err != nil {
				return err
			}
			if err := r.opts.Log.SyncForStorage(); err != nil {
				return err
			}
			if err := r.relay.sync(); err != nil {
				return err
			}
			if err := st.Advance(); err != nil {
				return err
			}
		case streamIdle:
			if err := a.quiesce(ctx); err != nil {
				return err
			}
			r.mu.Lock()
			r.caughtUp, r.applying = true, false
			r.mu.Unlock()
			if err := st.Wait(ctx); err != nil {
				return err
			}
		}
	}
}
