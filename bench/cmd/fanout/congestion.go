package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"petrel/lab"
	"petrel/labrun"
)

// catchupResult is one backlog catch-up at one loss rate with one
// congestion control on both ends of the replication socket.
type catchupResult struct {
	loss      float64
	cc        string
	backlog   int64 // transactions written while the IO thread was stopped
	wanBytes  int64 // forwarded primary side -> replica side during the catch-up
	seconds   float64
	caughtUp  bool
	txnPerSec float64
	mbitPerS  float64
	retrans   int64 // dropped packets (random loss) during the catch-up, both ways
	// The replica's staleness under a steady load of o.LagRate
	// transactions/s for o.Backlog, sampled every 100 ms (lagRun false
	// when not run).
	lagRun                 bool
	lagP50, lagP99, lagMax float64
	lagCaughtUp            bool // equal again within CatchupTimeout after the load
}

// runCongestion runs one primary (side 0) and one replica (side 1) at
// o.CCDelay one way and, for each loss rate and each congestion control
// (alternating their order), builds a backlog with the replica's IO
// thread stopped, restarts it and times the catch-up.
func runCongestion(ctx context.Context, o Options, bin string, logger *slog.Logger) (rs []catchupResult, err error) {
	c, err := startSite(ctx, o, bin, o.impairment(o.CCDelay), 1, false, logger.With("phase", "congestion"))
	defer func() {
		if err != nil && c != nil {
			err = fmt.Errorf("congestion: %w\n%s", err, c.Logs())
		}
		if cerr := closeSite(c); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if err != nil {
		return nil, err
	}
	if err := prepare(ctx, o, c); err != nil {
		return nil, err
	}
	if err := c.WaitCaughtUp(ctx, o.WaitTimeout); err != nil {
		return nil, fmt.Errorf("after prepare: %w", err)
	}
	replica := c.RDBs[0]
	caughtUp := func(timeout time.Duration) error { return c.WaitCaughtUp(ctx, timeout) }
	for li, loss := range o.CCLosses {
		algos := o.CCAlgos
		if li%2 == 1 {
			algos = reversed(algos)
		}
		for _, cc := range algos {
			r := catchupResult{loss: loss, cc: cc}
			imp := o.impairment(o.CCDelay)
			imp.Loss = loss
			for _, d := range []lab.WANDir{lab.AtoB, lab.BtoA} {
				if err := c.WAN.SetImpairment(d, imp); err != nil {
					return rs, err
				}
			}
			set := fmt.Sprintf("SET GLOBAL replication_tcp_congestion_control = '%s'", cc)
			if err := sqlq.Exec(ctx, replica, "STOP REPLICA IO_THREAD", set); err != nil {
				return rs, err
			}
			if err := sqlq.Exec(ctx, c.PDB, set); err != nil {
				return rs, err
			}
			start, err := c.PrimaryCount(ctx)
			if err != nil {
				return rs, err
			}
			logger.Info("backlog", "loss", loss, "cc", cc, "seconds", o.Backlog)
			if _, err := sysbench(ctx, o, c, "run", o.Backlog); err != nil {
				return rs, err
			}
			target, err := c.PrimaryCount(ctx)
			if err != nil {
				return rs, err
			}
			r.backlog = target - start
			before := c.WAN.Stats()
			t0 := time.Now()
			if err := sqlq.Exec(ctx, replica, "START REPLICA IO_THREAD"); err != nil {
				return rs, err
			}
			err = caughtUp(o.CatchupTimeout)
			r.seconds = time.Since(t0).Seconds()
			r.caughtUp = err == nil
			after := c.WAN.Stats()
			r.wanBytes = after[lab.AtoB].ForwardedBytes - before[lab.AtoB].ForwardedBytes
			r.retrans = after[lab.AtoB].DroppedLoss - before[lab.AtoB].DroppedLoss + after[lab.BtoA].DroppedLoss - before[lab.BtoA].DroppedLoss
			got, cerr := c.ReplicaCount(ctx, 0)
			if cerr != nil {
				return rs, cerr
			}
			r.txnPerSec = float64(got-start) / r.seconds
			r.mbitPerS = float64(r.wanBytes) * 8 / r.seconds / 1e6
			rs = append(rs, r)
			logger.Info("catch-up", "loss", loss, "cc", cc, "backlog", r.backlog, "seconds", r.seconds,
				"caught_up", r.caughtUp, "txn_per_s", r.txnPerSec, "mbit_per_s", r.mbitPerS)
			// settle lets a missed catch-up finish without loss, so what
			// follows starts even.
			settle := func() error {
				clean := imp
				clean.Loss = 0
				for _, d := range []lab.WANDir{lab.AtoB, lab.BtoA} {
					if err := c.WAN.SetImpairment(d, clean); err != nil {
						return err
					}
				}
				err := caughtUp(o.WaitTimeout)
				for _, d := range []lab.WANDir{lab.AtoB, lab.BtoA} {
					err = errors.Join(err, c.WAN.SetImpairment(d, imp))
				}
				return err
			}
			if !r.caughtUp {
				if err := settle(); err != nil {
					return rs, err
				}
			}
			if o.LagRate > 0 {
				if err := steadyLag(ctx, o, c, &r); err != nil {
					return rs, err
				}
				rs[len(rs)-1] = r
				logger.Info("steady lag", "loss", loss, "cc", cc, "p99", r.lagP99, "max", r.lagMax, "caught_up", r.lagCaughtUp)
				if !r.lagCaughtUp {
					if err := settle(); err != nil {
						return rs, err
					}
				}
			}
		}
	}
	if err := caughtUp(o.WaitTimeout); err != nil {
		return rs, fmt.Errorf("end state: %w", err)
	}
	return rs, nil
}

// steadyLag runs sysbench at o.LagRate transactions/s for o.Backlog while
// sampling the replica's staleness, then waits (CatchupTimeout)
// for it to be equal again.
func steadyLag(ctx context.Context, o Options, c *labrun.Cluster, r *catchupResult) error {
	lctx, stopLag := context.WithCancel(ctx)
	var lags []float64
	var lagErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		lags, lagErr = sampleStaleness(lctx, c.PDB, c.RDBs, 100*time.Millisecond)
	}()
	lo := o
	lo.SysbenchArgs = append(append([]string(nil), o.SysbenchArgs...), fmt.Sprintf("--rate=%d", o.LagRate))
	_, err := sysbench(ctx, lo, c, "run", o.Backlog)
	stopLag()
	<-done
	if err != nil {
		return err
	}
	if lagErr != nil {
		return lagErr
	}
	r.lagRun = true
	r.lagP50, r.lagP99 = percentile(lags, 50), percentile(lags, 99)
	for _, l := range lags {
		r.lagMax = max(r.lagMax, l)
	}
	r.lagCaughtUp = c.WaitCaughtUp(ctx, o.CatchupTimeout) == nil
	return nil
}

