package labrun

import (
	"context"
	"fmt"
	"time"

	"petrel/lab"
)

// Semi-synchronous replication (seed 001): what waiting for a replica's
// acknowledgement costs across a WAN round trip, and what happens when the
// replica stops answering.

func init() {
	register(&Experiment{
		Name: "semisync-wan",
		Description: "Commit throughput and latency, asynchronous against semi-synchronous replication, with the replica " +
			"behind a link adding a WAN round trip (seed 001: every semi-sync commit waits at least one RTT).",
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "tps", Title: "Throughput by mode and clients", Kind: Bars, YLabel: "commits/s"},
			{ID: "p95", Title: "p95 commit latency by mode and clients", Kind: Bars, YLabel: "ms"},
		},
		Trial: semisyncWAN,
	})
	register(&Experiment{
		Name: "semisync-fallback",
		Description: "Semi-synchronous replication with an equal timeout on both systems; the link to the replica " +
			"becomes a black hole for a period: commits stall for the timeout, the primary falls back to asynchronous, " +
			"and semi-sync resumes after the link heals.",
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "latency", Title: "Largest commit latency per 100 ms, black hole shaded", Kind: Lines, XLabel: "time (s)", YLabel: "ms"},
		},
		Trial: semisyncFallback,
	})
}

// semisyncClients are semisync-wan's client counts in mode m.
func semisyncClients(m Mode) []int { return pick(m, []int{1, 8}, []int{1, 16}, []int{1, 10, 32}) }

func semisyncRTT(m Mode) time.Duration {
	return pick(m, 20*time.Millisecond, 40*time.Millisecond, 90*time.Millisecond)
}

func semisyncWANCategories(m Mode) []string {
	var cats []string
	for _, mode := range []string{"async", "semisync"} {
		for _, n := range semisyncClients(m) {
			cats = append(cats, fmt.Sprintf("%s %dc", mode, n))
		}
	}
	return cats
}

func semisyncWAN(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	rtt := semisyncRTT(m)
	dur := pick(m, 1500*time.Millisecond, 2*time.Second, 20*time.Second)
	var tps, p95 []Point
	cat := 0
	for _, semi := range []bool{false, true} {
		mode := map[bool]string{false: "async", true: "semisync"}[semi]
		c, err := t.Start(ctx, ClusterSpec{Net: NetLink, LinkLatency: rtt / 2, Semisync: semi, SemisyncTimeout: time.Minute})
		if err != nil {
			return err
		}
		if err := CreateLoadTable(ctx, c.PDB); err != nil {
			return err
		}
		if err := c.WaitCaughtUp(ctx, time.Minute); err != nil {
			return err
		}
		if semi {
			if err := waitSemi(ctx, c, true, 30*time.Second); err != nil {
				return err
			}
		}
		for i, n := range semisyncClients(m) {
			done := t.Phase(fmt.Sprintf("%s, %d clients, RTT %v", mode, n, rtt), dur)
			res, err := Load(ctx, c.PDB, LoadOptions{Clients: n, Duration: dur, IDBase: int64(i) * 100_000_000})
			done()
			if err != nil {
				return err
			}
			if semi {
				if on, err := c.SemisyncOn(ctx); err != nil || !on {
					return fmt.Errorf("semi-sync not ON after the %d-client run (err %v): the figures would be asynchronous", n, err)
				}
			}
			tps = append(tps, Point{X: float64(cat), Y: res.TPS()})
			p95 = append(p95, Point{X: float64(cat), Y: res.Percentile(95)})
			t.Metric(fmt.Sprintf("%s %d clients: commits/s", mode, n), "txn/s", res.TPS(), false)
			t.Metric(fmt.Sprintf("%s %d clients: p95", mode, n), "ms", res.Percentile(95), true)
			t.Command("load", fmt.Sprintf("%s: %d clients, unpaced autocommit INSERTs for %v; link RTT %v", mode, n, dur, rtt))
			cat++
		}
	}
	t.Categories("tps", semisyncWANCategories(m))
	t.Categories("p95", semisyncWANCategories(m))
	t.Series("tps", tps)
	t.Series("p95", p95)
	return nil
}

// waitSemi waits until the primary's semi-sync status is on (or off).
func waitSemi(ctx context.Context, c *Cluster, on bool, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		got, err := c.SemisyncOn(ctx)
		if err == nil && got == on {
			return nil
		}
		if lab.Sleep(ctx, 50*time.Millisecond) != nil {
			return fmt.Errorf("%s: semi-sync status not %v within %v (last error %v)", c.System, on, timeout, err)
		}
	}
}

func semisyncFallback(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	timeout := pick(m, 500*time.Millisecond, time.Second, 2*time.Second)
	c, err := t.Start(ctx, ClusterSpec{Net: NetLink, Semisync: true, SemisyncTimeout: timeout})
	if err != nil {
		return err
	}
	if err := CreateLoadTable(ctx, c.PDB); err != nil {
		return err
	}
	if err := c.WaitCaughtUp(ctx, time.Minute); err != nil {
		return err
	}
	if err := waitSemi(ctx, c, true, 30*time.Second); err != nil {
		return err
	}
	before, during, after := pick(m, time.Second, 2*time.Second, 10*time.Second),
		pick(m, 2*time.Second, 4*time.Second, 20*time.Second), pick(m, 2*time.Second, 4*time.Second, 20*time.Second)
	total := before + during + after
	t.Shade("latency", Span{From: before.Seconds(), To: (before + during).Seconds(), Label: "black hole"})
	t.Command("fault", fmt.Sprintf("semi-sync timeout %v; link black hole from %v for %v; load 4 clients, 100 txn/s for %v", timeout, before, during, total))
	done := t.Phase("load with a black hole in the middle", total)
	type outcome struct {
		fellBack  bool
		resumedAt time.Duration
		err       error
	}
	faults := make(chan outcome, 1)
	start := time.Now()
	go func() {
		var o outcome
		defer func() { faults <- o }()
		if lab.Sleep(ctx, before) != nil {
			return
		}
		c.Links[0].BlackHole(true)
		if lab.Sleep(ctx, during) != nil {
			c.Links[0].BlackHole(false)
			return
		}
		on, err := c.SemisyncOn(ctx)
		o.fellBack, o.err = err == nil && !on, err
		c.Links[0].BlackHole(false)
		healed := time.Now()
		if err := waitSemi(ctx, c, true, after+30*time.Second); err != nil {
			o.err = err
			return
		}
		o.resumedAt = time.Since(healed)
	}()
	res, lerr := Load(ctx, c.PDB, LoadOptions{Clients: 4, Duration: total, Rate: 100})
	o := <-faults
	done()
	if err := firstErr(lerr, o.err); err != nil {
		return err
	}
	_ = start
	t.Series("latency", bucket(res.Commits, 0.1, total.Seconds(), false))
	maxStall := 0.0
	for _, cm := range res.Commits {
		maxStall = max(maxStall, float64(cm.Latency)/float64(time.Millisecond))
	}
	t.Metric("longest commit", "ms", maxStall, true)
	t.Metric("semisync timeout", "ms", float64(timeout.Milliseconds()), false)
	fell := 0.0
	if o.fellBack {
		fell = 1
	}
	t.Metric("fell back to async (1 = yes)", "bool", fell, false)
	t.Metric("semi-sync back after heal", "s", o.resumedAt.Seconds(), true)
	t.Metric("commits", "txn", float64(len(res.Commits)), false)
	return nil
}
