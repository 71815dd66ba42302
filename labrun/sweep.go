package labrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"petrel/lab"
)

// The sweep (`petrel-lab sysbench`): sysbench's OLTP workloads and
// mysqlslap's auto-generated load against several servers side by side:
// Petrel, MariaDB, Petrel without its binlog, or any number of Petrel
// builds (the cost of a change). Every server is started once (the lab's
// harness, standalone) and loaded, then stays up for the whole sweep,
// idle while another is measured; in each round every measurement runs
// on every server in turn (sweepOrder), after a settle pause, or on all
// of them at once (Together). Each run records TPS, QPS, p95 latency, the
// server's CPU time per transaction and its binlog fsyncs per commit;
// servers after the first are also compared with it by paired per-round
// ratios (the host's drift, 10% and more over minutes, cancels within a
// pair), summarised as median, range and mean with a 95% confidence
// interval. The report is the lab's (report.html, report.md, CSVs,
// run.json); the end-state check counts each server's sysbench rows.
// It replaces bench/cmd/sysbench and bench/cmd/abcost.

// SweepServer is one server of a sweep.
type SweepServer struct {
	// Name labels the server in the report; unique within a sweep.
	Name string
	// System is "petrel" or "mariadb".
	System string
	// Binary is the petrel executable (Petrel only; default the run's).
	Binary string
	// Args are extra server flags (Petrel: after the lab's; MariaDB:
	// after lab's durable flags).
	Args []string
}

// ParseSweepServer reads one --servers entry: "petrel", "mariadb",
// "petrel-nobinlog" (Petrel with --skip-log-bin), or NAME=PATH, a petrel
// build (PATH "build": ./cmd/petrel built).
func ParseSweepServer(s string) (SweepServer, error) {
	switch s {
	case "petrel", "mariadb":
		return SweepServer{Name: s, System: s}, nil
	case "petrel-nobinlog":
		return SweepServer{Name: s, System: "petrel", Args: []string{"--skip-log-bin"}}, nil
	}
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return SweepServer{}, fmt.Errorf("server %q: want petrel, mariadb, petrel-nobinlog or NAME=PATH (a petrel build)", s)
	}
	if path == "build" {
		path = ""
	}
	return SweepServer{Name: name, System: "petrel", Binary: path}, nil
}

// SweepPoint is one measurement: a workload at a number of client
// threads. Workload is a sysbench Lua test (oltp_read_write, ...) or
// mysqlslap's auto-generated load: "mysqlslap" (the seed's mixed load),
// "mysqlslap-read", "mysqlslap-write"; a mysqlslap query counts as a
// transaction.
type SweepPoint struct {
	Workload string
	Threads  int
}

func (p SweepPoint) String() string { return fmt.Sprintf("%s, %d threads", p.Workload, p.Threads) }

func (p SweepPoint) slap() bool { return strings.HasPrefix(p.Workload, slapPrefix) }

const slapPrefix = "mysqlslap"

// SweepOptions configures RunSweep. Zero values take the defaults named.
type SweepOptions struct {
	// Servers, in order; the first is the anchor the others are compared
	// with. Required.
	Servers []SweepServer
	// Points are the measurements, in order. Required.
	Points []SweepPoint
	// Rounds of every measurement. Default 2.
	Rounds int
	// Duration of a sysbench run. Default 20 s.
	Duration time.Duration
	// Settle is the pause before every run, for the previous run's
	// background work (compactions) to settle. 0: none.
	Settle time.Duration
	// Tables and TableSize are sysbench's --tables and --table-size.
	// Default 4 and 10000.
	Tables, TableSize int
	// Together runs every server's measurement at the same time, each
	// under its own client: the host's speed then changes for all at
	// once, at the price of their sharing the cores (compare ratios).
	Together bool
	// MaxConnections, when set, is SET GLOBAL max_connections on every
	// server (with max_prepared_stmt_count raised for sysbench's
	// thousands of prepared statements).
	MaxConnections int
	// SysbenchArgs are extra sysbench flags (e.g. --mysql-ignore-errors=1213).
	SysbenchArgs []string
	// SlapQueries is mysqlslap's queries per client (default 100),
	// SlapIterations its --iterations (default 1).
	SlapQueries, SlapIterations int
	// OutDir, Command, PetrelBinary, Logger and Progress are Options'
	// fields of the same names.
	OutDir, Command, PetrelBinary string
	Logger                        *slog.Logger
	Progress                      *Progress
}

