// Command fanout measures replication across the packet-level WAN
// emulator (lab.WAN), issue 17's WAN benchmarks; bench/fanout.sh runs it.
// Its servers, their wiring and the WAN are the lab's harness's
// (labrun.StartCluster, NetWAN, with a relay in the relay layout).
//
// Phase "fanout": a primary on side 0 and Replicas replicas on side 1,
// connected directly to the primary or through one relay on side 1, in
// interleaved rounds; sysbench oltp_write_only on the primary. Reports
// WAN bytes both ways, the primary's CPU, every replica's staleness
// (now minus the primary's commit time of the oldest transaction it
// lacks, from GTID counts sampled every 100 ms; p50/p99/max) and the
// transactions; every replica must end with the primary's transactions.
//
// Phase "congestion": one primary and one replica at CCDelay one way,
// each loss rate × each replication_tcp_congestion_control: a backlog of
// Backlog seconds written with the IO thread stopped, then the catch-up
// timed until the replica has applied them all (bounded by CatchupTimeout).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"petrel/lab"
	"petrel/lab/benchkit"
)

// Options configures a run.
type Options struct {
	Phases         []string
	Rounds         int
	Replicas       int
	Duration       time.Duration // sysbench run per fan-out layout
	Delay          time.Duration // one way, fan-out
	CCDelay        time.Duration // one way, congestion phase
	Loss           float64       // 0..1, fan-out, each direction
	RateBps        int64         // per direction
	RateText       string
	CCLosses       []float64
	CCAlgos        []string
	Backlog        time.Duration
	CatchupTimeout time.Duration
	LagRate        int // transactions/s of the congestion cells' steady load; 0: none
	WaitTimeout    time.Duration
	Threads        int
	Tables         int
	TableSize      int
	OutDir         string
	PetrelArgs     []string
	SysbenchArgs   []string
	// SourceOptions are appended to every CHANGE REPLICATION SOURCE
	// (e.g. ", SOURCE_COMPRESSION_ALGORITHMS = 'zstd'").
	SourceOptions string
}

func (o Options) impairment(delay time.Duration) lab.Impairment {
	return lab.Impairment{Delay: delay, Loss: o.Loss, RateBps: o.RateBps}
}

func (o Options) phase(name string) bool {
	for _, p := range o.Phases {
		if p == name {
			return true
		}
	}
	return false
}

func main() { os.Exit(run()) }

func run() int {
	logger := benchkit.NewLogger()
	o, err := parseOptions(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fanout:", err)
		return 2
	}
	if err := errors.Join(benchkit.CheckTools("sysbench"), lab.WANAvailable()); err != nil {
		fmt.Fprintln(os.Stderr, "fanout:", err)
		return 2
	}
	ctx, stop := benchkit.SignalContext()
	defer stop()
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		logger.Error("build", "err", err)
		return 1
	}
	var report strings.Builder
	fmt.Fprintf(&report, "## WAN benchmarks (bench/fanout.sh, %s)\n\npetrel %s; %s\n\n", time.Now().UTC().Format(time.RFC3339),
		benchkit.PetrelBuild(), benchkit.ToolVersion("sysbench", "--version"))
	failed := false
	if o.phase("fanout") {
		var rs []layoutResult
		for round := 1; round <= o.Rounds && !failed; round++ {
			layouts := []string{"direct", "relay"}
			if round%2 == 0 {
				layouts = reversed(layouts)
			}
			for _, l := range layouts {
				r, err := runLayout(ctx, o, bin, l, round, logger)
				if err != nil {
					logger.Error("fan-out", "layout", l, "round", round, "err", err)
					fmt.Fprintf(&report, "FAILED: fan-out %s round %d: %s\n\n", l, round, benchkit.OneLine(err))
					failed = true
					break
				}
				rs = append(rs, r)
			}
		}
		report.WriteString(fanoutReport(o, rs) + "\n")
	}
	if o.phase("congestion") && !failed {
		rs, err := runCongestion(ctx, o, bin, logger)
		if err != nil {
			logger.Error("congestion", "err", err)
			fmt.Fprintf(&report, "FAILED: congestion: %s\n\n", benchkit.OneLine(err))
			failed = true
		}
		report.WriteString(congestionReport(o, rs) + "\n")
	}
	fmt.Print(report.String())
	path := filepath.Join(o.OutDir, "fanout-"+time.Now().UTC().Format("20060102-150405")+".md")
	if err := benchkit.WriteReport(path, report.String()); err != nil {
		logger.Error("report", "err", err)
	}
	switch {
	case ctx.Err() != nil:
		return 130
	case failed:
		return 1
	}
	return 0
}

