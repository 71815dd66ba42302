// Command semisync measures semi-synchronous replication for Petrel and
// for a MariaDB 10.11 anchor in the same run, and writes a markdown report
// to bench/out/semisync-<date>.md. bench/semisync.sh runs it.
//
// For each system it starts a primary and one replica on temporary
// datadirs and free loopback ports, with the replica connected to the
// primary through a lab.Link (a userspace TCP proxy; the kernel has no
// netem), semi-sync enabled on both sides (Petrel through its config
// files, MariaDB through its built-in plugin's flags), and measures:
//
//  1. The seed tutorial's WAN experiment: mariadb-slap --auto-generate-sql
//     --concurrency=10 --number-of-queries=1000 against the primary, async
//     and semi-sync, with no added latency and with the link adding RTT
//     (default 90 ms). The write commits of the timed phase are counted
//     (the primary's Binlog_commits, read by mariadb-slap's --pre-system
//     and --post-system hooks, which run just outside its timer), so the
//     "RTT bound" (commits per client x RTT) is measured, not assumed.
//  2. sysbench oltp_write_only on loopback at 1 and 32 threads, async and
//     semi-sync, first with sync_binlog=1 ("local durability"), then with
//     sync_binlog=0 (semi-sync alone: "network durability"; async
//     sync_binlog=0 as a reference). Whether SET GLOBAL sync_binlog=0
//     takes effect is checked (Binlog_group_commits must stop growing on
//     Petrel); if it does not, the primary is restarted with the value in
//     its config file and the report says so.
//
// For every run it records the semi-sync counters (yes_tx, no_tx, the
// average wait), the binlog's commits and fsync groups, and the number of
// acknowledgements the replica sent, counted from the bytes the link
// carried from replica to primary (after the dump request, a replica sends
// nothing but acks, each 4 + 1 + 8 + len(file name) bytes).
//
// It is a benchmark: no timing is judged pass or fail. It fails loudly
// (exit 1, FAILED at the top of the report) if replication breaks (a
// replica thread stops with an error, the replica does not catch up, or
// its rows differ) or if semi-sync was not ON throughout a semi-sync run
// (status OFF, no semi-sync client, no_tx grew, or no yes_tx).
//
// The systems run one after the other, never at once (2-core hosts).
// Settings come from flags whose defaults come from the environment
// variables named in their help.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"petrel/lab/benchkit"
)

// Options configures one benchmark run.
type Options struct {
	// Systems to measure, in order: "petrel", "mariadb". Default: both.
	Systems []string
	// Phases to run: "slap", "sysbench". Default: both.
	Phases []string
	// RTT is the round trip the link adds in the WAN runs (half each way).
	// Default: 90ms.
	RTT time.Duration
	// SlapConcurrency and SlapQueries are mariadb-slap's --concurrency and
	// --number-of-queries. Default: 10 and 1000 (the seed's).
	SlapConcurrency, SlapQueries int
	// Threads are the sysbench thread counts. Default: 1 32.
	Threads []int
	// Duration is each sysbench run's length. Default: 20s.
	Duration time.Duration
	// Rounds repeats the sysbench plan, in reverse order on even rounds,
	// so drift of the host over the phase weighs on every configuration
	// alike; tables show means over rounds. Default: 2.
	Rounds int
	// Tables and TableSize are sysbench --tables / --table-size. Default: 4 x 10000.
	Tables, TableSize int
	// WaitTimeout bounds each wait for the replica (caught up, semi-sync
	// client registered). Default: 10m.
	WaitTimeout time.Duration
	// SlapTimeout bounds one mariadb-slap invocation. Default: 10m.
	SlapTimeout time.Duration
	// OutDir receives the report. Default: <module root>/bench/out.
	OutDir string
	// PetrelArgs are extra petrel server flags, for both servers. Default: none.
	PetrelArgs []string
	// PetrelReplicaNetTimeout is replica_net_timeout in the Petrel
	// replica's config file, 0 for Petrel's default (10 s). Default: 0.
	PetrelReplicaNetTimeout time.Duration
	// MariaDBArgs are the MariaDB primary's flags. Default: defaultMariaDBArgs.
	MariaDBArgs []string
	// MariaDBReplicaArgs are the MariaDB replica's flags. Default: defaultMariaDBReplicaArgs.
	MariaDBReplicaArgs []string
	// SysbenchArgs are extra sysbench flags. Default: --mysql-ignore-errors=1213.
	SysbenchArgs []string
}