// sweepServer is one started server and its runs.
type sweepServer struct {
	SweepServer
	c        *Cluster
	mu       sync.Mutex
	runs     map[SweepPoint]map[int]sweepRun // by round; mu guards it
	commands []string
}

// sweepRun is one run's figures.
type sweepRun struct {
	tps, qps, p95Ms float64
	cpuPerTxnMicros float64
	// fsyncsPerCommit is Binlog_group_commits / Binlog_commits over the
	// run; 0 when the server logs nothing.
	fsyncsPerCommit float64
	// ignored is sysbench's ignored errors (--mysql-ignore-errors).
	ignored float64
}

// SweepExperiment names the sweep's result in the report.
const SweepExperiment = "sysbench"

// RunSweep runs the sweep and writes the lab's report of it into OutDir,
// also on failure or interrupt (then INCOMPLETE). It returns the run and
// the report's directory; the error is the first failed run or check.
func RunSweep(ctx context.Context, o SweepOptions) (Run, string, error) {
	if err := o.defaults(); err != nil {
		return Run{}, "", err
	}
	var systems []string
	for _, s := range o.Servers {
		if s.System == "mariadb" && !mariadbInstalled() {
			return Run{}, "", errors.New("server mariadb: MariaDB not found (mariadbd, mariadb-install-db; install with scripts/deps.sh)")
		}
		if !slices.Contains(systems, s.System) {
			systems = append(systems, s.System)
		}
	}
	lo := Options{OutDir: o.OutDir, Command: o.Command, PetrelBinary: o.PetrelBinary, Logger: o.Logger, Progress: o.Progress}
	return runReported(ctx, lo, systems, func(ctx context.Context, env *Env, run *Run, _ []string) error {
		res := sweep(ctx, env, o, run.Versions)
		err := run.add(res)
		if err == nil && ctx.Err() != nil {
			run.Complete = false
			err = ctx.Err()
		}
		return err
	})
}

func (o *SweepOptions) defaults() error {
	if len(o.Servers) == 0 || len(o.Points) == 0 {
		return errors.New("a sweep needs at least one server and one measurement")
	}
	for i, s := range o.Servers {
		if slices.ContainsFunc(o.Servers[:i], func(x SweepServer) bool { return x.Name == s.Name }) {
			return fmt.Errorf("server %q listed twice", s.Name)
		}
	}
	for _, p := range o.Points {
		if p.Threads <= 0 || p.Workload == "" {
			return fmt.Errorf("measurement %q: want a workload and a positive thread count", p)
		}
	}
	if o.Rounds <= 0 {
		o.Rounds = 2
	}
	if o.Duration <= 0 {
		o.Duration = 20 * time.Second
	}
	if o.Tables <= 0 {
		o.Tables = 4
	}
	if o.TableSize <= 0 {
		o.TableSize = 10000
	}
	if o.SlapQueries <= 0 {
		o.SlapQueries = 100
	}
	if o.SlapIterations <= 0 {
		o.SlapIterations = 1
	}
	return nil
}

// sysbenchWorkload is the workload whose prepare loads the tables, ""
// when only mysqlslap runs.
func (o SweepOptions) sysbenchWorkload() string {
	for _, p := range o.Points {
		if !p.slap() {
			return p.Workload
		}
	}
	return ""
}

