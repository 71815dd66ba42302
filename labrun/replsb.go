package labrun

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"petrel/lab"
)

// The mechanics of replication-sysbench (exp_replsb.go; formerly
// bench/cmd/repl): applier variants, lag sampled against the primary's
// commit counter, and the catch-up with the primary producing at half its
// rate.

// Applier variants. A variant of Petrel:
//
//	wN                 replica_parallel_workers = N (1 = the single applier)
//	dbN                replica_parallel_type = DATABASE, N workers
//	...+mtM            and the replica started with petrel_memtable_size
//	                   = M MiB (its option file)
//	...+co             and the primary's dependency tracking COMMIT_ORDER
//	                   (binlog_transaction_dependency_tracking; the
//	                   replica schedules on its group-commit intervals)
//
// of MariaDB: serial (slave_parallel_threads = 0) or MODE-N
// (slave_parallel_mode = MODE: optimistic, conservative, aggressive,
// minimal, none; slave_parallel_threads = N). The settings are made on
// the running replica (threads stopped, SET GLOBAL, started again) before
// the sysbench tables are loaded.

// variantSetup returns the statements that configure a replica's applier.
func variantSetup(system, v string) ([]string, error) {
	bad := fmt.Errorf("unknown applier configuration %q for %s", v, system)
	switch system {
	case "petrel":
		v, _, _ = strings.Cut(v, "+") // the start-up part: replicaVariables
		typ, n := "LOGICAL_CLOCK", ""
		switch {
		case strings.HasPrefix(v, "w"):
			n = v[1:]
		case strings.HasPrefix(v, "db"):
			typ, n = "DATABASE", v[2:]
		default:
			return nil, bad
		}
		w, err := strconv.Atoi(n)
		if err != nil || w < 0 {
			return nil, bad
		}
		return []string{"STOP REPLICA SQL_THREAD",
			fmt.Sprintf("SET GLOBAL replica_parallel_workers = %d", w),
			fmt.Sprintf("SET GLOBAL replica_parallel_type = '%s'", typ),
			"START REPLICA SQL_THREAD"}, nil
	case "mariadb":
		if v == "serial" {
			return []string{"STOP SLAVE", "SET GLOBAL slave_parallel_threads = 0", "START SLAVE"}, nil
		}
		mode, n, ok := strings.Cut(v, "-")
		w, err := strconv.Atoi(n)
		if !ok || err != nil || w < 0 {
			return nil, bad
		}
		switch mode {
		case "optimistic", "conservative", "aggressive", "minimal", "none":
		default:
			return nil, bad
		}
		return []string{"STOP SLAVE",
			fmt.Sprintf("SET GLOBAL slave_parallel_mode = '%s'", mode),
			fmt.Sprintf("SET GLOBAL slave_parallel_threads = %d", w),
			"START SLAVE"}, nil
	}
	return nil, fmt.Errorf("unknown system %q (want petrel or mariadb)", system)
}

// replicaVariables returns the option-file settings a Petrel replica
// starts with for variant v (...+mtM: petrel_memtable_size), or nil.
func replicaVariables(system, v string) (map[string]string, error) {
	_, rest, ok := strings.Cut(v, "+")
	if system != "petrel" || !ok {
		return nil, nil
	}
	vars := map[string]string{}
	for _, part := range strings.Split(rest, "+") {
		if part == "co" {
			continue // the primary's setting: primarySetup
		}
		mib, err := strconv.Atoi(strings.TrimPrefix(part, "mt"))
		if !strings.HasPrefix(part, "mt") || err != nil || mib < 1 || mib > 1024 {
			return nil, fmt.Errorf("unknown replica setting %q in %s (want mtN: petrel_memtable_size N MiB)", part, v)
		}
		vars["petrel_memtable_size"] = fmt.Sprintf("%dM", mib)
	}
	if len(vars) == 0 {
		return nil, nil
	}
	return vars, nil
}

