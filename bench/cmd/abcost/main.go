// Command abcost measures what a change costs: several Petrel binaries
// side by side, each on its own temporary datadir and port and idle while
// another is measured, under the same sysbench workloads in interleaved
// rounds. For every run it records TPS and the server's CPU time per
// transaction (/proc/PID/stat over the run); the report gives, for every
// binary against the first (the anchor), the paired per-round ratios'
// median, range and mean with a 95% confidence interval. Pairing runs
// made a minute apart cancels this host's slow drift, which swings a
// single binary's rounds by 10% and more.
//
// Run it through bench/abcost.sh.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"petrel/lab"
	"petrel/lab/benchkit"
)

const (
	password = "abcost"
	benchDB  = "sbtest"
)

type binary struct {
	name, path string
}

type config struct {
	binaries   []binary
	workloads  []string
	threads    []int
	rounds     int
	duration   time.Duration
	settle     time.Duration
	tables     int
	tableSize  int
	petrelArgs []string
	outDir     string
	// together runs every binary's sysbench at the same time (TOGETHER=1)
	// instead of one after another: the host's speed then changes for
	// all of them at once, at the price of their sharing the cores.
	together bool
	// slapQueries is mysqlslap's queries per client, slapIterations its
	// --iterations (SLAP_QUERIES [100], SLAP_ITERATIONS [3]).
	slapQueries, slapIterations int
}

// measurement is one workload at one thread count.
type measurement struct {
	workload string
	threads  int
}

func (m measurement) String() string { return fmt.Sprintf("%s, %d threads", m.workload, m.threads) }

// run is one sysbench run's figures.
type run struct {
	tps      float64
	cpuPerTx float64 // server CPU µs per transaction
}

type server struct {
	bin     binary
	p       *lab.Petrel
	dir     string
	version string
	mu      sync.Mutex
	runs    map[measurement]map[int]run // by round; mu guards it in TOGETHER mode
}

func main() { os.Exit(mainErr()) }

func mainErr() int {
	logger := benchkit.NewLogger()
	cfg, err := parseConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "abcost:", err)
		return 2
	}
	if err := benchkit.CheckTools("sysbench"); err != nil {
		fmt.Fprintln(os.Stderr, "abcost:", err)
		return 2
	}
	ctx, stop := benchkit.SignalContext()
	defer stop()
	started := time.Now()
	report, err := measureAll(ctx, logger, cfg, started)
	if err != nil {
		logger.Error("abcost", "err", err)
		return 1
	}
	fmt.Print(report)
	path := filepath.Join(cfg.outDir, "abcost-"+started.UTC().Format("2006-01-02-150405")+".md")
	if err := benchkit.WriteReport(path, report); err != nil {
		logger.Error("write report", "err", err)
		return 1
	}
	logger.Info("report written", "path", path)
	if ctx.Err() != nil {
		return 1
	}
	return 0
}

// measureAll starts every binary, runs every round and returns the
// report; the servers are stopped and their datadirs removed before it
// returns. An interrupted run (ctx done) reports the rounds that ran.
func measureAll(ctx context.Context, logger *slog.Logger, cfg config, started time.Time) (string, error) {
	var servers []*server
	defer func() {
		for _, s := range servers {
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			_ = s.p.Stop(sctx)
			cancel()
			os.RemoveAll(s.dir)
		}
	}()
	for _, b := range cfg.binaries {
		s, err := startServer(ctx, logger, cfg, b)
		if s != nil {
			servers = append(servers, s)
		}
		if err != nil {
			return "", fmt.Errorf("start %s: %w", b.name, err)
		}
	}
	byName := map[string]*server{}
	names := make([]string, len(servers))
	for i, s := range servers {
		byName[s.bin.name], names[i] = s, s.bin.name
	}
	for r := 1; r <= cfg.rounds && ctx.Err() == nil; r++ {
		order := roundOrder(names, r)
		logger.Info("round", "round", r, "of", cfg.rounds, "order", strings.Join(order, " "))
		for _, m := range cfg.measurements() {
			if cfg.together {
				if err := lab.Sleep(ctx, cfg.settle); err != nil {
					break
				}
				var wg sync.WaitGroup
				for _, name := range order {
					wg.Add(1)
					go func() {
						defer wg.Done()
						byName[name].measureAndRecord(ctx, logger, cfg, m, r)
					}()
				}
				wg.Wait()
				continue
			}
			for _, name := range order {
				if err := lab.Sleep(ctx, cfg.settle); err != nil {
					break
				}
				byName[name].measureAndRecord(ctx, logger, cfg, m, r)
			}
		}
	}
	return formatReport(cfg, started, servers, ctx.Err() != nil), nil
}

func (c config) measurements() []measurement {
	var ms []measurement
	for _, w := range c.workloads {
		for _, t := range c.threads {
			ms = append(ms, measurement{w, t})
		}
	}
	return ms
}

