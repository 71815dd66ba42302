package labrun

import (
	"context"
	"fmt"
	"time"

	"petrel/lab"
)

// The network experiments: a steady, paced write load on the primary
// while the line to the replica degrades, with the replica's lag sampled
// throughout (seed 000: packet loss on WAN lines slowed and broke MySQL
// replication).

func init() {
	register(&Experiment{
		Name: "packet-loss",
		Description: "Replica lag over time under a paced write load while the line between primary and replica " +
			"loses packets at random for a period (kernel TCP across lab's WAN emulator, both directions); " +
			"seed 000's 2% loss on a WAN line.",
		Needs: []string{"mariadb", "root"},
		Charts: []Chart{{ID: "lag", Title: "Replica lag, loss period shaded", Kind: Lines,
			XLabel: "time (s)", YLabel: "lag (s)"}},
		Trial: packetLoss,
	})
	register(&Experiment{
		Name: "link-cut",
		Description: "Replica lag over time under a paced write load while the link to the primary is down " +
			"(connections closed, new ones refused) for a period, then back: how fast each replica reconnects and catches up.",
		Needs: []string{"mariadb"},
		Charts: []Chart{{ID: "lag", Title: "Replica lag, outage shaded", Kind: Lines,
			XLabel: "time (s)", YLabel: "lag (s)"}},
		Trial: linkCut,
	})
}

// degradeTimes are the clean, degraded and recovery periods.
func degradeTimes(m Mode) (before, during, after time.Duration) {
	return pick(m, 1500*time.Millisecond, 3*time.Second, 30*time.Second),
		pick(m, 3*time.Second, 5*time.Second, 60*time.Second),
		pick(m, 2500*time.Millisecond, 4*time.Second, 30*time.Second)
}

// loadRate is the paced load of the lag experiments, low enough that both
// systems keep up on a clean line (the question is the line, not
// throughput).
func loadRate(m Mode) float64 { return pick(m, 100.0, 200.0, 300.0) }

func packetLoss(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	oneWay := pick(m, 10*time.Millisecond, 25*time.Millisecond, 25*time.Millisecond)
	loss := pick(m, 0.05, 0.02, 0.02)
	spec := ClusterSpec{Net: NetWAN, WAN: lab.WANOptions{
		AtoB: lab.Impairment{Delay: oneWay}, BtoA: lab.Impairment{Delay: oneWay}, Seed: uint64(t.Round)}}
	if !t.Env.Root {
		spec = ClusterSpec{Net: NetLink, LinkLatency: oneWay}
		t.Note("no root: the line is a userspace Link; the loss period is emulated by 100 ms black holes every 500 ms (20% of the time), not by random packet loss")
	}
	c, err := t.Start(ctx, spec)
	if err != nil {
		return err
	}
	if err := CreateLoadTable(ctx, c.PDB); err != nil {
		return err
	}
	if err := c.WaitCaughtUp(ctx, time.Minute); err != nil {
		return err
	}
	before, during, after := degradeTimes(m)
	total := before + during + after
	lossPct := loss * 100
	label := fmt.Sprintf("%.0f%% loss", lossPct)
	if !t.Env.Root {
		label = "20% black holes"
	}
	t.Shade("lag", Span{From: before.Seconds(), To: (before + during).Seconds(), Label: label})
	t.Command("line", fmt.Sprintf("one-way delay %v each direction; %s from %v for %v; load %v txn/s, 4 clients, autocommit INSERTs for %v",
		oneWay, label, before, during, loadRate(m), total))

	done := t.Phase(fmt.Sprintf("load with %s in the middle", label), total)
	start := time.Now()
	lag := startLag(ctx, c, 0, start)
	faults := make(chan error, 1)
	go func() {
		faults <- degrade(ctx, c, t.Env.Root, loss, oneWay, before, during)
	}()
	res, lerr := Load(ctx, c.PDB, LoadOptions{Clients: 4, Duration: total, Rate: loadRate(m)})
	ferr := <-faults
	pts := lag.Stop()
	done()
	if err := firstErr(lerr, ferr); err != nil {
		return err
	}
	t.Series("lag", pts)
	b, d := before.Seconds(), (before + during).Seconds()
	t.Metric("max lag during loss", "s", maxIn(pts, b, d), true)
	t.Metric("mean lag during loss", "s", meanIn(pts, b, d), true)
	t.Metric("lag settled after loss ended", "s", settledAfter(pts, d, 0.5), true)
	t.Metric("commits", "txn", float64(len(res.Commits)), false)
	if c.WAN != nil {
		st := c.WAN.Stats()
		t.Metric("packets dropped", "packets", float64(st[0].Dropped()+st[1].Dropped()), false)
	}
	return nil
}

// degrade waits before, impairs the line for during, then restores it.
func degrade(ctx context.Context, c *Cluster, root bool, loss float64, oneWay, before, during time.Duration) error {
	if err := lab.Sleep(ctx, before); err != nil {
		return nil
	}
	if root {
		bad := lab.Impairment{Delay: oneWay, Loss: loss}
		if err := firstErr(c.WAN.SetImpairment(lab.AtoB, bad), c.WAN.SetImpairment(lab.BtoA, bad)); err != nil {
			return err
		}
		lab.Sleep(ctx, during)
		good := lab.Impairment{Delay: oneWay}
		return firstErr(c.WAN.SetImpairment(lab.AtoB, good), c.WAN.SetImpairment(lab.BtoA, good))
	}
	end := time.Now().Add(during)
	for time.Now().Before(end) && ctx.Err() == nil {
		for _, l := range c.Links {
			l.BlackHole(true)
		}
		lab.Sleep(ctx, 100*time.Millisecond)
		for _, l := range c.Links {
			l.BlackHole(false)
		}
		lab.Sleep(ctx, 400*time.Millisecond)
	}
	return nil
}

func linkCut(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	c, err := t.Start(ctx, ClusterSpec{Net: NetLink})
	if err != nil {
		return err
	}
	if err := CreateLoadTable(ctx, c.PDB); err != nil {
		return err
	}
	if err := c.WaitCaughtUp(ctx, time.Minute); err != nil {
		return err
	}
	before, during, after := degradeTimes(m)
	total := before + during + after
	t.Shade("lag", Span{From: before.Seconds(), To: (before + during).Seconds(), Label: "link down"})
	t.Command("line", fmt.Sprintf("lab.Link down (connections closed, connects refused) from %v for %v; load %v txn/s, 4 clients for %v",
		before, during, loadRate(m), total))
	done := t.Phase("load with the link down in the middle", total)
	start := time.Now()
	lag := startLag(ctx, c, 0, start)
	faults := make(chan error, 1)
	go func() {
		faults <- func() error {
			if lab.Sleep(ctx, before) != nil {
				return nil
			}
			if err := c.Links[0].Down(true); err != nil {
				return err
			}
			lab.Sleep(ctx, during)
			return c.Links[0].Down(false)
		}()
	}()
	_, lerr := Load(ctx, c.PDB, LoadOptions{Clients: 4, Duration: total, Rate: loadRate(m)})
	ferr := <-faults
	pts := lag.Stop()
	done()
	if err := firstErr(lerr, ferr); err != nil {
		return err
	}
	t.Series("lag", pts)
	d := (before + during).Seconds()
	t.Metric("max lag", "s", maxIn(pts, 0, total.Seconds()+1), true)
	t.Metric("caught up after link back", "s", settledAfter(pts, d, 0.5), true)
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