// primarySetup returns the statements that configure a Petrel primary
// for variant v (...+co: COMMIT_ORDER dependency tracking), or nil.
func primarySetup(system, v string) []string {
	_, rest, _ := strings.Cut(v, "+")
	if system == "petrel" && slices.Contains(strings.Split(rest, "+"), "co") {
		return []string{"SET GLOBAL binlog_transaction_dependency_tracking = 'COMMIT_ORDER'"}
	}
	return nil
}

// replPair is one variant's primary and replica and the sysbench load on
// them.
type replPair struct {
	c  *Cluster
	f  Names
	sb lab.SysbenchOptions // the load's options, Duration and Threads set per run
	// wait bounds each wait for the replica.
	wait time.Duration
}

func (p *replPair) primaryCounter(ctx context.Context) (int64, error) { return p.c.PrimaryCount(ctx) }
func (p *replPair) replicaCounter(ctx context.Context) (int64, error) {
	return p.c.ReplicaCount(ctx, 0)
}

// waitReceived waits until the replica's receiver has fetched target
// transactions.
func (p *replPair) waitReceived(ctx context.Context, target int64) error {
	_, err := p.c.WaitReplicaStatus(ctx, 0, fmt.Sprintf("%s reaching %d", p.f.Received, target), p.wait, func(st map[string]string) bool {
		n, err := p.c.Count(st[p.f.Received])
		return err == nil && n >= target
	})
	return err
}

// lagResult is the lag phase's outcome.
type lagResult struct {
	tps           float64 // primary, as sysbench measured it
	txns          int64   // transactions the primary committed during the load
	ignoredErrors int64   // sysbench's retried deadlocks
	samples       int     // lag samples from load start until caught up
	max, p99      time.Duration
	mean          time.Duration
	drain         time.Duration // load end -> replica applied everything
	// behindMax is the largest Seconds_Behind_* the replica reported
	// (-1: never a number); behindNull counts samples where it was NULL.
	behindMax  int64
	behindNull int
	// sampleErrors counts failed sample queries (skipped).
	sampleErrors int
}

// point is a counter value and when it was read (the midpoint of the query).
type point struct {
	at time.Time
	n  int64
}

// replicaSample is one lag sample.
type replicaSample struct {
	point
	behind string // Seconds_Behind_*, "NULL" when unknown
}

const (
	// primarySample is the primary counter's sampling interval; it bounds
	// the error of "when the primary reached N".
	primarySample = 20 * time.Millisecond
	// replicaSampleEvery is the interval of lag samples.
	replicaSampleEvery = 100 * time.Millisecond
	// lagTarget ends a catch-up under production: the replica's lag first
	// under it.
	lagTarget = time.Second
	// threadCheckInterval is how often the catch-up looks at the
	// replica's threads, to fail fast when replication broke.
	threadCheckInterval = time.Second
)

// measureLag runs the load against the primary while sampling both
// counters, waits for the replica to apply everything, and computes lag.
func measureLag(ctx context.Context, p *replPair, load time.Duration, threads int) (*lagResult, error) {
	smp, err := startSampling(ctx, p)
	if err != nil {
		return nil, err
	}
	loadStart := time.Now()
	sbo := p.sb
	sbo.Duration, sbo.Threads = load, threads
	sb, loadErr := lab.RunSysbench(ctx, sbo)
	loadEnd := time.Now()
	var caught time.Time
	last, err := p.primaryCounter(ctx)
	if loadErr == nil && err == nil {
		if err = p.c.WaitApplied(ctx, 0, last, p.wait); err == nil {
			caught = time.Now()
		}
	}
	smp.finish()
	if loadErr != nil {
		return nil, loadErr
	}
	if err != nil {
		return nil, err
	}
	res := summarizeLag(smp.primary, smp.replica, loadStart, caught)
	res.tps, res.ignoredErrors = sb.TPS, sb.IgnoredErrors
	res.txns = last - smp.primary[0].n
	res.drain = caught.Sub(loadEnd)
	res.sampleErrors = int(smp.errors.Load())
	return res, nil
}

