package labrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"petrel/internal/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.Main(m, 10*time.Second) }

// logWriter sends the run's progress lines to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func metricValues(e ExperimentResult, name, system string) []float64 {
	for _, m := range e.Metrics {
		if m.Name == name && m.System == system {
			return m.Values
		}
	}
	return nil
}

// TestTinyExperiments runs every registered experiment in tiny mode with
// Petrel and MariaDB, then checks the report as a reader would: complete,
// every end-state check passed for both systems, every chart has samples
// for both, the CSV files parse, the Markdown's figures equal the CSV's,
// run.json round-trips, the HTML renders in Chromium, and each
// experiment's own figures make sense (no acknowledged commit lost, the
// semi-sync primary fell back after its timeout, packets were dropped).
func TestTinyExperiments(t *testing.T) {
	if !haveMariaDB() {
		t.Fatal("MariaDB is not installed (run scripts/deps.sh): the lab compares Petrel with it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	out := t.TempDir()
	run, dir, err := RunExperiments(ctx, Options{Mode: Tiny, OutDir: out, Command: "go test -run TestTinyExperiments",
		Progress: NewProgress(logWriter{t})})
	md, _ := os.ReadFile(filepath.Join(dir, ReportMD))
	if err != nil {
		t.Fatalf("run: %v\n%s", err, md)
	}
	if !run.Complete || !strings.Contains(string(md), "Status: **complete**") {
		t.Fatalf("run not complete:\n%s", md)
	}
	var names []string
	for _, e := range Experiments() {
		names = append(names, e.Name)
	}
	var ran []string
	for _, e := range run.Experiments {
		ran = append(ran, e.Name)
		if !slices.Equal(e.Systems, []string{"petrel", "mariadb"}) {
			t.Errorf("%s ran %v", e.Name, e.Systems)
		}
		for _, sys := range e.Systems {
			n := 0
			for _, c := range e.Checks {
				if c.System == sys {
					n++
					if !c.OK {
						t.Errorf("%s: %s: %s", e.Name, c.What, c.Detail)
					}
				}
			}
			if n == 0 {
				t.Errorf("%s: no end-state check for %s", e.Name, sys)
			}
			if !slices.ContainsFunc(e.Metrics, func(m Metric) bool { return m.System == sys }) {
				t.Errorf("%s: no figures for %s", e.Name, sys)
			}
		}
	}
	if !slices.Equal(ran, names) {
		t.Errorf("ran %v, registered %v", ran, names)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var fromJSON Run
	if err := json.Unmarshal(read(ReportJSON), &fromJSON); err != nil {
		t.Fatalf("run.json: %v", err)
	}
	if got := string(RenderMarkdown(fromJSON)); got != string(md) {
		t.Errorf("the Markdown re-rendered from run.json differs from report.md:\n%s", firstDiff(got, string(md)))
	}
	for _, p := range CheckReport(fromJSON, md, read(ReportSamples), read(ReportMetrics)) {
		t.Error(p)
	}
	charts := 0
	for _, e := range run.Experiments {
		charts += len(e.Charts)
	}
	checkRendered(t, read(ReportHTML), charts)

	for _, e := range run.Experiments {
		for _, sys := range e.Systems {
			v := func(name string) float64 {
				vals := metricValues(e, name, sys)
				if len(vals) != 1 {
					t.Errorf("%s %s: metric %q has %d values, want 1", e.Name, sys, name, len(vals))
					return 0
				}
				return vals[0]
			}
			switch e.Name {
			case "durability":
				if a, l := v("acknowledged commits"), v("acknowledged commits lost"); a <= 0 || l != 0 {
					t.Errorf("durability %s: %v acknowledged, %v lost", sys, a, l)
				}
				// The clients reconnect to the restarted primary.
				if n := v("commits after the restart"); n <= 0 {
					t.Errorf("durability %s: %v commits after the restart", sys, n)
				}
			case "failover":
				// A replica took over, after the detector's second of
				// the primary down, every acknowledged commit on it.
				if a, l := v("acknowledged commits"), v("acknowledged commits lost"); a <= 0 || l != 0 {
					t.Errorf("failover %s: %v acknowledged, %v lost", sys, a, l)
				}
				if p, w := v("kill to promotion"), v("kill to first write"); p < 1 || w < p-0.05 || w > 30 {
					t.Errorf("failover %s: promotion %v s, first write %v s after the kill", sys, p, w)
				}
				if n, s := v("commits after the kill"), v("semi-sync on at the kill (1 = yes)"); n <= 0 || s != 1 {
					t.Errorf("failover %s: %v commits after the kill, semi-sync on %v", sys, n, s)
				}
			case "proxy":
				if d, p := v("direct to a replica: reads/s"), v("through the proxy: reads/s"); d <= 0 || p <= 0 {
					t.Errorf("proxy %s: %v reads/s direct, %v through the proxy", sys, d, p)
				}
				// Reads went to the replicas, none back in time, none
				// staler than the lag bound, none to the stopped
				// replica once past the bound.
				if n, r := v("bounded: reads"), v("bounded: reads served by replica1")+v("bounded: reads served by replica2"); n <= 0 || r <= 0 {
					t.Errorf("proxy %s: %v reads, %v of them by the replicas", sys, n, r)
				}
				for _, name := range []string{"bounded: reads back in time", "bounded: reads staler than the bound", "bounded: replica1 reads while stopped past the bound"} {
					if n := v(name); n != 0 {
						t.Errorf("proxy %s: %s: %v", sys, name, n)
					}
				}
			case "semisync-fallback":
				if f, longest, timeout := v("fell back to async (1 = yes)"), v("longest commit"), v("semisync timeout"); f != 1 || longest < timeout {
					t.Errorf("semisync-fallback %s: fell back %v, longest commit %v ms, timeout %v ms", sys, f, longest, timeout)
				}
			case "catch-up":
				if b, r := v("backlog"), v("apply rate"); b <= 0 || r <= 0 {
					t.Errorf("catch-up %s: backlog %v, apply rate %v", sys, b, r)
				}
			case "packet-loss":
				if run.Host.Root && v("packets dropped") <= 0 {
					t.Errorf("packet-loss %s: no packet dropped", sys)
				}
			case "link-cut":
				// The replica fell behind by about the outage, at least.
				if lag := v("max lag"); lag < 1 {
					t.Errorf("link-cut %s: max lag %v s over a %v outage", sys, lag, 3*time.Second)
				}
			case "semisync-wan":
				// A semi-sync commit waits for the replica across the
				// link's round trip (20 ms in tiny mode).
				if p95 := v("semisync 1 clients: p95"); p95 < 20 {
					t.Errorf("semisync-wan %s: semi-sync p95 %v ms with a 20 ms RTT", sys, p95)
				}
			case "fan-out":
				// One stream across the line instead of one per replica.
				if d, r := v("direct: bytes across the line per transaction"), v("relay: bytes across the line per transaction"); r <= 0 || r > d*0.6 {
					t.Errorf("fan-out %s: %v bytes/txn direct, %v through the relay (3 replicas)", sys, d, r)
				}
				if x := v("relay / direct bytes per transaction (target <= 1/3 = 0.333)"); x <= 0 || x > 0.6 {
					t.Errorf("fan-out %s: relay / direct bytes %v", sys, x)
				}
				for _, l := range []string{"direct", "relay"} {
					if cpu, back, tps := v(l+": primary CPU per transaction"), v(l+": bytes back across the line per transaction"), v(l+": transactions/s"); cpu <= 0 || back <= 0 || tps <= 0 {
						t.Errorf("fan-out %s %s: %v ms CPU, %v bytes back per transaction, %v txn/s", sys, l, cpu, back, tps)
					}
				}
			case "bbr-vs-cubic":
				for _, cc := range []string{"cubic", "bbr"} {
					if s, n := v(cc+": backlog fetched and applied"), v(cc+": backlog"); s <= 0 || n <= 0 {
						t.Errorf("bbr-vs-cubic %s: %s: %v transactions in %v s", sys, cc, n, s)
					}
					// The backlog crossed the line.
					if r, mbit := v(cc+": apply rate over the catch-up"), v(cc+": line throughput over the catch-up"); r <= 0 || mbit <= 0 {
						t.Errorf("bbr-vs-cubic %s: %s: %v txn/s, %v Mbit/s", sys, cc, r, mbit)
					}
				}
			case "clone":
				// The experiment fails unless the copy's rows are the
				// primary's; here: there were rows to copy.
				if n, s := v("rows on the copy"), v("copy"); n <= 0 || s <= 0 {
					t.Errorf("clone %s: %v rows copied in %v s", sys, n, s)
				}
			case "compression":
				// Real text shrinks in the compressed table.
				if p, c, r := v("plain: footprint"), v("compressed: footprint"), v("compressed/plain footprint"); p <= 0 || c <= 0 || r >= 1 {
					t.Errorf("compression %s: plain %v MiB, compressed %v MiB (%vx)", sys, p, c, r)
				}
				// Against the text, the uncompressed baseline, too.
				if p, c := v("plain footprint/text"), v("compressed footprint/text"); p <= 0 || c <= 0 || c >= p {
					t.Errorf("compression %s: plain %vx the text, compressed %vx", sys, p, c)
				}
				// The uncompressed table holds the text whole, and the
				// compressed one is under issue 34's 0.4x of it on Petrel
				// (0.3x measured; InnoDB about 0.5x).
				if u, r := v("uncompressed footprint/text"), v("compressed/uncompressed footprint"); u < 0.9 || r <= 0 || r >= 1 || sys == "petrel" && r > 0.4 {
					t.Errorf("compression %s: uncompressed %vx the text, compressed %vx the uncompressed", sys, u, r)
				}
			case "semisync-cost":
				// A semi-sync commit waits a round trip: mariadb-slap's
				// timed phase takes at least its commits per client x RTT,
				// and longer than async across the same link.
				rtt := "mariadb-slap RTT " + semicostSize(Tiny).rtt.String() + " "
				if r, a, s := v(rtt+"semi-sync: seconds / RTT bound"), v(rtt+"async: seconds"), v(rtt+"semi-sync: seconds"); r < 0.95 || a <= 0 || a >= s {
					t.Errorf("semisync-cost %s: semi-sync %v s (%vx the RTT bound), async %v s", sys, s, r, a)
				}
				if r := v("semi-sync / async, sync_binlog=1, 2 threads"); r <= 0 {
					t.Errorf("semisync-cost %s: semi-sync / async TPS %v", sys, r)
				}
			case "replication-sysbench":
				// Every variant lagged a measured amount and caught up
				// (apply rate, catch-up time); the first variant is its
				// own anchor.
				// MariaDB's applier not catching up within the wait is a
				// figure of MariaDB (CI once saw it), noted with its rate
				// over the wait; Petrel's must catch up.
				for _, vr := range replsbSize(Tiny).variants[sys] {
					if p, r := v(vr+": lag p99"), v(vr+": apply TPS"); p < 0 || r <= 0 {
						t.Errorf("replication-sysbench %s/%s: lag p99 %v ms, apply %v txn/s", sys, vr, p, r)
					}
					caught := v(vr+": caught up") == 1
					if sys == "petrel" && !caught {
						t.Errorf("replication-sysbench petrel/%s did not catch up", vr)
					}
					if caught {
						if c := v(vr + ": catch-up"); c <= 0 {
							t.Errorf("replication-sysbench %s/%s: catch-up %v s", sys, vr, c)
						}
					}
				}
				if a := v(replsbSize(Tiny).variants[sys][0] + ": apply / " + replsbSize(Tiny).variants[sys][0] + "'s"); a != 1 {
					t.Errorf("replication-sysbench %s: the first variant's apply rate over itself %v", sys, a)
				}
			case "binlog-compression":
				// Rows of real text take fewer binlog bytes compressed,
				// on both systems (zstd per transaction, zlib per event).
				if off, on, r := v("binlog bytes per transaction, text, OFF"), v("binlog bytes per transaction, text, ON"), v("binlog bytes OFF / ON, text"); off <= 0 || on <= 0 || r < 1.2 {
					t.Errorf("binlog-compression %s: text %v bytes/txn OFF, %v ON (%vx)", sys, off, on, r)
				}
			case "parallel-apply":
				for _, w := range applyWorkers(Tiny) {
					if r := v(strconv.Itoa(w) + " workers: apply rate"); r <= 0 {
						t.Errorf("parallel-apply %s: %d workers: apply rate %v", sys, w, r)
					}
				}
			case "catch-up-slow-disk":
				for _, w := range slowDiskWorkers(Tiny) {
					p := strconv.Itoa(w) + " workers: "
					if r, s := v(p+"apply rate"), v(p+"stopped / catch-up"); r <= 0 || s <= 0 {
						t.Errorf("catch-up-slow-disk %s: %d workers: apply rate %v, stopped / catch-up %v", sys, w, r, s)
					}
					// Applied transactions are durable one by one:
					// the catch-up waited for binlog fsyncs.
					if g, d := v(p+"binlog group commits"), v(p+"delayed fsyncs per transaction"); g < 1 || d <= 0 {
						t.Errorf("catch-up-slow-disk %s: %d workers: %v binlog group commits, %v delayed fsyncs per transaction while catching up", sys, w, g, d)
					}
				}
				if s := v("1 workers: speedup over 1 worker"); s != 1 {
					t.Errorf("catch-up-slow-disk %s: one worker's speedup over itself %v", sys, s)
				}
				// One thread commits one transaction at a time on
				// MariaDB, each waiting 1 ms in its fsyncs at least:
				// the injected latency reached the server.
				if r := v("1 workers: apply rate"); sys == "mariadb" && r >= 1000 {
					t.Errorf("catch-up-slow-disk mariadb: one thread applied %v txn/s with 1 ms per fsync", r)
				}
			case "clients-scaling":
				for _, n := range scalingClients(Tiny) {
					if tps := v(strings.Replace("N clients: TPS", "N", strconv.Itoa(n), 1)); tps <= 0 {
						t.Errorf("clients-scaling %s: %d clients: %v TPS", sys, n, tps)
					}
				}
			}
		}
	}
}
