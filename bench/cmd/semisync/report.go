package main

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"petrel/lab/benchkit"
)

// formatReport renders the results as markdown.
func formatReport(o Options, started time.Time, results map[string]*systemResult, interrupted bool) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	w("# Semi-synchronous replication: Petrel vs MariaDB\n\n")
	if interrupted {
		w("**INTERRUPTED**: partial results.\n\n")
	}
	for _, s := range o.Systems {
		if r := results[s]; r != nil && r.err != nil {
			w("**FAILED** (%s): %v\n\n", s, oneLine(r.err.Error()))
		}
	}
	w("- Date: %s (%s)\n", started.UTC().Format("2006-01-02 15:04 UTC"), time.Since(started).Round(time.Second))
	w("- Host: %d CPUs, %s/%s; %s; primary, replica, link and clients share the host, on loopback\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, toolVersions())
	w("- %s\n", petrelSource())
	w("- Setup per system: a primary and one replica on temporary datadirs and free ports; the replica fetches through a lab.Link (userspace TCP proxy) whose one-way delay is RTT/2; clients connect to the primary directly. \"async\" = semi-sync switched OFF on the primary (SET GLOBAL), replica still replicating; \"semi-sync\" = ON with one semi-sync client, checked before and after each run (status ON, no_tx +0, yes_tx > 0), the replica acknowledging once a transaction is written to its relay log (Petrel's default `rpl_semi_sync_replica_ack_after = RELAY_WRITE`; MySQL's and MariaDB's behaviour); \"semi-sync RELAY_SYNC\" (Petrel only) = the replica acknowledging only once its relay log is fsynced\n")
	for _, s := range o.Systems {
		r := results[s]
		if r == nil {
			continue
		}
		switch s {
		case "petrel":
			w("- petrel %s: `petrel server` x2, GTID auto-positioning; primary config `rpl_semi_sync_source_enabled = ON`, `sync_binlog = 1` (wait point AFTER_SYNC, the default), replica config `rpl_semi_sync_replica_enabled = ON`%s; extra flags: %s\n", r.version, netTimeoutNote(o), orDash(o.PetrelArgs))
		case "mariadb":
			w("- mariadb %s: MASTER_USE_GTID=slave_pos; primary flags: %s; replica flags: %s\n", r.version, strings.Join(o.MariaDBArgs, " "), strings.Join(o.MariaDBReplicaArgs, " "))
		}
	}
	w("- Command: `%s`\n\n", commandLine(o))

	if o.has("slap") {
		formatSlap(&b, o, results)
	}
	if o.has("sysbench") {
		formatSysbench(&b, o, results)
	}
	formatCounters(&b, o, results)

	w("## Notes\n\n")
	for _, s := range o.Systems {
		r := results[s]
		if r == nil {
			continue
		}
		if r.syncBinlog0 != "" {
			w("- %s sync_binlog=0: %s\n", s, r.syncBinlog0)
		}
		for _, n := range r.notes {
			w("- %s: %s\n", s, n)
		}
		if r.err != nil {
			w("- %s FAILED: %v\n", s, r.err)
		}
	}
	for _, s := range o.Systems {
		if r := results[s]; r != nil && r.logs != "" {
			w("\n<details><summary>%s server output (tail)</summary>\n\n```\n%s```\n</details>\n", s, r.logs)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func formatSlap(b *strings.Builder, o Options, results map[string]*systemResult) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	c := o.SlapConcurrency
	w("## WAN experiment: mariadb-slap (seed tutorial)\n\n")
	w("`mariadb-slap --auto-generate-sql --concurrency=%d --number-of-queries=%d` against the primary (seconds: slap's \"Average number of seconds to run all queries\", one iteration). "+
		"Write commits per client = the primary's Binlog_commits over slap's timed phase / %d, snapshot by --pre-system/--post-system hooks that run just outside its timer "+
		"(set-up: CREATE TABLE and 100 single-row INSERTs on one connection, untimed). RTT bound = write commits per client x RTT: "+
		"the time if every commit waited exactly one round trip and nothing else.\n\n", c, o.SlapQueries, c)
	w("| added RTT | mode | Petrel (s) | MariaDB (s) | Petrel/MariaDB | write commits per client (P / M) | RTT bound (s) (P / M) | time / RTT bound (P / M) | commits per ack (P / M) |\n")
	w("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, rtt := range []time.Duration{0, o.RTT} {
		for _, m := range modes("petrel") {
			pr, pok := findSlap(results["petrel"], rtt, m)
			mr, mok := findSlap(results["mariadb"], rtt, m)
			if !pok && !mok {
				continue
			}
			cell := func(ok bool, f func() string) string {
				if !ok {
					return "-"
				}
				return f()
			}
			pair := func(f func(slapRun) string) string {
				return cell(pok, func() string { return f(pr) }) + " / " + cell(mok, func() string { return f(mr) })
			}
			bound, over, perAck := "-", "-", "-"
			if rtt > 0 {
				bound = pair(func(s slapRun) string { return fmt.Sprintf("%.2f", s.rttBound(c).Seconds()) })
				over = pair(func(s slapRun) string { return fmt.Sprintf("%.2fx", s.seconds/s.rttBound(c).Seconds()) })
			}
			if m.semi() {
				perAck = pair(func(s slapRun) string { return perAckCell(s.d) })
			}
			w("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", rttName(rtt), m,
				cell(pok, func() string { return fmt.Sprintf("%.3f", pr.seconds) }),
				cell(mok, func() string { return fmt.Sprintf("%.3f", mr.seconds) }),
				ratioCell(pok && mok, pr.seconds, mr.seconds),
				pair(func(s slapRun) string { return fmt.Sprintf("%.1f", s.commitsPerClient(c)) }),
				bound, over, perAck)
		}
	}
	w("\n")
	if pr, ok := findSlap(results["petrel"], o.RTT, semiWrite); ok {
		x := pr.seconds / pr.rttBound(c).Seconds()
		w("Target: Petrel semi-sync at %s RTT <= 1.1x the RTT bound: %s (%.3f s = %.2fx of %.2f s).", rttName(o.RTT), metOrNot(x <= 1.1), pr.seconds, x, pr.rttBound(c).Seconds())
		if pa, ok := findSlap(results["petrel"], o.RTT, async); ok && pa.seconds > 0 {
			w(" Semi-sync / async at %s: Petrel %.1fx", rttName(o.RTT), pr.seconds/pa.seconds)
			if mr, ok := findSlap(results["mariadb"], o.RTT, semiWrite); ok {
				if ma, ok := findSlap(results["mariadb"], o.RTT, async); ok && ma.seconds > 0 {
					w(", MariaDB %.1fx", mr.seconds/ma.seconds)
				}
			}
			w(" (the seed's MySQL: 2.6 s -> 50 s, about 19x).")
		}
		w("\n\n")
	}
}

func formatSysbench(b *strings.Builder, o Options, results map[string]*systemResult) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("## sysbench oltp_write_only on loopback (link delay 0)\n\n")
	w("%d tables x %d rows, %v per run, sysbench flags: %s. sync_binlog=1 \"local durability\", semi-sync \"network durability\"; both = \"local + network\". "+
		"The plan ran %d round(s), in reverse order on even rounds; TPS and p95 are means over rounds (each run's figures are in the counters table).\n\n",
		o.Tables, o.TableSize, o.Duration, orDash(o.SysbenchArgs), o.Rounds)
	w("| sync_binlog | mode | threads | Petrel TPS | MariaDB TPS | Petrel/MariaDB | Petrel p95 (ms) | MariaDB p95 (ms) |\n")
	w("|---:|---|---:|---:|---:|---:|---:|---:|\n")
	for _, sb := range []int{1, 0} {
		for _, m := range modes("petrel") {
			for _, th := range o.Threads {
				k := sbKey{sb, m, th}
				pr, pok := findSB(results["petrel"], k)
				mr, mok := findSB(results["mariadb"], k)
				if !pok && !mok {
					continue
				}
				w("| %d | %s | %d | %s | %s | %s | %s | %s |\n", sb, m, th,
					tpsCell(pok, pr), tpsCell(mok, mr), ratioCell(pok && mok, pr.res.TPS, mr.res.TPS),
					p95Cell(pok, pr), p95Cell(mok, mr))
			}
		}
	}
	w("\n")

	type derived struct {
		name, target string
		ok           func(float64) bool // nil: no target for this row
		num, den     sbKey
		cost         bool // show 1 - num/den as a percentage
	}
	// The targets hold at the default acknowledgement point; RELAY_SYNC's
	// rows are shown for reference.
	var rows []derived
	for _, m := range []mode{semiWrite, semiSync} {
		ref := func(d derived) derived {
			if m == semiSync {
				d.target, d.ok = "(reference)", nil
			}
			return d
		}
		for _, th := range o.Threads {
			d := derived{name: fmt.Sprintf("%s / async, sync_binlog=1, %s", m, threadsName(th)), target: "(reference)",
				num: sbKey{1, m, th}, den: sbKey{1, async, th}}
			if th == 32 {
				d.target, d.ok = "Petrel >= 0.97", func(x float64) bool { return x >= 0.97 }
			}
			rows = append(rows, ref(d))
		}
		for _, th := range o.Threads {
			rows = append(rows, ref(derived{name: fmt.Sprintf("%s sync_binlog=0 / async sync_binlog=1, %s", m, threadsName(th)), target: "Petrel >= 1",
				ok: func(x float64) bool { return x >= 1 }, num: sbKey{0, m, th}, den: sbKey{1, async, th}}))
		}
		for _, th := range o.Threads {
			limit := 0.05
			if th == 1 {
				limit = 0.15
			}
			rows = append(rows, ref(derived{name: fmt.Sprintf("cost of local + network over local alone (1 - %s/async at sync_binlog=1), %s", m, threadsName(th)),
				target: fmt.Sprintf("Petrel <= %.0f%%", 100*limit),
				ok:     func(x float64) bool { return 1-x <= limit }, num: sbKey{1, m, th}, den: sbKey{1, async, th}, cost: true}))
		}
	}
	w("| ratio | Petrel | MariaDB | target | Petrel |\n|---|---:|---:|---|---|\n")
	for _, d := range rows {
		val := func(r *systemResult) (float64, bool) {
			n, ok1 := findSB(r, d.num)
			m, ok2 := findSB(r, d.den)
			if !ok1 || !ok2 || m.res.TPS == 0 {
				return 0, false
			}
			return n.res.TPS / m.res.TPS, true
		}
		show := func(x float64, ok bool) string {
			switch {
			case !ok:
				return "-"
			case d.cost:
				return fmt.Sprintf("%.1f%%", 100*(1-x))
			}
			return fmt.Sprintf("%.2f", x)
		}
		px, pok := val(results["petrel"])
		mx, mok := val(results["mariadb"])
		met := "-"
		if pok && d.ok != nil {
			met = metOrNot(d.ok(px))
		}
		w("| %s | %s | %s | %s | %s |\n", d.name, show(px, pok), show(mx, mok), d.target, met)
	}
	w("\n")
}

// formatCounters shows, per run, how many commits shared one fsync and one
// acknowledgement.
func formatCounters(b *strings.Builder, o Options, results map[string]*systemResult) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("## Commits per fsync and per acknowledgement\n\n")
	w("Deltas on the primary over each run. commits = Binlog_commits; fsync groups = Binlog_group_commits (Petrel: binlog fsyncs; MariaDB: binlog group commits, fsynced or not); acks = bytes the link carried replica -> primary / ack packet size (4 + 1 + 8 + binlog file name; `~` when not a whole number); yes_tx, no_tx, avg wait = Rpl_semi_sync_*_yes_tx, no_tx, tx_wait_time / tx_waits over the run; storage fsyncs = Petrel_storage_syncs (Petrel's storage WAL, fsynced when the binlog is not).\n\n")
	w("| system | run | TPS | commits | fsync groups | commits / group | acks | commits / ack | yes_tx | no_tx | avg wait (us) | storage fsyncs |\n")
	w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range o.Systems {
		r := results[s]
		if r == nil {
			continue
		}
		row := func(name string, tps string, d delta, storage int64) {
			st := "-"
			if storage >= 0 {
				st = fmt.Sprint(storage)
			}
			w("| %s | %s | %s | %d | %d | %.1f | %s | %s | %d | %d | %.0f | %s |\n", s, name, tps, d.commits, d.groups, d.commitsPerGroup(),
				acksCell(d), perAckCell(d), d.yesTx, d.noTx, d.avgWaitUs(), st)
		}
		for _, sr := range r.slap {
			row(fmt.Sprintf("slap timed phase, RTT %s, %s", rttName(sr.rtt), sr.mode), "-", sr.d, -1)
		}
		for _, sr := range r.sb {
			row(fmt.Sprintf("sysbench round %d, sync_binlog=%d, %s, %s", sr.round, sr.syncBinlog, sr.mode, threadsName(sr.threads)),
				fmt.Sprintf("%.0f", sr.res.TPS), sr.d, sr.storageSyncs)
		}
	}
	w("\n")
}

