// Command repl measures replication for Petrel and for a MariaDB 10.11
// anchor in the same run, and writes a markdown report to
// bench/out/repl-<date>.md. bench/replication.sh builds and runs it.
//
// For each system it starts a primary and one replica on temporary datadirs
// and free loopback ports, wires replication, loads the sysbench tables
// through it, and measures:
//
//  1. Lag under load: sysbench oltp_write_only at full rate against the
//     primary, while the primary's transaction counter and the replica's
//     applied counter are sampled. Lag at a replica sample is the age of
//     the oldest transaction the replica has not applied: the sample's time
//     minus the time the primary's counter first reached the replica's
//     counter + 1 (0 when the replica holds all the primary had). The
//     primary is sampled more often than the replica, so that time is known
//     to within one primary interval.
//  2. Catch-up: the replica's applier alone is stopped (the receiver keeps
//     fetching), the same load runs, then the applier is started and timed
//     until it has applied everything: apply rate / production rate. With
//     CATCHUP_RATE (default half) the primary keeps producing meanwhile at
//     a fixed sysbench --rate, half the rate it reached while the applier
//     was stopped, and the catch-up ends when the replica's lag is under
//     1 s, as in the seed's experiment, whose source never stopped.
//
// After each phase every sbtest table is compared between primary and
// replica by digest; a difference fails the run loudly (exit 1, FAILED at
// the top of the report) and ends that system's measurements.
//
// Counters: Petrel (MySQL GTIDs) uses the GNO of the primary's server_uuid
// in @@GLOBAL.gtid_executed on both servers; MariaDB the sequence number of
// @@gtid_binlog_pos on the primary and of @@gtid_slave_pos on the replica.
//
// The systems run one after the other, never at once: on a 2-core host
// they would compete for the CPU. Settings come from flags whose defaults
// come from the environment variables named in their help.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"petrel/lab/benchkit"
)

// Options configures one benchmark run.
type Options struct {
	// Systems to measure, in order: "petrel", "mariadb". Default: both.
	Systems []string
	// Phases to run: "lag", "catchup". Default: both.
	Phases []string
	// Workload is the sysbench test used for both phases. Default: oltp_write_only.
	Workload string
	// Tables and TableSize are sysbench --tables / --table-size. Default: 4 x 10000.
	Tables, TableSize int
	// Threads is sysbench --threads. Default: 4.
	Threads int
	// LagThreads is sysbench --threads in the lag phase (the issue's
	// figure: 32). Default: Threads.
	LagThreads int
	// CatchupRate is the primary's production while the applier catches
	// up: half the rate measured while it was stopped (the seed's source
	// never stopped), a fixed rate, or none. Default: half.
	CatchupRate catchupRate
	// LagLoad is how long the load of the lag phase runs. Default: 30s.
	LagLoad time.Duration
	// CatchupLoad is how long the load runs while the applier is stopped. Default: 60s.
	CatchupLoad time.Duration
	// PrimarySample is the primary counter's sampling interval; it bounds
	// the error of "when the primary reached N". Default: 20ms.
	PrimarySample time.Duration
	// ReplicaSample is the interval of lag samples. Default: 100ms.
	ReplicaSample time.Duration
	// WaitTimeout bounds each wait for the replica (caught up, received,
	// threads running). Default: 10m.
	WaitTimeout time.Duration
	// OutDir receives the report. Default: <module root>/bench/out.
	OutDir string
	// PetrelArgs are extra petrel server flags, for both servers. Default: none.
	PetrelArgs []string
	// MariaDBArgs are the MariaDB primary's flags. Default: defaultMariaDBArgs.
	MariaDBArgs []string
	// MariaDBReplicaArgs are the MariaDB replica's flags. Default: defaultMariaDBReplicaArgs.
	MariaDBReplicaArgs []string
	// SysbenchArgs are extra sysbench flags. Default: none.
	SysbenchArgs []string
}

// defaultMariaDBArgs give the MariaDB primary the durability Petrel
// promises (the same flags as bench/sysbench.sh): every commit is fsynced
// in the binlog and in the InnoDB redo log.
var defaultMariaDBArgs = []string{
	"--log-bin=mysql-bin",
	"--binlog-format=ROW",
	"--sync-binlog=1",
	"--innodb-flush-log-at-trx-commit=1",
	"--innodb-buffer-pool-size=512M",
	"--max-connections=1000",
}

// defaultMariaDBReplicaArgs make the MariaDB replica do what a Petrel
// replica does: log what it applies (log_replica_updates is on in Petrel)
// with the same durability, on one applier thread.
var defaultMariaDBReplicaArgs = []string{
	"--log-bin=mysql-bin",
	"--binlog-format=ROW",
	"--log-slave-updates",
	"--sync-binlog=1",
	"--innodb-flush-log-at-trx-commit=1",
	"--innodb-buffer-pool-size=512M",
	"--relay-log=relay-bin",
	"--slave-parallel-threads=0",
}