// defaultMariaDBArgs give the MariaDB primary the durability Petrel
// promises (as in bench/sysbench.sh), with the built-in semi-sync master
// on and waiting where Petrel's default waits (AFTER_SYNC, lossless;
// MariaDB's own default is AFTER_COMMIT).
var defaultMariaDBArgs = []string{
	"--log-bin=mysql-bin",
	"--binlog-format=ROW",
	"--sync-binlog=1",
	"--innodb-flush-log-at-trx-commit=1",
	"--innodb-buffer-pool-size=512M",
	"--max-connections=1000",
	"--rpl-semi-sync-master-enabled=ON",
	"--rpl-semi-sync-master-wait-point=AFTER_SYNC",
}

// defaultMariaDBReplicaArgs make the MariaDB replica do what a Petrel
// replica does (log what it applies, durably, on one applier thread) and
// acknowledge semi-sync transactions.
var defaultMariaDBReplicaArgs = []string{
	"--log-bin=mysql-bin",
	"--binlog-format=ROW",
	"--log-slave-updates",
	"--sync-binlog=1",
	"--innodb-flush-log-at-trx-commit=1",
	"--innodb-buffer-pool-size=512M",
	"--relay-log=relay-bin",
	"--slave-parallel-threads=0",
	"--rpl-semi-sync-slave-enabled=ON",
}

func main() {
	os.Exit(run())
}