func netTimeoutNote(o Options) string {
	if o.PetrelReplicaNetTimeout == 0 {
		return ""
	}
	return fmt.Sprintf(", `replica_net_timeout = %d`", int(o.PetrelReplicaNetTimeout/time.Second))
}

func findSlap(r *systemResult, rtt time.Duration, m mode) (slapRun, bool) {
	if r == nil {
		return slapRun{}, false
	}
	for _, s := range r.slap {
		if s.rtt == rtt && s.mode == m {
			return s, true
		}
	}
	return slapRun{}, false
}

// sbKey names one sysbench configuration.
type sbKey struct {
	syncBinlog int
	mode       mode
	threads    int
}

// findSB returns configuration k's run, its TPS and p95 the means over
// the rounds that measured it.
func findSB(r *systemResult, k sbKey) (sbRun, bool) {
	if r == nil {
		return sbRun{}, false
	}
	var out sbRun
	n := 0
	for _, s := range r.sb {
		if s.syncBinlog != k.syncBinlog || s.mode != k.mode || s.threads != k.threads {
			continue
		}
		if n == 0 {
			out = s
		} else {
			out.res.TPS += s.res.TPS
			out.res.LatencyP95Ms += s.res.LatencyP95Ms
		}
		n++
	}
	if n == 0 {
		return sbRun{}, false
	}
	out.res.TPS /= float64(n)
	out.res.LatencyP95Ms /= float64(n)
	return out, true
}

