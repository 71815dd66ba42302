package labrun

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Catch-up (seed 000's "stopped the replication for one hour"): the
// replica's applier is stopped while the primary takes a burst of writes,
// then started and timed until it has applied the backlog.

func init() {
	register(&Experiment{
		Name: "catch-up",
		Description: "The replica's applier is stopped (its receiver keeps fetching) while the primary takes a " +
			"write burst; then the applier is started and the remaining backlog sampled until it is applied (seed 000's catch-up curve).",
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "backlog", Title: "Catch-up: transactions left to apply", Kind: Lines, XLabel: "time since the applier started (s)", YLabel: "backlog (txn)"},
			{ID: "rates", Title: "Apply rate against production rate", Kind: Bars, XLabel: "", YLabel: "txn/s",
				Categories: []string{"production (burst)", "apply (catch-up)"}},
		},
		Trial: catchUp,
	})
	register(&Experiment{
		Name: "parallel-apply",
		Description: "catch-up with 1, 2, 4, 8 and 16 applier threads on the replica (Petrel replica_parallel_workers, " +
			"MariaDB slave_parallel_threads in its default optimistic mode): seed 000's worker speedup.",
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "apply", Title: "Apply rate against applier threads", Kind: Lines, LogX: true, XLabel: "applier threads (log)", YLabel: "txn/s"},
			{ID: "speedup", Title: "Speedup over one applier thread", Kind: Lines, LogX: true, XLabel: "applier threads (log)", YLabel: "× one thread"},
		},
		Trial: parallelApply,
	})
}

// applyWorkers are parallel-apply's thread counts.
func applyWorkers(m Mode) []int { return pick(m, []int{1, 4}, []int{1, 4, 16}, []int{1, 2, 4, 8, 16}) }

func parallelApply(ctx context.Context, t *Trial) error {
	var apply, speedup []Point
	var one float64
	for _, w := range applyWorkers(t.Env.Mode) {
		r, err := runCatchUp(ctx, t, ClusterSpec{ReplicaWorkers: w}, defaultBurst(t.Env.Mode), fmt.Sprintf("%d workers: ", w))
		if err != nil {
			return fmt.Errorf("%d workers: %w", w, err)
		}
		if w == 1 {
			one = r.apply
		}
		apply = append(apply, Point{X: float64(w), Y: r.apply})
		speedup = append(speedup, Point{X: float64(w), Y: r.apply / max(one, 1e-9)})
		t.Metric(fmt.Sprintf("%d workers: apply rate", w), "txn/s", r.apply, false)
		t.Metric(fmt.Sprintf("%d workers: catch-up of the backlog", w), "s", r.elapsed.Seconds(), true)
	}
	t.Series("apply", apply)
	t.Series("speedup", speedup)
	return nil
}

func catchUp(ctx context.Context, t *Trial) error {
	r, err := runCatchUp(ctx, t, ClusterSpec{}, defaultBurst(t.Env.Mode), "")
	if err != nil {
		return err
	}
	t.Series("backlog", r.curve)
	t.Series("rates", []Point{{X: 0, Y: r.production}, {X: 1, Y: r.apply}})
	t.Metric("backlog", "txn", float64(r.backlog), false)
	t.Metric("catch-up time", "s", r.elapsed.Seconds(), true)
	t.Metric("production rate", "txn/s", r.production, false)
	t.Metric("apply rate", "txn/s", r.apply, false)
	t.Metric("apply / production", "ratio", r.apply/max(r.production, 1e-9), false)
	return nil
}

// burstPlan is the write burst a catch-up's backlog comes from.
type burstPlan struct {
	duration time.Duration
	clients  int
	rate     float64 // txn/s; 0: unpaced
}

// defaultBurst is catch-up's and parallel-apply's burst. Tiny and quick
// modes pace it: MariaDB's serial applier takes about ten times longer
// than an unpaced burst to apply it.
func defaultBurst(m Mode) burstPlan {
	return burstPlan{duration: pick(m, 1500*time.Millisecond, 3*time.Second, 60*time.Second),
		clients: pick(m, 4, 8, 16), rate: pick(m, 600.0, 1000.0, 0)}
}

// catchUpResult is one timed catch-up.
type catchUpResult struct {
	backlog    int64
	stopped    time.Duration // how long the applier was stopped (the burst)
	elapsed    time.Duration
	production float64 // txn/s while the applier was stopped
	apply      float64 // txn/s while it caught up
	curve      []Point // backlog left against seconds since the applier started
	// groups is how many binlog group commits (fsyncs) the replica made
	// while it caught up (Binlog_group_commits on both systems).
	groups int64
	// cpu is the replica process's CPU time (user + system) during the
	// catch-up; 0 when /proc cannot tell.
	cpu time.Duration
	// delayedSyncs is how many of the replica's fsyncs waited for the
	// injected delay during the catch-up (ClusterSpec.ReplicaSyncDelay).
	delayedSyncs int64
	// waits are Petrel's applier wait counters during the catch-up, as
	// applierWaitCounters names them (zero on MariaDB).
	waits [len(applierWaitCounters)]int64
}

