// Command sysbench runs sysbench 1.0 OLTP workloads against Petrel and
// against a MariaDB 10.11 anchor started on a temporary datadir with equal
// durability (binlog on, sync_binlog=1, innodb_flush_log_at_trx_commit=1),
// and prints a markdown table of TPS and QPS with Petrel/MariaDB ratios. The
// table is also written to bench/out/sysbench-<date>.md.
//
// Each server is started, loaded once (sysbench prepare), run through every
// workload and thread count, cleaned up and stopped before the next server
// starts, so the two never compete for the CPU.
//
// Settings come from flags, whose defaults come from the environment
// variables named in their help (so bench/sysbench.sh can be driven by
// WORKLOADS=... THREADS=... DURATION=... SERVERS=...).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"petrel/bench/internal/benchkit"
	"petrel/lab"
)

const (
	petrelPassword = "petrel"
	benchDB        = "sbtest"
	// stopTimeout bounds the shutdown of one server at the end or on ^C.
	stopTimeout = 3 * time.Minute
)

// defaultMariaDBArgs give MariaDB the durability Petrel promises: every
// commit is fsynced in the binlog and in the InnoDB redo log.
var defaultMariaDBArgs = []string{
	"--log-bin=mysql-bin",
	"--binlog-format=ROW",
	"--sync-binlog=1",
	"--innodb-flush-log-at-trx-commit=1",
	"--innodb-buffer-pool-size=512M",
	"--max-connections=1000",
}

type config struct {
	servers      []string
	workloads    []string
	threads      []int
	duration     time.Duration
	tables       int
	tableSize    int
	outDir       string
	petrelArgs   []string
	mariadbArgs  []string
	sysbenchArgs []string
}

func main() {
	os.Exit(run())
}

func run() int {
	logger := benchkit.NewLogger()
	cfg, err := parseConfig(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "sysbench bench:", err)
		return 2
	}
	if err := benchkit.CheckTools("sysbench"); err != nil {
		fmt.Fprintln(os.Stderr, "sysbench bench:", err)
		return 2
	}

	ctx, stop := benchkit.SignalContext()
	defer stop()

	started := time.Now()
	runs := make(map[string]*serverRun)
	failed := false
	for _, name := range cfg.servers {
		sr := benchServer(ctx, logger, name, cfg)
		runs[name] = sr
		if len(sr.errs) > 0 || sr.fatal != nil {
			failed = true
		}
		if ctx.Err() != nil {
			break
		}
	}

	report := formatReport(cfg, started, runs, ctx.Err() != nil)
	fmt.Println(report)
	if err := writeReport(cfg.outDir, started, report); err != nil {
		logger.Error("write report", "err", err)
		failed = true
	}
	if ctx.Err() != nil {
		logger.Error("interrupted")
		return 130
	}
	if failed {
		return 1
	}
	return 0
}

