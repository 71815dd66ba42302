package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"petrel/labrun"
)

// sysbench is `petrel-lab sysbench`: the sweep (labrun.RunSweep), Petrel
// beside MariaDB (bench/sysbench.sh runs it) and Petrel builds against
// each other (the former bench/abcost.sh).
func sysbench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sysbench", flag.ContinueOnError)
	servers := fs.String("servers", "petrel,mariadb", "servers in order, the first the anchor of the ratios: petrel, mariadb, petrel-nobinlog, or NAME=PATH (a petrel build; PATH build: ./cmd/petrel)")
	workloads := fs.String("workloads", "oltp_point_select,oltp_write_only,oltp_read_write", "sysbench tests, or mysqlslap, mysqlslap-read, mysqlslap-write, each at every --threads")
	threads := fs.String("threads", "4,32", "client threads (mysqlslap: --concurrency)")
	extra := fs.String("runs", "", "more measurements after workloads x threads, space-separated WORKLOAD:N,N (e.g. \"mysqlslap:10,50 oltp_read_write:1,1000\")")
	rounds := fs.Int("rounds", 2, "rounds of every measurement, the server order rotating")
	duration := fs.Duration("duration", 20*time.Second, "time per sysbench run")
	settle := fs.Duration("settle", 5*time.Second, "pause before every run (0: none)")
	together := fs.Bool("together", false, "every server under load at once, each by its own client (they share the cores: compare ratios)")
	tables := fs.Int("tables", 4, "sysbench --tables")
	tableSize := fs.Int("table-size", 10000, "sysbench --table-size")
	maxConns := fs.Int("max-connections", 0, "SET GLOBAL max_connections on every server (0: leave)")
	sysbenchArgs := fs.String("sysbench-args", "", "extra sysbench flags, space-separated (e.g. --mysql-ignore-errors=1213,1205)")
	petrelArgs := fs.String("petrel-args", "", "extra flags of every Petrel server, space-separated")
	mariadbArgs := fs.String("mariadb-args", "", "extra mariadbd flags, after the lab's durable ones, space-separated")
	slapQueries := fs.Int("slap-queries", 100, "mysqlslap queries per client")
	slapIterations := fs.Int("slap-iterations", 1, "mysqlslap --iterations")
	out := fs.String("out", "lab-out", "directory receiving the run's report directory")
	bin := fs.String("petrel-binary", "", "petrel executable of the petrel and petrel-nobinlog servers (default: build ./cmd/petrel)")
	verbose := fs.Bool("v", false, "log the servers' and lab's messages on stderr")
	pos, status := parseFlags(fs, args, stdout, stderr)
	if status >= 0 {
		return status
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "petrel-lab sysbench: "+format+"\n", a...)
		return 2
	}
	if len(pos) > 0 {
		return bad("unexpected arguments %q", pos)
	}
	o := labrun.SweepOptions{Rounds: *rounds, Duration: *duration, Settle: *settle, Together: *together,
		Tables: *tables, TableSize: *tableSize, MaxConnections: *maxConns, SysbenchArgs: strings.Fields(*sysbenchArgs),
		SlapQueries: *slapQueries, SlapIterations: *slapIterations, OutDir: *out, PetrelBinary: *bin,
		Command: "petrel-lab sysbench " + shellJoin(args), Logger: newLogger(stderr, *verbose), Progress: labrun.NewProgress(stdout)}
	if *rounds < 1 || *duration < time.Second || *settle < 0 || *tables < 1 || *tableSize < 1 || *slapQueries < 1 || *slapIterations < 1 {
		return bad("--rounds, --tables, --table-size and --slap-* must be positive, --duration at least 1s, --settle not negative")
	}
	for _, f := range fields(*servers) {
		s, err := labrun.ParseSweepServer(f)
		if err != nil {
			return bad("%v", err)
		}
		if s.System == "petrel" {
			s.Args = append(strings.Fields(*petrelArgs), s.Args...)
		} else {
			s.Args = strings.Fields(*mariadbArgs)
		}
		o.Servers = append(o.Servers, s)
	}
	var ths []int
	for _, f := range fields(*threads) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return bad("thread count %q: want a positive number", f)
		}
		ths = append(ths, n)
	}
	for _, w := range fields(*workloads) {
		for _, n := range ths {
			o.Points = append(o.Points, labrun.SweepPoint{Workload: w, Threads: n})
		}
	}
	for _, f := range strings.Fields(*extra) {
		w, list, ok := strings.Cut(f, ":")
		if !ok || w == "" {
			return bad("run %q: want WORKLOAD:N,N...", f)
		}
		for _, t := range strings.Split(list, ",") {
			n, err := strconv.Atoi(t)
			if err != nil || n < 1 {
				return bad("run %q: thread count %q is not a positive number", f, t)
			}
			if p := (labrun.SweepPoint{Workload: w, Threads: n}); !slices.Contains(o.Points, p) {
				o.Points = append(o.Points, p)
			}
		}
	}
	if len(o.Servers) == 0 || len(o.Points) == 0 {
		return bad("need at least one server and one measurement")
	}
	ctx, stop := runContext()
	defer stop()
	runRes, dir, err := labrun.RunSweep(ctx, o)
	return finish(ctx, runRes, dir, err, stdout, stderr)
}

// fields splits a list on commas and spaces.
func fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}
