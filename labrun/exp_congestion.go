package labrun

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"petrel/lab"
)

// BBR against CUBIC (seed 000's "implement google BBR on binlog servers",
// the former WAN bench program's congestion phase): a backlog fetched across
// a lossy, long line with each congestion control, then the lag under a
// steady paced load. Each cell reports what that program did: catch-up
// time, backlog, apply rate, the line's throughput and the packets lost
// meanwhile, lag p50, p99 and largest; the full run covers its loss rates
// (0, 1, 2 and 5%).

func init() {
	register(&Experiment{
		Name: "bbr-vs-cubic",
		Description: "The replica's receiver is stopped while the primary takes a burst; then it reconnects across a lossy " +
			"WAN line and the time until the replica has applied the backlog is measured, with CUBIC and with BBR as the " +
			"congestion control of both namespaces (and of Petrel's replication sockets, replication_tcp_congestion_control), " +
			"with the apply rate, the line's throughput and the packets lost meanwhile; then the replica's lag under a steady " +
			"100 txn/s. The chart is at 2% loss; the full run adds 0, 1 and 5% as figures.",
		Needs:    []string{"mariadb", "root"},
		RootOnly: true,
		Charts: []Chart{
			{ID: "catchup", Title: "Backlog fetched and applied across the line", Kind: Bars, YLabel: "s",
				Categories: []string{"cubic", "bbr"}},
		},
		Trial: bbrVsCubic,
	})
}

func bbrVsCubic(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	imp := lab.Impairment{Delay: pick(m, 15*time.Millisecond, 25*time.Millisecond, 50*time.Millisecond),
		Loss: headlineLoss, RateBps: 100_000_000}
	// The chart and the unprefixed figures are at headlineLoss; the full
	// run adds the former WAN bench program's other loss rates as figures.
	losses := pick(m, []float64{headlineLoss}, []float64{headlineLoss}, []float64{0, 0.01, headlineLoss, 0.05})
	c, err := t.Start(ctx, ClusterSpec{Net: NetWAN, WAN: lab.WANOptions{AtoB: imp, BtoA: imp, Seed: uint64(t.Round)}})
	if err != nil {
		return err
	}
	if err := CreateLoadTable(ctx, c.PDB); err != nil {
		return err
	}
	if err := c.WaitCaughtUp(ctx, time.Minute); err != nil {
		return err
	}
	stopIO, startIO := "STOP REPLICA IO_THREAD", "START REPLICA IO_THREAD"
	if t.System == "mariadb" {
		stopIO, startIO = "STOP SLAVE IO_THREAD", "START SLAVE IO_THREAD"
	}
	// A namespace's default may only be an algorithm the host allows
	// (net.ipv4.tcp_allowed_congestion_control): allow both for the
	// trial, and put the list back after it.
	restore, err := allowCongestion("cubic", "bbr")
	if err != nil {
		return err
	}
	defer restore()
	burst := pick(m, 1500*time.Millisecond, 3*time.Second, 60*time.Second)
	// After each catch-up, the lag under a steady paced load (the former
	// script's LAG_RATE): a line that carries less than it falls behind.
	steady, steadyRate := pick(m, 1500*time.Millisecond, 3*time.Second, 30*time.Second), 100.0
	var bars []Point
	cell := 0
	for li, loss := range losses {
		prefix := ""
		if loss != headlineLoss {
			prefix = fmt.Sprintf("loss %.0f%%: ", loss*100)
		}
		cur := imp
		cur.Loss = loss
		for _, d := range []lab.WANDir{lab.AtoB, lab.BtoA} {
			if err := c.WAN.SetImpairment(d, cur); err != nil {
				return err
			}
		}
		algos := []string{"cubic", "bbr"}
		if li%2 == 1 {
			algos = []string{"bbr", "cubic"}
		}
		for _, cc := range algos {
			r, err := catchUpCell(ctx, t, c, cc, stopIO, startIO, burst, int64(cell))
			if err != nil {
				return fmt.Errorf("%s%s: %w", prefix, cc, err)
			}
			cell++
			if loss == headlineLoss {
				x := 0.0
				if cc == "bbr" {
					x = 1
				}
				bars = append(bars, Point{X: x, Y: r.elapsed.Seconds()})
			}
			secs := r.elapsed.Seconds()
			t.Metric(prefix+cc+": backlog fetched and applied", "s", secs, true)
			t.Metric(prefix+cc+": backlog", "txn", float64(r.backlog), false)
			t.Metric(prefix+cc+": apply rate over the catch-up", "txn/s", float64(r.backlog)/secs, false)
			t.Metric(prefix+cc+": line throughput over the catch-up", "Mbit/s", float64(r.bytes)*8/secs/1e6, false)
			t.Metric(prefix+cc+": packets dropped during the catch-up", "packets", float64(r.dropped), false)
			lag, err := steadyLag(ctx, t, c, steady, steadyRate, int64(cell))
			cell++
			if err != nil {
				return fmt.Errorf("%s%s: steady load: %w", prefix, cc, err)
			}
			t.Metric(fmt.Sprintf("%s%s: lag p50 at %.0f txn/s", prefix, cc, steadyRate), "s", quantile(lag, 0.50), true)
			t.Metric(fmt.Sprintf("%s%s: lag p99 at %.0f txn/s", prefix, cc, steadyRate), "s", quantile(lag, 0.99), true)
			t.Metric(fmt.Sprintf("%s%s: largest lag at %.0f txn/s", prefix, cc, steadyRate), "s", slices.Max(append(lag, 0)), true)
			t.Command(prefix+cc, fmt.Sprintf("sysctl -w net.ipv4.tcp_congestion_control=%s in both namespaces; %s; 4 clients for %v; %s; "+
				"then %.0f txn/s for %v; line one-way %v, %.0f%% loss, 100 Mbit/s",
				cc, stopIO, burst, startIO, steadyRate, steady, imp.Delay, loss*100))
		}
	}
	t.Series("catchup", bars)
	return nil
}

