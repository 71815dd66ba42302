// Command sysbench runs sysbench 1.0 OLTP workloads against Petrel and
// against a MariaDB 10.11 anchor started on a temporary datadir with equal
// durability (binlog on, sync_binlog=1, innodb_flush_log_at_trx_commit=1),
// and prints a markdown table of TPS and QPS with Petrel/MariaDB ratios. The
// table is also written to bench/out/sysbench-<date>.md.
//
// Every server is started and loaded (sysbench prepare) first, one after
// the other. They then all stay up side by side for the whole measurement,
// but only one is under load at a time while the others sit idle. The runs
// are interleaved so that the host's speed, which drifts over minutes,
// weighs on every server alike: in each of ROUNDS rounds, for each workload
// and thread count, every server gets one run in turn, in SERVERS order on
// odd rounds and in reverse order on even ones, and every run is preceded
// by a SETTLE pause in which the background work (compactions) of the
// previous run can settle. The table shows means over the rounds; a second
// table shows each round's TPS, so the spread is visible. At the end the
// sysbench tables are dropped and every server is stopped.
//
// Settings come from flags, whose defaults come from the environment
// variables named in their help (so bench/sysbench.sh can be driven by
// WORKLOADS=... THREADS=... DURATION=... SERVERS=... ROUNDS=... SETTLE=...).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
	"petrel/lab/benchkit"
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
	servers   []string
	workloads []string
	threads   []int
	duration  time.Duration
	// rounds is how many times every run is repeated (>= 1).
	rounds int
	// settle is the pause before every run (0: none).
	settle       time.Duration
	tables       int
	tableSize    int
	outDir       string
	petrelArgs   []string
	mariadbArgs  []string
	sysbenchArgs []string
	// extra are measurements beyond workloads x threads (RUNS): a client
	// curve, or "mysqlslap" runs whose thread count is its --concurrency.
	extra []runKey
	// maxConnections, when set, is SET GLOBAL on every server at start.
	maxConnections int
	// slapQueries is mysqlslap's --number-of-queries per client.
	slapQueries int
}

// slapWorkload names mysqlslap's auto-generated load in RUNS.
const slapWorkload = "mysqlslap"

