package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"petrel/lab"
	"petrel/lab/benchkit"
)

// layoutResult is one fan-out run of one layout.
type layoutResult struct {
	layout         string
	round          int
	wanAtoB        int64 // bytes forwarded primary side -> replica side
	wanBtoA        int64
	cpuSec         float64 // primary utime+stime over the load and the catch-up
	tps            float64
	txns           int64
	lagP50, lagP99 float64 // staleness over every replica's samples, s
	lagMax         float64
	samples        int
}

// runLayout builds a WAN, a primary on side 0 and o.Replicas replicas on
// side 1, fed directly ("direct") or through a relay on side 1
// ("relay"), through the lab's harness, and measures one sysbench run.
func runLayout(ctx context.Context, o Options, bin, layout string, round int, logger *slog.Logger) (res layoutResult, err error) {
	res = layoutResult{layout: layout, round: round}
	c, err := startSite(ctx, o, bin, o.impairment(o.Delay), o.Replicas, layout == "relay", logger.With("layout", layout))
	defer func() {
		if err != nil && c != nil {
			err = fmt.Errorf("%s: %w\n%s", layout, err, c.Logs())
		}
		if cerr := closeSite(c); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if err != nil {
		return res, err
	}
	if err := prepare(ctx, o, c); err != nil {
		return res, err
	}
	if err := c.WaitCaughtUp(ctx, o.WaitTimeout); err != nil {
		return res, fmt.Errorf("after prepare: %w", err)
	}

	before := c.WAN.Stats()
	cpu0, err := benchkit.ProcessCPU(c.Primary.Pid())
	if err != nil {
		return res, err
	}
	lctx, stopLag := context.WithCancel(ctx)
	var lags []float64
	var lagErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		lags, lagErr = sampleStaleness(lctx, c.PDB, c.RDBs, 100*time.Millisecond)
	}()
	logger.Info("load", "layout", layout, "round", round, "duration", o.Duration)
	sb, err := sysbench(ctx, o, c, "run", o.Duration)
	if err == nil {
		err = c.WaitCaughtUp(ctx, o.WaitTimeout)
	}
	stopLag()
	wg.Wait()
	if err != nil {
		return res, err
	}
	if lagErr != nil {
		return res, lagErr
	}
	cpu1, err := benchkit.ProcessCPU(c.Primary.Pid())
	if err != nil {
		return res, err
	}
	after := c.WAN.Stats()
	res.wanAtoB = after[lab.AtoB].ForwardedBytes - before[lab.AtoB].ForwardedBytes
	res.wanBtoA = after[lab.BtoA].ForwardedBytes - before[lab.BtoA].ForwardedBytes
	res.cpuSec = (cpu1 - cpu0).Seconds()
	res.tps, res.txns = sb.TPS, sb.Transactions
	res.samples = len(lags)
	res.lagP50, res.lagP99 = percentile(lags, 50), percentile(lags, 99)
	for _, l := range lags {
		res.lagMax = max(res.lagMax, l)
	}
	logger.Info("layout done", "layout", layout, "round", round, "wan_bytes", res.wanAtoB+res.wanBtoA,
		"tps", res.tps, "lag_p99", res.lagP99, "cpu_s", res.cpuSec)
	return res, nil
}

// setup lists the flags and source options a run used, when any.
func setup(o Options) string {
	out := ""
	if len(o.PetrelArgs) > 0 {
		out += fmt.Sprintf("Petrel flags: %s\n\n", strings.Join(o.PetrelArgs, " "))
	}
	if o.SourceOptions != "" {
		out += fmt.Sprintf("CHANGE REPLICATION SOURCE ... %s\n\n", strings.TrimPrefix(o.SourceOptions, ", "))
	}
	return out
}

// fanoutReport renders the per-run rows and each layout's medians.
func fanoutReport(o Options, rs []layoutResult) string {
	var b benchkitTable
	b.head("layout", "round", "txns", "tps", "WAN bytes A→B", "WAN bytes B→A", "WAN bytes/txn", "primary CPU s", "CPU ms/txn", "lag p50 s", "lag p99 s", "lag max s", "samples")
	for _, r := range rs {
		b.row(r.layout, fmt.Sprint(r.round), fmt.Sprint(r.txns), fmt.Sprintf("%.0f", r.tps),
			fmt.Sprint(r.wanAtoB), fmt.Sprint(r.wanBtoA), fmt.Sprintf("%.0f", perTxn(r.wanAtoB+r.wanBtoA, r.txns)),
			fmt.Sprintf("%.2f", r.cpuSec), fmt.Sprintf("%.2f", perTxn(int64(r.cpuSec*1e6), r.txns)/1e3), fmt.Sprintf("%.3f", r.lagP50), fmt.Sprintf("%.3f", r.lagP99),
			fmt.Sprintf("%.3f", r.lagMax), fmt.Sprint(r.samples))
	}
	out := fmt.Sprintf("### Fan-out: %d replicas across the WAN (%v one way, %.1f%% loss, %s), sysbench oltp_write_only %d threads, %v per run\n\n",
		o.Replicas, o.Delay, o.Loss*100, o.RateText, o.Threads, o.Duration) + setup(o) + b.String()
	// Ratios of per-transaction WAN bytes, so runs of different rates compare.
	var d, r []float64
	var dl, rl []float64
	for _, x := range rs {
		if x.layout == "direct" {
			d, dl = append(d, perTxn(x.wanAtoB+x.wanBtoA, x.txns)), append(dl, x.lagP99)
		} else {
			r, rl = append(r, perTxn(x.wanAtoB+x.wanBtoA, x.txns)), append(rl, x.lagP99)
		}
	}
	if len(d) > 0 && len(r) > 0 {
		md, mr := percentile(d, 50), percentile(r, 50)
		out += fmt.Sprintf("\nWAN bytes per transaction, median: direct %.0f, relay %.0f: relay/direct = %.3f (target <= %.3f = 1/%d). "+
			"Lag p99, median over rounds: direct %.3f s, relay %.3f s (target: relay <= direct).\n",
			md, mr, mr/md, 1/float64(o.Replicas), o.Replicas, percentile(dl, 50), percentile(rl, 50))
	}
	return out
}

func perTxn(bytes, txns int64) float64 {
	if txns == 0 {
		return 0
	}
	return float64(bytes) / float64(txns)
}
