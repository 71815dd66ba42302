package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"petrel/internal/leakcheck"
	"petrel/lab"
	"petrel/labrun"
)

func TestMain(m *testing.M) { leakcheck.Main(m, 5*time.Second) }

// TestUsage: bad input gets a clear message and exit status 2, and
// nothing is started.
func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage:"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"run"}, "name an experiment, or all"},
		{[]string{"run", "packet-loss", "no-such"}, `unknown experiment "no-such"; known: packet-loss, catch-up`},
		{[]string{"run", "catch-up", "--tiny", "--quick"}, "--tiny and --quick are exclusive"},
		{[]string{"run", "catch-up", "--systems", "postgres"}, `unknown system "postgres"`},
		{[]string{"run", "clients-scaling", "--clients", "1000,0"}, `--clients: "0" is not a positive client count`},
		{[]string{"run", "clients-scaling", "--clients", "ten"}, `--clients: "ten" is not a positive client count`},
		{[]string{"sysbench", "--servers", "petrel,mysql"}, `server "mysql": want petrel, mariadb, petrel-nobinlog or NAME=PATH`},
		{[]string{"sysbench", "--threads", "4,x"}, `thread count "x": want a positive number`},
		{[]string{"sysbench", "--runs", "mysqlslap"}, `run "mysqlslap": want WORKLOAD:N,N...`},
		{[]string{"sysbench", "--duration", "10ms"}, "--duration at least 1s"},
		{[]string{"sysbench", "--workloads", ""}, "need at least one server and one measurement"},
		{[]string{"sysbench", "extra"}, `unexpected arguments ["extra"]`},
		{[]string{"sysbench", "--bogus"}, "flag provided but not defined: -bogus"},
	} {
		var out, errs strings.Builder
		if code := Main(tc.args, &out, &errs); code != 2 {
			t.Errorf("%v: exit %d, want 2", tc.args, code)
		}
		if !strings.Contains(errs.String(), tc.want) {
			t.Errorf("%v: stderr %q, want it to contain %q", tc.args, errs.String(), tc.want)
		}
	}
}

// TestHelp: --help, top-level and of run, exits 0 with the usage on
// stdout naming run's flags, and starts nothing.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"run", "--help"}, {"run", "catch-up", "-h"}} {
		var out, errs strings.Builder
		if code := Main(args, &out, &errs); code != 0 {
			t.Errorf("%v: exit %d, want 0; stderr %q", args, code, errs.String())
		}
		for _, f := range []string{"tiny", "quick", "out", "rounds", "systems", "no-root", "petrel-binary", "v"} {
			if !strings.Contains(out.String(), "-"+f) {
				t.Errorf("%v: usage lacks -%s:\n%s", args, f, out.String())
			}
		}
		if errs.Len() != 0 {
			t.Errorf("%v: stderr %q", args, errs.String())
		}
	}
}

// TestList names every registered experiment with what it needs.
func TestList(t *testing.T) {
	var out, errs strings.Builder
	if code := Main([]string{"list"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	exps := labrun.Experiments()
	if len(lines) != len(exps)+1 {
		t.Fatalf("%d lines for %d experiments:\n%s", len(lines), len(exps), out.String())
	}
	for i, e := range exps {
		if f := strings.Fields(lines[i+1]); f[0] != e.Name || f[1] != strings.Join(e.Needs, ",") {
			t.Errorf("line %d: %q, want %s needing %v", i+2, lines[i+1], e.Name, e.Needs)
		}
	}
}

// TestInterruptLeavesNothing runs packet-loss (servers of both systems,
// a WAN of namespaces and TUN devices) as a real petrel-lab process,
// interrupts it with SIGINT in the middle of its load, and checks that it
// exits 1 saying so, writes a report marked INCOMPLETE, and leaves no
// process, namespace, nftables table or file behind.
func TestInterruptLeavesNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	petrel, err := lab.BuildPetrel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "petrel-lab")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tmp := filepath.Join(dir, "tmp")
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	tablesBefore := nftTables(t)
	cmd := exec.CommandContext(ctx, bin, "run", "packet-loss", "--tiny", "--out", out, "--petrel-binary", petrel)
	// Every datadir and temporary file of the run lands in tmp.
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	sc := bufio.NewScanner(stdout)
	var seen []string
	interrupted := false
	for sc.Scan() {
		line := sc.Text()
		seen = append(seen, line)
		// The second system's load: the first system's servers have been
		// stopped, the second's are running behind a WAN.
		if !interrupted && strings.Contains(line, "r1: load with") && strings.HasSuffix(line, "...") && len(seen) > 6 {
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			interrupted = true
		}
	}
	err = cmd.Wait()
	if !interrupted {
		t.Fatalf("never reached the second load; output:\n%s\n%s", strings.Join(seen, "\n"), stderr.String())
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("exit: %v, want status 1", err)
	}
	if !strings.Contains(stderr.String(), "interrupted; everything started was stopped") {
		t.Errorf("stderr: %q", stderr.String())
	}
	reports, _ := filepath.Glob(filepath.Join(out, "lab-*", labrun.ReportMD))
	if len(reports) != 1 {
		t.Fatalf("reports %v, want one", reports)
	}
	md, _ := os.ReadFile(reports[0])
	if !strings.Contains(string(md), "Status: **INCOMPLETE") || !strings.Contains(string(md), "interrupted") {
		t.Errorf("report does not say INCOMPLETE and interrupted:\n%s", md)
	}
	// No process of the run: every server's command line names its
	// datadir under tmp.
	if procs := processesMentioning(t, tmp); len(procs) > 0 {
		t.Errorf("processes left: %v", procs)
	}
	left, _ := os.ReadDir(tmp)
	if len(left) > 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("files left in TMPDIR: %v", names)
	}
	ns, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"ptw" + strconv.Itoa(pid) + "-", "ptl" + strconv.Itoa(pid) + "-"} {
		if strings.Contains(string(ns), prefix) {
			t.Errorf("namespaces left:\n%s", ns)
		}
	}
	if after := nftTables(t); after != tablesBefore {
		t.Errorf("nftables tables before:\n%s\nafter:\n%s", tablesBefore, after)
	}
}

func nftTables(t *testing.T) string {
	out, err := exec.Command("nft", "list", "tables").Output()
	if err != nil {
		t.Fatalf("nft list tables: %v", err)
	}
	return string(out)
}

// processesMentioning lists the live processes whose command line
// contains s.
func processesMentioning(t *testing.T, s string) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), s) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// TestSysbenchHelp: sysbench --help exits 0 with its flags on stdout.
func TestSysbenchHelp(t *testing.T) {
	var out, errs strings.Builder
	if code := Main([]string{"sysbench", "--help"}, &out, &errs); code != 0 || errs.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	for _, f := range []string{"servers", "workloads", "threads", "runs", "rounds", "duration", "settle", "together", "max-connections", "sysbench-args", "slap-iterations", "out", "petrel-binary"} {
		if !strings.Contains(out.String(), "-"+f) {
			t.Errorf("usage lacks -%s:\n%s", f, out.String())
		}
	}
}
