package labrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"petrel/lab"
)

// semisync-cost (formerly bench/cmd/semisync and bench/semisync.sh): what
// semi-sync costs a commit, measured with the seed's tools rather than
// the lab's INSERT load. A primary and one replica behind a link, semi-
// sync configured (AFTER_SYNC on both systems), switched per run:
//
//  1. The seed tutorial's WAN experiment: mariadb-slap --auto-generate-sql
//     against the primary, async and semi-sync (Petrel also RELAY_SYNC:
//     the replica acknowledges after its relay log's fsync), with no
//     added latency and with the link adding an RTT. The write commits of
//     the timed phase are counted (mariadb-slap's --pre-system and
//     --post-system hooks, which run just outside its timer, ask a
//     snapshot server for the primary's counters), so the "RTT bound"
//     (commits per client x RTT) is measured, not assumed.
//  2. sysbench oltp_write_only on the link without latency at 1 and N
//     threads, async and semi-sync, with sync_binlog=1 and with
//     sync_binlog=0 (semi-sync alone: "network durability"); whether
//     sync_binlog=0 took effect is proved (setSyncBinlog).
//
// Every run must keep its mode (semi-sync ON throughout with one client
// and no transaction released unacknowledged, or OFF throughout); the
// replica's acknowledgements are counted from the bytes the link carried
// back. The end-state check compares the replica's sysbench tables with
// the primary's.

func init() {
	register(&Experiment{
		Name: "semisync-cost",
		Description: "What semi-sync costs a commit, with the seed's tools: mariadb-slap --auto-generate-sql at no added latency " +
			"and across a link adding an RTT (seconds against the RTT bound, commits per client counted in the timed phase), " +
			"and sysbench oltp_write_only at 1 and N threads with sync_binlog 1 and 0, async against semi-sync " +
			"(Petrel also RELAY_SYNC): TPS, ratios, commits per binlog fsync and per acknowledgement.",
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "slap", Title: "mariadb-slap: seconds to run all queries", Kind: Bars, YLabel: "s"},
			{ID: "tps", Title: "sysbench oltp_write_only throughput", Kind: Bars, YLabel: "transactions/s"},
		},
		Trial: semisyncCost,
	})
}

// semicostSizes are the experiment's sizes in mode m.
type semicostSizes struct {
	rtt                    time.Duration
	slapClients, slapQuery int
	threads                []int
	duration               time.Duration
	tables, tableSize      int
}

func semicostSize(m Mode) semicostSizes {
	return semicostSizes{
		rtt:         pick(m, 20*time.Millisecond, 40*time.Millisecond, 90*time.Millisecond),
		slapClients: pick(m, 4, 10, 10), slapQuery: pick(m, 60, 200, 1000),
		threads:  pick(m, []int{2}, []int{1, 16}, []int{1, 32}),
		duration: pick(m, time.Second, 2*time.Second, 20*time.Second),
		tables:   pick(m, 1, 2, 4), tableSize: pick(m, 1000, 10000, 10000),
	}
}

// slapCategory and sbCategory name the bars; their lists are the
// superset over both systems (MariaDB has no RELAY_SYNC bars).
func slapCategory(rtt time.Duration, m semiMode) string {
	return fmt.Sprintf("RTT %v %s", rtt, m)
}

func sbCategory(syncBinlog int, m semiMode, threads int) string {
	return fmt.Sprintf("sync_binlog=%d %s %dt", syncBinlog, m, threads)
}

func semicostCategories(s semicostSizes) (slap, sb []string) {
	for _, rtt := range []time.Duration{0, s.rtt} {
		for _, m := range semiModes("petrel") {
			slap = append(slap, slapCategory(rtt, m))
		}
	}
	for _, v := range []int{1, 0} {
		for _, m := range semiModes("petrel") {
			for _, th := range s.threads {
				sb = append(sb, sbCategory(v, m, th))
			}
		}
	}
	return slap, sb
}