func sweep(ctx context.Context, env *Env, o SweepOptions, versions map[string]string) (res ExperimentResult) {
	start := time.Now()
	how := "each started once and idle while another is measured"
	if o.Together {
		how = "each started once, all under load at once (each by its own client: they share the cores)"
	}
	res = ExperimentResult{Name: SweepExperiment, Rounds: o.Rounds, Description: fmt.Sprintf(
		"sysbench and mysqlslap against %d servers side by side, %s; %d tables x %d rows, %v per sysbench run, %v pause before each; "+
			"CPU is the server's user+system time over the run (/proc/PID/stat) per transaction; ratios pair each round's "+
			"runs with the first server's", len(o.Servers), how, o.Tables, o.TableSize, o.Duration, o.Settle)}
	var servers []*sweepServer
	defer func() {
		for _, s := range servers {
			if s.c != nil {
				res.Commands = append(res.Commands, s.c.Commands...)
				if err := s.c.Close(ctx); err != nil && res.Err == "" {
					res.Err = fmt.Sprintf("stop %s: %v", s.Name, err)
				}
			}
		}
	}()
	for _, ss := range o.Servers {
		s, err := startSweepServer(ctx, env, o, ss)
		servers = append(servers, s)
		res.Systems = append(res.Systems, ss.Name)
		if s.c != nil && s.c.Version != "" {
			versions[ss.Name] = s.c.Version
		}
		if err != nil {
			res.Err = fmt.Sprintf("start %s: %v", ss.Name, err)
			res.Elapsed = time.Since(start)
			return res
		}
	}
	if v, err := exec.CommandContext(ctx, "sysbench", "--version").Output(); err == nil {
		versions["sysbench"] = strings.TrimSpace(string(v))
	}
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	var failed []Check
	var fmu sync.Mutex
	measure := func(s *sweepServer, p SweepPoint, r int) {
		run, err := s.measure(ctx, o, p)
		if err != nil {
			if ctx.Err() == nil {
				fmu.Lock()
				failed = append(failed, Check{System: s.Name, Round: r, What: "run " + p.String(), Detail: err.Error()})
				fmu.Unlock()
			}
			return
		}
		s.mu.Lock()
		s.runs[p][r] = run
		s.mu.Unlock()
	}
	for r := 1; r <= o.Rounds && ctx.Err() == nil; r++ {
		order := sweepOrder(servers, r)
		for _, p := range o.Points {
			if o.Together {
				if lab.Sleep(ctx, o.Settle) != nil {
					break
				}
				done := env.Progress.Phase(fmt.Sprintf("sysbench r%d: %s, every server", r, p), runTime(o, p))
				var wg sync.WaitGroup
				for _, s := range order {
					wg.Add(1)
					go func() {
						defer wg.Done()
						measure(s, p, r)
					}()
				}
				wg.Wait()
				done()
				continue
			}
			for _, s := range order {
				if lab.Sleep(ctx, o.Settle) != nil {
					break
				}
				done := env.Progress.Phase(fmt.Sprintf("sysbench r%d: %s, %s", r, p, s.Name), runTime(o, p))
				measure(s, p, r)
				done()
			}
		}
	}
	res.Checks = append(res.Checks, failed...)
	if ctx.Err() == nil {
		for _, s := range servers {
			res.Checks = append(res.Checks, s.rowsCheck(ctx, o))
		}
	} else {
		res.Err = "interrupted: " + ctx.Err().Error()
	}
	res.Charts, res.Metrics, res.Notes = sweepFigures(o, servers)
	for _, s := range servers {
		for _, c := range s.commands {
			res.Commands = append(res.Commands, Command{System: s.Name, What: "client", Text: c})
		}
	}
	res.Elapsed = time.Since(start)
	return res
}

// runTime is a run's planned time, for the progress bar (mysqlslap's is
// unknown).
func runTime(o SweepOptions, p SweepPoint) time.Duration {
	if p.slap() {
		return 0
	}
	return o.Duration
}

