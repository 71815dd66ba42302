package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"petrel/lab/benchkit"
)

// The report: markdown tables of the measurements and notes.

func formatReport(cfg config, started time.Time, runs map[string]*serverRun, interrupted bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# sysbench: Petrel vs MariaDB\n\n")
	fmt.Fprintf(&b, "- Date: %s (%s)\n", started.UTC().Format("2006-01-02 15:04 MST"), time.Since(started).Round(time.Second))
	fmt.Fprintf(&b, "- Host: %d CPUs, %s/%s; %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, benchkit.ToolVersion("sysbench", "--version"))
	fmt.Fprintf(&b, "- Data: %d tables x %d rows; %v per run; sysbench and the servers share the host\n",
		cfg.tables, cfg.tableSize, cfg.duration)
	fmt.Fprintf(&b, "- Method: the servers run side by side, each idle while another is measured; runs are interleaved, "+
		"every workload and thread count running on each server in turn before the next, over %d round(s), "+
		"in the order listed on odd rounds and reversed on even ones, with a %v pause before every run to let background work settle; "+
		"TPS, QPS and p95 are means over the rounds, ratios are ratios of means, fsyncs/commit is over all rounds (each run's TPS is in the per-round table)\n",
		cfg.rounds, cfg.settle)
	for _, name := range cfg.servers {
		sr := runs[name]
		if sr == nil {
			continue
		}
		switch name {
		case "petrel", "petrel-nobinlog":
			fmt.Fprintf(&b, "- %s: version %s; flags: %s\n", name, benchkit.OrDash(sr.version), benchkit.OrDash(strings.Join(petrelFlags(name, cfg.petrelArgs), " ")))
		case "mariadb":
			fmt.Fprintf(&b, "- mariadb: version %s; flags: %s\n", benchkit.OrDash(sr.version), strings.Join(cfg.mariadbArgs, " "))
		}
	}
	if len(cfg.sysbenchArgs) > 0 {
		fmt.Fprintf(&b, "- sysbench flags: %s\n", strings.Join(cfg.sysbenchArgs, " "))
	}
	if slices.ContainsFunc(cfg.measurements(), func(k runKey) bool { return k.workload == slapWorkload }) {
		fmt.Fprintf(&b, "- mysqlslap rows: `mysqlslap --auto-generate-sql --concurrency=N --number-of-queries=%d*N` (threads = N); "+
			"TPS = QPS = queries / mysqlslap's seconds to run them all, avg ms = those seconds; no p95\n", cfg.slapQueries)
	}
	fmt.Fprintf(&b, "- Command: `SERVERS=%q WORKLOADS=%q THREADS=%q RUNS=%q MAX_CONNECTIONS=%d SLAP_QUERIES=%d DURATION=%s ROUNDS=%d SETTLE=%s TABLES=%d TABLE_SIZE=%d bench/sysbench.sh`\n\n",
		strings.Join(cfg.servers, " "), strings.Join(cfg.workloads, " "), joinInts(cfg.threads), formatRuns(cfg.extra),
		cfg.maxConnections, cfg.slapQueries, seconds(cfg.duration), cfg.rounds, seconds(cfg.settle), cfg.tables, cfg.tableSize)

	writeMeanTable(&b, cfg, runs)
	b.WriteString("\nPer round (TPS of each run):\n\n")
	writeRoundTable(&b, cfg, runs)

	var notes []string
	if interrupted {
		notes = append(notes, "- interrupted by a signal: figures are incomplete")
	}
	for _, name := range cfg.servers {
		notes = append(notes, serverNotes(cfg, name, runs[name])...)
	}
	if len(notes) > 0 {
		b.WriteString("\nNotes:\n\n")
		b.WriteString(strings.Join(notes, "\n"))
		b.WriteString("\n")
	}
	for _, name := range cfg.servers {
		if sr := runs[name]; sr != nil && sr.log != "" {
			fmt.Fprintf(&b, "\n<details><summary>%s log (tail)</summary>\n\n```\n%s\n```\n</details>\n", name, benchkit.LastLines(sr.log, 40))
		}
	}
	return b.String()
}

// writeMeanTable writes the main table: each measurement's means over
// the rounds.
func writeMeanTable(b *strings.Builder, cfg config, runs map[string]*serverRun) {
	b.WriteString("| workload | threads | Petrel TPS | MariaDB TPS | Petrel/MariaDB TPS | Petrel QPS | MariaDB QPS | Petrel/MariaDB QPS | Petrel p95 ms | MariaDB p95 ms | Petrel avg ms | MariaDB avg ms | Petrel binlog-off TPS | binlog on/off | fsyncs/commit |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, key := range cfg.measurements() {
		{
			w, th := key.workload, key.threads
			p, pok := cell(runs["petrel"], key, cfg.rounds)
			m, mok := cell(runs["mariadb"], key, cfg.rounds)
			n, nok := cell(runs["petrel-nobinlog"], key, cfg.rounds)
			fsyncs := "-"
			if sr := runs["petrel"]; sr != nil && sr.commits[key] > 0 {
				fsyncs = fmt.Sprintf("%.3f", float64(sr.groups[key])/float64(sr.commits[key]))
			}
			p95 := func(c cellResult, ok bool) string {
				if w == slapWorkload && ok {
					return "-"
				}
				return lat(c.LatencyP95Ms, ok, c.err)
			}
			fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w, th,
				num(p.TPS, pok, p.err), num(m.TPS, mok, m.err), ratio(p.TPS, pok, m.TPS, mok),
				num(p.QPS, pok, p.err), num(m.QPS, mok, m.err), ratio(p.QPS, pok, m.QPS, mok),
				p95(p, pok), p95(m, mok), lat(p.LatencyAvgMs, pok, p.err), lat(m.LatencyAvgMs, mok, m.err),
				num(n.TPS, nok, n.err), ratio(p.TPS, pok, n.TPS, nok), fsyncs)
		}
	}
}

