package labrun

import (
	"context"
	"fmt"
	"time"

	"petrel/lab"
)

// Fan-out across a WAN (issue 17, bench/fanout.sh): replicas at a remote
// site fetching each their own stream across the line, against one relay
// at that site feeding them.

func init() {
	register(&Experiment{
		Name: "fan-out",
		Description: "A primary at one site, replicas at another across the WAN emulator (delay, loss, bandwidth cap), " +
			"each fetching across the line (direct) or all from one relay at their site (relay: Petrel's `petrel relay`, " +
			"MariaDB an intermediate replica with log_slave_updates): bytes on the line per transaction and the replicas' lag.",
		Needs:    []string{"mariadb", "root"},
		RootOnly: true,
		Charts: []Chart{
			{ID: "bytes", Title: "Bytes across the line per transaction", Kind: Bars, YLabel: "bytes/txn",
				Categories: []string{"direct", "relay"}},
			{ID: "lag", Title: "Largest replica lag", Kind: Bars, YLabel: "s", Categories: []string{"direct", "relay"}},
		},
		Trial: fanOut,
	})
}

func fanOut(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	replicas := pick(m, 3, 4, 6)
	dur := pick(m, 3*time.Second, 3*time.Second, 60*time.Second)
	imp := lab.Impairment{Delay: pick(m, 10*time.Millisecond, 45*time.Millisecond, 45*time.Millisecond), Loss: 0.01,
		RateBps: 50_000_000}
	var bytes, lags []Point
	for i, relay := range []bool{false, true} {
		layout := map[bool]string{false: "direct", true: "relay"}[relay]
		c, err := t.Start(ctx, ClusterSpec{Replicas: replicas, Relay: relay, Net: NetWAN,
			WAN: lab.WANOptions{AtoB: imp, BtoA: imp, Seed: uint64(t.Round)}})
		if err != nil {
			return fmt.Errorf("%s: %w", layout, err)
		}
		if err := CreateLoadTable(ctx, c.PDB); err != nil {
			return err
		}
		if err := c.WaitCaughtUp(ctx, time.Minute); err != nil {
			return err
		}
		before := c.WAN.Stats()[lab.AtoB].ForwardedBytes
		done := t.Phase(fmt.Sprintf("%s: %d replicas, load for %v", layout, replicas, dur), dur)
		start := time.Now()
		var samplers []*lagSampler
		for r := range c.Replicas {
			samplers = append(samplers, startLag(ctx, c, r, start))
		}
		res, lerr := Load(ctx, c.PDB, LoadOptions{Clients: 4, Duration: dur, Rate: pick(m, 200.0, 300.0, 500.0), IDBase: int64(i) * 100_000_000})
		cerr := c.WaitCaughtUp(ctx, endStateTimeout(m))
		worst := 0.0
		for _, s := range samplers {
			worst = max(worst, maxIn(s.Stop(), 0, 1e9))
		}
		done()
		if err := firstErr(lerr, cerr); err != nil {
			return fmt.Errorf("%s: %w", layout, err)
		}
		crossed := c.WAN.Stats()[lab.AtoB].ForwardedBytes - before
		perTxn := float64(crossed) / max(float64(len(res.Commits)), 1)
		bytes = append(bytes, Point{X: float64(i), Y: perTxn})
		lags = append(lags, Point{X: float64(i), Y: worst})
		t.Metric(layout+": bytes across the line per transaction", "bytes", perTxn, true)
		t.Metric(layout+": largest replica lag", "s", worst, true)
		t.Command("load", fmt.Sprintf("%s: %d replicas across one-way %v, 1%% loss, 50 Mbit/s; 4 clients, %v txn/s for %v",
			layout, replicas, imp.Delay, pick(m, 200.0, 300.0, 500.0), dur))
	}
	t.Series("bytes", bytes)
	t.Series("lag", lags)
	return nil
}