// applierWaitCounters are Petrel's status counters of why the applier's
// next transaction waited to start or commit.
var applierWaitCounters = [...]string{"Petrel_replica_waits_dependency", "Petrel_replica_waits_workers", "Petrel_replica_waits_commit_order"}

// applierWaits reads replica i's applierWaitCounters (zeros on MariaDB).
func (c *Cluster) applierWaits(ctx context.Context, i int) (out [len(applierWaitCounters)]int64, err error) {
	if c.System != "petrel" {
		return out, nil
	}
	for k, name := range applierWaitCounters {
		if out[k], err = statusInt(ctx, c.RDBs[i], name); err != nil {
			return out, err
		}
	}
	return out, nil
}

// runCatchUp starts a cluster as spec says (ReplicaWorkers applier
// threads, 0: the system's default), builds a backlog with its applier
// stopped during burst and times the catch-up. label prefixes the
// progress phases.
func runCatchUp(ctx context.Context, t *Trial, spec ClusterSpec, burst burstPlan, label string) (catchUpResult, error) {
	var r catchUpResult
	m := t.Env.Mode
	c, err := t.Start(ctx, spec)
	if err != nil {
		return r, err
	}
	if err := CreateLoadTable(ctx, c.PDB); err != nil {
		return r, err
	}
	if err := c.WaitCaughtUp(ctx, time.Minute); err != nil {
		return r, err
	}
	if err := c.StopApplier(ctx, 0); err != nil {
		return r, err
	}
	t.Command("load", fmt.Sprintf("%s; %d clients, autocommit INSERTs for %v (paced to %v txn/s; 0: unpaced); %s",
		c.f.stopApplier, burst.clients, burst.duration, burst.rate, c.f.startApplier))
	done := t.Phase(label+"burst with the applier stopped", burst.duration)
	stoppedAt := time.Now()
	res, err := Load(ctx, c.PDB, LoadOptions{Clients: burst.clients, Duration: burst.duration, Rate: burst.rate})
	done()
	if err != nil {
		return r, err
	}
	r.production = res.TPS()
	target, err := c.PrimaryCount(ctx)
	if err != nil {
		return r, err
	}
	base, err := c.ReplicaCount(ctx, 0)
	if err != nil {
		return r, err
	}
	r.backlog = target - base
	done = t.Phase(fmt.Sprintf("%scatch-up of %d transactions", label, r.backlog), 0)
	defer done()
	groups0, err := binlogGroupCommits(ctx, c.RDBs[0])
	if err != nil {
		return r, err
	}
	cpu0, cpuErr := processCPU(c.Replicas[0].Pid())
	waits0, err := c.applierWaits(ctx, 0)
	if err != nil {
		return r, err
	}
	var syncs0 int64
	if spec.ReplicaSyncDelay > 0 {
		if syncs0, err = c.DelayedSyncs(ctx, 0); err != nil {
			return r, err
		}
	}
	start := time.Now()
	r.stopped = start.Sub(stoppedAt)
	if err := c.StartApplier(ctx, 0); err != nil {
		return r, err
	}
	r.curve = []Point{{X: 0, Y: float64(r.backlog)}}
	limit := time.Now().Add(endStateTimeout(m))
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		n, err := c.ReplicaCount(ctx, 0)
		if err != nil {
			return r, err
		}
		now := time.Since(start)
		r.curve = append(r.curve, Point{X: now.Seconds(), Y: float64(max(target-n, 0))})
		if n >= target {
			r.elapsed = now
			break
		}
		if time.Now().After(limit) {
			return r, fmt.Errorf("replica applied %d of %d within %v", n-base, r.backlog, endStateTimeout(m))
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-tick.C:
		}
	}
	r.apply = float64(r.backlog) / max(r.elapsed.Seconds(), 1e-3)
	groups, err := binlogGroupCommits(ctx, c.RDBs[0])
	if err != nil {
		return r, err
	}
	r.groups = groups - groups0
	if cpu1, err := processCPU(c.Replicas[0].Pid()); err == nil && cpuErr == nil {
		r.cpu = cpu1 - cpu0
	}
	waits, err := c.applierWaits(ctx, 0)
	if err != nil {
		return r, err
	}
	for i, n := range waits {
		r.waits[i] = n - waits0[i]
	}
	if spec.ReplicaSyncDelay > 0 {
		syncs, err := c.DelayedSyncs(ctx, 0)
		if err != nil {
			return r, err
		}
		r.delayedSyncs = syncs - syncs0
	}
	return r, nil
}

// processCPU is the user plus system CPU time pid has used so far
// (/proc/PID/stat's utime and stime, in USER_HZ ticks of 10 ms).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	return time.Duration(u+st) * 10 * time.Millisecond, nil
}

// binlogGroupCommits reads a server's Binlog_group_commits (the binlog
// fsyncs its commits waited for; the same status variable on both
// systems).
func binlogGroupCommits(ctx context.Context, db *sql.DB) (int64, error) {
	return statusInt(ctx, db, "Binlog_group_commits")
}

// statusInt reads a numeric global status variable.
func statusInt(ctx context.Context, db *sql.DB, name string) (int64, error) {
	row, err := qRow(ctx, db, "SHOW GLOBAL STATUS LIKE '"+name+"'")
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(row["Value"], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: %w", name, row["Value"], err)
	}
	return n, nil
}