func parseConfig() (config, error) {
	cfg := config{
		workloads:  benchkit.Fields(benchkit.EnvOr("WORKLOADS", "oltp_point_select oltp_read_write")),
		rounds:     benchkit.EnvInt("ROUNDS", 8),
		tables:     benchkit.EnvInt("TABLES", 4),
		tableSize:  benchkit.EnvInt("TABLE_SIZE", 10000),
		petrelArgs: benchkit.Fields(os.Getenv("PETREL_ARGS")),
		together:   os.Getenv("TOGETHER") == "1",

		slapQueries:    benchkit.EnvInt("SLAP_QUERIES", 100),
		slapIterations: benchkit.EnvInt("SLAP_ITERATIONS", 3),
	}
	for _, f := range benchkit.Fields(os.Getenv("BINARIES")) {
		name, path, ok := strings.Cut(f, "=")
		if !ok || name == "" || path == "" {
			return cfg, fmt.Errorf("BINARIES entry %q: want name=path", f)
		}
		for _, b := range cfg.binaries {
			if b.name == name {
				return cfg, fmt.Errorf("BINARIES names %q twice", name)
			}
		}
		cfg.binaries = append(cfg.binaries, binary{name, path})
	}
	if len(cfg.binaries) < 2 {
		return cfg, errors.New("BINARIES needs at least two name=path entries (the first is the anchor)")
	}
	for _, f := range benchkit.Fields(benchkit.EnvOr("THREADS", "4 32")) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("THREADS entry %q: want a positive number", f)
		}
		cfg.threads = append(cfg.threads, n)
	}
	var err error
	if cfg.duration, err = benchkit.ParseDuration(benchkit.EnvOr("DURATION", "8s")); err != nil {
		return cfg, fmt.Errorf("DURATION: %w", err)
	}
	if cfg.settle, err = benchkit.ParseDuration(benchkit.EnvOr("SETTLE", "1s")); err != nil {
		return cfg, fmt.Errorf("SETTLE: %w", err)
	}
	if cfg.rounds < 2 {
		return cfg, errors.New("ROUNDS must be at least 2")
	}
	if cfg.outDir, err = benchkit.OutDir(os.Getenv("OUT_DIR")); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// startServer starts one binary and loads the sysbench tables.
func startServer(ctx context.Context, logger *slog.Logger, cfg config, b binary) (*server, error) {
	dir, err := os.MkdirTemp("", "abcost-"+b.name+"-")
	if err != nil {
		return nil, err
	}
	path := b.path
	if path == "build" {
		if path, err = lab.BuildPetrel(ctx); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	p, err := lab.StartPetrel(ctx, lab.PetrelOptions{
		Binary: path, Datadir: dir, RootPassword: password, ExtraArgs: cfg.petrelArgs,
		StartTimeout: 2 * time.Minute, StopTimeout: 2 * time.Minute, Logger: logger,
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &server{bin: b, p: p, dir: dir, runs: map[measurement]map[int]run{}}
	for _, m := range cfg.measurements() {
		s.runs[m] = map[int]run{}
	}
	db, err := p.DB("")
	if err != nil {
		return s, err
	}
	defer db.Close()
	qctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := db.ExecContext(qctx, "CREATE DATABASE "+benchDB); err != nil {
		return s, err
	}
	if err := db.QueryRowContext(qctx, "SELECT VERSION()").Scan(&s.version); err != nil {
		return s, err
	}
	logger.Info("sysbench prepare", "binary", b.name, "path", path)
	_, err = lab.RunSysbench(ctx, lab.SysbenchOptions{
		Workload: "oltp_read_write", Command: "prepare", Port: p.Port(), Password: password,
		DB: benchDB, Tables: cfg.tables, TableSize: cfg.tableSize,
	})
	return s, err
}

// measureAndRecord runs one measurement and records its result, or logs
// its failure.
func (s *server) measureAndRecord(ctx context.Context, logger *slog.Logger, cfg config, m measurement, r int) {
	res, err := s.measure(ctx, cfg, m)
	if err != nil {
		logger.Error("run failed", "binary", s.bin.name, "measurement", m.String(), "round", r, "err", err)
		return
	}
	s.mu.Lock()
	s.runs[m][r] = res
	s.mu.Unlock()
	logger.Info("run", "binary", s.bin.name, "measurement", m.String(), "round", r,
		"tps", fmt.Sprintf("%.0f", res.tps), "cpu_us_per_txn", fmt.Sprintf("%.1f", res.cpuPerTx))
}

// measure runs one sysbench run and reads the server's CPU around it.
func (s *server) measure(ctx context.Context, cfg config, m measurement) (run, error) {
	c0, err := benchkit.ProcessCPU(s.p.Pid())
	if err != nil {
		return run{}, err
	}
	var tps float64
	var txns int64
	if strings.HasPrefix(m.workload, slapPrefix) {
		// mysqlslap's auto-generated load: a transaction is a query.
		res, err := lab.RunMysqlslap(ctx, lab.MysqlslapOptions{
			Port: s.p.Port(), Password: password, Concurrency: m.threads,
			Queries: cfg.slapQueries * m.threads, Iterations: cfg.slapIterations,
			ExtraArgs: slapArgs(m.workload),
		})
		if err != nil {
			return run{}, err
		}
		tps, txns = res.QPS, int64(res.Queries)*int64(cfg.slapIterations)
	} else {
		res, err := lab.RunSysbench(ctx, lab.SysbenchOptions{
			Workload: m.workload, Port: s.p.Port(), Password: password, DB: benchDB,
			Tables: cfg.tables, TableSize: cfg.tableSize, Threads: m.threads, Duration: cfg.duration,
		})
		if err != nil {
			return run{}, err
		}
		tps, txns = res.TPS, res.Transactions
	}
	c1, err := benchkit.ProcessCPU(s.p.Pid())
	if err != nil {
		return run{}, err
	}
	if txns <= 0 {
		return run{}, fmt.Errorf("no transactions")
	}
	return run{tps: tps, cpuPerTx: float64((c1 - c0).Microseconds()) / float64(txns)}, nil
}

// slapPrefix names mysqlslap's auto-generated load in WORKLOADS:
// "mysqlslap" is the seed's mixed load, "mysqlslap-read" and
// "mysqlslap-write" its other load types.
const slapPrefix = "mysqlslap"

func slapArgs(workload string) []string {
	if t, ok := strings.CutPrefix(workload, slapPrefix+"-"); ok {
		return []string{"--auto-generate-sql-load-type=" + t}
	}
	return nil
}