func acksCell(d delta) string {
	if d.acks == 0 && !d.acksExact {
		return "-"
	}
	if !d.acksExact {
		return fmt.Sprintf("~%d", d.acks)
	}
	return fmt.Sprint(d.acks)
}

func perAckCell(d delta) string {
	if d.acks <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", d.commitsPerAck())
}

func tpsCell(ok bool, r sbRun) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.0f", r.res.TPS)
}

func p95Cell(ok bool, r sbRun) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.2f", r.res.LatencyP95Ms)
}

func ratioCell(ok bool, a, b float64) string {
	if !ok || b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

func threadsName(n int) string {
	if n == 1 {
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", n)
}

func rttName(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}

func metOrNot(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func orDash(args []string) string {
	if len(args) == 0 {
		return "-"
	}
	return strings.Join(args, " ")
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// commandLine is the shell command that reproduces this run.
func commandLine(o Options) string {
	threads := make([]string, len(o.Threads))
	for i, t := range o.Threads {
		threads[i] = fmt.Sprint(t)
	}
	env := fmt.Sprintf("SYSTEMS=%q PHASES=%q RTT=%s THREADS=%q DURATION=%d ROUNDS=%d TABLES=%d TABLE_SIZE=%d",
		strings.Join(o.Systems, " "), strings.Join(o.Phases, " "), o.RTT, strings.Join(threads, " "),
		int(o.Duration/time.Second), o.Rounds, o.Tables, o.TableSize)
	if o.SlapConcurrency != 10 || o.SlapQueries != 1000 {
		env += fmt.Sprintf(" SLAP_CONCURRENCY=%d SLAP_QUERIES=%d", o.SlapConcurrency, o.SlapQueries)
	}
	if o.PetrelReplicaNetTimeout != time.Hour {
		env += fmt.Sprintf(" PETREL_REPLICA_NET_TIMEOUT=%d", int(o.PetrelReplicaNetTimeout/time.Second))
	}
	return env + " bench/semisync.sh"
}

// toolVersions names the client tools' versions.
func toolVersions() string {
	var parts []string
	for _, t := range [][]string{{"sysbench", "--version"}, {"mariadb-slap", "--version"}} {
		out, err := exec.Command(t[0], t[1:]...).Output()
		if err != nil {
			continue
		}
		parts = append(parts, strings.TrimSpace(oneLine(string(out))))
	}
	return strings.Join(parts, "; ")
}

// petrelSource says which petrel binary ran.
func petrelSource() string {
	return "Petrel binary: " + benchkit.PetrelBuild()
}
