package replica

import (
	"context"
	"sync"
	"time"

	"petrel/binlog"
	"petrel/internal/base"
)

// runApplier is the SQL thread: it reads whole transactions from the relay
// log in order and applies each one atomically, skipping transactions
// already in gtid_executed (so a restart or a re-fetch never applies one
// twice). Applied relay files are removed.
func (r *Replica) runApplier(ctx context.Context, _ Config) {
	defer r.threadEnded(false)
	if err := r.apply(ctx); err != nil && ctx.Err() == nil {
		r.setSQLError(applyErrno(err), "%v", err)
		r.opts.Logger.Error("replica: applier stopped", "error", err)
	}
}

// The applier's third stage, around the scheduling core (sched.go): the
// loop (apply) reads the relay stream (reader.go) in order and offers
// every transaction to the core; workers, goroutines owned by the
// applier, apply the transactions the core starts, straight to storage,
// each in its own storage transaction with its GTID (the rows and the
// GTID commit together, or nothing does), and commit when the core lets
// them (in relay order with replica_preserve_commit_order). Commits
// complete in the pipeline (pipeline.go), whose fsyncs they share. The
// single applier (replica_parallel_workers 0 or 1) is the same shell with
// the core's serial policy: one worker, which starts a transaction as
// soon as the one before it passed its commit point.
//
// Exec_Source_Log_Pos moves in relay order: a transaction's position is
// taken once every transaction before it finished.

// applierQueue bounds the transactions read ahead of the workers.
const applierQueue = 256

// stopDeadline bounds how long a stop waits for started transactions.
const stopDeadline = 60 * time.Second

type applyJob struct {
	seq   uint64
	txn   *binlog.Txn
	end   sourcePos
	grant chan struct{} // closed when the core lets it commit
}

// applier is the shell around the scheduling core. Its mutex serialises
// the core's calls; workers and the loop call in.
type applier struct {
	r  *Replica
	pl *pipeline
	// serial: the core's serial policy (one worker, whose transactions
	// start before the commits before them completed).
	serial bool
	// stop is closed when the applier is asked to stop: a worker ends
	// its pauses between retries (retry.go).
	stop <-chan struct{}

	// commitMu orders CommitStart with the pipeline's queue (the storage
	// completes commits in CommitStart order).
	commitMu sync.Mutex

	mu     sync.Mutex
	core   *schedCore
	jobs   map[uint64]*applyJob // arrived, not started
	grants map[uint64]*applyJob // started
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

	work []chan *applyJob
	wg   sync.WaitGroup
}

func newApplier(r *Replica, p Parallel, stop <-chan struct{}) *applier {
	o := schedOptions{Policy: policyLogicalClock, Workers: p.Workers, PreserveOrder: p.PreserveOrder}
	switch {
	case p.Workers <= 1:
		o = schedOptions{Policy: policySerial, Depth: pipelineDepth}
	case p.Type == ParallelDatabase:
		o.Policy = policyDatabase
	}
	a := &applier{r: r, serial: o.Policy == policySerial, stop: stop, core: newSchedCore(o),
		jobs: map[uint64]*applyJob{}, grants: map[uint64]*applyJob{},
		failed: make(chan struct{}), wake: make(chan struct{}, 1), execNext: 1,
		execDone: map[uint64]sourcePos{}, posAfter: map[uint64]sourcePos{}}
	a.pl = newPipeline(r, a.finished)
	for w := 0; w < a.core.opts.Workers; w++ {
		ch := make(chan *applyJob, 1)
		a.work = append(a.work, ch)
		a.wg.Add(1)
		go a.worker(w+1, ch)
	}
	return a
}

// workers is the applier's worker count as replica_parallel_workers
// shows it: 0 for the single applier.
func (a *applier) workers() int {
	if a.serial {
		return 0
	}
	return a.core.opts.Workers
}

func (a *applier) signal() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// take carries out the core's decisions, and wakes the loop when what it
// waits for may have come: nothing running (quiesce, close), or room in
// the queue, from half full only, so that a loop ahead of the workers
// wakes once per many transactions rather than at each one. Called with
// mu held.
func (a *applier) take(d schedDecision, err error) {
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
	if a.core.Running() == 0 || a.core.Waiting() <= applierQueue/2 {
		a.signal()
	}
}

func (a *applier) failLocked(err error) {
	if a.err == nil {
		a.err = err
		close(a.failed)
	}
	a.signal()
}

// fail stops the applier at a worker's error: nothing more starts or
// commits.
func (a *applier) fail(seq uint64, err error) {
	a.mu.Lock()
	a.core.Failed(seq)
	a.failLocked(err)
	a.mu.Unlock()
}

func (a *applier) failure() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// offer hands the next transaction to the core, waiting while too many
// wait to start (until the queue is half empty: see take).
func (a *applier) offer(ctx context.Context, t *binlog.Txn, end sourcePos, st schedTxn) error {
	for {
		a.mu.Lock()
		n, err := a.core.Waiting(), a.err
		a.mu.Unlock()
		if err != nil {
			return err
		}
		if n < applierQueue {
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
		a.jobs[st.Seq] = &applyJob{seq: st.Seq, txn: t, end: end, grant: make(chan struct{})}
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
func (a *applier) position(p sourcePos) {
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
func (a *applier) advanceExec() {
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

func (a *applier) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-a.wake:
		return nil
	}
}

// quiesce waits until every offered transaction finished.
func (a *applier) quiesce(ctx context.Context) error {
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
func (a *applier) close() error {
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
func (a *applier) finished(seq uint64) {
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
}

// apply runs the applier until ctx ends or a transaction fails.
func (r *Replica) apply(ctx context.Context) (err error) {
	s := r.Settings()
	r.relayDurable = !s.DurableApply
	a := newApplier(r, s.Parallel, ctx.Done())
	r.workers.reset(a.core.opts.Workers)
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
		// Replication may stop for a failover or RESET REPLICA: what was
		// applied becomes durable in the binlog, not only in the relay log.
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
			// What the file held must be durable in the binlog first.
			if err := a.quiesce(ctx); err != nil {
				return err
			}
			if err := r.opts.Log.SyncForStorage(); err != nil {
				return err
			}
			// The next file's marker carries the source position once
			// this file is gone: it must be durable first.
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