// measurements lists every measurement in run order: workloads x
// threads, then the extra ones not already listed.
func (c config) measurements() []runKey {
	var out []runKey
	for _, w := range c.workloads {
		for _, th := range c.threads {
			out = append(out, runKey{w, th})
		}
	}
	for _, k := range c.extra {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// sysbenchWorkload is the workload whose prepare and cleanup make and
// drop the sysbench tables ("" if only mysqlslap runs).
func (c config) sysbenchWorkload() string {
	for _, k := range c.measurements() {
		if k.workload != slapWorkload {
			return k.workload
		}
	}
	return ""
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
	tools := []string{"sysbench"}
	if slices.ContainsFunc(cfg.measurements(), func(k runKey) bool { return k.workload == slapWorkload }) {
		tools = append(tools, "mariadb-slap")
	}
	if err := benchkit.CheckTools(tools...); err != nil {
		fmt.Fprintln(os.Stderr, "sysbench bench:", err)
		return 2
	}

	ctx, stop := benchkit.SignalContext()
	defer stop()

	started := time.Now()
	runs := make(map[string]*serverRun)
	for _, name := range cfg.servers {
		runs[name] = startBench(ctx, logger, name, cfg)
		if ctx.Err() != nil {
			break
		}
	}
	measure(ctx, logger, cfg, runs)
	failed := false
	for _, name := range cfg.servers {
		sr := runs[name]
		if sr == nil {
			continue
		}
		sr.finish(ctx, cfg)
		if len(sr.errs) > 0 || sr.fatal != nil {
			failed = true
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
	rounds := fs.Int("rounds", benchkit.EnvInt("ROUNDS", 2), "repetitions of every run, server order reversed on even rounds ($ROUNDS)")
	settle := fs.String("settle", benchkit.EnvOr("SETTLE", "5s"), "pause before every run, seconds or a Go duration; 0 for none ($SETTLE)")
	tables := fs.Int("tables", benchkit.EnvInt("TABLES", 4), "sysbench --tables ($TABLES)")
	tableSize := fs.Int("table-size", benchkit.EnvInt("TABLE_SIZE", 10000), "sysbench --table-size ($TABLE_SIZE)")
	outDir := fs.String("out", os.Getenv("OUT_DIR"), "report directory; default <module root>/bench/out ($OUT_DIR)")
	petrelArgs := fs.String("petrel-args", os.Getenv("PETREL_ARGS"), "extra petrel server flags ($PETREL_ARGS)")
	mariadbArgs := fs.String("mariadb-args", benchkit.EnvOr("MARIADB_ARGS", strings.Join(defaultMariaDBArgs, " ")), "mariadbd flags ($MARIADB_ARGS)")
	sysbenchArgs := fs.String("sysbench-args", os.Getenv("SYSBENCH_ARGS"), "extra sysbench flags, e.g. --db-ps-mode=disable ($SYSBENCH_ARGS)")
	extra := fs.String("runs", os.Getenv("RUNS"), "more measurements, workload:threads,threads... e.g. \"mysqlslap:10,50 oltp_read_write:1,100\" (mysqlslap's threads are its --concurrency) ($RUNS)")
	maxConns := fs.Int("max-connections", benchkit.EnvInt("MAX_CONNECTIONS", 0), "SET GLOBAL max_connections on every server; 0 leaves it ($MAX_CONNECTIONS)")
	slapQueries := fs.Int("slap-queries", benchkit.EnvInt("SLAP_QUERIES", 100), "mysqlslap --number-of-queries per client ($SLAP_QUERIES)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}

	cfg := config{
		servers:        benchkit.Fields(*servers),
		workloads:      benchkit.Fields(*workloads),
		rounds:         *rounds,
		tables:         *tables,
		tableSize:      *tableSize,
		outDir:         *outDir,
		petrelArgs:     benchkit.Fields(*petrelArgs),
		mariadbArgs:    benchkit.Fields(*mariadbArgs),
		sysbenchArgs:   strings.Fields(*sysbenchArgs), // spaces only: sysbench lists take commas
		maxConnections: *maxConns,
		slapQueries:    *slapQueries,
	}
	for _, f := range strings.Fields(*extra) {
		w, list, ok := strings.Cut(f, ":")
		if !ok || w == "" {
			return config{}, fmt.Errorf("bad run %q (want workload:threads,threads...)", f)
		}
		for _, t := range strings.Split(list, ",") {
			n, err := strconv.Atoi(t)
			if err != nil || n <= 0 {
				return config{}, fmt.Errorf("bad thread count %q in run %q", t, f)
			}
			cfg.extra = append(cfg.extra, runKey{w, n})
		}
	}
	if cfg.slapQueries <= 0 {
		return config{}, fmt.Errorf("slap-queries must be positive, not %d", cfg.slapQueries)
	}
	for _, s := range cfg.servers {
		if s != "petrel" && s != "mariadb" && s != "petrel-nobinlog" {
			return config{}, fmt.Errorf("unknown server %q (want petrel, petrel-nobinlog or mariadb)", s)
		}
	}
	if len(cfg.servers) == 0 || len(cfg.workloads)+len(cfg.extra) == 0 {
		return config{}, errors.New("need at least one server and one workload")
	}
	for _, w := range cfg.workloads {
		if w == slapWorkload {
			return config{}, errors.New("mysqlslap goes in RUNS (mysqlslap:concurrency,...), not WORKLOADS")
		}
	}
	for i, s := range cfg.servers {
		if slices.Contains(cfg.servers[:i], s) {
			return config{}, fmt.Errorf("server %q listed twice", s)
		}
	}
	for _, t := range benchkit.Fields(*threads) {
		n, err := strconv.Atoi(t)
		if err != nil || n <= 0 {
			return config{}, fmt.Errorf("bad thread count %q", t)
		}
		cfg.threads = append(cfg.threads, n)
	}
	if len(cfg.threads) == 0 && len(cfg.workloads) > 0 {
		return config{}, errors.New("need at least one thread count")
	}
	d, err := benchkit.ParseDuration(*duration)
	if err != nil {
		return config{}, err
	}
	cfg.duration = d
	if cfg.rounds < 1 {
		return config{}, fmt.Errorf("rounds must be at least 1, not %d", cfg.rounds)
	}
	if cfg.settle, err = parseSettle(*settle); err != nil {
		return config{}, err
	}
	if cfg.tables <= 0 || cfg.tableSize <= 0 {
		return config{}, errors.New("tables and table-size must be positive")
	}
	if cfg.outDir, err = benchkit.OutDir(cfg.outDir); err != nil {
		return config{}, err
	}
	return cfg, nil
}

// parseSettle is benchkit.ParseDuration that also accepts a zero pause
// ("0", "0s").
func parseSettle(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil && d == 0 {
		return 0, nil
	}
	d, err := benchkit.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("settle: %w", err)
	}
	return d, nil
}

// runKey identifies one measurement.
type runKey struct {
	workload string
	threads  int
}

// roundKey is one round's run of a measurement.
type roundKey struct {
	runKey
	round int
}

// serverRun is one server of the benchmark and what it produced.
type serverRun struct {
	logger  *slog.Logger
	srv     benchkit.Server // nil if it did not start
	cleanup func()          // removes what startServer created
	base    lab.SysbenchOptions
	version string
	results map[roundKey]lab.SysbenchResult
	errs    map[roundKey]error
	// commits and groups sum the Binlog_commits and Binlog_group_commits
	// deltas of a measurement's runs over all rounds (Petrel with its
	// binlog on): fsyncs per commit is groups/commits.
	commits map[runKey]int64
	groups  map[runKey]int64
	fatal   error // start, prepare or stop failure
	log     string
}

// startBench starts one server, creates its database and loads the
// sysbench tables. Failures are recorded, not returned, so the report
// always shows what was measured; a server that started is left running
// for finish to stop.
func startBench(ctx context.Context, logger *slog.Logger, name string, cfg config) *serverRun {
	sr := &serverRun{
		logger:  logger.With("server", name),
		results: make(map[roundKey]lab.SysbenchResult),
		errs:    make(map[roundKey]error),
		commits: make(map[runKey]int64),
		groups:  make(map[runKey]int64),
	}
	srv, password, cleanup, err := startServer(ctx, sr.logger, name, cfg)
	if err != nil {
		sr.fatal = err
		sr.logger.Error("start failed", "err", err)
		return sr
	}
	sr.srv, sr.cleanup = srv, cleanup

	if sr.version, err = prepareDB(ctx, srv); err != nil {
		sr.fatal = err
		sr.logger.Error("create database failed", "err", err)
		return sr
	}
	sr.base = lab.SysbenchOptions{
		Port:      srv.Port(),
		Password:  password,
		DB:        benchDB,
		Tables:    cfg.tables,
		TableSize: cfg.tableSize,
		Duration:  cfg.duration,
		ExtraArgs: cfg.sysbenchArgs,
	}

	if cfg.maxConnections > 0 {
		if err := setMaxConnections(ctx, srv, cfg.maxConnections); err != nil {
			sr.fatal = err
			sr.logger.Error("max_connections", "err", err)
			return sr
		}
	}
	if cfg.sysbenchWorkload() == "" {
		return sr
	}
	sr.logger.Info("sysbench prepare", "tables", cfg.tables, "table_size", cfg.tableSize)
	prep := sr.base
	prep.Workload, prep.Command = cfg.sysbenchWorkload(), "prepare"
	if _, err := lab.RunSysbench(ctx, prep); err != nil {
		sr.fatal = fmt.Errorf("prepare: %w", err)
		sr.logger.Error("prepare failed", "err", err)
	}
	return sr
}

// ready reports whether the server started and was loaded.
func (sr *serverRun) ready() bool {
	return sr != nil && sr.srv != nil && sr.fatal == nil
}

// measure runs every workload and thread count against every ready
// server, cfg.rounds times: within a round, each measurement runs on the
// servers one after the other (serverOrder), each run after a settle
// pause, so the servers are measured minutes apart at most. It returns
// early only when ctx is done.
func measure(ctx context.Context, logger *slog.Logger, cfg config, runs map[string]*serverRun) {
	for round := 1; round <= cfg.rounds; round++ {
		order := serverOrder(cfg.servers, round)
		logger.Info("round", "round", round, "of", cfg.rounds, "order", strings.Join(order, " "))
		for _, key := range cfg.measurements() {
			for _, name := range order {
				sr := runs[name]
				if !sr.ready() {
					continue
				}
				if err := lab.Sleep(ctx, cfg.settle); err != nil {
					return
				}
				sr.runOnce(ctx, cfg, key, round)
			}
		}
	}
}

// serverOrder is the order the servers run in within a round: as listed
// on odd rounds, reversed on even ones, so neither always goes first.
func serverOrder(servers []string, round int) []string {
	order := slices.Clone(servers)
	if round%2 == 0 {
		slices.Reverse(order)
	}
	return order
}

// runOnce runs one measurement's round against the server and records
// its result or error, and its binlog commit counters.
func (sr *serverRun) runOnce(ctx context.Context, cfg config, key runKey, round int) {
	rk := roundKey{key, round}
	c0, g0, statusOK := binlogCounters(ctx, sr.srv)
	var res lab.SysbenchResult
	var err error
	if key.workload == slapWorkload {
		res, err = sr.runSlap(ctx, cfg, key.threads)
	} else {
		o := sr.base
		o.Workload, o.Threads = key.workload, key.threads
		res, err = lab.RunSysbench(ctx, o)
	}
	if c1, g1, ok := binlogCounters(ctx, sr.srv); ok && statusOK && c1 > c0 {
		sr.commits[key] += c1 - c0
		sr.groups[key] += g1 - g0
	}
	if err != nil {
		sr.errs[rk] = err
		sr.logger.Error("run failed", "workload", key.workload, "threads", key.threads, "round", round, "err", err)
		return
	}
	sr.results[rk] = res
	sr.logger.Info("run", "workload", key.workload, "threads", key.threads, "round", round,
		"tps", res.TPS, "qps", res.QPS, "p95_ms", res.LatencyP95Ms, "ignored_errors", res.IgnoredErrors)
}

// runSlap runs mysqlslap's auto-generated load at the given concurrency
// and reports it as a sysbench result: a transaction is a query, TPS and
// QPS are queries over the seconds mysqlslap took to run them all, and
// the average latency is those seconds (no p95: mysqlslap has none).
func (sr *serverRun) runSlap(ctx context.Context, cfg config, concurrency int) (lab.SysbenchResult, error) {
	r, err := lab.RunMysqlslap(ctx, lab.MysqlslapOptions{
		Port:        sr.base.Port,
		Password:    sr.base.Password,
		Concurrency: concurrency,
		Queries:     cfg.slapQueries * concurrency,
	})
	if err != nil {
		return lab.SysbenchResult{}, err
	}
	return lab.SysbenchResult{
		Transactions: int64(r.Queries), Queries: int64(r.Queries),
		TPS: r.QPS, QPS: r.QPS, LatencyAvgMs: r.AvgSeconds * 1000,
		Output: r.Output,
	}, nil
}

// setMaxConnections raises max_connections (the client curve's 3000
// threads need it on both servers) and checks the server took it.
func setMaxConnections(ctx context.Context, srv benchkit.Server, n int) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	db, err := srv.DB("")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, fmt.Sprintf("SET GLOBAL max_connections = %d", n)); err != nil {
		return fmt.Errorf("set max_connections: %w", err)
	}
	var got int
	if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL.max_connections").Scan(&got); err != nil {
		return fmt.Errorf("read max_connections: %w", err)
	}
	if got != n {
		return fmt.Errorf("max_connections is %d after SET GLOBAL max_connections = %d", got, n)
	}
	// sysbench prepares its statements on every connection: thousands of
	// clients pass MariaDB's and MySQL's default max_prepared_stmt_count
	// (16382; error 1461). A server without the variable has no such
	// limit.
	var me *mysql.MySQLError
	if _, err := db.ExecContext(ctx, fmt.Sprintf("SET GLOBAL max_prepared_stmt_count = %d", maxPreparedStmts)); err != nil &&
		!(errors.As(err, &me) && me.Number == 1193) {
		return fmt.Errorf("set max_prepared_stmt_count: %w", err)
	}
	return nil
}

// maxPreparedStmts is the max_prepared_stmt_count the client curve sets
// (within MySQL 8's maximum, 4194304).
const maxPreparedStmts = 1 << 20

// finish drops the sysbench tables and stops the server, within
// stopTimeout even if ctx was cancelled by ^C, then removes its datadir.
func (sr *serverRun) finish(ctx context.Context, cfg config) {
	if sr.srv == nil {
		return
	}
	if sr.fatal == nil && ctx.Err() == nil && cfg.sysbenchWorkload() != "" {
		clean := sr.base
		clean.Workload, clean.Command = cfg.sysbenchWorkload(), "cleanup"
		if _, err := lab.RunSysbench(ctx, clean); err != nil && ctx.Err() == nil {
			sr.logger.Warn("cleanup failed", "err", err)
		}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
	defer cancel()
	if err := sr.srv.Stop(sctx); err != nil {
		sr.fatal = errors.Join(sr.fatal, fmt.Errorf("stop: %w", err))
		sr.logger.Error("stop failed", "err", err)
	}
	if sr.fatal != nil {
		sr.log = sr.srv.Log()
	}
	sr.cleanup()
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

// roundResults returns the successful runs of a measurement, by round.
func (sr *serverRun) roundResults(key runKey, rounds int) []lab.SysbenchResult {
	var rs []lab.SysbenchResult
	for round := 1; round <= rounds; round++ {
		if r, ok := sr.results[roundKey{key, round}]; ok {
			rs = append(rs, r)
		}
	}
	return rs
}

// meanResult averages the rates and latencies of runs (TPS, QPS, average
// and p95 latency) and sums their counts (transactions, queries, ignored
// errors, reconnects). Output is left empty.
func meanResult(rs []lab.SysbenchResult) lab.SysbenchResult {
	var m lab.SysbenchResult
	if len(rs) == 0 {
		return m
	}
	for _, r := range rs {
		m.Transactions += r.Transactions
		m.Queries += r.Queries
		m.IgnoredErrors += r.IgnoredErrors
		m.Reconnects += r.Reconnects
		m.TPS += r.TPS
		m.QPS += r.QPS
		m.LatencyAvgMs += r.LatencyAvgMs
		m.LatencyP95Ms += r.LatencyP95Ms
	}
	n := float64(len(rs))
	m.TPS /= n
	m.QPS /= n
	m.LatencyAvgMs /= n
	m.LatencyP95Ms /= n
	return m
}

// cellResult is one server's measurement for one row, or why it is missing.
type cellResult struct {
	lab.SysbenchResult
	err error
}

// cell is a measurement's mean over the rounds that succeeded; without
// any, the first round's error, or the server's.
func cell(sr *serverRun, key runKey, rounds int) (cellResult, bool) {
	if sr == nil {
		return cellResult{}, false
	}
	if rs := sr.roundResults(key, rounds); len(rs) > 0 {
		return cellResult{SysbenchResult: meanResult(rs)}, true
	}
	for round := 1; round <= rounds; round++ {
		if err := sr.errs[roundKey{key, round}]; err != nil {
			return cellResult{err: err}, false
		}
	}
	if sr.fatal != nil {
		return cellResult{err: sr.fatal}, false
	}
	return cellResult{}, false
}

// roundCell is one round's run of a measurement, or why it is missing.
func roundCell(sr *serverRun, rk roundKey) (cellResult, bool) {
	if sr == nil {
		return cellResult{}, false
	}
	if r, ok := sr.results[rk]; ok {
		return cellResult{SysbenchResult: r}, true
	}
	if err := sr.errs[rk]; err != nil {
		return cellResult{err: err}, false
	}
	if sr.fatal != nil {
		return cellResult{err: sr.fatal}, false
	}
	return cellResult{}, false
}
