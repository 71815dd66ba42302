package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"petrel/lab"
)

// catchupResult is the catch-up phase's outcome.
type catchupResult struct {
	txns        int64         // transactions the primary committed while the applier was stopped
	produceRate float64       // the primary's rate meanwhile, as sysbench measured it (TPS)
	backlog     int64         // transactions the applier had to apply when started
	receiveWait time.Duration // load end -> the receiver had fetched everything
	took        time.Duration // applier started -> caught up (see measureCatchup)
	// applied is what the replica applied in took: the backlog, plus what
	// the primary produced meanwhile when it kept producing.
	applied int64
	// rate is the sysbench --rate the primary kept producing at during
	// the catch-up (0: it did not), and catchupProduce the rate it
	// reached, from its transaction counter.
	rate           float64
	catchupProduce float64
	// replicaCPU is the replica process's CPU time (user + system) over
	// took; 0 when unknown.
	replicaCPU time.Duration
}

// applyRate is the applier's rate over the catch-up, transactions/s.
func (c *catchupResult) applyRate() float64 {
	if c.took <= 0 {
		return 0
	}
	return float64(c.applied) / c.took.Seconds()
}

// ratio is apply rate / production rate.
func (c *catchupResult) ratio() float64 {
	if c.produceRate <= 0 {
		return 0
	}
	return c.applyRate() / c.produceRate
}

// cpuPerTxn is the replica's CPU time per applied transaction.
func (c *catchupResult) cpuPerTxn() time.Duration {
	if c.applied <= 0 || c.replicaCPU <= 0 {
		return 0
	}
	return c.replicaCPU / time.Duration(c.applied)
}

// catchupRate is the CATCHUP_RATE setting: the primary's production
// during the catch-up.
type catchupRate struct {
	half bool    // half the rate measured while the applier was stopped
	tps  float64 // a fixed rate; 0 with half false: no production
}

func parseCatchupRate(s string) (catchupRate, error) {
	switch s {
	case "half":
		return catchupRate{half: true}, nil
	case "off", "0":
		return catchupRate{}, nil
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n < 0 {
		return catchupRate{}, fmt.Errorf("CATCHUP_RATE %q: want half, off or transactions per second", s)
	}
	return catchupRate{tps: n}, nil
}

func (r catchupRate) String() string {
	switch {
	case r.half:
		return "half"
	case r.tps == 0:
		return "off"
	}
	return strconv.FormatFloat(r.tps, 'f', -1, 64)
}

// of is the rate to produce at, given the measured capacity.
func (r catchupRate) of(capacity float64) float64 {
	if r.half {
		return capacity / 2
	}
	return r.tps
}

// measureCatchup stops the replica's applier, runs the load, waits until
// the receiver has fetched all of it (so only applying is timed), starts
// the applier and times it. Without production during the catch-up it is
// timed until it has applied everything; with production (CATCHUP_RATE,
// the seed's source that never stopped) until its lag is under lagTarget.
func measureCatchup(ctx context.Context, p *pair, o Options) (*catchupResult, error) {
	if err := sqlq.Exec(ctx, p.rdb, p.f.StopApplier); err != nil {
		return nil, err
	}
	_, err := p.waitStatus(ctx, "applier stopped", o.WaitTimeout, func(st map[string]string) bool {
		return st[p.f.SQLRunning] == "No"
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

	// The primary's counter through the load: when each backlog
	// transaction was committed, which the lag under production needs.
	history := []point{{at: time.Now(), n: c0}}
	hctx, stopHistory := context.WithCancel(ctx)
	historyDone := make(chan struct{})
	go func() {
		defer close(historyDone)
		every(hctx, o.ReplicaSample, func() {
			if pt, err := readPoint(hctx, p.primaryCounter); err == nil {
				history = append(history, pt)
			}
		})
	}()
	sb, err := lab.RunSysbench(ctx, p.sysbench(o, "run", o.CatchupLoad))
	stopHistory()
	<-historyDone
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
	res := &catchupResult{
		txns:        c1 - c0,
		produceRate: sb.TPS,
		backlog:     c1 - r1,
		receiveWait: received.Sub(loadEnd),
		rate:        o.CatchupRate.of(sb.TPS),
	}

	cpu0, cpuOK := processCPU(p.replicaPid())
	start := time.Now()
	if err := sqlq.Exec(ctx, p.rdb, p.f.StartApplier); err != nil {
		return nil, err
	}
	if res.rate <= 0 {
		done, err := p.waitApplied(ctx, c1, o.WaitTimeout)
		if err != nil {
			return nil, err
		}
		res.took, res.applied = done.Sub(start), res.backlog
	} else if err := catchUpUnderLoad(ctx, p, o, res, start, append(history, point{at: loadEnd, n: c1})); err != nil {
		return nil, err
	}
	if cpu1, ok := processCPU(p.replicaPid()); ok && cpuOK {
		res.replicaCPU = cpu1 - cpu0
	}
	if res.rate > 0 {
		// The rows check needs everything applied.
		last, err := p.primaryCounter(ctx)
		if err != nil {
			return nil, err
		}
		if _, err := p.waitApplied(ctx, last, o.WaitTimeout); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// catchUpUnderLoad keeps the primary producing at res.rate (sysbench
// --rate) while the applier catches up, and records when the replica's
// lag first fell under lagTarget: the primary's and the replica's
// counters are sampled every ReplicaSample. primary is the primary's
// counter from the start of the backlog's load to its end.
func catchUpUnderLoad(ctx context.Context, p *pair, o Options, res *catchupResult, start time.Time, primary []point) error {
	c1 := primary[len(primary)-1].n
	lctx, stopLoad := context.WithCancel(ctx)
	sbo := p.sysbench(o, "run", o.WaitTimeout)
	sbo.ExtraArgs = append(append([]string(nil), sbo.ExtraArgs...), fmt.Sprintf("--rate=%d", max(int64(res.rate+0.5), 1)))
	sbo.Timeout = o.WaitTimeout + time.Minute
	loadErr := make(chan error, 1)
	go func() {
		_, err := lab.RunSysbench(lctx, sbo)
		loadErr <- err
	}()
	defer func() {
		stopLoad()
		<-loadErr
	}()

	deadline := time.Now().Add(o.WaitTimeout)
	lastCheck := time.Now()
	tick := time.NewTicker(o.ReplicaSample)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-loadErr:
			loadErr <- err
			if err == nil {
				err = errors.New("the load ended before the replica caught up")
			}
			return fmt.Errorf("production during the catch-up: %w", err)
		case <-tick.C:
		}
		pp, err := readPoint(ctx, p.primaryCounter)
		if err != nil {
			return err
		}
		primary = append(primary, pp)
		rp, err := readPoint(ctx, p.replicaCounter)
		if err != nil {
			return err
		}
		if lagAt(monotonic(primary), rp) < lagTarget && rp.n > c1-res.backlog {
			res.took = rp.at.Sub(start)
			res.applied = rp.n - (c1 - res.backlog)
			res.catchupProduce = float64(pp.n-c1) / pp.at.Sub(start).Seconds()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the replica's lag stayed over %v for %v (applied %d, primary at %d)", lagTarget, o.WaitTimeout, rp.n, pp.n)
		}
		if time.Since(lastCheck) >= threadCheckInterval {
			lastCheck = time.Now()
			if st, err := p.status(ctx); err == nil && p.broken(st) != "" {
				return fmt.Errorf("replication broke during the catch-up: %s", p.broken(st))
			}
		}
	}
}
