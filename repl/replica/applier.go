package replica

import (
	"context"
	"errors"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/storage"
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

// The applier's third stage: the appliers. The loop (apply) takes items
// from the relay stream (reader.go), offers each transaction to the
// scheduling core (sched.go) and applies it when the core lets it start;
// commits complete in the pipeline, which reports each finished
// transaction back to the core.

// applier is the shell around the scheduling core: it serialises the
// core's calls and hands its start decisions to the loop.
type applier struct {
	r  *Replica
	pl *pipeline

	mu      sync.Mutex
	core    *schedCore
	started map[uint64]bool // let start, not yet taken up by the loop
	err     error           // the core refused a call (a bug): stop
	wake    chan struct{}   // signalled when started grows
	seq     uint64          // the last transaction offered to the core
}

func newApplier(r *Replica) *applier {
	a := &applier{r: r, core: newSchedCore(schedOptions{Depth: pipelineDepth}), started: map[uint64]bool{}, wake: make(chan struct{}, 1)}
	a.pl = newPipeline(r, a.finished)
	return a
}

// take records the core's decisions.
func (a *applier) take(d schedDecision, err error) {
	if err != nil && a.err == nil {
		a.err = err
	}
	for _, s := range d.Start {
		a.started[s.Seq] = true
	}
	if len(d.Start) > 0 || err != nil {
		select {
		case a.wake <- struct{}{}:
		default:
		}
	}
}

// offer gives the core the next transaction and waits until it may start.
// A stop request ends the wait: nothing of the transaction was applied.
func (a *applier) offer(ctx context.Context, barrier bool) (uint64, error) {
	a.mu.Lock()
	a.seq++
	seq := a.seq
	a.take(a.core.Arrive(schedTxn{Seq: seq, Barrier: barrier}))
	a.mu.Unlock()
	for {
		a.mu.Lock()
		ok, err := a.started[seq], a.err
		delete(a.started, seq)
		a.mu.Unlock()
		if err != nil {
			return 0, err
		}
		if ok {
			return seq, nil
		}
		if err := a.pl.failed(); err != nil {
			return 0, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-a.wake:
		}
	}
}

// finished reports a started transaction finished, committed or not.
func (a *applier) finished(seq uint64) {
	a.mu.Lock()
	a.take(a.core.Finished(seq))
	a.mu.Unlock()
}

// pipeline completes the applier's commits in order while the applier
// goes on with the next transactions: consecutive transactions share the
// replica's binlog fsyncs (group commit) instead of one fsync each. Row
// locks, held until a commit completes, keep dependent transactions in
// order; the scheduling core holds DDL back until the pipeline is empty.
type pipeline struct {
	r    *Replica
	done func(seq uint64) // a transaction's commit completed or failed
	ch   chan pendingCommit
	exit chan struct{}
	mu   sync.Mutex
	err  error
	n    sync.WaitGroup
}

// pendingCommit is a started commit, or (finish nil) only a source
// position the applier passed (a skipped transaction, events outside
// transactions): queued behind the commits before it, so that
// Exec_Source_Log_Pos moves in order.
type pendingCommit struct {
	finish func(context.Context) error
	seq    uint64 // the scheduling core's number; 0 for a position
	gtid   base.GTID
	exec   sourcePos
	noExec bool // the parallel applier moves the position itself
}

const pipelineDepth = 256

func newPipeline(r *Replica, done func(uint64)) *pipeline {
	p := &pipeline{r: r, done: done, ch: make(chan pendingCommit, pipelineDepth), exit: make(chan struct{})}
	go p.run()
	return p
}

func (p *pipeline) run() {
	defer close(p.exit)
	for pc := range p.ch {
		if pc.finish == nil {
			p.r.setExec(pc.exec)
			p.n.Done()
			continue
		}
		// The wait is not cancellable: a stop lets started commits finish.
		err := pc.finish(context.Background())
		if err != nil {
			p.mu.Lock()
			if p.err == nil {
				p.err = base.Wrap(base.ClassOf(err), err, "Could not commit transaction '%s'", pc.gtid)
			}
			p.mu.Unlock()
		} else {
			p.r.mu.Lock()
			p.r.appliedTxns++
			p.r.mu.Unlock()
			if !pc.noExec {
				p.r.setExec(pc.exec)
			}
		}
		p.done(pc.seq)
		p.n.Done()
	}
}

// add queues a started commit.
func (p *pipeline) add(pc pendingCommit) error {
	if err := p.failed(); err != nil {
		if pc.finish != nil {
			if ferr := pc.finish(context.Background()); ferr != nil {
				p.r.opts.Logger.Warn("replica: commit after a failed one", "gtid", pc.gtid.String(), "error", ferr)
			}
		}
		return err
	}
	p.n.Add(1)
	p.ch <- pc
	return nil
}

func (p *pipeline) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// drain waits for every queued commit and reports the first failure.
func (p *pipeline) drain() error {
	p.n.Wait()
	return p.failed()
}

func (p *pipeline) close() error {
	err := p.drain()
	close(p.ch)
	<-p.exit
	return err
}

func (r *Replica) apply(ctx context.Context) (err error) {
	r.relayDurable = !r.opts.durableApply()
	if p := r.opts.parallel(); p.Workers > 1 {
		return r.applyParallel(ctx, p)
	}
	a := newApplier(r)
	r.workers.reset(1)
	defer func() {
		if cerr := a.pl.close(); err == nil {
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
	for {
		it, err := st.Next()
		if err != nil {
			return err
		}
		switch it.kind {
		case streamPos:
			if err := a.pl.add(pendingCommit{exec: it.end}); err != nil {
				return err
			}
		case streamTxn:
			r.mu.Lock()
			r.relayReadFile, r.relayReadPos = it.txn.File, it.txn.End
			r.mu.Unlock()
			err := a.applyTxn(ctx, it.txn, it.end)
			r.workers.end(1, err, r.opts.Clock.Now())
			if err != nil {
				return err
			}
		case streamFileEnd:
			// What the file held must be durable in the binlog first.
			if err := a.pl.drain(); err != nil {
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
			if err := a.pl.drain(); err != nil {
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

// applyTxn applies one transaction unless it was applied already. It is
// atomic: the rows and the GTID commit together, or nothing does.
func (a *applier) applyTxn(ctx context.Context, t *binlog.Txn, end sourcePos) error {
	r := a.r
	g := t.GTID
	if r.opts.Log.HasExecuted(g.GTID) {
		r.mu.Lock()
		r.skippedTxns++
		r.mu.Unlock()
		return a.pl.add(pendingCommit{exec: end})
	}
	h, err := binlog.ParseHeader(t.Events[0])
	if err != nil {
		return base.Wrap(base.ClassCorrupt, err, "transaction '%s'", g.GTID)
	}
	seq, err := a.offer(ctx, t.DDL)
	if err != nil {
		return err
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
	r.workers.begin(1, g.GTID, g.OrigTime, r.opts.Clock.Now())
	// A stop request lets the transaction finish: never half a commit.
	actx := context.WithoutCancel(ctx)
	if t.DDL {
		// The core started it alone: every commit before it completed.
		defer a.finished(seq)
		for _, ev := range t.Events[1:] {
			if ev[4] != binlog.QueryEvent {
				continue
			}
			q, err := binlog.ParseQuery(binlog.Body(ev))
			if err != nil {
				return err
			}
			if err := r.opts.ExecDDL(actx, q.Database, q.Query, origin); err != nil {
				return base.Wrap(base.ClassOf(err), err, "Error executing '%s' of transaction '%s'", q.Query, g.GTID)
			}
		}
		r.mu.Lock()
		r.appliedTxns++
		r.mu.Unlock()
		r.setExec(end)
		return nil
	}
	// Rows of a table without a primary key are found by a scan, which
	// does not wait for the row locks of commits still in the pipeline
	// (a DELETE would miss the row such a commit inserts): those commits
	// complete first.
	if fp, ferr := binlog.RowsFootprint(r.opts.Store, t.Events[1:], false); ferr != nil || fp.NoKeys {
		if derr := a.pl.drain(); derr != nil {
			a.finished(seq)
			return derr
		}
	}
	strict := r.opts.strictRows()
	var txn *storage.Txn
	attempt := func() error {
		txn = r.opts.Store.Begin()
		txn.SetOrigin(origin)
		txn.SetStrictRows(strict)
		txn.SetLockTimeout(r.opts.lockWaitTimeout())
		err := binlog.ApplyRowEvents(actx, r.opts.Store, txn, t.Events[1:])
		if err != nil {
			if rerr := txn.Rollback(); rerr != nil {
				r.opts.Logger.Warn("replica: rollback of a failed transaction", "gtid", g.GTID.String(), "error", rerr)
			}
		}
		return err
	}
	var drainErr error
	err = r.retrying(ctx.Done(), g.GTID.String(), func() error {
		err := attempt()
		if err != nil && isDuplicate(err) {
			// A unique key that a commit still in the pipeline frees:
			// its row is locked, the unique index entry it deletes is
			// not, so this transaction saw the entry. Once the pipeline
			// is empty, apply again.
			if drainErr = a.pl.drain(); drainErr != nil {
				return drainErr
			}
			err = attempt()
		}
		return err
	})
	if drainErr != nil {
		a.finished(seq)
		return drainErr
	}
	if err != nil {
		a.finished(seq)
		return base.Wrap(base.ClassOf(err), err, "Could not apply transaction '%s'", g.GTID)
	}
	finish, err := txn.CommitStart(actx)
	if err != nil {
		a.finished(seq)
		return base.Wrap(base.ClassOf(err), err, "Could not commit transaction '%s'", g.GTID)
	}
	if finish == nil {
		a.finished(seq)
		return a.pl.add(pendingCommit{exec: end})
	}
	return a.pl.add(pendingCommit{finish: finish, seq: seq, gtid: g.GTID, exec: end})
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

// errApplyGeneric is the applier's error number for a failure no class
// names (MySQL 5.7's ER_SLAVE_RELAY_LOG_READ_FAILURE, 1594).
const errApplyGeneric = 1594