// writeRoundTable writes every run's TPS, a column per server.
func writeRoundTable(b *strings.Builder, cfg config, runs map[string]*serverRun) {
	b.WriteString("| workload | threads | round |")
	for _, name := range cfg.servers {
		fmt.Fprintf(b, " %s TPS |", serverLabel(name))
	}
	b.WriteString("\n|---|---:|---:|" + strings.Repeat("---:|", len(cfg.servers)) + "\n")
	for _, key := range cfg.measurements() {
		{
			w, th := key.workload, key.threads
			for round := 1; round <= cfg.rounds; round++ {
				fmt.Fprintf(b, "| %s | %d | %d |", w, th, round)
				for _, name := range cfg.servers {
					c, ok := roundCell(runs[name], roundKey{runKey{w, th}, round})
					fmt.Fprintf(b, " %s |", num(c.TPS, ok, c.err))
				}
				b.WriteString("\n")
			}
		}
	}
}

// serverNotes lists a server's failures, failed runs, and the ignored
// errors and reconnects of each measurement summed over its rounds.
func serverNotes(cfg config, name string, sr *serverRun) []string {
	if sr == nil {
		return []string{fmt.Sprintf("- %s: not run (interrupted)", name)}
	}
	var notes []string
	if sr.fatal != nil {
		notes = append(notes, fmt.Sprintf("- %s: %s", name, benchkit.OneLine(sr.fatal)))
	}
	for _, key := range cfg.measurements() {
		{
			w, th := key.workload, key.threads
			for round := 1; round <= cfg.rounds; round++ {
				if err := sr.errs[roundKey{key, round}]; err != nil {
					notes = append(notes, fmt.Sprintf("- %s %s threads=%d round %d: %s", name, w, th, round, benchkit.OneLine(err)))
				}
			}
			if rs := sr.roundResults(key, cfg.rounds); len(rs) > 0 {
				if r := meanResult(rs); r.IgnoredErrors > 0 || r.Reconnects > 0 {
					notes = append(notes, fmt.Sprintf("- %s %s threads=%d: %d ignored errors, %d reconnects (over %d runs)",
						name, w, th, r.IgnoredErrors, r.Reconnects, len(rs)))
				}
			}
		}
	}
	return notes
}

// serverLabel is a server's name in table headers.
func serverLabel(name string) string {
	switch name {
	case "petrel":
		return "Petrel"
	case "petrel-nobinlog":
		return "Petrel binlog-off"
	case "mariadb":
		return "MariaDB"
	}
	return name
}

func num(v float64, ok bool, err error) string {
	switch {
	case ok:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case err != nil:
		return "error"
	}
	return "-"
}

func lat(v float64, ok bool, err error) string {
	switch {
	case ok:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case err != nil:
		return "error"
	}
	return "-"
}

func ratio(p float64, pok bool, m float64, mok bool) string {
	if !pok || !mok || m == 0 {
		return "-"
	}
	return strconv.FormatFloat(p/m, 'f', 2, 64) + "x"
}

// writeReport writes the report to dir/sysbench-<date>.md.
func writeReport(dir string, started time.Time, report string) error {
	return benchkit.WriteReport(filepath.Join(dir, "sysbench-"+started.Format("2006-01-02-150405")+".md"), report)
}

// seconds formats d as whole seconds where it is one, as the
// environment variables take it.
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.Itoa(int(d / time.Second))
	}
	return d.String()
}

// formatRuns writes extra measurements back in RUNS syntax.
func formatRuns(ks []runKey) string {
	var parts []string
	for i := 0; i < len(ks); {
		j := i
		var th []string
		for j < len(ks) && ks[j].workload == ks[i].workload {
			th = append(th, strconv.Itoa(ks[j].threads))
			j++
		}
		parts = append(parts, ks[i].workload+":"+strings.Join(th, ","))
		i = j
	}
	return strings.Join(parts, " ")
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, " ")
}
