package labrun

import (
	"context"
	"fmt"
	"slices"
	"time"

	"petrel/lab"
)

// Fan-out across a WAN (issue 17; the former WAN bench program's fanout
// phase): replicas at a remote site fetching each their own stream across
// the line, against one relay at that site feeding them. Beside the bytes
// and the largest lag it reports what that program did: the bytes coming
// back (acknowledgements), the primary's CPU per transaction, the
// replicas' lag p50 and p99 (every replica's samples pooled) and the
// relay's bytes against direct's, whose target is 1/replicas.

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
	var perTxnBytes [2]float64
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
		before := c.WAN.Stats()
		cpu0, err := processCPU(c.Primary.Pid())
		if err != nil {
			return err
		}
		done := t.Phase(fmt.Sprintf("%s: %d replicas, load for %v", layout, replicas, dur), dur)
		start := time.Now()
		var samplers []*lagSampler
		for r := range c.Replicas {
			samplers = append(samplers, startLag(ctx, c, r, start))
		}
		res, lerr := Load(ctx, c.PDB, LoadOptions{Clients: 4, Duration: dur, Rate: pick(m, 200.0, 300.0, 500.0), IDBase: int64(i) * 100_000_000})
		cerr := c.WaitCaughtUp(ctx, endStateTimeout(m))
		cpu1, perr := processCPU(c.Primary.Pid())
		worst := 0.0
		var pooled []float64
		for _, s := range samplers {
			pts := s.Stop()
			worst = max(worst, maxIn(pts, 0, 1e9))
			for _, p := range pts {
				pooled = append(pooled, p.Y)
			}
		}
		done()
		if err := firstErr(lerr, cerr, perr); err != nil {
			return fmt.Errorf("%s: %w", layout, err)
		}
		after := c.WAN.Stats()
		txns := max(float64(len(res.Commits)), 1)
		perTxn := float64(after[lab.AtoB].ForwardedBytes-before[lab.AtoB].ForwardedBytes) / txns
		back := float64(after[lab.BtoA].ForwardedBytes-before[lab.BtoA].ForwardedBytes) / txns
		perTxnBytes[i] = perTxn
		bytes = append(bytes, Point{X: float64(i), Y: perTxn})
		lags = append(lags, Point{X: float64(i), Y: worst})
		t.Metric(layout+": bytes across the line per transaction", "bytes", perTxn, true)
		t.Metric(layout+": bytes back across the line per transaction", "bytes", back, true)
		t.Metric(layout+": transactions/s", "txn/s", res.TPS(), false)
		t.Metric(layout+": primary CPU per transaction", "ms", (cpu1-cpu0).Seconds()*1e3/txns, true)
		t.Metric(layout+": replica lag p50", "s", quantile(pooled, 0.50), true)
		t.Metric(layout+": replica lag p99", "s", quantile(pooled, 0.99), true)
		t.Metric(layout+": largest replica lag", "s", worst, true)
		t.Command("load", fmt.Sprintf("%s: %d replicas across one-way %v, 1%% loss, 50 Mbit/s; 4 clients, %v txn/s for %v",
			layout, replicas, imp.Delay, pick(m, 200.0, 300.0, 500.0), dur))
	}
	if perTxnBytes[0] > 0 {
		// One stream instead of one per replica: the target is 1/replicas.
		t.Metric(fmt.Sprintf("relay / direct bytes per transaction (target <= 1/%d = %.3f)", replicas, 1/float64(replicas)),
			"x", perTxnBytes[1]/perTxnBytes[0], true)
	}
	t.Series("bytes", bytes)
	t.Series("lag", lags)
	return nil
}

// quantile is the q-th quantile (0..1) of xs by nearest rank; 0 when xs is
// empty. xs is not modified.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}