func semisyncCost(ctx context.Context, t *Trial) error {
	s := semicostSize(t.Env.Mode)
	spec := ClusterSpec{Net: NetLink, Semisync: true, SemisyncTimeout: 10 * time.Second,
		PrimaryVars: map[string]string{"sync_binlog": "1"}}
	if t.System == "mariadb" {
		// Where Petrel waits (lossless); MariaDB's own default is AFTER_COMMIT.
		spec.PrimaryVars["rpl_semi_sync_master_wait_point"] = "AFTER_SYNC"
	}
	c, err := t.Start(ctx, spec)
	if err != nil {
		return err
	}
	p := &semiPair{c: c, f: c.Names()}
	if err := p.waitSemiOn(ctx); err != nil {
		return err
	}
	slapCats, sbCats := semicostCategories(s)
	t.Categories("slap", slapCats)
	t.Categories("tps", sbCats)
	var asyncAcks, asyncCommits int64
	count := func(m semiMode, d semiDelta) {
		if !m.semi() {
			asyncAcks, asyncCommits = asyncAcks+d.acks, asyncCommits+d.commits
		}
	}
	if err := semicostSlap(ctx, t, p, s, slapCats, count); err != nil {
		return err
	}
	if err := semicostSysbench(ctx, t, p, s, sbCats, count); err != nil {
		return err
	}
	if asyncAcks > 0 {
		t.Note(fmt.Sprintf("%s: the replica sent %d semi-sync acks for %d commits of the async runs: the source kept asking for acks while semi-sync was OFF", t.System, asyncAcks, asyncCommits))
	}
	return nil
}

func semicostSlap(ctx context.Context, t *Trial, p *semiPair, s semicostSizes, cats []string, count func(semiMode, semiDelta)) error {
	var bars []Point
	hook := filepath.Join(t.Env.TempDir, fmt.Sprintf("slap-hook-%s-%d.sh", t.System, t.Round))
	defer os.Remove(hook)
	for _, rtt := range []time.Duration{0, s.rtt} {
		p.c.Links[0].SetLatency(rtt / 2)
		for _, m := range semiModes(t.System) {
			name := slapCategory(rtt, m)
			if err := p.setMode(ctx, m); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			snaps, err := startSnapshotServer(ctx, p)
			if err != nil {
				return err
			}
			err = os.WriteFile(hook, []byte(fmt.Sprintf(slapHook, snaps.port())), 0o700)
			var res lab.MysqlslapResult
			if err == nil {
				done := t.Phase("mariadb-slap "+name, 0)
				res, err = lab.RunMysqlslap(ctx, lab.MysqlslapOptions{Port: p.c.Primary.Port(), Password: p.c.RootPassword(),
					Concurrency: s.slapClients, Queries: s.slapQuery,
					ExtraArgs: []string{"--pre-system=bash '" + hook + "' pre", "--post-system=bash '" + hook + "' post"}})
				done()
			}
			snaps.close()
			if err != nil {
				return fmt.Errorf("mariadb-slap %s: %w", name, err)
			}
			before, after, err := snaps.result("pre", "post")
			if err != nil {
				return fmt.Errorf("mariadb-slap %s: counting the timed phase's commits: %w", name, err)
			}
			d := semiDiff(before, after)
			if err := p.check(m, before, d); err != nil {
				return fmt.Errorf("mariadb-slap %s: %w", name, err)
			}
			count(m, d)
			perClient := float64(d.commits) / float64(s.slapClients)
			t.Metric("mariadb-slap "+name+": seconds", "s", res.AvgSeconds, true)
			t.Metric("mariadb-slap "+name+": write commits per client", "commits", perClient, false)
			if rtt > 0 && m.semi() {
				// Every write commit of a client waits one round trip at least.
				bound := perClient * rtt.Seconds()
				t.Metric("mariadb-slap "+name+": seconds / RTT bound", "x", res.AvgSeconds/bound, true)
			}
			if m.semi() {
				t.Metric("mariadb-slap "+name+": commits per ack", "commits", d.commitsPerAck(), false)
			}
			bars = append(bars, Point{X: float64(slices.Index(cats, name)), Y: res.AvgSeconds})
			if err := p.c.WaitCaughtUp(ctx, 10*time.Minute); err != nil {
				return fmt.Errorf("after mariadb-slap %s: %w", name, err)
			}
		}
	}
	p.c.Links[0].SetLatency(0)
	t.Command("load", fmt.Sprintf("mariadb-slap --auto-generate-sql --concurrency=%d --number-of-queries=%d --pre-system=HOOK --post-system=HOOK (the hooks snapshot the primary's counters just outside the timed phase); link RTT 0 and %v",
		s.slapClients, s.slapQuery, s.rtt))
	t.Series("slap", bars)
	return nil
}

// sbStep is one configuration of the sysbench plan.
type sbStep struct {
	syncBinlog int
	mode       semiMode
}