func run() int {
	logger := benchkit.NewLogger()
	o, err := parseOptions(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "semisync bench:", err)
		return 2
	}
	if err := benchkit.CheckTools(requiredTools(o)...); err != nil {
		fmt.Fprintln(os.Stderr, "semisync bench:", err)
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

// requiredTools are the client programs the phases run.
func requiredTools(o Options) []string {
	tools := []string{"mariadb"}
	if o.has("slap") {
		tools = append(tools, "mariadb-slap")
	}
	if o.has("sysbench") {
		tools = append(tools, "sysbench")
	}
	return tools
}

func (o Options) has(phase string) bool {
	for _, p := range o.Phases {
		if p == phase {
			return true
		}
	}
	return false
}

func parseOptions(args []string) (Options, error) {
	fs := flag.NewFlagSet("semisync", flag.ContinueOnError)
	systems := fs.String("systems", envOr("SYSTEMS", "petrel mariadb"), "systems to measure, in order: petrel, mariadb ($SYSTEMS)")
	phases := fs.String("phases", envOr("PHASES", "slap sysbench"), "phases to run: slap (WAN mariadb-slap), sysbench ($PHASES)")
	rtt := fs.String("rtt", envOr("RTT", "90ms"), "round trip the link adds in the WAN runs ($RTT)")
	threads := fs.String("threads", envOr("THREADS", "1 32"), "sysbench thread counts ($THREADS)")
	duration := fs.String("duration", envOr("DURATION", "20"), "seconds (or a Go duration) per sysbench run ($DURATION)")
	rounds := fs.Int("rounds", benchkit.EnvInt("ROUNDS", 2), "sysbench plan repetitions, alternating order ($ROUNDS)")
	tables := fs.Int("tables", benchkit.EnvInt("TABLES", 4), "sysbench --tables ($TABLES)")
	tableSize := fs.Int("table-size", benchkit.EnvInt("TABLE_SIZE", 10000), "sysbench --table-size ($TABLE_SIZE)")
	slapConc := fs.Int("slap-concurrency", benchkit.EnvInt("SLAP_CONCURRENCY", 10), "mariadb-slap --concurrency ($SLAP_CONCURRENCY)")
	slapQueries := fs.Int("slap-queries", benchkit.EnvInt("SLAP_QUERIES", 1000), "mariadb-slap --number-of-queries ($SLAP_QUERIES)")
	waitTimeout := fs.String("wait-timeout", envOr("WAIT_TIMEOUT", "10m"), "bound on each wait for the replica ($WAIT_TIMEOUT)")
	outDir := fs.String("out", os.Getenv("OUT_DIR"), "report directory; default <module root>/bench/out ($OUT_DIR)")
	petrelArgs := fs.String("petrel-args", os.Getenv("PETREL_ARGS"), "extra petrel server flags ($PETREL_ARGS)")
	replicaNetTimeout := fs.String("petrel-replica-net-timeout", envOr("PETREL_REPLICA_NET_TIMEOUT", "0"), "replica_net_timeout of the Petrel replica, 0 for Petrel's default ($PETREL_REPLICA_NET_TIMEOUT)")
	mariadbArgs := fs.String("mariadb-args", envOr("MARIADB_ARGS", strings.Join(defaultMariaDBArgs, " ")), "MariaDB primary flags ($MARIADB_ARGS)")
	mariadbReplicaArgs := fs.String("mariadb-replica-args", envOr("MARIADB_REPLICA_ARGS", strings.Join(defaultMariaDBReplicaArgs, " ")), "MariaDB replica flags ($MARIADB_REPLICA_ARGS)")
	sysbenchArgs := fs.String("sysbench-args", envOr("SYSBENCH_ARGS", "--mysql-ignore-errors=1213"), "extra sysbench flags ($SYSBENCH_ARGS)")
	if err := fs.Parse(args); err != nil {
		return Options{}, err
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	o := Options{
		Systems:            fields(*systems),
		Phases:             fields(*phases),
		SlapConcurrency:    *slapConc,
		SlapQueries:        *slapQueries,
		Tables:             *tables,
		TableSize:          *tableSize,
		SlapTimeout:        10 * time.Minute,
		OutDir:             *outDir,
		PetrelArgs:         fields(*petrelArgs),
		MariaDBArgs:        fields(*mariadbArgs),
		MariaDBReplicaArgs: fields(*mariadbReplicaArgs),
		SysbenchArgs:       fields(*sysbenchArgs),
		Rounds:             *rounds,
	}
	if o.Rounds < 1 {
		return Options{}, fmt.Errorf("rounds must be at least 1, not %d", o.Rounds)
	}
	if len(o.Systems) == 0 {
		return Options{}, errors.New("need at least one system")
	}
	for _, s := range o.Systems {
		if s != "petrel" && s != "mariadb" {
			return Options{}, fmt.Errorf("unknown system %q (want petrel or mariadb)", s)
		}
	}
	if len(o.Phases) == 0 {
		return Options{}, errors.New("need at least one phase")
	}
	for _, p := range o.Phases {
		if p != "slap" && p != "sysbench" {
			return Options{}, fmt.Errorf("unknown phase %q (want slap or sysbench)", p)
		}
	}
	for _, t := range fields(*threads) {
		n, err := strconv.Atoi(t)
		if err != nil || n <= 0 {
			return Options{}, fmt.Errorf("bad thread count %q", t)
		}
		o.Threads = append(o.Threads, n)
	}
	if len(o.Threads) == 0 && o.has("sysbench") {
		return Options{}, errors.New("need at least one thread count")
	}
	var err error
	if o.RTT, err = time.ParseDuration(*rtt); err != nil || o.RTT <= 0 {
		return Options{}, fmt.Errorf("bad RTT %q (want a Go duration such as 90ms)", *rtt)
	}
	if *replicaNetTimeout != "0" {
		if o.PetrelReplicaNetTimeout, err = benchkit.ParseDuration(*replicaNetTimeout); err != nil {
			return Options{}, err
		}
	}
	if o.Duration, err = benchkit.ParseDuration(*duration); err != nil {
		return Options{}, err
	}
	if o.WaitTimeout, err = benchkit.ParseDuration(*waitTimeout); err != nil {
		return Options{}, err
	}
	if o.Tables <= 0 || o.TableSize <= 0 {
		return Options{}, errors.New("tables and table-size must be positive")
	}
	if o.SlapConcurrency <= 0 || o.SlapQueries <= 0 {
		return Options{}, errors.New("slap concurrency and queries must be positive")
	}
	if o.OutDir, err = benchkit.OutDir(o.OutDir); err != nil {
		return Options{}, err
	}
	return o, nil
}

// envOr returns the environment variable name, or def when it is unset.
// Unlike benchkit.EnvOr, a set but empty variable counts (SYSBENCH_ARGS=""
// drops the default --mysql-ignore-errors).
func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// fields splits on white space only (benchkit.Fields also splits on commas).
func fields(s string) []string { return strings.Fields(s) }

// writeReport writes the report to dir/semisync-<date>.md.
func writeReport(dir string, started time.Time, report string) error {
	return benchkit.WriteReport(filepath.Join(dir, "semisync-"+started.UTC().Format("2006-01-02-150405")+".md"), report+"\n")
}
