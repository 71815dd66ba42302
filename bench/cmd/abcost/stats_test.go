package main

import (
	"math"
	"slices"
	"testing"
)

func TestSummarize(t *testing.T) {
	s := summarize([]float64{1.10, 0.90, 1.00, 1.05, 0.95})
	if s.n != 5 || s.median != 1.00 || s.min != 0.90 || s.max != 1.10 {
		t.Fatalf("summary = %+v", s)
	}
	if math.Abs(s.mean-1.0) > 1e-12 {
		t.Errorf("mean = %v, want 1", s.mean)
	}
	// sd = sqrt(0.025/4) = 0.0790569; t(4) = 2.776; ci = 2.776*sd/sqrt(5).
	if want := 2.776 * math.Sqrt(0.025/4) / math.Sqrt(5); math.Abs(s.ci95-want) > 1e-9 {
		t.Errorf("ci95 = %v, want %v", s.ci95, want)
	}
	if e := summarize([]float64{3, 1, 2, 4}); e.median != 2.5 {
		t.Errorf("even median = %v, want 2.5", e.median)
	}
	if one := summarize([]float64{2}); one.ci95 != 0 || one.median != 2 {
		t.Errorf("single = %+v", one)
	}
	if z := summarize(nil); z.n != 0 {
		t.Errorf("empty = %+v", z)
	}
}

func TestPairedRatios(t *testing.T) {
	a := map[int]float64{1: 100, 2: 50, 3: 80, 4: 0}
	b := map[int]float64{1: 110, 3: 40, 4: 9, 5: 7}
	got := pairedRatios(a, b)
	if want := []float64{1.1, 0.5}; !slices.Equal(got, want) {
		t.Errorf("pairedRatios = %v, want %v (rounds 1 and 3 only)", got, want)
	}
}

func TestRoundOrder(t *testing.T) {
	two := [][]string{{"a", "b"}, {"b", "a"}, {"b", "a"}, {"a", "b"}}
	for r := 1; r <= 4; r++ {
		if got := roundOrder([]string{"a", "b"}, r); !slices.Equal(got, two[r-1]) {
			t.Errorf("two binaries, round %d: %v, want %v", r, got, two[r-1])
		}
	}
	seen := map[string]bool{}
	for r := 1; r <= 6; r++ {
		o := roundOrder([]string{"a", "b", "c"}, r)
		seen[o[0]+o[1]+o[2]] = true
	}
	if len(seen) != 6 {
		t.Errorf("three binaries over six rounds: %d distinct orders, want all 6: %v", len(seen), seen)
	}
}

func TestComparisons(t *testing.T) {
	s := func(n string) *server { return &server{bin: binary{name: n}} }
	servers := []*server{s("a"), s("b"), s("c")}
	var got []string
	for _, p := range comparisons(servers) {
		got = append(got, p[1].bin.name+"/"+p[0].bin.name)
	}
	if want := []string{"b/a", "c/a", "c/b"}; !slices.Equal(got, want) {
		t.Errorf("comparisons = %v, want %v", got, want)
	}
	if n := len(comparisons(servers[:2])); n != 1 {
		t.Errorf("two binaries: %d comparisons, want 1", n)
	}
}
