package labrun

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFallbacks runs as on a host without MariaDB and without root:
// Petrel runs alone and the report says so; packet-loss runs over the
// userspace Link and says so, with lag samples and a passing end-state
// check; fan-out, which has no fallback, is reported as not run.
func TestFallbacks(t *testing.T) {
	defer func(f func() bool) { mariadbInstalled = f }(mariadbInstalled)
	mariadbInstalled = func() bool { return false }
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run, dir, err := RunExperiments(ctx, Options{Mode: Tiny, OutDir: t.TempDir(), NoRoot: true,
		Experiments: []string{"fan-out", "packet-loss"}, Progress: NewProgress(logWriter{t})})
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportMD))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"MariaDB not found (mariadbd, mariadb-install-db; install with scripts/deps.sh): Petrel ran alone",
		"no WAN emulation (--no-root)",
		"NOT RUN: this experiment needs root",
		"no root: the line is a userspace Link",
		"OK petrel round 1: replica1 rows = primary rows",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if !run.Complete || len(run.Experiments) != 2 {
		t.Fatalf("complete %v, %d experiments", run.Complete, len(run.Experiments))
	}
	fan, loss := run.Experiments[0], run.Experiments[1]
	if len(fan.Checks) != 0 || len(fan.Metrics) != 0 {
		t.Errorf("fan-out ran: %d checks, %d metrics", len(fan.Checks), len(fan.Metrics))
	}
	if !slices.Equal(loss.Systems, []string{"petrel"}) {
		t.Errorf("packet-loss systems %v", loss.Systems)
	}
	if n := len(loss.Charts[0].Series); n != 1 || len(loss.Charts[0].Series[0].Points) < 20 {
		t.Errorf("packet-loss lag: %d series, %v", n, loss.Charts[0].Series)
	}
	if slices.ContainsFunc(loss.Metrics, func(m Metric) bool { return m.Name == "packets dropped" }) {
		t.Error("packet-loss reports dropped packets without a WAN")
	}
}