// headlineLoss is the loss rate of bbr-vs-cubic's chart, in every mode.
const headlineLoss = 0.02

// ccCatchUp is one backlog fetched across the line.
type ccCatchUp struct {
	elapsed time.Duration
	backlog int64 // transactions written with the receiver stopped
	bytes   int64 // forwarded primary side -> replica side meanwhile
	dropped int64 // packets lost at random, both ways, meanwhile
}

// catchUpCell sets cc as both namespaces' (and Petrel's replication
// sockets') congestion control, writes a burst with the replica's
// receiver stopped, restarts it and times until the replica has applied
// the backlog.
func catchUpCell(ctx context.Context, t *Trial, c *Cluster, cc, stopIO, startIO string, burst time.Duration, cell int64) (ccCatchUp, error) {
	m := t.Env.Mode
	var r ccCatchUp
	for side := range 2 {
		if _, err := c.WAN.Run(ctx, side, "sysctl", "-w", "net.ipv4.tcp_congestion_control="+cc); err != nil {
			return r, err
		}
	}
	if t.System == "petrel" {
		set := fmt.Sprintf("SET GLOBAL replication_tcp_congestion_control = '%s'", cc)
		if err := firstErr(qExec(ctx, c.PDB, set), qExec(ctx, c.RDBs[0], set)); err != nil {
			return r, err
		}
	}
	if err := qExec(ctx, c.RDBs[0], stopIO); err != nil {
		return r, err
	}
	start, err := c.PrimaryCount(ctx)
	if err != nil {
		return r, err
	}
	done := t.Phase(cc+": burst with the receiver stopped", burst)
	_, err = Load(ctx, c.PDB, LoadOptions{Clients: 4, Duration: burst, IDBase: cell * 100_000_000,
		Rate: pick(m, 1000.0, 1500.0, 0)})
	done()
	if err != nil {
		return r, err
	}
	target, err := c.PrimaryCount(ctx)
	if err != nil {
		return r, err
	}
	r.backlog = target - start
	done = t.Phase(fmt.Sprintf("%s: fetch and apply %d transactions", cc, r.backlog), 0)
	before := c.WAN.Stats()
	t0 := time.Now()
	err = qExec(ctx, c.RDBs[0], startIO)
	if err == nil {
		err = c.WaitApplied(ctx, 0, target, endStateTimeout(m))
	}
	r.elapsed = time.Since(t0)
	after := c.WAN.Stats()
	done()
	r.bytes = after[lab.AtoB].ForwardedBytes - before[lab.AtoB].ForwardedBytes
	r.dropped = after[lab.AtoB].DroppedLoss - before[lab.AtoB].DroppedLoss + after[lab.BtoA].DroppedLoss - before[lab.BtoA].DroppedLoss
	return r, err
}

// steadyLag runs a load paced to rate for d while sampling the replica's
// lag, waits until it has applied the load, and returns the samples' lags.
func steadyLag(ctx context.Context, t *Trial, c *Cluster, d time.Duration, rate float64, cell int64) ([]float64, error) {
	done := t.Phase(fmt.Sprintf("steady %.0f txn/s, lag", rate), d)
	defer done()
	start := time.Now()
	s := startLag(ctx, c, 0, start)
	_, err := Load(ctx, c.PDB, LoadOptions{Clients: 4, Duration: d, Rate: rate, IDBase: cell * 100_000_000})
	pts := s.Stop()
	if err == nil {
		err = c.WaitCaughtUp(ctx, endStateTimeout(t.Env.Mode))
	}
	lags := make([]float64, 0, len(pts))
	for _, p := range pts {
		lags = append(lags, p.Y)
	}
	return lags, err
}

const allowedCC = "/proc/sys/net/ipv4/tcp_allowed_congestion_control"

// allowCongestion adds algos to the host's allowed congestion controls
// and returns the function that writes the previous list back.
func allowCongestion(algos ...string) (func(), error) {
	b, err := os.ReadFile(allowedCC)
	if err != nil {
		return nil, err
	}
	prev := strings.TrimSpace(string(b))
	list := strings.Fields(prev)
	for _, a := range algos {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	if strings.Join(list, " ") == prev {
		return func() {}, nil
	}
	if err := os.WriteFile(allowedCC, []byte(strings.Join(list, " ")), 0o644); err != nil {
		return nil, fmt.Errorf("allow %v: %w", algos, err)
	}
	return func() { os.WriteFile(allowedCC, []byte(prev), 0o644) }, nil
}
