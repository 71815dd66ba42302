package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"petrel/lab/benchkit"
)

func formatReport(cfg config, started time.Time, servers []*server, interrupted bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# abcost: CPU per transaction, binaries side by side\n\n")
	fmt.Fprintf(&b, "- Date: %s (%s)\n", started.UTC().Format("2006-01-02 15:04 MST"), time.Since(started).Round(time.Second))
	fmt.Fprintf(&b, "- Host: %d CPUs; %s\n", runtime.NumCPU(), benchkit.ToolVersion("sysbench", "--version"))
	fmt.Fprintf(&b, "- Data: %d tables x %d rows; %v per run, %v pause before each; %d rounds, the order rotating (A B, B A, B A, A B, ...)\n",
		cfg.tables, cfg.tableSize, cfg.duration, cfg.settle, cfg.rounds)
	if cfg.together {
		fmt.Fprintf(&b, "- TOGETHER: in every run all binaries are under load at the same time (each its own sysbench), sharing the cores\n")
	}
	fmt.Fprintf(&b, "- CPU is the server process's user+system time over the run (/proc/PID/stat) divided by sysbench's transactions\n")
	for _, s := range servers {
		fmt.Fprintf(&b, "- %s: %s (version %s)\n", s.bin.name, s.bin.path, benchkit.OrDash(s.version))
	}
	if len(cfg.petrelArgs) > 0 {
		fmt.Fprintf(&b, "- Petrel flags: %s\n", strings.Join(cfg.petrelArgs, " "))
	}
	if interrupted {
		fmt.Fprintf(&b, "- INTERRUPTED: the tables hold the rounds that finished\n")
	}
	if len(servers) == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "\nEach row compares binary B with binary A by their paired per-round ratios B/A (CPU: below 1 is cheaper; TPS: above 1 is faster): every binary against the first, and the last against every other.\n")
	fmt.Fprintf(&b, "\n| measurement | B vs A | CPU µs/txn A, B (medians) | CPU ratio: median [min, max] | CPU ratio: mean ± 95%% CI | TPS A, B (medians) | TPS ratio: median |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---:|\n")
	for _, m := range cfg.measurements() {
		for _, p := range comparisons(servers) {
			a, bb := p[0], p[1]
			cpuA, cpuB := column(a.runs[m], cpuOf), column(bb.runs[m], cpuOf)
			tpsA, tpsB := column(a.runs[m], tpsOf), column(bb.runs[m], tpsOf)
			cr, tr := summarize(pairedRatios(cpuA, cpuB)), summarize(pairedRatios(tpsA, tpsB))
			fmt.Fprintf(&b, "| %s | %s vs %s | %.1f, %.1f | %.3f [%.3f, %.3f] | %.3f ± %.3f (n=%d) | %.0f, %.0f | %.3f |\n",
				m, bb.bin.name, a.bin.name, summarize(values(cpuA)).median, summarize(values(cpuB)).median,
				cr.median, cr.min, cr.max, cr.mean, cr.ci95, cr.n,
				summarize(values(tpsA)).median, summarize(values(tpsB)).median, tr.median)
		}
	}
	fmt.Fprintf(&b, "\n## Every run (CPU µs/txn / TPS)\n\n| measurement | round |")
	for _, s := range servers {
		fmt.Fprintf(&b, " %s |", s.bin.name)
	}
	fmt.Fprintf(&b, "\n|---|---:|%s\n", strings.Repeat("---|", len(servers)))
	for _, m := range cfg.measurements() {
		for r := 1; r <= cfg.rounds; r++ {
			fmt.Fprintf(&b, "| %s | %d |", m, r)
			for _, s := range servers {
				if x, ok := s.runs[m][r]; ok {
					fmt.Fprintf(&b, " %.1f / %.0f |", x.cpuPerTx, x.tps)
				} else {
					fmt.Fprintf(&b, " - |")
				}
			}
			fmt.Fprintln(&b)
		}
	}
	return b.String()
}

func cpuOf(r run) float64 { return r.cpuPerTx }
func tpsOf(r run) float64 { return r.tps }

// comparisons lists the (A, B) pairs the report compares: every binary
// against the first, then the last against every one between.
func comparisons(servers []*server) [][2]*server {
	var out [][2]*server
	for _, s := range servers[1:] {
		out = append(out, [2]*server{servers[0], s})
	}
	last := servers[len(servers)-1]
	for _, s := range servers[1 : len(servers)-1] {
		out = append(out, [2]*server{s, last})
	}
	return out
}

func column(runs map[int]run, f func(run) float64) map[int]float64 {
	out := make(map[int]float64, len(runs))
	for r, x := range runs {
		out[r] = f(x)
	}
	return out
}

func values(m map[int]float64) []float64 {
	var rounds []int
	for r := range m {
		rounds = append(rounds, r)
	}
	slices.Sort(rounds)
	out := make([]float64, len(rounds))
	for i, r := range rounds {
		out[i] = m[r]
	}
	return out
}