// sampling reads the primary's and the replica's counters in the
// background. primary and replica are written by its goroutines and may be
// read once finish has returned.
type sampling struct {
	primary []point
	replica []replicaSample
	errors  atomic.Int64 // failed sample queries, skipped
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

// startSampling takes a first primary sample, then samples both sides
// every primarySample and replicaSampleEvery until finish.
func startSampling(ctx context.Context, p *replPair) (*sampling, error) {
	first, err := readPoint(ctx, p.primaryCounter)
	if err != nil {
		return nil, err
	}
	s := &sampling{primary: []point{first}}
	ctx, s.stop = context.WithCancel(ctx)
	count := func(err error) bool {
		if err != nil && ctx.Err() == nil { // not finish cutting a query short
			s.errors.Add(1)
		}
		return err == nil
	}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		every(ctx, primarySample, func() {
			if pt, err := readPoint(ctx, p.primaryCounter); count(err) {
				s.primary = append(s.primary, pt)
			}
		})
	}()
	go func() {
		defer s.wg.Done()
		every(ctx, replicaSampleEvery, func() {
			pt, err := readPoint(ctx, p.replicaCounter)
			var st map[string]string
			if err == nil {
				st, err = p.c.ReplicaStatus(ctx, 0)
			}
			if count(err) {
				behind := "NULL"
				if st != nil {
					behind = st[p.f.Behind]
				}
				s.replica = append(s.replica, replicaSample{point: pt, behind: behind})
			}
		})
	}()
	return s, nil
}

// finish stops the sampling goroutines and waits for them.
func (s *sampling) finish() {
	s.stop()
	s.wg.Wait()
}

// every calls fn at each tick of interval until ctx ends. A call slower
// than the interval delays the next one (ticks are dropped, not queued).
func every(ctx context.Context, interval time.Duration, fn func()) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			fn()
		}
	}
}

// readPoint reads a counter and stamps it with the query's midpoint.
func readPoint(ctx context.Context, read func(context.Context) (int64, error)) (point, error) {
	t0 := time.Now()
	n, err := read(ctx)
	t1 := time.Now()
	return point{at: t0.Add(t1.Sub(t0) / 2), n: n}, err
}

// summarizeLag computes lag statistics over the replica samples taken in
// [from, to].
func summarizeLag(primary []point, replica []replicaSample, from, to time.Time) *lagResult {
	primary = monotonic(primary)
	res := &lagResult{behindMax: -1}
	var lags []time.Duration
	var sum time.Duration
	for _, s := range replica {
		if s.at.Before(from) || s.at.After(to) {
			continue
		}
		d := lagAt(primary, s.point)
		lags = append(lags, d)
		sum += d
		if b, err := strconv.ParseInt(s.behind, 10, 64); err == nil {
			res.behindMax = max(res.behindMax, b)
		} else {
			res.behindNull++
		}
	}
	res.samples = len(lags)
	if len(lags) == 0 {
		return res
	}
	slices.Sort(lags)
	res.max = lags[len(lags)-1]
	res.p99 = lags[int(math.Ceil(0.99*float64(len(lags))))-1] // nearest rank
	res.mean = sum / time.Duration(len(lags))
	return res
}

// monotonic returns primary with counters that never go down (a sample
// can only lag a later one if a read was reordered; keep the higher).
func monotonic(primary []point) []point {
	out := slices.Clone(primary)
	for i := 1; i < len(out); i++ {
		out[i].n = max(out[i].n, out[i-1].n)
	}
	return out
}

// lagAt is the replica's lag at sample s: the age of the oldest
// transaction it has not applied, s.at minus when the primary first reached
// s.n+1; 0 when it held all the primary had at s.at. (Counting from when the
// primary reached s.n itself would differ by one commit interval under load,
// but would count the idle time before a load as lag.) The primary's
// counter is known at its samples and interpolated linearly between them,
// so the error is at most one primary interval.
func lagAt(primary []point, s point) time.Duration {
	if len(primary) == 0 || primaryCountAt(primary, s.at) <= float64(s.n) {
		return 0
	}
	return max(s.at.Sub(reachedAt(primary, s.n+1)), 0)
}

