package main

import (
	"testing"
	"time"
)

func TestParseOptions(t *testing.T) {
	t.Setenv("SHORT", "")
	o, err := parseOptions([]string{"-out", t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if o.Replicas != 6 || o.Threads != 16 || o.Delay != 45*time.Millisecond || o.Loss != 0.02 ||
		o.RateBps != 50_000_000 || o.CCDelay != 50*time.Millisecond || o.Backlog != time.Minute || o.Rounds != 3 {
		t.Errorf("defaults: %+v", o)
	}
	if len(o.CCLosses) != 4 || o.CCLosses[3] != 0.05 || len(o.CCAlgos) != 2 || o.CCAlgos[0] != "bbr" {
		t.Errorf("congestion cells: losses %v algos %v", o.CCLosses, o.CCAlgos)
	}
	t.Setenv("SHORT", "1")
	o, err = parseOptions([]string{"-out", t.TempDir(), "-loss", "5", "-rate", "20mbit"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Rounds != 1 || o.Backlog != 8*time.Second || len(o.CCLosses) != 2 || o.Loss != 0.05 || o.RateBps != 20_000_000 {
		t.Errorf("short: %+v", o)
	}
	for _, bad := range [][]string{{"-phases", "fanout nope"}, {"-rate", "fast"}, {"-replicas", "0"}, {"-delay", "x"}} {
		if _, err := parseOptions(append([]string{"-out", t.TempDir()}, bad...)); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for _, c := range []struct{ p, want float64 }{{50, 5}, {99, 10}, {10, 1}, {0, 1}, {100, 10}} {
		if got := percentile(xs, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("empty p50 = %v", got)
	}
	if xs[0] != 5 {
		t.Errorf("percentile sorted its argument: %v", xs)
	}
}

// TestStalenessIndex checks the search staleness.sample uses: a replica
// at count c lags from the first primary sample above c.
func TestStalenessIndex(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := &staleness{}
	for i, n := range []int64{10, 10, 15, 20, 20, 30} {
		s.times = append(s.times, t0.Add(time.Duration(i)*100*time.Millisecond))
		s.count = append(s.count, n)
	}
	for _, c := range []struct {
		rc   int64
		want int // index, len = caught up
	}{{5, 0}, {10, 2}, {14, 2}, {15, 3}, {20, 5}, {29, 5}, {30, 6}, {31, 6}} {
		if got := s.firstAbove(c.rc); got != c.want {
			t.Errorf("firstAbove(%d) = %d, want %d", c.rc, got, c.want)
		}
	}
}
