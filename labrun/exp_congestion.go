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
// bench/fanout.sh's congestion phase): a backlog fetched across a lossy,
// long line with each congestion control.

func init() {
	register(&Experiment{
		Name: "bbr-vs-cubic",
		Description: "The replica's receiver is stopped while the primary takes a burst; then it reconnects across a lossy " +
			"WAN line and the time until the replica has applied the backlog is measured, with CUBIC and with BBR as the " +
			"congestion control of both namespaces (and of Petrel's replication sockets, replication_tcp_congestion_control).",
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
		Loss: pick(m, 0.02, 0.02, 0.02), RateBps: 100_000_000}
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
	var bars []Point
	for i, cc := range []string{"cubic", "bbr"} {
		for side := range 2 {
			if _, err := c.WAN.Run(ctx, side, "sysctl", "-w", "net.ipv4.tcp_congestion_control="+cc); err != nil {
				return fmt.Errorf("%s: %w", cc, err)
			}
		}
		if t.System == "petrel" {
			set := fmt.Sprintf("SET GLOBAL replication_tcp_congestion_control = '%s'", cc)
			if err := firstErr(qExec(ctx, c.PDB, set), qExec(ctx, c.RDBs[0], set)); err != nil {
				return err
			}
		}
		if err := qExec(ctx, c.RDBs[0], stopIO); err != nil {
			return err
		}
		done := t.Phase(cc+": burst with the receiver stopped", burst)
		res, err := Load(ctx, c.PDB, LoadOptions{Clients: 4, Duration: burst, IDBase: int64(i) * 100_000_000,
			Rate: pick(m, 1000.0, 1500.0, 0)})
		done()
		if err != nil {
			return err
		}
		target, err := c.PrimaryCount(ctx)
		if err != nil {
			return err
		}
		done = t.Phase(fmt.Sprintf("%s: fetch and apply %d transactions", cc, len(res.Commits)), 0)
		start := time.Now()
		err = qExec(ctx, c.RDBs[0], startIO)
		if err == nil {
			err = c.WaitApplied(ctx, 0, target, endStateTimeout(m))
		}
		elapsed := time.Since(start)
		done()
		if err != nil {
			return fmt.Errorf("%s: %w", cc, err)
		}
		bars = append(bars, Point{X: float64(i), Y: elapsed.Seconds()})
		t.Metric(cc+": backlog fetched and applied", "s", elapsed.Seconds(), true)
		t.Metric(cc+": backlog", "txn", float64(len(res.Commits)), false)
		t.Command(cc, fmt.Sprintf("sysctl -w net.ipv4.tcp_congestion_control=%s in both namespaces; %s; 4 clients for %v; %s; line one-way %v, %.0f%% loss, 100 Mbit/s",
			cc, stopIO, burst, startIO, imp.Delay, imp.Loss*100))
	}
	t.Series("catchup", bars)
	return nil
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