func parseConfig(args []string) (config, error) {
	fs := flag.NewFlagSet("sysbench", flag.ContinueOnError)
	servers := fs.String("servers", benchkit.EnvOr("SERVERS", "petrel mariadb"), "servers to run, in order: petrel, mariadb ($SERVERS)")
	workloads := fs.String("workloads", benchkit.EnvOr("WORKLOADS", "oltp_point_select oltp_write_only oltp_read_write"), "sysbench OLTP workloads ($WORKLOADS)")
	threads := fs.String("threads", benchkit.EnvOr("THREADS", "4 32"), "thread counts ($THREADS)")
	duration := fs.String("duration", benchkit.EnvOr("DURATION", "20"), "seconds (or a Go duration) per run ($DURATION)")
	tables := fs.Int("tables", benchkit.EnvInt("TABLES", 4), "sysbench --tables ($TABLES)")
	tableSize := fs.Int("table-size", benchkit.EnvInt("TABLE_SIZE", 10000), "sysbench --table-size ($TABLE_SIZE)")
	outDir := fs.String("out", os.Getenv("OUT_DIR"), "report directory; default <module root>/bench/out ($OUT_DIR)")
	petrelArgs := fs.String("petrel-args", os.Getenv("PETREL_ARGS"), "extra petrel server flags ($PETREL_ARGS)")
	mariadbArgs := fs.String("mariadb-args", benchkit.EnvOr("MARIADB_ARGS", strings.Join(defaultMariaDBArgs, " ")), "mariadbd flags ($MARIADB_ARGS)")
	sysbenchArgs := fs.String("sysbench-args", os.Getenv("SYSBENCH_ARGS"), "extra sysbench flags, e.g. --db-ps-mode=disable ($SYSBENCH_ARGS)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}

	cfg := config{
		servers:      benchkit.Fields(*servers),
		workloads:    benchkit.Fields(*workloads),
		tables:       *tables,
		tableSize:    *tableSize,
		outDir:       *outDir,
		petrelArgs:   benchkit.Fields(*petrelArgs),
		mariadbArgs:  benchkit.Fields(*mariadbArgs),
		sysbenchArgs: benchkit.Fields(*sysbenchArgs),
	}
	for _, s := range cfg.servers {
		if s != "petrel" && s != "mariadb" && s != "petrel-nobinlog" {
			return config{}, fmt.Errorf("unknown server %q (want petrel, petrel-nobinlog or mariadb)", s)
		}
	}
	if len(cfg.servers) == 0 || len(cfg.workloads) == 0 {
		return config{}, errors.New("need at least one server and one workload")
	}
	for _, t := range benchkit.Fields(*threads) {
		n, err := strconv.Atoi(t)
		if err != nil || n <= 0 {
			return config{}, fmt.Errorf("bad thread count %q", t)
		}
		cfg.threads = append(cfg.threads, n)
	}
	if len(cfg.threads) == 0 {
		return config{}, errors.New("need at least one thread count")
	}
	d, err := benchkit.ParseDuration(*duration)
	if err != nil {
		return config{}, err
	}
	cfg.duration = d
	if cfg.tables <= 0 || cfg.tableSize <= 0 {
		return config{}, errors.New("tables and table-size must be positive")
	}
	if cfg.outDir == "" {
		dir, err := benchkit.DefaultOutDir()
		if err != nil {
			return config{}, err
		}
		cfg.outDir = dir
	}
	return cfg, nil
}

// runKey identifies one measurement.
type runKey struct {
	workload string
	threads  int
}

// serverRun is what one server produced.
type serverRun struct {
	version string
	results map[runKey]lab.SysbenchResult
	// fsyncsPerCommit is Binlog_group_commits / Binlog_commits over a run
	// (Petrel with its binlog on).
	fsyncsPerCommit map[runKey]float64
	errs            map[runKey]error
	fatal           error // start, prepare or stop failure
	log             string
}

// benchServer starts one server, runs every workload and thread count
// against it, and stops it. Failures are recorded, not returned, so the
// report always shows what was measured.
func benchServer(ctx context.Context, logger *slog.Logger, name string, cfg config) *serverRun {
	sr := &serverRun{results: make(map[runKey]lab.SysbenchResult), errs: make(map[runKey]error), fsyncsPerCommit: make(map[runKey]float64)}
	logger = logger.With("server", name)

	srv, password, cleanup, err := startServer(ctx, logger, name, cfg)
	if err != nil {
		sr.fatal = err
		logger.Error("start failed", "err", err)
		return sr
	}
	defer func() {
		// Stop even if ctx was cancelled by ^C, within its own deadline.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
		defer cancel()
		if err := srv.Stop(sctx); err != nil {
			sr.fatal = errors.Join(sr.fatal, fmt.Errorf("stop: %w", err))
			logger.Error("stop failed", "err", err)
		}
		if sr.fatal != nil {
			sr.log = srv.Log()
		}
		cleanup()
	}()

	if sr.version, err = prepareDB(ctx, srv); err != nil {
		sr.fatal = err
		logger.Error("create database failed", "err", err)
		return sr
	}
	base := lab.SysbenchOptions{
		Port:      srv.Port(),
		Password:  password,
		DB:        benchDB,
		Tables:    cfg.tables,
		TableSize: cfg.tableSize,
		Duration:  cfg.duration,
		ExtraArgs: cfg.sysbenchArgs,
	}

	logger.Info("sysbench prepare", "tables", cfg.tables, "table_size", cfg.tableSize)
	prep := base
	prep.Workload, prep.Command = cfg.workloads[0], "prepare"
	if _, err := lab.RunSysbench(ctx, prep); err != nil {
		sr.fatal = fmt.Errorf("prepare: %w", err)
		logger.Error("prepare failed", "err", err)
		return sr
	}

	for _, w := range cfg.workloads {
		for _, th := range cfg.threads {
			if ctx.Err() != nil {
				return sr
			}
			key := runKey{w, th}
			o := base
			o.Workload, o.Threads = w, th
			c0, g0, statusOK := binlogCounters(ctx, srv)
			res, err := lab.RunSysbench(ctx, o)
			if c1, g1, ok := binlogCounters(ctx, srv); ok && statusOK && c1 > c0 {
				sr.fsyncsPerCommit[key] = float64(g1-g0) / float64(c1-c0)
			}
			if err != nil {
				sr.errs[key] = err
				logger.Error("run failed", "workload", w, "threads", th, "err", err)
				continue
			}
			sr.results[key] = res
			logger.Info("run", "workload", w, "threads", th,
				"tps", res.TPS, "qps", res.QPS, "p95_ms", res.LatencyP95Ms, "ignored_errors", res.IgnoredErrors)
		}
	}

	clean := base
	clean.Workload, clean.Command = cfg.workloads[0], "cleanup"
	if _, err := lab.RunSysbench(ctx, clean); err != nil && ctx.Err() == nil {
		logger.Warn("cleanup failed", "err", err)
	}
	return sr
}

// binlogCounters reads Binlog_commits and Binlog_group_commits (Petrel's
// group-commit counters); ok is false where the server has none.
func binlogCounters(ctx context.Context, srv benchkit.Server) (commits, groups int64, ok bool) {
	db, err := srv.DB("")
	if err != nil {
		return 0, 0, false
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS LIKE 'Binlog_%commits'")
	if err != nil {
		return 0, 0, false
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var name string
		var v int64
		if rows.Scan(&name, &v) != nil {
			continue
		}
		switch name {
		case "Binlog_commits":
			commits, n = v, n+1
		case "Binlog_group_commits":
			groups, n = v, n+1
		}
	}
	return commits, groups, n == 2 && commits > 0
}

// startServer starts the named server on a temporary datadir and returns it
// with its root password and a function that removes what it created.
func startServer(ctx context.Context, logger *slog.Logger, name string, cfg config) (benchkit.Server, string, func(), error) {
	switch name {
	case "petrel", "petrel-nobinlog":
		bin, err := lab.BuildPetrel(ctx)
		if err != nil {
			return nil, "", nil, err
		}
		dir, err := os.MkdirTemp("", "bench-petrel-")
		if err != nil {
			return nil, "", nil, err
		}
		cleanup := func() { os.RemoveAll(dir) }
		logger.Info("starting petrel", "binary", bin, "datadir", dir)
		p, err := lab.StartPetrel(ctx, lab.PetrelOptions{
			Binary:       bin,
			Datadir:      dir,
			ServerID:     1,
			RootPassword: petrelPassword,
			ExtraArgs:    petrelFlags(name, cfg.petrelArgs),
			StartTimeout: 2 * time.Minute,
			StopTimeout:  2 * time.Minute,
			Logger:       logger,
		})
		if err != nil {
			cleanup()
			return nil, "", nil, err
		}
		return p, petrelPassword, cleanup, nil
	case "mariadb":
		logger.Info("starting mariadb", "args", cfg.mariadbArgs)
		m, err := lab.StartMariaDB(ctx, lab.MariaDBOptions{
			ServerID:     1,
			ExtraArgs:    cfg.mariadbArgs,
			StartTimeout: 2 * time.Minute,
			Logger:       logger,
		})
		if err != nil {
			return nil, "", nil, err
		}
		// MariaDB.Stop removes its lab-created datadir itself.
		return m, "", func() {}, nil
	}
	return nil, "", nil, fmt.Errorf("unknown server %q", name)
}

// petrelFlags adds --skip-log-bin for the binlog-off variant.
func petrelFlags(name string, args []string) []string {
	if name == "petrel-nobinlog" {
		return append(append([]string(nil), args...), "--skip-log-bin")
	}
	return args
}

// prepareDB creates the sysbench database and returns the server version.
func prepareDB(ctx context.Context, srv benchkit.Server) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	db, err := srv.DB("")
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+benchDB); err != nil {
		return "", fmt.Errorf("create database %s: %w", benchDB, err)
	}
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return "", fmt.Errorf("select version(): %w", err)
	}
	return version, nil
}