// sweepOrder is the order the servers run in within round r (from 1):
// rotated by one every two rounds and reversed on even rounds. Two
// servers run A B, B A, B A, A B (drift in either direction cancels over
// four rounds); three run every permutation over six.
func sweepOrder[T any](servers []T, r int) []T {
	n := len(servers)
	out := make([]T, n)
	for i := range servers {
		out[i] = servers[(i+(r-1)/2)%n]
	}
	if r%2 == 0 {
		slices.Reverse(out)
	}
	return out
}

// startSweepServer starts one server alone through the lab's harness,
// raises its connection limit when asked and loads the sysbench tables.
// The server is returned even on error, for the caller to stop.
func startSweepServer(ctx context.Context, env *Env, o SweepOptions, ss SweepServer) (*sweepServer, error) {
	s := &sweepServer{SweepServer: ss, runs: map[SweepPoint]map[int]sweepRun{}}
	for _, p := range o.Points {
		s.runs[p] = map[int]sweepRun{}
	}
	spec := ClusterSpec{System: ss.System, Standalone: true, PetrelBinary: ss.Binary}
	if ss.System == "petrel" {
		spec.PetrelArgs = ss.Args
	} else if len(ss.Args) > 0 {
		spec.MariaDBArgs = append(slices.Clone(mariadbDurable), ss.Args...)
	}
	done := env.Progress.Phase("sysbench: start and load "+ss.Name, 0)
	defer done()
	var err error
	if s.c, err = StartCluster(ctx, env, spec); err != nil {
		return s, err
	}
	if err := qExec(ctx, s.c.PDB, "CREATE DATABASE sbtest"); err != nil {
		return s, err
	}
	if o.MaxConnections > 0 {
		if err := setMaxConnections(ctx, s.c, o.MaxConnections); err != nil {
			return s, err
		}
	}
	if w := o.sysbenchWorkload(); w != "" {
		prep := s.sysbench(o, w, 0)
		prep.Command = "prepare"
		if _, err := lab.RunSysbench(ctx, prep); err != nil {
			return s, fmt.Errorf("sysbench prepare: %w", err)
		}
	}
	return s, nil
}

// setMaxConnections sets max_connections and checks the server took it;
// thousands of sysbench clients, each preparing its statements, also
// pass the default max_prepared_stmt_count (16382, error 1461), raised
// where the server has the variable.
func setMaxConnections(ctx context.Context, c *Cluster, n int) error {
	if err := qExec(ctx, c.PDB, fmt.Sprintf("SET GLOBAL max_connections = %d", n)); err != nil {
		return err
	}
	got, err := qString(ctx, c.PDB, "SELECT @@GLOBAL.max_connections")
	if err != nil {
		return err
	}
	if got != strconv.Itoa(n) {
		return fmt.Errorf("max_connections is %s after SET GLOBAL max_connections = %d", got, n)
	}
	if err := qExec(ctx, c.PDB, "SET GLOBAL max_prepared_stmt_count = 1048576"); err != nil &&
		!strings.Contains(err.Error(), "1193") { // unknown system variable
		return err
	}
	return nil
}

func (s *sweepServer) sysbench(o SweepOptions, workload string, threads int) lab.SysbenchOptions {
	return lab.SysbenchOptions{Workload: workload, Port: s.c.Primary.Port(), Password: s.c.RootPassword(),
		Tables: o.Tables, TableSize: o.TableSize, Threads: threads, Duration: o.Duration, ExtraArgs: o.SysbenchArgs}
}

