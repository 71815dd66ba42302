package main

import (
	"math"
	"slices"
)

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

// pairedRatios returns b[r]/a[r] for every round r present in both with a
// positive a: each ratio compares two runs made minutes apart, so the
// host's slow drift cancels within a pair.
func pairedRatios(a, b map[int]float64) []float64 {
	var rounds []int
	for r := range a {
		if _, ok := b[r]; ok && a[r] > 0 {
			rounds = append(rounds, r)
		}
	}
	slices.Sort(rounds)
	out := make([]float64, 0, len(rounds))
	for _, r := range rounds {
		out = append(out, b[r]/a[r])
	}
	return out
}

// roundOrder is the order the binaries run in within round r (from 1):
// rotated by one every two rounds and reversed on even rounds. Two
// binaries run A B, B A, B A, A B (drift in either direction cancels over
// four rounds); three run every permutation over six.
func roundOrder(names []string, r int) []string {
	n := len(names)
	out := make([]string, n)
	for i := range names {
		out[i] = names[(i+(r-1)/2)%n]
	}
	if r%2 == 0 {
		slices.Reverse(out)
	}
	return out
}