func parseOptions(args []string) (Options, error) {
	short := os.Getenv("SHORT") == "1"
	def := func(long, shortVal string) string {
		if short {
			return shortVal
		}
		return long
	}
	fs := flag.NewFlagSet("fanout", flag.ContinueOnError)
	phases := fs.String("phases", benchkit.EnvOr("PHASES", "fanout congestion"), "phases: fanout, congestion ($PHASES)")
	rounds := fs.Int("rounds", benchkit.EnvInt("ROUNDS", map[bool]int{false: 3, true: 1}[short]), "interleaved fan-out rounds ($ROUNDS)")
	replicas := fs.Int("replicas", benchkit.EnvInt("REPLICAS", 6), "replicas on the remote side ($REPLICAS)")
	duration := fs.String("duration", benchkit.EnvOr("DURATION", def("60", "10")), "sysbench run per fan-out layout ($DURATION)")
	delay := fs.String("delay", benchkit.EnvOr("DELAY", "45ms"), "one-way delay, fan-out ($DELAY)")
	ccDelay := fs.String("cc-delay", benchkit.EnvOr("CC_DELAY", "50ms"), "one-way delay, congestion phase ($CC_DELAY)")
	loss := fs.Float64("loss", envFloat("LOSS", 2), "random loss percent each way, fan-out ($LOSS)")
	rate := fs.String("rate", benchkit.EnvOr("RATE", "50Mbit"), "bandwidth per direction ($RATE)")
	ccLosses := fs.String("cc-losses", benchkit.EnvOr("CC_LOSSES", def("0 1 2 5", "0 5")), "loss percents, congestion phase ($CC_LOSSES)")
	ccAlgos := fs.String("cc-algos", benchkit.EnvOr("CC_ALGOS", "bbr cubic"), "congestion controls ($CC_ALGOS)")
	backlog := fs.String("backlog", benchkit.EnvOr("BACKLOG", def("60", "8")), "seconds of load with the IO thread stopped ($BACKLOG)")
	catchup := fs.String("catchup-timeout", benchkit.EnvOr("CATCHUP_TIMEOUT", def("10m", "30s")), "bound on one catch-up ($CATCHUP_TIMEOUT)")
	lagRate := fs.Int("lag-rate", benchkit.EnvInt("LAG_RATE", 100), "congestion cells: lag under this many transactions/s for BACKLOG after the catch-up; 0 skips ($LAG_RATE)")
	wait := fs.String("wait-timeout", benchkit.EnvOr("WAIT_TIMEOUT", "10m"), "bound on other waits for replicas ($WAIT_TIMEOUT)")
	threads := fs.Int("threads", benchkit.EnvInt("THREADS", 16), "sysbench --threads ($THREADS)")
	tables := fs.Int("tables", benchkit.EnvInt("TABLES", 4), "sysbench --tables ($TABLES)")
	tableSize := fs.Int("table-size", benchkit.EnvInt("TABLE_SIZE", map[bool]int{false: 10000, true: 2000}[short]), "sysbench --table-size ($TABLE_SIZE)")
	outDir := fs.String("out", os.Getenv("OUT_DIR"), "report directory; default <module root>/bench/out ($OUT_DIR)")
	petrelArgs := fs.String("petrel-args", os.Getenv("PETREL_ARGS"), "extra petrel flags ($PETREL_ARGS)")
	sysbenchArgs := fs.String("sysbench-args", os.Getenv("SYSBENCH_ARGS"), "extra sysbench flags ($SYSBENCH_ARGS)")
	sourceOpts := fs.String("source-options", os.Getenv("SOURCE_OPTIONS"), "appended to CHANGE REPLICATION SOURCE, e.g. \", SOURCE_COMPRESSION_ALGORITHMS = 'zstd'\" ($SOURCE_OPTIONS)")
	if err := fs.Parse(args); err != nil {
		return Options{}, err
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	o := Options{
		Phases: benchkit.Fields(*phases), Rounds: *rounds, Replicas: *replicas, Loss: *loss / 100,
		RateText: *rate, CCAlgos: benchkit.Fields(*ccAlgos), Threads: *threads, Tables: *tables,
		TableSize: *tableSize, OutDir: *outDir, PetrelArgs: benchkit.Fields(*petrelArgs),
		SysbenchArgs: benchkit.Fields(*sysbenchArgs), LagRate: *lagRate, SourceOptions: *sourceOpts,
	}
	var errs []error
	parseDur := func(s string, dst *time.Duration) {
		d, err := time.ParseDuration(s)
		if err != nil {
			d, err = benchkit.ParseDuration(s)
		}
		*dst = d
		errs = append(errs, err)
	}
	parseDur(*duration, &o.Duration)
	parseDur(*delay, &o.Delay)
	parseDur(*ccDelay, &o.CCDelay)
	parseDur(*backlog, &o.Backlog)
	parseDur(*catchup, &o.CatchupTimeout)
	parseDur(*wait, &o.WaitTimeout)
	var err error
	o.RateBps, err = lab.ParseRate(*rate)
	errs = append(errs, err)
	for _, f := range benchkit.Fields(*ccLosses) {
		v, err := strconv.ParseFloat(f, 64)
		errs = append(errs, err)
		o.CCLosses = append(o.CCLosses, v/100)
	}
	for _, p := range o.Phases {
		if p != "fanout" && p != "congestion" {
			errs = append(errs, fmt.Errorf("unknown phase %q (want fanout, congestion)", p))
		}
	}
	if o.LagRate < 0 {
		errs = append(errs, errors.New("lag-rate must be >= 0"))
	}
	if o.Rounds <= 0 || o.Replicas <= 0 || o.Threads <= 0 || o.Tables <= 0 || o.TableSize <= 0 {
		errs = append(errs, errors.New("rounds, replicas, threads, tables and table-size must be positive"))
	}
	dir, err := benchkit.OutDir(o.OutDir)
	errs = append(errs, err)
	o.OutDir = dir
	return o, errors.Join(errs...)
}

func envFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return v
	}
	return def
}

// benchkitTable renders a markdown table.
type benchkitTable struct{ b strings.Builder }

func (t *benchkitTable) head(cols ...string) {
	t.row(cols...)
	t.b.WriteString("|" + strings.Repeat("---|", len(cols)) + "\n")
}

func (t *benchkitTable) row(cells ...string) {
	t.b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

func (t *benchkitTable) String() string { return t.b.String() }