func main() {
	os.Exit(run())
}

func run() int {
	logger := benchkit.NewLogger()
	o, err := parseOptions(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "repl bench:", err)
		return 2
	}
	if err := benchkit.CheckTools("sysbench"); err != nil {
		fmt.Fprintln(os.Stderr, "repl bench:", err)
		return 2
	}

	ctx, stop := benchkit.SignalContext()
	defer stop()

	started := time.Now()
	return benchkit.Systems[*systemResult]{
		Systems: o.Systems,
		Bench: func(ctx context.Context, logger *slog.Logger, system string) *systemResult {
			return benchSystem(ctx, logger, system, o)
		},
		Err: func(r *systemResult) error {
			if r == nil {
				return nil
			}
			return r.err
		},
		Report: func(results map[string]*systemResult, interrupted bool) string {
			return formatReport(o, started, results, interrupted)
		},
		Write: func(report string) error { return writeReport(o.OutDir, started, report) },
	}.Run(ctx, logger)
}

func parseOptions(args []string) (Options, error) {
	fs := flag.NewFlagSet("repl", flag.ContinueOnError)
	systems := fs.String("systems", benchkit.EnvOr("SYSTEMS", "petrel mariadb"), "systems to measure, in order: petrel, mariadb, each optionally with an applier configuration (petrel/w8, mariadb/optimistic-8; variant.go) ($SYSTEMS)")
	phases := fs.String("phases", benchkit.EnvOr("PHASES", "lag catchup"), "phases to run: lag, catchup ($PHASES)")
	threads := fs.Int("threads", benchkit.EnvInt("THREADS", 4), "sysbench --threads ($THREADS)")
	lagThreads := fs.Int("lag-threads", benchkit.EnvInt("LAG_THREADS", 0), "sysbench --threads in the lag phase; default --threads ($LAG_THREADS)")
	catchupRateFlag := fs.String("catchup-rate", benchkit.EnvOr("CATCHUP_RATE", "half"), "primary's production during the catch-up: half (of the rate while the applier was stopped), off, or transactions/s ($CATCHUP_RATE)")
	tables := fs.Int("tables", benchkit.EnvInt("TABLES", 4), "sysbench --tables ($TABLES)")
	tableSize := fs.Int("table-size", benchkit.EnvInt("TABLE_SIZE", 10000), "sysbench --table-size ($TABLE_SIZE)")
	lagLoad := fs.String("lag-duration", benchkit.EnvOr("LAG_DURATION", "30"), "load of the lag phase, seconds or a Go duration ($LAG_DURATION)")
	catchupLoad := fs.String("catchup-duration", benchkit.EnvOr("CATCHUP_DURATION", "60"), "load while the applier is stopped, seconds or a Go duration ($CATCHUP_DURATION)")
	waitTimeout := fs.String("wait-timeout", benchkit.EnvOr("WAIT_TIMEOUT", "10m"), "bound on each wait for the replica ($WAIT_TIMEOUT)")
	outDir := fs.String("out", os.Getenv("OUT_DIR"), "report directory; default <module root>/bench/out ($OUT_DIR)")
	petrelArgs := fs.String("petrel-args", os.Getenv("PETREL_ARGS"), "extra petrel server flags ($PETREL_ARGS)")
	mariadbArgs := fs.String("mariadb-args", benchkit.EnvOr("MARIADB_ARGS", strings.Join(defaultMariaDBArgs, " ")), "MariaDB primary flags ($MARIADB_ARGS)")
	mariadbReplicaArgs := fs.String("mariadb-replica-args", benchkit.EnvOr("MARIADB_REPLICA_ARGS", strings.Join(defaultMariaDBReplicaArgs, " ")), "MariaDB replica flags ($MARIADB_REPLICA_ARGS)")
	sysbenchArgs := fs.String("sysbench-args", os.Getenv("SYSBENCH_ARGS"), "extra sysbench flags ($SYSBENCH_ARGS)")
	if err := fs.Parse(args); err != nil {
		return Options{}, err
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	o := Options{
		Systems:            benchkit.Fields(*systems),
		Phases:             benchkit.Fields(*phases),
		Workload:           "oltp_write_only",
		Tables:             *tables,
		TableSize:          *tableSize,
		Threads:            *threads,
		LagThreads:         *lagThreads,
		PrimarySample:      20 * time.Millisecond,
		ReplicaSample:      100 * time.Millisecond,
		OutDir:             *outDir,
		PetrelArgs:         benchkit.Fields(*petrelArgs),
		MariaDBArgs:        benchkit.Fields(*mariadbArgs),
		MariaDBReplicaArgs: benchkit.Fields(*mariadbReplicaArgs),
		SysbenchArgs:       benchkit.Fields(*sysbenchArgs),
	}
	var err error
	if o.LagLoad, err = benchkit.ParseDuration(*lagLoad); err != nil {
		return Options{}, err
	}
	if o.CatchupLoad, err = benchkit.ParseDuration(*catchupLoad); err != nil {
		return Options{}, err
	}
	if o.WaitTimeout, err = benchkit.ParseDuration(*waitTimeout); err != nil {
		return Options{}, err
	}
	if o.CatchupRate, err = parseCatchupRate(*catchupRateFlag); err != nil {
		return Options{}, err
	}
	if o.LagThreads <= 0 {
		o.LagThreads = o.Threads
	}
	return o, o.validate()
}

func (o *Options) validate() error {
	if len(o.Systems) == 0 {
		return errors.New("need at least one system")
	}
	for _, s := range o.Systems {
		if _, err := variantSetup(s); err != nil {
			return err
		}
		if _, err := replicaVariables(s); err != nil {
			return err
		}
		if b, _ := splitSystem(s); b != "petrel" && b != "mariadb" {
			return fmt.Errorf("unknown system %q (want petrel or mariadb)", s)
		}
	}
	for _, ph := range o.Phases {
		if ph != "lag" && ph != "catchup" {
			return fmt.Errorf("unknown phase %q (want lag, catchup)", ph)
		}
	}
	if o.Tables <= 0 || o.TableSize <= 0 || o.Threads <= 0 {
		return errors.New("tables, table-size and threads must be positive")
	}
	var err error
	o.OutDir, err = benchkit.OutDir(o.OutDir)
	return err
}

func (o *Options) phase(name string) bool {
	for _, p := range o.Phases {
		if p == name {
			return true
		}
	}
	return false
}

// systemResult is what one system produced. Measurements missing after a
// failure stay nil; err says why.
type systemResult struct {
	version string
	build   string // which petrel binary was measured
	lag     *lagResult
	catchup *catchupResult
	checks  []digestCheck
	cpu     cpuUse
	err     error
	log     string // servers' output tails, kept on failure
}

// benchSystem runs both phases for one system. Failures are recorded in
// the result, not returned, so the report always shows what was measured.
func benchSystem(ctx context.Context, logger *slog.Logger, system string, o Options) *systemResult {
	res := &systemResult{}
	p, err := startPair(ctx, logger, system, o)
	defer func() {
		if res.err != nil {
			res.log = p.logs()
		}
		if err := p.close(ctx); err != nil {
			res.err = errors.Join(res.err, err)
		}
	}()
	res.version = p.version
	if b, _ := splitSystem(system); b == "petrel" {
		res.build = benchkit.PetrelBuild()
	}
	if err != nil {
		res.err = err
		return res
	}
	if err := p.load(ctx, logger, o); err != nil {
		res.err = err
		return res
	}

	cpu0 := readCPU()
	defer func() { res.cpu = readCPU().since(cpu0) }()

	if o.phase("lag") {
		logger.Info("lag phase", "load", o.LagLoad, "threads", o.LagThreads)
		if res.lag, err = measureLag(ctx, p, o); err != nil {
			res.err = fmt.Errorf("lag phase: %w", err)
			return res
		}
		logger.Info("lag", "tps", res.lag.tps, "max", res.lag.max, "p99", res.lag.p99, "mean", res.lag.mean)
		if res.err = res.check(ctx, p, "after the lag phase"); res.err != nil {
			return res
		}
	}
	if !o.phase("catchup") {
		return res
	}

	logger.Info("catch-up phase", "load", o.CatchupLoad, "rate", o.CatchupRate)
	if res.catchup, err = measureCatchup(ctx, p, o); err != nil {
		res.err = fmt.Errorf("catch-up phase: %w", err)
		return res
	}
	logger.Info("catch-up", "txns", res.catchup.txns, "produce_tps", res.catchup.produceRate,
		"apply_tps", res.catchup.applyRate(), "took", res.catchup.took, "catchup_produce_tps", res.catchup.catchupProduce,
		"replica_cpu", res.catchup.replicaCPU)
	res.err = res.check(ctx, p, "after the catch-up phase")
	return res
}

// check compares every sbtest table of primary and replica and records the
// outcome; a difference is the returned error.
func (r *systemResult) check(ctx context.Context, p *pair, when string) error {
	c, err := compareTables(ctx, p.pdb, p.rdb, benchDB)
	c.when = when
	r.checks = append(r.checks, c)
	if err != nil {
		return fmt.Errorf("row check %s: %w", when, err)
	}
	return nil
}
