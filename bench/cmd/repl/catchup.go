package main

import (
	"context"
	"fmt"
	"time"

	"petrel/lab"
)

// catchupResult is the catch-up phase's outcome.
type catchupResult struct {
	txns        int64         // transactions the primary committed while the applier was stopped
	produceRate float64       // the primary's rate meanwhile, as sysbench measured it (TPS)
	backlog     int64         // transactions the applier had to apply when started
	receiveWait time.Duration // load end -> the receiver had fetched everything
	took        time.Duration // applier started -> everything applied
}

// applyRate is the applier's rate over the catch-up, transactions/s.
func (c *catchupResult) applyRate() float64 {
	if c.took <= 0 {
		return 0
	}
	return float64(c.backlog) / c.took.Seconds()
}

// ratio is apply rate / production rate.
func (c *catchupResult) ratio() float64 {
	if c.produceRate <= 0 {
		return 0
	}
	return c.applyRate() / c.produceRate
}

// measureCatchup stops the replica's applier, runs the load, waits until
// the receiver has fetched all of it (so only applying is timed), starts
// the applier and times it until it has applied everything.
func measureCatchup(ctx context.Context, p *pair, o Options) (*catchupResult, error) {
	if err := sqlq.Exec(ctx, p.rdb, p.f.stopApplier); err != nil {
		return nil, err
	}
	_, err := p.waitStatus(ctx, "applier stopped", o.WaitTimeout, func(st map[string]string) bool {
		return st[p.f.sqlRunning] == "No"
	})
	if err != nil {
		return nil, err
	}
	r0, err := p.replicaCounter(ctx)
	if err != nil {
		return nil, err
	}
	c0, err := p.primaryCounter(ctx)
	if err != nil {
		return nil, err
	}

	sb, err := lab.RunSysbench(ctx, p.sysbench(o, "run", o.CatchupLoad))
	if err != nil {
		return nil, err
	}
	loadEnd := time.Now()
	c1, err := p.primaryCounter(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.waitReceived(ctx, c1, o.WaitTimeout); err != nil {
		return nil, err
	}
	received := time.Now()
	r1, err := p.replicaCounter(ctx)
	if err != nil {
		return nil, err
	}
	if r1 != r0 {
		return nil, fmt.Errorf("the replica applied %d transactions while its applier was stopped", r1-r0)
	}

	start := time.Now()
	if err := sqlq.Exec(ctx, p.rdb, p.f.startApplier); err != nil {
		return nil, err
	}
	done, err := p.waitApplied(ctx, c1, o.WaitTimeout)
	if err != nil {
		return nil, err
	}
	return &catchupResult{
		txns:        c1 - c0,
		produceRate: sb.TPS,
		backlog:     c1 - r1,
		receiveWait: received.Sub(loadEnd),
		took:        done.Sub(start),
	}, nil
}
