package replica

import (
	"context"
	"errors"
	"io"
	"sync"

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
		errno := ErrApplyGeneric
		switch base.ClassOf(err) {
		case base.ClassNotFound:
			errno = ErrApplyNoTable
		case base.ClassDuplicate:
			errno = ErrApplyDuplicate
		}
		r.setSQLError(errno, "%v", err)
		r.opts.Logger.Error("replica: applier stopped", "error", err)
	}
}

// pipeline completes the applier's commits in order while the applier
// goes on with the next transactions: consecutive transactions share the
// replica's binlog fsyncs (group commit) instead of one fsync each. Row
// locks, held until a commit completes, keep dependent transactions in
// order; DDL drains the pipeline first.
type pipeline struct {
	r    *Replica
	ch   chan pendingCommit
	done chan struct{}
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
	gtid   base.GTID
	exec   sourcePos
}

const pipelineDepth = 256

func newPipeline(r *Replica) *pipeline {
	p := &pipeline{r: r, ch: make(chan pendingCommit, pipelineDepth), done: make(chan struct{})}
	go p.run()
	return p
}

func (p *pipeline) run() {
	defer close(p.done)
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
			p.r.setExec(pc.exec)
		}
		p.n.Done()
	}
}

// add queues a started commit.
func (p *pipeline) add(pc pendingCommit) error {
	if err := p.failed(); err != nil {
		if pc.finish != nil {
			pc.finish(context.Background())
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
	<-p.done
	return err
}

func (r *Replica) apply(ctx context.Context) (err error) {
	pl := newPipeline(r)
	defer func() {
		if cerr := pl.close(); err == nil {
			err = cerr
		}
		// Replication may stop for a failover or RESET REPLICA: what was
		// applied becomes durable in the binlog, not only in the relay log.
		if serr := r.opts.Log.SyncForStorage(); err == nil {
			err = serr
		}
	}()
	r.pipe = pl
	file := r.relay.first()
	rd, err := binlog.OpenReader(r.relay.path(file))
	if err != nil {
		return err
	}
	defer func() { rd.Close() }()
	// track follows the source position through the relay files (their
	// markers and the source's events): the executed position.
	var track posTracker
	reported := sourcePos{}
	tr := newRelayReader(rd, file, &track)
	r.mu.Lock()
	r.sqlState = "Replica has read all relay log; waiting for more updates"
	r.mu.Unlock()
	for {
		changed := r.relay.changed()
		limit, next, ok := r.relay.limit(file)
		if !ok {
			return errors.New("relay log file " + file + " disappeared")
		}
		rd.SetLimit(limit) // the file is preallocated past its end
		progressed := false
		for limit < 0 || int64(rd.Pos()) < limit {
			start := rd.Pos()
			t, end, err := tr.next()
			if errors.Is(err, io.EOF) {
				// Only events outside transactions were left.
				if track.pos != reported {
					reported = track.pos
					if err := pl.add(pendingCommit{exec: reported}); err != nil {
						return err
					}
				}
				break
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				if limit < 0 {
					return base.Errorf(base.ClassCorrupt, "relay log %s ends inside a transaction at %d", file, start)
				}
				// The receiver is writing the next transaction: retry it
				// once it is whole.
				if err := rd.Seek(start); err != nil {
					return err
				}
				break
			}
			if err != nil {
				return err
			}
			r.mu.Lock()
			r.relayReadFile, r.relayReadPos = file, t.End
			r.mu.Unlock()
			if err := r.applyTxn(ctx, t, end); err != nil {
				return err
			}
			reported = end
			progressed = true
		}
		if limit < 0 && next != "" {
			rd.Close()
			// What the file held must be durable in the binlog first.
			if err := pl.drain(); err != nil {
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
			r.relay.purge(file)
			file = next
			rd, err = binlog.OpenReader(r.relay.path(file))
			if err != nil {
				return err
			}
			tr = newRelayReader(rd, file, &track)
			continue
		}
		if progressed {
			continue
		}
		if err := pl.drain(); err != nil {
			return err
		}
		r.mu.Lock()
		r.caughtUp, r.applying = true, false
		r.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// applyTxn applies one transaction unless it was applied already. It is
// atomic: the rows and the GTID commit together, or nothing does.
func (r *Replica) applyTxn(ctx context.Context, t *binlog.Txn, end sourcePos) error {
	g := t.GTID
	if r.opts.Log.HasExecuted(g.GTID) {
		r.mu.Lock()
		r.skippedTxns++
		r.mu.Unlock()
		return r.pipe.add(pendingCommit{exec: end})
	}
	h, _ := binlog.ParseHeader(t.Events[0])
	// The relay log holds the transaction durably (the receiver fsyncs it
	// after every burst) and a restarted applier re-applies from it what
	// the binlog lost: the commit skips its binlog fsync. The binlog is
	// synced before a relay file is purged and when the applier stops.
	origin := storage.Origin{GTID: g.GTID, ServerID: h.ServerID, CommitTime: g.OrigTime, RelayDurable: true}
	r.mu.Lock()
	r.applying, r.caughtUp, r.applyingOrig = true, false, g.OrigTime
	r.mu.Unlock()
	// A stop request lets the transaction finish: never half a commit.
	actx := context.WithoutCancel(ctx)
	if t.DDL {
		if err := r.pipe.drain(); err != nil {
			return err
		}
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
	} else {
		txn := r.opts.Store.Begin()
		txn.SetOrigin(origin)
		if err := binlog.ApplyRowEvents(actx, r.opts.Store, txn, t.Events[1:]); err != nil {
			txn.Rollback()
			return base.Wrap(base.ClassOf(err), err, "Could not apply transaction '%s'", g.GTID)
		}
		finish, err := txn.CommitStart(actx)
		if err != nil {
			return base.Wrap(base.ClassOf(err), err, "Could not commit transaction '%s'", g.GTID)
		}
		if finish != nil {
			return r.pipe.add(pendingCommit{finish: finish, gtid: g.GTID, exec: end})
		}
		return r.pipe.add(pendingCommit{exec: end})
	}
	r.mu.Lock()
	r.appliedTxns++
	r.mu.Unlock()
	r.setExec(end)
	return nil
}

// setExec records the source position the applier executed up to.
func (r *Replica) setExec(p sourcePos) {
	r.mu.Lock()
	r.execFile, r.execPos = p.File, p.Pos
	r.mu.Unlock()
}
