package main

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// Even rounds run the servers in reverse order.
func TestServerOrderAlternates(t *testing.T) {
	servers := []string{"petrel", "mariadb", "petrel-nobinlog"}
	if got := serverOrder(servers, 1); !slices.Equal(got, servers) {
		t.Errorf("round 1 order = %v, want %v", got, servers)
	}
	want := []string{"petrel-nobinlog", "mariadb", "petrel"}
	if got := serverOrder(servers, 2); !slices.Equal(got, want) {
		t.Errorf("round 2 order = %v, want %v", got, want)
	}
	if got := serverOrder(servers, 3); !slices.Equal(got, servers) {
		t.Errorf("round 3 order = %v, want %v", got, servers)
	}
	if servers[0] != "petrel" {
		t.Errorf("serverOrder reversed its argument: %v", servers)
	}
}

// Rates and latencies are averaged, counts summed.
func TestMeanResult(t *testing.T) {
	m := meanResult([]lab.SysbenchResult{
		{TPS: 100, QPS: 2000, LatencyP95Ms: 10, IgnoredErrors: 1, Reconnects: 0},
		{TPS: 300, QPS: 6000, LatencyP95Ms: 30, IgnoredErrors: 2, Reconnects: 1},
	})
	if m.TPS != 200 || m.QPS != 4000 || m.LatencyP95Ms != 20 {
		t.Errorf("mean TPS/QPS/p95 = %v/%v/%v, want 200/4000/20", m.TPS, m.QPS, m.LatencyP95Ms)
	}
	if m.IgnoredErrors != 3 || m.Reconnects != 1 {
		t.Errorf("ignored errors/reconnects = %d/%d, want 3/1", m.IgnoredErrors, m.Reconnects)
	}
	if m := meanResult(nil); m.TPS != 0 {
		t.Errorf("mean of nothing = %v", m.TPS)
	}
}

