package labrun

import (
	"context"
	"fmt"
	"time"
)

// Catch-up (seed 000's "stopped the replication for one hour"): the
// replica's applier is stopped while the primary takes a burst of writes,
// then started and timed until it has applied the backlog.

func init() {
	register(&Experiment{
		Name: "catch-up",
		Description: "The replica's applier is stopped (its receiver keeps fetching) while the primary takes an unpaced " +
			"write burst; then the applier is started and the remaining backlog sampled until it is applied (seed 000's catch-up curve).",
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "backlog", Title: "Catch-up: transactions left to apply", Kind: Lines, XLabel: "time since the applier started (s)", YLabel: "backlog (txn)"},
			{ID: "rates", Title: "Apply rate against production rate", Kind: Bars, XLabel: "", YLabel: "txn/s",
				Categories: []string{"production (burst)", "apply (catch-up)"}},
		},
		Trial: catchUp,
	})
}

func catchUp(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	c, err := t.Start(ctx, ClusterSpec{})
	if err != nil {
		return err
	}
	if err := CreateLoadTable(ctx, c.PDB); err != nil {
		return err
	}
	if err := c.WaitCaughtUp(ctx, time.Minute); err != nil {
		return err
	}
	if err := c.StopApplier(ctx, 0); err != nil {
		return err
	}
	burst := pick(m, 1500*time.Millisecond, 15*time.Second, 60*time.Second)
	clients := pick(m, 4, 8, 16)
	t.Command("load", fmt.Sprintf("%s; %d clients, unpaced autocommit INSERTs for %v; %s", c.f.stopApplier, clients, burst, c.f.startApplier))
	done := t.Phase("burst with the applier stopped", burst)
	res, err := Load(ctx, c.PDB, LoadOptions{Clients: clients, Duration: burst})
	done()
	if err != nil {
		return err
	}
	target, err := c.PrimaryCount(ctx)
	if err != nil {
		return err
	}
	// Everything fetched before the clock starts: the curve is the
	// applier's alone.
	base, err := c.ReplicaCount(ctx, 0)
	if err != nil {
		return err
	}
	backlog := target - base
	done = t.Phase(fmt.Sprintf("catch-up of %d transactions", backlog), 0)
	defer done()
	start := time.Now()
	if err := c.StartApplier(ctx, 0); err != nil {
		return err
	}
	pts := []Point{{X: 0, Y: float64(backlog)}}
	limit := time.Now().Add(endStateTimeout(m))
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var elapsed time.Duration
	for {
		n, err := c.ReplicaCount(ctx, 0)
		if err != nil {
			return err
		}
		now := time.Since(start)
		pts = append(pts, Point{X: now.Seconds(), Y: float64(max(target-n, 0))})
		if n >= target {
			elapsed = now
			break
		}
		if time.Now().After(limit) {
			return fmt.Errorf("replica applied %d of %d within %v", n-base, backlog, endStateTimeout(m))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	t.Series("backlog", pts)
	apply := float64(backlog) / max(elapsed.Seconds(), 1e-3)
	t.Series("rates", []Point{{X: 0, Y: res.TPS()}, {X: 1, Y: apply}})
	t.Metric("backlog", "txn", float64(backlog), false)
	t.Metric("catch-up time", "s", elapsed.Seconds(), true)
	t.Metric("production rate", "txn/s", res.TPS(), false)
	t.Metric("apply rate", "txn/s", apply, false)
	t.Metric("apply / production", "ratio", apply/max(res.TPS(), 1e-9), false)
	return nil
}
