package replica

import (
	"context"
	"sync"

	"petrel/internal/base"
)

// pipeline completes the workers' commits in CommitStart order while they
// go on with the next transactions: consecutive transactions share the
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

// pendingCommit is a commit past its commit point, to complete.
type pendingCommit struct {
	finish func(context.Context) error
	seq    uint64 // the scheduling core's number
	gtid   base.GTID
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
		}
		p.done(pc.seq)
		p.n.Done()
	}
}

// add queues a started commit.
func (p *pipeline) add(pc pendingCommit) error {
	if err := p.failed(); err != nil {
		if ferr := pc.finish(context.Background()); ferr != nil {
			p.r.opts.Logger.Warn("replica: commit after a failed one", "gtid", pc.gtid.String(), "error", ferr)
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
// Only while nothing else adds to the pipeline.
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
