package labrun

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// replication-sysbench (formerly bench/cmd/repl and
// bench/replication.sh): replication under sysbench oltp_write_only at
// full rate, for each applier variant of a system (replsb.go), each on a
// fresh primary and replica:
//
//  1. Lag: the load runs while the primary's transaction counter (every
//     20 ms) and the replica's applied counter (every 100 ms) are
//     sampled; lag at a replica sample is the age of the oldest
//     transaction it has not applied (lagAt), with the replica's own
//     Seconds_Behind_* beside it.
//  2. Catch-up: the applier alone is stopped (the receiver keeps
//     fetching) during a second load, then started and timed, the primary
//     producing meanwhile at half the rate it reached (sysbench --rate,
//     the seed's source never stopped), until the replica's lag is first
//     under 1 s. A variant whose lag stays over it for the whole wait is
//     reported as not caught up (a note, "caught up" 0 and its apply
//     rate over the wait), not as a failure.
//
// The end-state check compares the replica's sysbench tables with the
// primary's after each variant.

func init() {
	register(&Experiment{
		Name: "replication-sysbench",
		Description: "Replication under sysbench oltp_write_only for each applier variant (Petrel: worker counts, DATABASE " +
			"scheduling, a COMMIT_ORDER source, a larger replica memtable; MariaDB: serial, conservative and optimistic " +
			"parallel modes): lag under a full-rate load (sampled against the primary's commits), then the catch-up of a " +
			"backlog built with the applier stopped while the primary keeps producing at half its rate, until the lag is under 1 s.",
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "lag", Title: "Lag p99 under the full-rate load, by variant", Kind: Bars, YLabel: "ms"},
			{ID: "apply", Title: "Catch-up apply rate, by variant", Kind: Bars, YLabel: "transactions/s"},
		},
		Trial: replicationSysbench,
	})
}

// replsbSizes are the experiment's sizes in mode m.
type replsbSizes struct {
	variants             map[string][]string
	lagLoad, catchupLoad time.Duration
	lagThreads, threads  int
	tables, tableSize    int
	wait                 time.Duration
}

func replsbSize(m Mode) replsbSizes {
	return replsbSizes{
		variants: pick(m,
			map[string][]string{"petrel": {"w4+co+mt16"}, "mariadb": {"optimistic-4"}},
			map[string][]string{"petrel": {"w1", "w4"}, "mariadb": {"serial", "optimistic-4"}},
			map[string][]string{"petrel": {"w1", "w4", "w8", "w16", "db4", "w8+co", "w8+mt16"}, "mariadb": {"serial", "conservative-8", "optimistic-8"}}),
		lagLoad:     pick(m, time.Second, 3*time.Second, 30*time.Second),
		catchupLoad: pick(m, 1500*time.Millisecond, 3*time.Second, 120*time.Second),
		lagThreads:  pick(m, 4, 16, 32), threads: pick(m, 4, 8, 16),
		tables: pick(m, 1, 2, 8), tableSize: pick(m, 1000, 10000, 10000),
		// Quick: 15 s, not the end-state check's 3 min, which MariaDB's
		// serial and optimistic appliers, not catching up under half
		// the rate, each waited out whole (the quick run took 16 min).
		wait: pick(m, endStateTimeout(m), 15*time.Second, endStateTimeout(m)),
	}
}

// replsbCategories are the bars: every variant of both systems.
func replsbCategories(s replsbSizes) []string {
	var cats []string
	for _, sys := range []string{"petrel", "mariadb"} {
		for _, v := range s.variants[sys] {
			cats = append(cats, sys+"/"+v)
		}
	}
	return cats
}

