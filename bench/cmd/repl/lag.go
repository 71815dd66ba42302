package main

import (
	"context"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"petrel/lab"
)

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

// measureLag runs the load against the primary while sampling both
// counters, waits for the replica to apply everything, and computes lag.
func measureLag(ctx context.Context, p *pair, o Options) (*lagResult, error) {
	smp, err := startSampling(ctx, p, o)
	if err != nil {
		return nil, err
	}
	loadStart := time.Now()
	sbo := p.sysbench(o, "run", o.LagLoad)
	sbo.Threads = o.LagThreads
	sb, loadErr := lab.RunSysbench(ctx, sbo)
	loadEnd := time.Now()
	var caught time.Time
	last, err := p.primaryCounter(ctx)
	if loadErr == nil && err == nil {
		caught, err = p.waitApplied(ctx, last, o.WaitTimeout)
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
// every PrimarySample and ReplicaSample until finish.
func startSampling(ctx context.Context, p *pair, o Options) (*sampling, error) {
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
		every(ctx, o.PrimarySample, func() {
			if pt, err := readPoint(ctx, p.primaryCounter); count(err) {
				s.primary = append(s.primary, pt)
			}
		})
	}()
	go func() {
		defer s.wg.Done()
		every(ctx, o.ReplicaSample, func() {
			if rs, err := sampleReplica(ctx, p); count(err) {
				s.replica = append(s.replica, rs)
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

func sampleReplica(ctx context.Context, p *pair) (replicaSample, error) {
	pt, err := readPoint(ctx, p.replicaCounter)
	if err != nil {
		return replicaSample{}, err
	}
	st, err := p.status(ctx)
	if err != nil {
		return replicaSample{}, err
	}
	behind := "NULL"
	if st != nil {
		behind = st[p.f.Behind]
	}
	return replicaSample{point: pt, behind: behind}, nil
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
	if len(primary) == 0 || countAt(primary, s.at) <= float64(s.n) {
		return 0
	}
	return max(s.at.Sub(reachedAt(primary, s.n+1)), 0)
}

// countAt estimates the primary's counter at t.
func countAt(primary []point, t time.Time) float64 {
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
