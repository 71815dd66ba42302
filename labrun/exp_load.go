package labrun

import (
	"context"
	"fmt"
	"slices"
	"time"

	"petrel/lab"
)

func init() {
	register(&Experiment{
		Name: "clients-scaling",
		Description: "Commit throughput and p95 latency of autocommit INSERTs against the number of clients, each on " +
			"its own connection (seed 002's curve, 1 to 10000 clients), on a primary with one replica; then the servers' footprint.",
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "tps", Title: "Throughput against clients", Kind: Lines, LogX: true, XLabel: "clients (log)", YLabel: "commits/s"},
			{ID: "p95", Title: "p95 commit latency against clients", Kind: Lines, LogX: true, XLabel: "clients (log)", YLabel: "ms"},
			{ID: "footprint", Title: "Footprint after the run", Kind: Bars, YLabel: "MiB",
				Categories: []string{"primary RSS", "replica RSS", "primary datadir"}},
		},
		Trial: clientsScaling,
	})
	register(&Experiment{
		Name: "durability",
		Description: "The primary is killed (SIGKILL) in the middle of a write load and restarted: every commit a client " +
			"saw acknowledged must be on the restarted primary and, by the end-state check, on the replica.",
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "commits", Title: "Commits per second, crash and restart shaded", Kind: Lines, XLabel: "time (s)", YLabel: "commits/s"},
			{ID: "recovery", Title: "Restart time after the crash", Kind: Bars, YLabel: "s", Categories: []string{"restart until ready"}},
		},
		Trial: durability,
	})
}

// scalingClients are the curve's points.
func scalingClients(m Mode) []int {
	return pick(m, []int{1, 4, 16}, []int{1, 10, 100, 1000}, []int{1, 10, 100, 1000, 10000})
}

func clientsScaling(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	// Both servers take the curve's largest client count (Petrel's
	// default is MySQL's 151), and both replicas apply on 4 threads
	// (Petrel's default; MariaDB's serial applier would take minutes
	// over the 1000-client point's backlog before the end-state check).
	c, err := t.Start(ctx, ClusterSpec{PrimaryVars: map[string]string{"max_connections": "12000"}, ReplicaWorkers: 4})
	if err != nil {
		return err
	}
	if err := CreateLoadTable(ctx, c.PDB); err != nil {
		return err
	}
	dur := pick(m, time.Second, 2*time.Second, 20*time.Second)
	var tps, p95 []Point
	for i, n := range scalingClients(m) {
		done := t.Phase(fmt.Sprintf("%d clients", n), dur)
		res, err := Load(ctx, c.PDB, LoadOptions{Clients: n, Duration: dur, IDBase: int64(i) * 100_000_000})
		done()
		if err != nil {
			return fmt.Errorf("%d clients: %w", n, err)
		}
		tps = append(tps, Point{X: float64(n), Y: res.TPS()})
		p95 = append(p95, Point{X: float64(n), Y: res.Percentile(95)})
		t.Metric(fmt.Sprintf("%d clients: commits/s", n), "txn/s", res.TPS(), false)
		t.Metric(fmt.Sprintf("%d clients: p95", n), "ms", res.Percentile(95), true)
	}
	t.Command("load", fmt.Sprintf("clients %v, each on its own connection, unpaced autocommit INSERTs for %v per point", scalingClients(m), dur))
	t.Series("tps", tps)
	t.Series("p95", p95)
	if err := c.WaitCaughtUp(ctx, endStateTimeout(m)); err != nil {
		return err
	}
	t.Series("footprint", []Point{
		{X: 0, Y: rssMiB(c.Primary.Pid())},
		{X: 1, Y: rssMiB(c.Replicas[0].Pid())},
		{X: 2, Y: dirMiB(c.Primary.Datadir())},
	})
	t.Metric("primary RSS", "MiB", rssMiB(c.Primary.Pid()), true)
	t.Metric("primary datadir", "MiB", dirMiB(c.Primary.Datadir()), true)
	return nil
}

func durability(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	// 4 applier threads on the replica (Petrel's default), as in
	// clients-scaling: the end-state check does not wait out MariaDB's
	// serial applier over the load's backlog.
	c, err := t.Start(ctx, ClusterSpec{ReplicaWorkers: 4})
	if err != nil {
		return err
	}
	if err := CreateLoadTable(ctx, c.PDB); err != nil {
		return err
	}
	if err := c.WaitCaughtUp(ctx, time.Minute); err != nil {
		return err
	}
	before, rest := pick(m, 1500*time.Millisecond, 2*time.Second, 15*time.Second), pick(m, 2500*time.Millisecond, 3*time.Second, 15*time.Second)
	clients := pick(m, 4, 8, 16)
	t.Command("fault", fmt.Sprintf("%d clients, unpaced autocommit INSERTs; SIGKILL of the primary after %v; restart; load until %v after the kill", clients, before, rest))
	done := t.Phase("load, kill -9 and restart of the primary", before+rest)
	defer done()
	type crash struct {
		killAt, readyAt time.Duration
		err             error
	}
	crashed := make(chan crash, 1)
	start := time.Now()
	go func() {
		var cr crash
		defer func() { crashed <- cr }()
		if lab.Sleep(ctx, before) != nil {
			return
		}
		cr.killAt = time.Since(start)
		if cr.err = c.Primary.Kill(); cr.err != nil {
			return
		}
		rctx, cancel := context.WithTimeout(ctx, nodeStart)
		defer cancel()
		cr.err = c.Primary.Restart(rctx)
		cr.readyAt = time.Since(start)
	}()
	res, lerr := Load(ctx, c.PDB, LoadOptions{Clients: clients, Duration: before + rest + pick(m, time.Second, time.Second, 5*time.Second), KeepAcked: true})
	cr := <-crashed
	if err := firstErr(cr.err, lerr); err != nil {
		return err
	}
	if cr.readyAt == 0 {
		return fmt.Errorf("the primary was not killed and restarted")
	}
	t.Shade("commits", Span{From: cr.killAt.Seconds(), To: cr.readyAt.Seconds(), Label: "down"})
	t.Series("commits", bucket(res.Commits, 0.25, res.Elapsed.Seconds(), true))
	recovery := (cr.readyAt - cr.killAt).Seconds()
	t.Series("recovery", []Point{{X: 0, Y: recovery}})
	lost, err := missingIDs(ctx, c, res.Acked)
	if err != nil {
		return err
	}
	t.Metric("acknowledged commits", "txn", float64(len(res.Acked)), false)
	t.Metric("acknowledged commits lost", "txn", float64(lost), true)
	t.Metric("restart until ready", "s", recovery, true)
	t.Metric("failed statements while down", "stmt", float64(res.Errors), false)
	resumed := 0
	for _, cm := range res.Commits {
		if cm.At > cr.readyAt {
			resumed++
		}
	}
	t.Metric("commits after the restart", "txn", float64(resumed), false)
	if lost > 0 {
		return fmt.Errorf("%d acknowledged commits missing after the restart", lost)
	}
	return nil
}

// missingIDs counts the acknowledged ids the primary does not hold.
func missingIDs(ctx context.Context, c *Cluster, acked []int64) (int, error) {
	have := map[int64]bool{}
	qctx, cancel := context.WithTimeout(ctx, digestTimeout)
	defer cancel()
	rows, err := c.PDB.QueryContext(qctx, "SELECT id FROM "+loadTable)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return 0, err
		}
		have[id] = true
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	return len(slices.DeleteFunc(slices.Clone(acked), func(id int64) bool { return have[id] })), nil
}