// primaryCountAt estimates the primary's counter at t.
func primaryCountAt(primary []point, t time.Time) float64 {
	j := sort.Search(len(primary), func(i int) bool { return primary[i].at.After(t) })
	switch {
	case j == 0:
		return float64(primary[0].n)
	case j == len(primary):
		return float64(primary[j-1].n)
	}
	a, b := primary[j-1], primary[j]
	return float64(a.n) + float64(b.n-a.n)*(float64(t.Sub(a.at))/float64(b.at.Sub(a.at)))
}

// reachedAt estimates when the primary's counter first reached n.
func reachedAt(primary []point, n int64) time.Time {
	i := sort.Search(len(primary), func(i int) bool { return primary[i].n >= n })
	switch {
	case i == len(primary):
		return primary[i-1].at // not reached by the last sample: never asked
	case i == 0:
		return primary[0].at
	}
	a, b := primary[i-1], primary[i]
	frac := float64(n-a.n) / float64(b.n-a.n)
	return a.at.Add(time.Duration(math.Round(frac * float64(b.at.Sub(a.at)))))
}

// catchupResult is the catch-up phase's outcome.
type catchupResult struct {
	txns        int64         // transactions the primary committed while the applier was stopped
	produceRate float64       // the primary's rate meanwhile, as sysbench measured it (TPS)
	backlog     int64         // transactions the applier had to apply when started
	receiveWait time.Duration // load end -> the receiver had fetched everything
	took        time.Duration // applier started -> lag under lagTarget
	// applied is what the replica applied in took: the backlog plus what
	// the primary produced meanwhile.
	applied int64
	// rate is the sysbench --rate the primary kept producing at during
	// the catch-up (half produceRate), and catchupProduce the rate it
	// reached, from its transaction counter.
	rate           float64
	catchupProduce float64
	// replicaCPU is the replica process's CPU time (user + system) over
	// took; 0 when unknown.
	replicaCPU time.Duration
	// notCaughtUp: the lag stayed over lagTarget for the whole wait;
	// took is then the wait and applied what the applier did in it.
	notCaughtUp bool
}

// applyRate is the applier's rate over the catch-up, transactions/s.
func (c *catchupResult) applyRate() float64 {
	if c.took <= 0 {
		return 0
	}
	return float64(c.applied) / c.took.Seconds()
}

// errNotCaughtUp is a catch-up whose lag stayed over lagTarget for the
// whole wait: a figure of the variant ("not within"), not a failure.
var errNotCaughtUp = errors.New("not caught up")