func reversed(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[len(xs)-1-i] = x
	}
	return out
}

func congestionReport(o Options, rs []catchupResult) string {
	var b benchkitTable
	b.head("loss", "congestion control", "backlog txns", "catch-up s", "caught up", "txn/s", "WAN Mbit/s A→B", "dropped pkts",
		"lag p50 s", "lag p99 s", "lag max s", "equal after")
	for _, r := range rs {
		lag := []string{"-", "-", "-", "-"}
		if r.lagRun {
			lag = []string{fmt.Sprintf("%.3f", r.lagP50), fmt.Sprintf("%.3f", r.lagP99), fmt.Sprintf("%.3f", r.lagMax), fmt.Sprint(r.lagCaughtUp)}
		}
		b.row(append([]string{fmt.Sprintf("%.0f%%", r.loss*100), r.cc, fmt.Sprint(r.backlog), fmt.Sprintf("%.1f", r.seconds),
			fmt.Sprint(r.caughtUp), fmt.Sprintf("%.0f", r.txnPerSec), fmt.Sprintf("%.2f", r.mbitPerS), fmt.Sprint(r.retrans)}, lag...)...)
	}
	return fmt.Sprintf("### Catch-up by congestion control: %v RTT, %s, a %v backlog (sysbench oltp_write_only %d threads, IO thread stopped), deadline %v; "+
		"then lag under %d transactions/s for %v (lag columns; a missed catch-up is first finished without loss)\n\n",
		2*o.CCDelay, o.RateText, o.Backlog, o.Threads, o.CatchupTimeout, o.LagRate, o.Backlog) + b.String()
}