func formatReport(cfg config, started time.Time, runs map[string]*serverRun, interrupted bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# sysbench: Petrel vs MariaDB\n\n")
	fmt.Fprintf(&b, "- Date: %s\n", started.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- Host: %d CPUs, %s/%s; %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, benchkit.ToolVersion("sysbench", "--version"))
	fmt.Fprintf(&b, "- Data: %d tables x %d rows; %v per run; sysbench and the server share the host\n",
		cfg.tables, cfg.tableSize, cfg.duration)
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
	fmt.Fprintf(&b, "- Command: `SERVERS=%q WORKLOADS=%q THREADS=%q DURATION=%d bench/sysbench.sh`\n\n",
		strings.Join(cfg.servers, " "), strings.Join(cfg.workloads, " "), joinInts(cfg.threads), int(cfg.duration/time.Second))

	b.WriteString("| workload | threads | Petrel TPS | MariaDB TPS | Petrel/MariaDB TPS | Petrel QPS | MariaDB QPS | Petrel/MariaDB QPS | Petrel p95 ms | MariaDB p95 ms | Petrel binlog-off TPS | binlog on/off | fsyncs/commit |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, w := range cfg.workloads {
		for _, th := range cfg.threads {
			key := runKey{w, th}
			p, pok := cell(runs["petrel"], key)
			m, mok := cell(runs["mariadb"], key)
			n, nok := cell(runs["petrel-nobinlog"], key)
			fsyncs := "-"
			if sr := runs["petrel"]; sr != nil {
				if f, ok := sr.fsyncsPerCommit[key]; ok {
					fsyncs = fmt.Sprintf("%.3f", f)
				}
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w, th,
				num(p.TPS, pok, p.err), num(m.TPS, mok, m.err), ratio(p.TPS, pok, m.TPS, mok),
				num(p.QPS, pok, p.err), num(m.QPS, mok, m.err), ratio(p.QPS, pok, m.QPS, mok),
				lat(p.LatencyP95Ms, pok, p.err), lat(m.LatencyP95Ms, mok, m.err),
				num(n.TPS, nok, n.err), ratio(p.TPS, pok, n.TPS, nok), fsyncs)
		}
	}

	var notes []string
	if interrupted {
		notes = append(notes, "- interrupted by a signal: figures are incomplete")
	}
	for _, name := range cfg.servers {
		sr := runs[name]
		if sr == nil {
			notes = append(notes, fmt.Sprintf("- %s: not run (interrupted)", name))
			continue
		}
		if sr.fatal != nil {
			notes = append(notes, fmt.Sprintf("- %s: %s", name, benchkit.OneLine(sr.fatal)))
		}
		for _, w := range cfg.workloads {
			for _, th := range cfg.threads {
				key := runKey{w, th}
				if err := sr.errs[key]; err != nil {
					notes = append(notes, fmt.Sprintf("- %s %s threads=%d: %s", name, w, th, benchkit.OneLine(err)))
				}
				if r, ok := sr.results[key]; ok && (r.IgnoredErrors > 0 || r.Reconnects > 0) {
					notes = append(notes, fmt.Sprintf("- %s %s threads=%d: %d ignored errors, %d reconnects",
						name, w, th, r.IgnoredErrors, r.Reconnects))
				}
			}
		}
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

// cellResult is one server's measurement for one row, or why it is missing.
type cellResult struct {
	lab.SysbenchResult
	err error
}

func cell(sr *serverRun, key runKey) (cellResult, bool) {
	if sr == nil {
		return cellResult{}, false
	}
	if r, ok := sr.results[key]; ok {
		return cellResult{SysbenchResult: r}, true
	}
	if err := sr.errs[key]; err != nil {
		return cellResult{err: err}, false
	}
	if sr.fatal != nil {
		return cellResult{err: sr.fatal}, false
	}
	return cellResult{}, false
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

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, " ")
}
