package labrun

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// TestSweepShort is the suite's short version of bench/sysbench.sh and
// bench/abcost.sh: two copies of one build under sysbench point selects
// and mysqlslap's read load, two rounds of a second, one server after the
// other and then together. The report must hold every run's TPS and CPU
// per transaction, the paired ratio of b to a over both rounds, the rows
// check (100 rows left), and nothing of the servers afterwards.
func TestSweepShort(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	points := []SweepPoint{{"oltp_point_select", 2}, {"mysqlslap-read", 2}}
	for _, together := range []bool{false, true} {
		run, dir, err := RunSweep(ctx, SweepOptions{
			Servers: []SweepServer{{Name: "a", System: "petrel", Binary: bin}, {Name: "b", System: "petrel"}},
			Points:  points, Rounds: 2, Duration: time.Second, Tables: 1, TableSize: 100,
			SlapQueries: 20, Together: together, OutDir: filepath.Join(tmp, "out"), PetrelBinary: bin,
			Progress: NewProgress(logWriter{t}),
		})
		md, _ := os.ReadFile(filepath.Join(dir, ReportMD))
		if err != nil || !run.Complete {
			t.Fatalf("together=%v: %v\n%s", together, err, md)
		}
		e := run.Experiments[0]
		if e.Name != SweepExperiment || !slices.Equal(e.Systems, []string{"a", "b"}) {
			t.Fatalf("together=%v: experiment %q, systems %v", together, e.Name, e.Systems)
		}
		for _, p := range points {
			for _, sys := range []string{"a", "b"} {
				for _, m := range []string{"TPS, ", "server CPU per transaction, "} {
					v := metricValues(e, m+p.String(), sys)
					if len(v) != 2 || v[0] <= 0 || v[1] <= 0 {
						t.Errorf("together=%v: %s%s of %s = %v, want 2 positive values", together, m, p, sys, v)
					}
				}
			}
			r := metricValues(e, "CPU per transaction / a's, "+p.String(), "b")
			if len(r) != 2 || r[0] <= 0 {
				t.Errorf("together=%v: CPU ratio b/a for %s = %v, want one per round", together, p, r)
			}
			if !slices.ContainsFunc(e.Notes, func(n string) bool {
				return strings.HasPrefix(n, p.String()+", b / a") && strings.Contains(n, "n=2")
			}) {
				t.Errorf("together=%v: no ratio summary over 2 rounds for %s: %q", together, p, e.Notes)
			}
		}
		if len(e.Checks) != 2 || !e.Checks[0].OK || e.Checks[0].Detail != "100 rows in 1 tables, want 100" {
			t.Errorf("together=%v: checks %+v", together, e.Checks)
		}
		if !strings.Contains(string(md), "| TPS, oltp_point_select, 2 threads | txn/s | b |") {
			t.Errorf("together=%v: report.md lacks b's TPS row:\n%s", together, md)
		}
		left, _ := filepath.Glob(filepath.Join(tmp, "petrel-lab-*"))
		if len(left) > 0 {
			t.Errorf("together=%v: left behind %v", together, left)
		}
	}
}

func TestSweepStats(t *testing.T) {
	s := summarize([]float64{1.10, 0.90, 1.00, 1.05, 0.95})
	if s.n != 5 || s.median != 1.00 || s.min != 0.90 || s.max != 1.10 || math.Abs(s.mean-1.0) > 1e-12 {
		t.Fatalf("summary = %+v", s)
	}
	// sd = sqrt(0.025/4); t(4) = 2.776; ci = 2.776*sd/sqrt(5).
	if want := 2.776 * math.Sqrt(0.025/4) / math.Sqrt(5); math.Abs(s.ci95-want) > 1e-9 {
		t.Errorf("ci95 = %v, want %v", s.ci95, want)
	}
	if e := summarize([]float64{3, 1, 2, 4}); e.median != 2.5 {
		t.Errorf("even median = %v, want 2.5", e.median)
	}
	if one := summarize([]float64{2}); one.ci95 != 0 || one.median != 2 {
		t.Errorf("single = %+v", one)
	}
	tps := func(x sweepRun) float64 { return x.tps }
	a := map[int]sweepRun{1: {tps: 100}, 2: {tps: 50}, 3: {tps: 80}, 4: {tps: 0}}
	b := map[int]sweepRun{1: {tps: 110}, 3: {tps: 40}, 4: {tps: 9}, 5: {tps: 7}}
	if got, want := pairedRatios(a, b, tps), []float64{1.1, 0.5}; !slices.Equal(got, want) {
		t.Errorf("pairedRatios = %v, want %v (rounds 1 and 3 only)", got, want)
	}
}

func TestSweepOrder(t *testing.T) {
	two := [][]string{{"a", "b"}, {"b", "a"}, {"b", "a"}, {"a", "b"}}
	for r := 1; r <= 4; r++ {
		if got := sweepOrder([]string{"a", "b"}, r); !slices.Equal(got, two[r-1]) {
			t.Errorf("two servers, round %d: %v, want %v", r, got, two[r-1])
		}
	}
	seen := map[string]bool{}
	for r := 1; r <= 6; r++ {
		o := sweepOrder([]string{"a", "b", "c"}, r)
		seen[strings.Join(o, "")] = true
	}
	if len(seen) != 6 {
		t.Errorf("three servers over six rounds: %d distinct orders, want all 6: %v", len(seen), seen)
	}
}

func TestParseSweepServer(t *testing.T) {
	for in, want := range map[string]SweepServer{
		"petrel":          {Name: "petrel", System: "petrel"},
		"mariadb":         {Name: "mariadb", System: "mariadb"},
		"petrel-nobinlog": {Name: "petrel-nobinlog", System: "petrel", Args: []string{"--skip-log-bin"}},
		"prev=/tmp/p":     {Name: "prev", System: "petrel", Binary: "/tmp/p"},
		"now=build":       {Name: "now", System: "petrel"},
	} {
		got, err := ParseSweepServer(in)
		if err != nil || got.Name != want.Name || got.System != want.System || got.Binary != want.Binary || !slices.Equal(got.Args, want.Args) {
			t.Errorf("ParseSweepServer(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"mysql", "=x", "a="} {
		if _, err := ParseSweepServer(in); err == nil {
			t.Errorf("ParseSweepServer(%q) accepted", in)
		}
	}
	if _, _, err := RunSweep(context.Background(), SweepOptions{Servers: []SweepServer{{Name: "a"}, {Name: "a"}},
		Points: []SweepPoint{{"oltp_point_select", 1}}}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a server listed twice: %v", err)
	}
}