// sbPlan is the order of the configurations in a round for a system: as
// listed on odd rounds, reversed on even ones. A switch to sync_binlog=0
// always follows a semi-sync step, so Petrel's probe of it runs with
// semi-sync ON.
func sbPlan(system string, round int) []sbStep {
	var plan []sbStep
	ms := semiModes(system)
	for _, m := range ms {
		plan = append(plan, sbStep{1, m})
	}
	for i := len(ms) - 1; i >= 0; i-- {
		plan = append(plan, sbStep{0, ms[i]})
	}
	if round%2 == 0 {
		slices.Reverse(plan)
	}
	return plan
}

func semicostSysbench(ctx context.Context, t *Trial, p *semiPair, s semicostSizes, cats []string, count func(semiMode, semiDelta)) error {
	sb := p.c.Sysbench("oltp_write_only", s.tables, s.tableSize)
	sb.Duration = s.duration
	done := t.Phase("sysbench prepare", 0)
	err := p.c.SysbenchPrepare(ctx, sb, 10*time.Minute)
	done()
	if err != nil {
		return err
	}
	t.Command("load", fmt.Sprintf("sysbench oltp_write_only --mysql-db=%s --tables=%d --table-size=%d --threads=N --time=%d --mysql-ignore-errors=1213 run",
		LabDB, s.tables, s.tableSize, int(s.duration.Seconds())))
	tps := map[string]float64{}
	var bars []Point
	current := 1
	for _, step := range sbPlan(t.System, t.Round) {
		// Semi-sync first: the probe that checks sync_binlog=0 took
		// effect runs in the mode it is measured in.
		if err := p.setMode(ctx, step.mode); err != nil {
			return err
		}
		if step.syncBinlog != current {
			how, err := p.setSyncBinlog(ctx, step.syncBinlog)
			if err != nil {
				return fmt.Errorf("sync_binlog=%d: %w", step.syncBinlog, err)
			}
			current = step.syncBinlog
			if step.syncBinlog == 0 {
				t.Note(t.System + ": sync_binlog=0: " + how)
			}
		}
		for _, th := range s.threads {
			name := sbCategory(step.syncBinlog, step.mode, th)
			before, err := p.snapshot(ctx)
			if err != nil {
				return err
			}
			o := sb
			o.Threads = th
			done := t.Phase("sysbench "+name, s.duration)
			res, err := lab.RunSysbench(ctx, o)
			done()
			if err != nil {
				return fmt.Errorf("sysbench %s: %w", name, err)
			}
			after, err := p.snapshot(ctx)
			if err != nil {
				return err
			}
			d := semiDiff(before, after)
			if err := p.check(step.mode, before, d); err != nil {
				return fmt.Errorf("sysbench %s: %w", name, err)
			}
			count(step.mode, d)
			tps[name] = res.TPS
			t.Metric("sysbench "+name+": TPS", "txn/s", res.TPS, false)
			t.Metric("sysbench "+name+": p95", "ms", res.LatencyP95Ms, true)
			t.Metric("sysbench "+name+": commits per binlog fsync", "commits", d.commitsPerGroup(), false)
			if step.mode.semi() {
				t.Metric("sysbench "+name+": commits per ack", "commits", d.commitsPerAck(), false)
			}
			bars = append(bars, Point{X: float64(slices.Index(cats, name)), Y: res.TPS})
			if err := p.c.WaitCaughtUp(ctx, 10*time.Minute); err != nil {
				return fmt.Errorf("after sysbench %s: %w", name, err)
			}
		}
	}
	slices.SortFunc(bars, func(a, b Point) int { return int(a.X - b.X) })
	t.Series("tps", bars)
	// The figures docs/PERFORMANCE.md's targets are stated in, within
	// this round (the host's drift cancels).
	for _, th := range s.threads {
		base := tps[sbCategory(1, async, th)]
		for _, m := range semiModes(t.System)[1:] {
			if base <= 0 {
				continue
			}
			t.Metric(fmt.Sprintf("%s / async, sync_binlog=1, %d threads", m, th), "ratio", tps[sbCategory(1, m, th)]/base, false)
			t.Metric(fmt.Sprintf("%s sync_binlog=0 / async sync_binlog=1, %d threads", m, th), "ratio", tps[sbCategory(0, m, th)]/base, false)
			t.Metric(fmt.Sprintf("cost of local + network over local, %s, %d threads", m, th), "%", 100*(1-tps[sbCategory(1, m, th)]/base), true)
		}
	}
	return nil
}
