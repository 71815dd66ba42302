package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"petrel/lab"
	"petrel/lab/benchkit"
)

const (
	// lagTarget and ratioTarget are Petrel's targets from the issue.
	lagTarget   = time.Second
	ratioTarget = 1.5
	// busyOthers is the CPU share of other processes (in cores) above
	// which the report flags interference.
	busyOthers = 0.1
)

func formatReport(o Options, started time.Time, results map[string]*systemResult, interrupted bool) string {
	var b strings.Builder
	b.WriteString("# Replication: Petrel vs MariaDB\n\n")
	writeFailures(&b, o, results, interrupted)
	writeSetup(&b, o, started, results)
	writeChecks(&b, o, results)
	writeLag(&b, results)
	writeCatchup(&b, results)
	writeLagBySystem(&b, o, results)
	writeCatchupBySystem(&b, o, results)
	writeCPU(&b, o, results)
	writeNotes(&b, o, results)
	return b.String()
}

func writeFailures(b *strings.Builder, o Options, results map[string]*systemResult, interrupted bool) {
	if interrupted {
		b.WriteString("**INTERRUPTED: figures are incomplete.**\n\n")
	}
	for _, s := range o.Systems {
		if r := results[s]; r != nil && r.err != nil {
			fmt.Fprintf(b, "**FAILED (%s): %s**\n\n", s, benchkit.OneLine(r.err))
		}
	}
}