// measureCatchup stops the replica's applier, runs the load for load,
// waits until the receiver has fetched all of it (so only applying is
// timed), starts the applier and times it, the primary producing
// meanwhile at half its rate (the seed's source never stopped), until the
// replica's lag is under lagTarget.
func measureCatchup(ctx context.Context, p *replPair, load time.Duration, threads int) (*catchupResult, error) {
	if err := qExec(ctx, p.c.RDBs[0], p.f.StopApplier); err != nil {
		return nil, err
	}
	if _, err := p.c.WaitReplicaStatus(ctx, 0, "applier stopped", p.wait, func(st map[string]string) bool {
		return st[p.f.SQLRunning] == "No"
	}); err != nil {
		return nil, err
	}
	r0, err := p.replicaCounter(ctx)
	if err != nil {
		return nil, err
	}
	c0, err := p.primaryCounter(ctx)
	if err != nil {
		return nil, err
	}
	// The primary's counter through the load: when each backlog
	// transaction was committed, which the lag under production needs.
	history := []point{{at: time.Now(), n: c0}}
	hctx, stopHistory := context.WithCancel(ctx)
	historyDone := make(chan struct{})
	go func() {
		defer close(historyDone)
		every(hctx, replicaSampleEvery, func() {
			if pt, err := readPoint(hctx, p.primaryCounter); err == nil {
				history = append(history, pt)
			}
		})
	}()
	sbo := p.sb
	sbo.Duration, sbo.Threads = load, threads
	sb, err := lab.RunSysbench(ctx, sbo)
	stopHistory()
	<-historyDone
	if err != nil {
		return nil, err
	}
	loadEnd := time.Now()
	c1, err := p.primaryCounter(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.waitReceived(ctx, c1); err != nil {
		return nil, err
	}
	received := time.Now()
	r1, err := p.replicaCounter(ctx)
	if err != nil {
		return nil, err
	}
	if r1 != r0 {
		return nil, fmt.Errorf("the replica applied %d transactions while its applier was stopped", r1-r0)
	}
	res := &catchupResult{txns: c1 - c0, produceRate: sb.TPS, backlog: c1 - r1, receiveWait: received.Sub(loadEnd), rate: sb.TPS / 2}
	cpu0, cpuErr := processCPU(p.c.Replicas[0].Pid())
	start := time.Now()
	if err := qExec(ctx, p.c.RDBs[0], p.f.StartApplier); err != nil {
		return nil, err
	}
	if err := catchUpUnderLoad(ctx, p, threads, res, start, append(history, point{at: loadEnd, n: c1})); err != nil {
		return res, err
	}
	if cpu1, err := processCPU(p.c.Replicas[0].Pid()); err == nil && cpuErr == nil {
		res.replicaCPU = cpu1 - cpu0
	}
	return res, nil
}

// catchUpUnderLoad keeps the primary producing at res.rate (sysbench
// --rate) while the applier catches up, and records when the replica's
// lag first fell under lagTarget: the primary's and the replica's
// counters are sampled every replicaSampleEvery. primary is the primary's
// counter from the start of the backlog's load to its end.
func catchUpUnderLoad(ctx context.Context, p *replPair, threads int, res *catchupResult, start time.Time, primary []point) error {
	c1 := primary[len(primary)-1].n
	lctx, stopLoad := context.WithCancel(ctx)
	sbo := p.sb
	sbo.Duration, sbo.Threads = p.wait, threads
	sbo.ExtraArgs = append(slices.Clone(sbo.ExtraArgs), fmt.Sprintf("--rate=%d", max(int64(res.rate+0.5), 1)))
	sbo.Timeout = p.wait + time.Minute
	loadErr := make(chan error, 1)
	go func() {
		_, err := lab.RunSysbench(lctx, sbo)
		loadErr <- err
	}()
	defer func() {
		stopLoad()
		<-loadErr
	}()
	deadline := time.Now().Add(p.wait)
	lastCheck := time.Now()
	tick := time.NewTicker(replicaSampleEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-loadErr:
			loadErr <- err
			if err == nil {
				err = errors.New("the load ended before the replica caught up")
			}
			return fmt.Errorf("production during the catch-up: %w", err)
		case <-tick.C:
		}
		pp, err := readPoint(ctx, p.primaryCounter)
		if err != nil {
			return err
		}
		primary = append(primary, pp)
		rp, err := readPoint(ctx, p.replicaCounter)
		if err != nil {
			return err
		}
		if lagAt(monotonic(primary), rp) < lagTarget && rp.n > c1-res.backlog {
			res.took = rp.at.Sub(start)
			res.applied = rp.n - (c1 - res.backlog)
			res.catchupProduce = float64(pp.n-c1) / pp.at.Sub(start).Seconds()
			return nil
		}
		if time.Now().After(deadline) {
			// Not a figure of catching up, but the applier's rate over
			// the wait still is one (a lower bound of what it can do).
			res.took = rp.at.Sub(start)
			res.applied = rp.n - (c1 - res.backlog)
			res.catchupProduce = float64(pp.n-c1) / pp.at.Sub(start).Seconds()
			res.notCaughtUp = true
			return fmt.Errorf("%w: the replica's lag stayed over %v for %v (applied %d, primary at %d)", errNotCaughtUp, lagTarget, p.wait, rp.n, pp.n)
		}
		if time.Since(lastCheck) >= threadCheckInterval {
			lastCheck = time.Now()
			if st, err := p.c.ReplicaStatus(ctx, 0); err == nil && p.c.Broken(st) != "" {
				return fmt.Errorf("replication broke during the catch-up: %s", p.c.Broken(st))
			}
		}
	}
}