func TestParseSettle(t *testing.T) {
	for in, want := range map[string]time.Duration{"0": 0, "0s": 0, "5": 5 * time.Second, "5s": 5 * time.Second, "1m": time.Minute} {
		if got, err := parseSettle(in); err != nil || got != want {
			t.Errorf("parseSettle(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"-1s", "x", ""} {
		if _, err := parseSettle(in); err == nil {
			t.Errorf("parseSettle(%q) accepted", in)
		}
	}
}

// A failed round leaves the mean to the others and shows as "error" in
// the per-round table; a measurement that failed in every round is an
// error cell in the main table.
func TestTablesWithAFailedRound(t *testing.T) {
	cfg := config{servers: []string{"petrel", "mariadb"}, workloads: []string{"oltp_write_only"}, threads: []int{4}, rounds: 2}
	key := runKey{"oltp_write_only", 4}
	p := &serverRun{
		results: map[roundKey]lab.SysbenchResult{{key, 1}: {TPS: 100, QPS: 600}, {key, 2}: {TPS: 300, QPS: 1800}},
		errs:    map[roundKey]error{},
		commits: map[runKey]int64{key: 1000},
		groups:  map[runKey]int64{key: 250},
	}
	m := &serverRun{
		results: map[roundKey]lab.SysbenchResult{{key, 2}: {TPS: 100, QPS: 600}},
		errs:    map[roundKey]error{{key, 1}: errors.New("boom")},
	}
	runs := map[string]*serverRun{"petrel": p, "mariadb": m}

	var b strings.Builder
	writeMeanTable(&b, cfg, runs)
	row := lastLine(b.String())
	if !strings.HasPrefix(row, "| oltp_write_only | 4 | 200 | 100 | 2.00x | 1200 | 600 | 2.00x |") || !strings.HasSuffix(row, "| 0.250 |") {
		t.Errorf("mean row = %q", row)
	}

	b.Reset()
	writeRoundTable(&b, cfg, runs)
	want := "| workload | threads | round | Petrel TPS | MariaDB TPS |\n" +
		"|---|---:|---:|---:|---:|\n" +
		"| oltp_write_only | 4 | 1 | 100 | error |\n" +
		"| oltp_write_only | 4 | 2 | 300 | 100 |\n"
	if b.String() != want {
		t.Errorf("per-round table:\n%s\nwant:\n%s", b.String(), want)
	}

	delete(m.results, roundKey{key, 2})
	if c, ok := cell(m, key, cfg.rounds); ok || c.err == nil {
		t.Errorf("cell of a measurement that always failed = %+v, %v; want an error", c, ok)
	}
	if notes := serverNotes(cfg, "mariadb", m); len(notes) != 1 || !strings.Contains(notes[0], "round 1: boom") {
		t.Errorf("notes = %q", notes)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestParseConfigRoundsAndSettle(t *testing.T) {
	t.Setenv("ROUNDS", "")
	t.Setenv("SETTLE", "")
	cfg, err := parseConfig([]string{"-out", t.TempDir()})
	if err != nil || cfg.rounds != 2 || cfg.settle != 5*time.Second {
		t.Fatalf("defaults: rounds=%d settle=%v err=%v; want 2, 5s", cfg.rounds, cfg.settle, err)
	}
	cfg, err = parseConfig([]string{"-out", t.TempDir(), "-rounds", "3", "-settle", "0"})
	if err != nil || cfg.rounds != 3 || cfg.settle != 0 {
		t.Fatalf("-rounds 3 -settle 0: rounds=%d settle=%v err=%v", cfg.rounds, cfg.settle, err)
	}
	for _, args := range [][]string{{"-rounds", "0"}, {"-settle", "soon"}, {"-servers", "petrel petrel"}} {
		if _, err := parseConfig(append([]string{"-out", t.TempDir()}, args...)); err == nil {
			t.Errorf("parseConfig(%q) accepted", args)
		}
	}
}

// RUNS adds measurements after workloads x threads, mysqlslap only there.
func TestParseRuns(t *testing.T) {
	cfg, err := parseConfig([]string{"-workloads", "oltp_read_only", "-threads", "4", "-out", t.TempDir(),
		"-runs", "mysqlslap:10,50 oltp_read_write:1,10 oltp_read_only:4", "-max-connections", "4000",
		"-sysbench-args", "--mysql-ignore-errors=1213,1205 --db-ps-mode=auto"})
	if err != nil {
		t.Fatal(err)
	}
	want := []runKey{{"oltp_read_only", 4}, {"mysqlslap", 10}, {"mysqlslap", 50}, {"oltp_read_write", 1}, {"oltp_read_write", 10}}
	if got := cfg.measurements(); !slices.Equal(got, want) {
		t.Errorf("measurements = %v, want %v", got, want)
	}
	if !slices.Equal(cfg.sysbenchArgs, []string{"--mysql-ignore-errors=1213,1205", "--db-ps-mode=auto"}) {
		t.Errorf("sysbench args split into %q", cfg.sysbenchArgs)
	}
	if cfg.maxConnections != 4000 || cfg.sysbenchWorkload() != "oltp_read_only" {
		t.Errorf("max_connections %d, prepare workload %q", cfg.maxConnections, cfg.sysbenchWorkload())
	}
	if got := formatRuns(cfg.extra); got != "mysqlslap:10,50 oltp_read_write:1,10 oltp_read_only:4" {
		t.Errorf("formatRuns = %q", got)
	}
	only, err := parseConfig([]string{"-workloads", "", "-out", t.TempDir(), "-runs", "mysqlslap:10"})
	if err != nil || only.sysbenchWorkload() != "" || len(only.measurements()) != 1 {
		t.Errorf("mysqlslap alone: %v, %v", only.measurements(), err)
	}
	for _, bad := range [][]string{{"-runs", "mysqlslap"}, {"-runs", "x:0"}, {"-runs", "x:a"}, {"-workloads", "mysqlslap"}} {
		if _, err := parseConfig(append(bad, "-out", t.TempDir())); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