func writeSetup(b *strings.Builder, o Options, started time.Time, results map[string]*systemResult) {
	fmt.Fprintf(b, "- Date: %s\n", started.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(b, "- Host: %d CPUs, %s/%s; %s; primary, replica and sysbench share the host, on loopback\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, benchkit.ToolVersion("sysbench", "--version"))
	fmt.Fprintf(b, "- Load: sysbench %s, %d tables x %d rows, full rate, on the primary; lag phase %v with %d threads, catch-up load %v with %d threads\n",
		o.Workload, o.Tables, o.TableSize, o.LagLoad, o.LagThreads, o.CatchupLoad, o.Threads)
	fmt.Fprintf(b, "- Lag at a sample = the age of the oldest transaction the replica has not applied: sample time - when the primary's counter "+
		"first reached the replica's applied counter + 1 (0 when the replica has all the primary had); replica sampled every %v, primary every %v "+
		"(times between primary samples interpolated, error <= %v); statistics over the samples from load start until the replica applied everything\n",
		o.ReplicaSample, o.PrimarySample, o.PrimarySample)
	b.WriteString("- Counters: Petrel, the GNO of the primary's server_uuid in @@GLOBAL.gtid_executed on both servers; " +
		"MariaDB, the sequence number of @@gtid_binlog_pos (primary) and @@gtid_slave_pos (replica)\n")
	b.WriteString("- Catch-up: applier stopped (receiver running), the load runs, the receiver is let fetch all of it, " +
		"then the applier is started and timed until it has applied everything; apply rate = backlog / catch-up time\n")
	if o.CatchupRate.half || o.CatchupRate.tps > 0 {
		fmt.Fprintf(b, "- Catch-up under load (CATCHUP_RATE=%s): while the applier catches up the primary keeps producing at a fixed sysbench --rate "+
			"(half: half the rate it reached while the applier was stopped); catch-up ends when the replica's lag (as above, sampled every %v) "+
			"is first under %v; apply rate = what the replica applied by then / catch-up time; replica CPU = the replica process's user+system "+
			"time over the catch-up\n", o.CatchupRate, o.ReplicaSample, lagTarget)
	}
	for _, s := range o.Systems {
		version, build := "-", "-"
		if r := results[s]; r != nil {
			version, build = benchkit.OrDash(r.version), benchkit.OrDash(r.build)
		}
		switch base, _ := splitSystem(s); base {
		case "petrel":
			fmt.Fprintf(b, "- %s %s (%s): two `petrel server` (server ids 1, 2), GTID auto-positioning; flags: %s\n",
				s, version, build, benchkit.OrDash(strings.Join(o.PetrelArgs, " ")))
		case "mariadb":
			fmt.Fprintf(b, "- %s %s: MASTER_USE_GTID=slave_pos; primary flags: %s; replica flags: %s\n",
				s, version, strings.Join(o.MariaDBArgs, " "), strings.Join(o.MariaDBReplicaArgs, " "))
		}
	}
	for _, s := range o.Systems {
		if stmts, _ := variantSetup(s); len(stmts) > 0 {
			fmt.Fprintf(b, "- %s: replica configured with `%s`\n", s, strings.Join(stmts, "; "))
		}
		if ps := primarySetup(s); len(ps) > 0 {
			fmt.Fprintf(b, "- %s: primary configured with `%s`\n", s, strings.Join(ps, "; "))
		}
		if vars, _ := replicaVariables(s); len(vars) > 0 {
			fmt.Fprintf(b, "- %s: replica started with the option file settings %v\n", s, vars)
		}
	}
	fmt.Fprintf(b, "- Command: `%s`\n\n", command(o))
}

// command is the bench/replication.sh invocation that reproduces o.
func command(o Options) string {
	var env []string
	if bin := os.Getenv(lab.PetrelBinaryEnv); bin != "" {
		env = append(env, lab.PetrelBinaryEnv+"="+bin)
	}
	env = append(env,
		fmt.Sprintf("SYSTEMS=%q", strings.Join(o.Systems, " ")),
		fmt.Sprintf("PHASES=%q", strings.Join(o.Phases, " ")),
		"LAG_DURATION="+seconds(o.LagLoad),
		"CATCHUP_DURATION="+seconds(o.CatchupLoad),
		"THREADS="+strconv.Itoa(o.Threads),
	)
	if o.LagThreads != o.Threads {
		env = append(env, "LAG_THREADS="+strconv.Itoa(o.LagThreads))
	}
	if r := o.CatchupRate.String(); r != "half" {
		env = append(env, "CATCHUP_RATE="+r)
	}
	if o.Tables != 4 || o.TableSize != 10000 {
		env = append(env, "TABLES="+strconv.Itoa(o.Tables), "TABLE_SIZE="+strconv.Itoa(o.TableSize))
	}
	for _, e := range []struct {
		name string
		args []string
		def  []string
	}{
		{"PETREL_ARGS", o.PetrelArgs, nil},
		{"MARIADB_ARGS", o.MariaDBArgs, defaultMariaDBArgs},
		{"MARIADB_REPLICA_ARGS", o.MariaDBReplicaArgs, defaultMariaDBReplicaArgs},
		{"SYSBENCH_ARGS", o.SysbenchArgs, nil},
	} {
		if strings.Join(e.args, " ") != strings.Join(e.def, " ") {
			env = append(env, fmt.Sprintf("%s=%q", e.name, strings.Join(e.args, " ")))
		}
	}
	return strings.Join(env, " ") + " bench/replication.sh"
}

func writeChecks(b *strings.Builder, o Options, results map[string]*systemResult) {
	b.WriteString("## Replica rows\n\n")
	b.WriteString("| system | checked | tables | rows | sha256 of all rows (primary) | replica |\n|---|---|---:|---:|---|---|\n")
	for _, s := range o.Systems {
		r := results[s]
		if r == nil {
			continue
		}
		if len(r.checks) == 0 {
			fmt.Fprintf(b, "| %s | - | - | - | - | not checked |\n", s)
		}
		for _, c := range r.checks {
			verdict := "identical"
			if len(c.diffs) > 0 {
				verdict = "**MISMATCH**: " + strings.Join(c.diffs, "; ")
			} else if c.digest == "" {
				verdict = "**check failed**"
			}
			fmt.Fprintf(b, "| %s | %s | %d | %d | %s | %s |\n", s, c.when, c.tables, c.rows, benchkit.OrDash(short(c.digest)), verdict)
		}
	}
	b.WriteString("\n")
}

func writeLag(b *strings.Builder, results map[string]*systemResult) {
	p, m := lagOf(results["petrel"]), lagOf(results["mariadb"])
	if p == nil && m == nil {
		return // applier configurations only: see the side-by-side table
	}
	b.WriteString("## Lag under load\n\n")
	b.WriteString("| | Petrel | MariaDB | Petrel/MariaDB |\n|---|---:|---:|---:|\n")
	rows := []struct {
		name string
		get  func(*lagResult) float64
		prec int
	}{
		{"primary TPS (sysbench)", func(l *lagResult) float64 { return l.tps }, 0},
		{"lag max (ms)", func(l *lagResult) float64 { return ms(l.max) }, 1},
		{"lag p99 (ms)", func(l *lagResult) float64 { return ms(l.p99) }, 1},
		{"lag mean (ms)", func(l *lagResult) float64 { return ms(l.mean) }, 1},
		{"drain after the load ended (ms)", func(l *lagResult) float64 { return ms(l.drain) }, 1},
		{"lag samples", func(l *lagResult) float64 { return float64(l.samples) }, 0},
	}
	for _, row := range rows {
		writeRow(b, row.name, p, m, row.get, row.prec)
	}
	fmt.Fprintf(b, "| Seconds_Behind_Source/Master max (s), as reported | %s | %s | |\n\n", behind(p), behind(m))
	if p != nil {
		verdict := "met"
		if p.max >= lagTarget {
			verdict = "**not met**"
		}
		fmt.Fprintf(b, "Target: Petrel lag under %v: %s (max %.1f ms).\n\n", lagTarget, verdict, ms(p.max))
	}
}

func writeCatchup(b *strings.Builder, results map[string]*systemResult) {
	p, m := catchupOf(results["petrel"]), catchupOf(results["mariadb"])
	if p == nil && m == nil {
		return
	}
	b.WriteString("## Catch-up\n\n")
	b.WriteString("| | Petrel | MariaDB | Petrel/MariaDB |\n|---|---:|---:|---:|\n")
	rows := []struct {
		name string
		get  func(*catchupResult) float64
		prec int
	}{
		{"transactions while the applier was stopped", func(c *catchupResult) float64 { return float64(c.txns) }, 0},
		{"production rate (primary TPS)", func(c *catchupResult) float64 { return c.produceRate }, 0},
		{"receiver done after the load (ms)", func(c *catchupResult) float64 { return ms(c.receiveWait) }, 1},
		{"backlog applied", func(c *catchupResult) float64 { return float64(c.backlog) }, 0},
		{"catch-up time (s)", func(c *catchupResult) float64 { return c.took.Seconds() }, 2},
		{"apply rate (TPS)", func(c *catchupResult) float64 { return c.applyRate() }, 0},
		{"apply rate / production rate", func(c *catchupResult) float64 { return c.ratio() }, 2},
	}
	for _, row := range rows {
		writeRow(b, row.name, p, m, row.get, row.prec)
	}
	b.WriteString("\n")
	if p != nil {
		verdict := "met"
		if p.ratio() < ratioTarget {
			verdict = "**not met**"
		}
		fmt.Fprintf(b, "Target: Petrel apply rate >= %.1fx its production rate: %s (%.2fx).\n\n", ratioTarget, verdict, p.ratio())
	}
}

func writeCPU(b *strings.Builder, o Options, results map[string]*systemResult) {
	b.WriteString("## Host during the measurements\n\n")
	b.WriteString("CPU in cores; disk flushes are the whole disk's (everyone's fsyncs).\n\n")
	b.WriteString("| system | window (s) | benchmark processes | kernel threads, interrupts | other processes | steal | busiest other processes (own CPU) | disk flushes/s | mean flush ms |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---|---:|---:|\n")
	for _, s := range o.Systems {
		r := results[s]
		if r == nil || !r.cpu.ok {
			fmt.Fprintf(b, "| %s | - | - | - | - | - | - | - | - |\n", s)
			continue
		}
		c := r.cpu
		fmt.Fprintf(b, "| %s | %.0f | %.2f | %.2f | %.2f | %.2f | %s | %.0f | %.3f |\n", s, c.wall.Seconds(),
			c.ours, c.kernel, c.others, c.steal, benchkit.OrDash(c.top), c.flushRate, ms(c.flushMean))
	}
	b.WriteString("\n")
}

func writeNotes(b *strings.Builder, o Options, results map[string]*systemResult) {
	var notes []string
	for _, s := range o.Systems {
		r := results[s]
		if r == nil {
			notes = append(notes, s+": not run (interrupted)")
			continue
		}
		if r.cpu.ok && (r.cpu.others > busyOthers || r.cpu.steal > busyOthers) {
			notes = append(notes, fmt.Sprintf("%s: shared machine: other processes used %.2f cores (%s; steal %.2f) during the measurements; figures may be disturbed",
				s, r.cpu.others, benchkit.OrDash(r.cpu.top), r.cpu.steal))
		}
		if l := r.lag; l != nil {
			if l.ignoredErrors > 0 {
				notes = append(notes, fmt.Sprintf("%s: sysbench retried %d deadlocked transactions in the lag phase", s, l.ignoredErrors))
			}
			if l.behindNull > 0 {
				notes = append(notes, fmt.Sprintf("%s: Seconds_Behind was NULL in %d of %d samples", s, l.behindNull, l.samples))
			}
			if l.sampleErrors > 0 {
				notes = append(notes, fmt.Sprintf("%s: %d sample queries failed and were skipped", s, l.sampleErrors))
			}
		}
	}
	if len(notes) > 0 {
		b.WriteString("Notes:\n\n- " + strings.Join(notes, "\n- ") + "\n")
	}
	for _, s := range o.Systems {
		if r := results[s]; r != nil && r.log != "" {
			fmt.Fprintf(b, "\n<details><summary>%s logs (tail)</summary>\n\n```\n%s\n```\n</details>\n", s, r.log)
		}
	}
}

func lagOf(r *systemResult) *lagResult {
	if r == nil {
		return nil
	}
	return r.lag
}

func catchupOf(r *systemResult) *catchupResult {
	if r == nil {
		return nil
	}
	return r.catchup
}

// writeRow writes one figure for Petrel and MariaDB and their ratio.
func writeRow[T any](b *strings.Builder, name string, p, m *T, get func(*T) float64, prec int) {
	cell := func(r *T) string {
		if r == nil {
			return "-"
		}
		return strconv.FormatFloat(get(r), 'f', prec, 64)
	}
	ratio := "-"
	if p != nil && m != nil && get(m) != 0 {
		ratio = strconv.FormatFloat(get(p)/get(m), 'f', 2, 64) + "x"
	}
	fmt.Fprintf(b, "| %s | %s | %s | %s |\n", name, cell(p), cell(m), ratio)
}

func behind(l *lagResult) string {
	switch {
	case l == nil:
		return "-"
	case l.behindMax < 0:
		return "NULL"
	}
	return strconv.FormatInt(l.behindMax, 10)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.Itoa(int(d / time.Second))
	}
	return d.String()
}

func short(digest string) string {
	if len(digest) > 16 {
		return digest[:16]
	}
	return digest
}

// writeReport writes the report to dir/repl-<date>.md.
func writeReport(dir string, started time.Time, report string) error {
	return benchkit.WriteReport(filepath.Join(dir, "repl-"+started.Format("2006-01-02-150405")+".md"), report)
}

// writeCatchupBySystem is the catch-up side by side for every system and
// applier configuration: the seed's figure is stopped time / catch-up
// time (60 min / 11 min = 5.5 with 16 MySQL workers).
func writeCatchupBySystem(b *strings.Builder, o Options, results map[string]*systemResult) {
	var anchor float64
	for _, s := range o.Systems {
		if c := catchupOf(results[s]); c != nil && s == "petrel/w1" {
			anchor = c.applyRate()
		}
	}
	b.WriteString("## Catch-up by applier configuration\n\n")
	b.WriteString("| system | backlog (txns) | production TPS | production TPS during catch-up | catch-up (s) | stopped / catch-up | apply TPS | apply / production | apply / petrel/w1 | replica CPU (s) | replica CPU ms/txn |\n" +
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range o.Systems {
		c := catchupOf(results[s])
		if c == nil {
			fmt.Fprintf(b, "| %s | - | - | - | - | - | - | - | - | - | - |\n", s)
			continue
		}
		during := "0"
		if c.rate > 0 {
			during = fmt.Sprintf("%.0f (--rate=%.0f)", c.catchupProduce, c.rate)
		}
		cpu, perTxn := "-", "-"
		if c.replicaCPU > 0 {
			cpu, perTxn = fmt.Sprintf("%.2f", c.replicaCPU.Seconds()), fmt.Sprintf("%.3f", ms(c.cpuPerTxn()))
		}
		rel := "-"
		if anchor > 0 {
			rel = fmt.Sprintf("%.2f", c.applyRate()/anchor)
		}
		stopped := "-"
		if c.took > 0 {
			stopped = fmt.Sprintf("%.2f", o.CatchupLoad.Seconds()/c.took.Seconds())
		}
		fmt.Fprintf(b, "| %s | %d | %.0f | %s | %.2f | %s | %.0f | %.2f | %s | %s | %s |\n", s, c.backlog, c.produceRate, during, c.took.Seconds(), stopped,
			c.applyRate(), c.ratio(), rel, cpu, perTxn)
	}
	b.WriteString("\n")
}

// writeLagBySystem is the lag phase side by side for every system and
// applier configuration (the issue: 1 worker against 8 while the primary
// runs 32 threads).
func writeLagBySystem(b *strings.Builder, o Options, results map[string]*systemResult) {
	some := false
	for _, s := range o.Systems {
		some = some || lagOf(results[s]) != nil
	}
	if !some {
		return
	}
	fmt.Fprintf(b, "## Lag by applier configuration (%d threads on the primary)\n\n", o.LagThreads)
	b.WriteString("| system | primary TPS | lag p99 (ms) | lag max (ms) | lag mean (ms) | drain after the load (ms) |\n|---|---:|---:|---:|---:|---:|\n")
	for _, s := range o.Systems {
		l := lagOf(results[s])
		if l == nil {
			fmt.Fprintf(b, "| %s | - | - | - | - | - |\n", s)
			continue
		}
		fmt.Fprintf(b, "| %s | %.0f | %.1f | %.1f | %.1f | %.1f |\n", s, l.tps, ms(l.p99), ms(l.max), ms(l.mean), ms(l.drain))
	}
	b.WriteString("\n")
}
