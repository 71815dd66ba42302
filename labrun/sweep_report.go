package labrun

import (
	"fmt"
	"math"
	"slices"
)

// sweepFigures turns the sweep's runs into the report's charts (TPS and
// CPU per transaction by measurement, a bar per server and round), its
// metrics (one value per round that ran) and notes (each server against
// the first by paired ratios: median, range, mean with a 95% CI).
func sweepFigures(o SweepOptions, servers []*sweepServer) ([]Chart, []Metric, []string) {
	cats := make([]string, len(o.Points))
	for i, p := range o.Points {
		cats[i] = p.String()
	}
	tps := Chart{ID: "tps", Title: "Throughput", Kind: Bars, YLabel: "transactions/s", Categories: cats}
	cpu := Chart{ID: "cpu", Title: "Server CPU per transaction", Kind: Bars, YLabel: "µs", Categories: cats}
	for _, s := range servers {
		for r := 1; r <= o.Rounds; r++ {
			var tp, cp []Point
			for i, p := range o.Points {
				if x, ok := s.runs[p][r]; ok {
					tp = append(tp, Point{X: float64(i), Y: x.tps})
					cp = append(cp, Point{X: float64(i), Y: x.cpuPerTxnMicros})
				}
			}
			if len(tp) > 0 {
				tps.Series = append(tps.Series, Series{System: s.Name, Round: r, Points: tp})
				cpu.Series = append(cpu.Series, Series{System: s.Name, Round: r, Points: cp})
			}
		}
	}
	var metrics []Metric
	var notes []string
	add := func(name, unit, system string, v []float64, lower bool) {
		if len(v) > 0 {
			metrics = append(metrics, Metric{Name: name, Unit: unit, System: system, Values: v, LowerIsBetter: lower})
		}
	}
	anchor := servers[0]
	for _, p := range o.Points {
		for _, s := range servers {
			add("TPS, "+p.String(), "txn/s", s.Name, s.column(p, o.Rounds, func(x sweepRun) float64 { return x.tps }), false)
			add("server CPU per transaction, "+p.String(), "µs", s.Name, s.column(p, o.Rounds, func(x sweepRun) float64 { return x.cpuPerTxnMicros }), true)
			if !p.slap() {
				add("QPS, "+p.String(), "queries/s", s.Name, s.column(p, o.Rounds, func(x sweepRun) float64 { return x.qps }), false)
				add("p95 latency, "+p.String(), "ms", s.Name, s.column(p, o.Rounds, func(x sweepRun) float64 { return x.p95Ms }), true)
			}
			addSome := func(name, unit string, f func(sweepRun) float64) {
				if v := s.column(p, o.Rounds, f); slices.ContainsFunc(v, func(x float64) bool { return x > 0 }) {
					add(name+", "+p.String(), unit, s.Name, v, true)
				}
			}
			addSome("binlog fsyncs per commit", "", func(x sweepRun) float64 { return x.fsyncsPerCommit })
			addSome("sysbench ignored errors", "errors", func(x sweepRun) float64 { return x.ignored })
		}
		for _, s := range servers[1:] {
			cr := pairedRatios(anchor.runs[p], s.runs[p], func(x sweepRun) float64 { return x.cpuPerTxnMicros })
			tr := pairedRatios(anchor.runs[p], s.runs[p], func(x sweepRun) float64 { return x.tps })
			add(fmt.Sprintf("CPU per transaction / %s's, %s", anchor.Name, p), "ratio", s.Name, cr, true)
			add(fmt.Sprintf("TPS / %s's, %s", anchor.Name, p), "ratio", s.Name, tr, false)
			if len(cr) > 0 {
				c, t := summarize(cr), summarize(tr)
				notes = append(notes, fmt.Sprintf("%s, %s / %s (paired by round): CPU per transaction ratio median %.3f [%.3f, %.3f], mean %.3f ± %.3f (95%% CI, n=%d); TPS ratio median %.3f, mean %.3f ± %.3f",
					p, s.Name, anchor.Name, c.median, c.min, c.max, c.mean, c.ci95, c.n, t.median, t.mean, t.ci95))
			}
		}
	}
	return []Chart{tps, cpu}, metrics, notes
}

// column is one figure of a measurement's runs, in round order (rounds
// that failed left out).
func (s *sweepServer) column(p SweepPoint, rounds int, f func(sweepRun) float64) []float64 {
	var out []float64
	for r := 1; r <= rounds; r++ {
		if x, ok := s.runs[p][r]; ok {
			out = append(out, f(x))
		}
	}
	return out
}

// pairedRatios returns f(b[r])/f(a[r]) for every round r run on both
// with a positive f(a[r]), in round order: each ratio compares two runs
// made minutes apart, so the host's slow drift cancels within a pair.
func pairedRatios(a, b map[int]sweepRun, f func(sweepRun) float64) []float64 {
	var rounds []int
	for r, x := range a {
		if _, ok := b[r]; ok && f(x) > 0 {
			rounds = append(rounds, r)
		}
	}
	slices.Sort(rounds)
	out := make([]float64, 0, len(rounds))
	for _, r := range rounds {
		out = append(out, f(b[r])/f(a[r]))
	}
	return out
}

// summary describes a sample of per-round ratios.
type summary struct {
	n                      int
	median, min, max, mean float64
	// ci95 is the half-width of the mean's 95% confidence interval
	// (Student's t over n-1 degrees of freedom); 0 when n < 2.
	ci95 float64
}

// summarize computes the summary of xs (it does not modify xs).
func summarize(xs []float64) summary {
	s := summary{n: len(xs)}
	if s.n == 0 {
		return s
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	s.min, s.max = sorted[0], sorted[s.n-1]
	if s.n%2 == 1 {
		s.median = sorted[s.n/2]
	} else {
		s.median = (sorted[s.n/2-1] + sorted[s.n/2]) / 2
	}
	for _, x := range xs {
		s.mean += x
	}
	s.mean /= float64(s.n)
	if s.n < 2 {
		return s
	}
	var ss float64
	for _, x := range xs {
		ss += (x - s.mean) * (x - s.mean)
	}
	sd := math.Sqrt(ss / float64(s.n-1))
	s.ci95 = tCritical95(s.n-1) * sd / math.Sqrt(float64(s.n))
	return s
}

// tCritical95 is the two-sided 95% critical value of Student's t with df
// degrees of freedom (the normal's 1.96 past 30).
func tCritical95(df int) float64 {
	table := [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df < 1 {
		return math.Inf(1)
	}
	if df <= len(table) {
		return table[df-1]
	}
	return 1.96
}