func replicationSysbench(ctx context.Context, t *Trial) error {
	s := replsbSize(t.Env.Mode)
	cats := replsbCategories(s)
	t.Categories("lag", cats)
	t.Categories("apply", cats)
	var lagBars, applyBars []Point
	var anchor float64 // the first variant's apply rate
	variants := s.variants[t.System]
	for _, v := range variants {
		label := t.System + "/" + v
		x := float64(slices.Index(cats, label))
		lag, cu, err := replsbVariant(ctx, t, s, v)
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		lagBars = append(lagBars, Point{X: x, Y: ms(lag.p99)})
		t.Metric(v+": primary TPS, lag phase", "txn/s", lag.tps, false)
		t.Metric(v+": lag p99", "ms", ms(lag.p99), true)
		t.Metric(v+": lag max", "ms", ms(lag.max), true)
		t.Metric(v+": lag mean", "ms", ms(lag.mean), true)
		t.Metric(v+": drain after the load", "ms", ms(lag.drain), true)
		if lag.behindMax >= 0 {
			t.Metric(v+": Seconds_Behind max", "s", float64(lag.behindMax), true)
		}
		t.Metric(v+": backlog", "txn", float64(cu.backlog), false)
		t.Metric(v+": production TPS", "txn/s", cu.produceRate, false)
		t.Metric(v+": production during the catch-up", "txn/s", cu.catchupProduce, false)
		t.Metric(v+": caught up", "1 or 0", b2f(!cu.notCaughtUp), false)
		if !cu.notCaughtUp {
			t.Metric(v+": catch-up", "s", cu.took.Seconds(), true)
			t.Metric(v+": stopped / catch-up", "ratio", s.catchupLoad.Seconds()/cu.took.Seconds(), false)
		}
		t.Metric(v+": apply TPS", "txn/s", cu.applyRate(), false)
		t.Metric(v+": apply / production", "ratio", cu.applyRate()/cu.produceRate, false)
		if anchor == 0 && v == variants[0] {
			anchor = cu.applyRate()
		}
		if anchor > 0 {
			t.Metric(fmt.Sprintf("%s: apply / %s's", v, variants[0]), "ratio", cu.applyRate()/anchor, false)
		}
		if cu.replicaCPU > 0 && cu.applied > 0 {
			t.Metric(v+": replica CPU per applied transaction", "ms", ms(cu.replicaCPU)/float64(cu.applied), true)
		}
		applyBars = append(applyBars, Point{X: x, Y: cu.applyRate()})
	}
	t.Series("lag", lagBars)
	t.Series("apply", applyBars)
	t.Command("load", fmt.Sprintf("sysbench oltp_write_only --mysql-db=%s --tables=%d --table-size=%d: lag phase --threads=%d --time=%d; "+
		"catch-up: STOP the applier, --threads=%d --time=%d, START it, then --rate=half the rate reached until the lag is under %v",
		LabDB, s.tables, s.tableSize, s.lagThreads, int(s.lagLoad.Seconds()), s.threads, int(s.catchupLoad.Seconds()), lagTarget))
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// replsbVariant measures one variant on a cluster of its own and checks
// and stops it; cu.notCaughtUp when the replica did not catch up within
// the wait (noted).
func replsbVariant(ctx context.Context, t *Trial, s replsbSizes, v string) (lag *lagResult, cu *catchupResult, err error) {
	rvars, err := replicaVariables(t.System, v)
	if err != nil {
		return nil, nil, err
	}
	stmts, err := variantSetup(t.System, v)
	if err != nil {
		return nil, nil, err
	}
	c, err := t.Start(ctx, ClusterSpec{ReplicaVars: rvars})
	if err != nil {
		return nil, nil, err
	}
	skip := ""
	defer func() {
		if err != nil && skip == "" {
			// The trial fails on err; no end-state wait on a broken pair.
			skip = fmt.Sprintf("%s/%s round %d failed; its rows are not compared", t.System, v, t.Round)
		}
		if derr := t.Done(ctx, c, skip); err == nil {
			err = derr
		}
	}()
	if ps := primarySetup(t.System, v); len(ps) > 0 {
		if err := qExec(ctx, c.PDB, ps...); err != nil {
			return nil, nil, fmt.Errorf("primary configuration: %w", err)
		}
		t.Command(v+": primary", fmt.Sprint(ps))
	}
	if err := qExec(ctx, c.RDBs[0], stmts...); err != nil {
		return nil, nil, fmt.Errorf("replica applier configuration: %w", err)
	}
	t.Command(v+": replica", fmt.Sprint(stmts))
	if err := c.WaitReplicaThreads(ctx, 0, time.Minute); err != nil {
		return nil, nil, err
	}
	p := &replPair{c: c, f: c.Names(), wait: s.wait, sb: c.Sysbench("oltp_write_only", s.tables, s.tableSize)}
	done := t.Phase(v+": sysbench prepare", 0)
	err = c.SysbenchPrepare(ctx, p.sb, s.wait)
	done()
	if err != nil {
		return nil, nil, err
	}
	done = t.Phase(fmt.Sprintf("%s: lag, %d threads", v, s.lagThreads), s.lagLoad)
	lag, err = measureLag(ctx, p, s.lagLoad, s.lagThreads)
	done()
	if err != nil {
		return nil, nil, fmt.Errorf("lag phase: %w", err)
	}
	done = t.Phase(v+": catch-up", s.catchupLoad)
	cu, err = measureCatchup(ctx, p, s.catchupLoad, s.threads)
	done()
	if errors.Is(err, errNotCaughtUp) && cu != nil {
		// A figure of the variant, not a failure: the load has stopped,
		// so the end-state check still waits for the rows to converge.
		t.Note(fmt.Sprintf("%s/%s round %d: %v", t.System, v, t.Round, err))
		return lag, cu, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("catch-up phase: %w", err)
	}
	return lag, cu, nil
}