// measure runs one measurement and reads the server's CPU time and
// binlog commit counters around it.
func (s *sweepServer) measure(ctx context.Context, o SweepOptions, p SweepPoint) (sweepRun, error) {
	pid := s.c.Primary.Pid()
	c0, err := processCPU(pid)
	if err != nil {
		return sweepRun{}, err
	}
	commits0, _ := statusInt(ctx, s.c.PDB, "Binlog_commits")
	groups0, _ := statusInt(ctx, s.c.PDB, "Binlog_group_commits")
	var run sweepRun
	var txns int64
	if p.slap() {
		so := lab.MysqlslapOptions{Port: s.c.Primary.Port(), Password: s.c.RootPassword(), Concurrency: p.Threads,
			Queries: o.SlapQueries * p.Threads, Iterations: o.SlapIterations}
		if t, ok := strings.CutPrefix(p.Workload, slapPrefix+"-"); ok {
			so.ExtraArgs = []string{"--auto-generate-sql-load-type=" + t}
		}
		s.note(strings.TrimSpace(fmt.Sprintf("mariadb-slap --auto-generate-sql --concurrency=%d --number-of-queries=%d --iterations=%d %s",
			p.Threads, so.Queries, so.Iterations, strings.Join(so.ExtraArgs, " "))))
		r, err := lab.RunMysqlslap(ctx, so)
		if err != nil {
			return sweepRun{}, err
		}
		run.tps, run.qps, txns = r.QPS, r.QPS, int64(r.Queries)*int64(o.SlapIterations)
	} else {
		so := s.sysbench(o, p.Workload, p.Threads)
		s.note(strings.Join(append(append([]string{"sysbench", p.Workload, fmt.Sprintf("--tables=%d --table-size=%d --threads=%d --time=%d",
			o.Tables, o.TableSize, p.Threads, int(o.Duration.Seconds()))}, o.SysbenchArgs...), "run"), " "))
		r, err := lab.RunSysbench(ctx, so)
		if err != nil {
			return sweepRun{}, err
		}
		run.tps, run.qps, run.p95Ms, txns = r.TPS, r.QPS, r.LatencyP95Ms, r.Transactions
		run.ignored = float64(r.IgnoredErrors)
	}
	c1, err := processCPU(pid)
	if err != nil {
		return sweepRun{}, err
	}
	if txns <= 0 {
		return sweepRun{}, errors.New("no transactions")
	}
	run.cpuPerTxnMicros = float64((c1 - c0).Microseconds()) / float64(txns)
	commits1, err1 := statusInt(ctx, s.c.PDB, "Binlog_commits")
	groups1, err2 := statusInt(ctx, s.c.PDB, "Binlog_group_commits")
	if err1 == nil && err2 == nil && commits1 > commits0 {
		run.fsyncsPerCommit = float64(groups1-groups0) / float64(commits1-commits0)
	}
	return run, nil
}

// note records a client command line once, for the report.
func (s *sweepServer) note(cmd string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.commands, cmd) {
		s.commands = append(s.commands, cmd)
	}
}

// rowsCheck is the sweep's end-state check: sysbench's transactions
// delete and insert the same rows, so every table still holds TableSize
// rows (mysqlslap works in a schema of its own, which it drops).
func (s *sweepServer) rowsCheck(ctx context.Context, o SweepOptions) Check {
	chk := Check{System: s.Name, Round: o.Rounds, What: "sysbench rows = tables x table size"}
	if o.sysbenchWorkload() == "" {
		chk.OK, chk.Detail = true, "mysqlslap only: no sysbench tables"
		return chk
	}
	var total int64
	for i := 1; i <= o.Tables; i++ {
		n, err := qString(ctx, s.c.PDB, fmt.Sprintf("SELECT COUNT(*) FROM sbtest.sbtest%d", i))
		if err != nil {
			chk.Detail = err.Error()
			return chk
		}
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			chk.Detail = err.Error()
			return chk
		}
		total += v
	}
	want := int64(o.Tables) * int64(o.TableSize)
	chk.OK = total == want
	chk.Detail = fmt.Sprintf("%d rows in %d tables, want %d", total, o.Tables, want)
	return chk
}
