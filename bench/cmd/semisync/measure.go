package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"petrel/lab"
	"petrel/lab/benchkit"
)

// systemResult is what one system produced. err ends its measurements.
type systemResult struct {
	version string
	slap    []slapRun
	sb      []sbRun
	// syncBinlog0 says how sync_binlog=0 was put in place on the primary.
	syncBinlog0 string
	notes       []string
	err         error
	logs        string // server output tails, kept when err is set
}

// counters is a snapshot of the primary's counters and the link's bytes.
type counters struct {
	commits, groups       int64 // Binlog_commits, Binlog_group_commits
	yesTx, noTx           int64
	txWaits, txWaitTimeUs int64
	status                string // semi-sync status, ON/OFF
	clients               int64
	linkUp                int64 // bytes the link carried replica -> primary
	file                  string
}

// delta is what happened between two snapshots.
type delta struct {
	commits, groups       int64
	yesTx, noTx           int64
	txWaits, txWaitTimeUs int64
	// acks is the number of semi-sync acknowledgements the replica sent:
	// the link's replica -> primary bytes over the ack packet's size;
	// acksExact is false when the bytes were not a whole number of acks.
	acks      int64
	acksExact bool
	statusEnd string
}

func (d delta) commitsPerGroup() float64 { return ratio(d.commits, d.groups) }
func (d delta) commitsPerAck() float64   { return ratio(d.commits, d.acks) }

// avgWaitUs is the mean semi-sync wait of the commits that waited.
func (d delta) avgWaitUs() float64 { return ratio(d.txWaitTimeUs, d.txWaits) }

func ratio(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (p *pair) snapshot(ctx context.Context) (counters, error) {
	st, err := p.primaryStatus(ctx)
	if err != nil {
		return counters{}, err
	}
	file, err := p.binlogFile(ctx)
	if err != nil {
		return counters{}, err
	}
	sp := p.f.SemiStatusPrefix
	c := counters{
		commits: st.int("Binlog_commits"), groups: st.int("Binlog_group_commits"),
		yesTx: st.int(sp + "yes_tx"), noTx: st.int(sp + "no_tx"),
		txWaits: st.int(sp + "tx_waits"), txWaitTimeUs: st.int(sp + "tx_wait_time"),
		status: st.str(sp + "status"), clients: st.int(sp + "clients"),
		linkUp: p.link.Stats().Upstream, file: file,
	}
	for name, v := range map[string]int64{"Binlog_commits": c.commits, "Binlog_group_commits": c.groups, sp + "yes_tx": c.yesTx, sp + "no_tx": c.noTx} {
		if v < 0 {
			return counters{}, fmt.Errorf("status variable %s missing or not a number (%q)", name, st.str(name))
		}
	}
	return c, nil
}

func diff(a, b counters) delta {
	d := delta{
		commits: b.commits - a.commits, groups: b.groups - a.groups,
		yesTx: b.yesTx - a.yesTx, noTx: b.noTx - a.noTx,
		txWaits: b.txWaits - a.txWaits, txWaitTimeUs: b.txWaitTimeUs - a.txWaitTimeUs,
		statusEnd: b.status,
	}
	// An ack is a MySQL packet: 4-byte header, 0xEF, 8-byte position, file name.
	if a.file == b.file {
		size := int64(4 + 1 + 8 + len(b.file))
		bytes := b.linkUp - a.linkUp
		d.acks, d.acksExact = bytes/size, bytes%size == 0
	}
	return d
}

// checkSemi fails unless semi-sync held throughout a run: ON with one
// client at the start, still ON at the end, no transaction released
// unacknowledged (no_tx) and some acknowledged (yes_tx).
func (p *pair) checkSemi(before counters, d delta) error {
	sp := p.f.SemiStatusPrefix
	switch {
	case before.status != "ON" || before.clients != 1:
		return fmt.Errorf("semi-sync not ON at the start of a semi-sync run: %sstatus=%s %sclients=%d", sp, before.status, sp, before.clients)
	case d.noTx != 0:
		return fmt.Errorf("semi-sync fell back during a semi-sync run: %sno_tx grew by %d (yes_tx by %d)", sp, d.noTx, d.yesTx)
	case d.statusEnd != "ON":
		return fmt.Errorf("semi-sync %sstatus=%s at the end of a semi-sync run", sp, d.statusEnd)
	case d.yesTx <= 0:
		return fmt.Errorf("semi-sync run with no acknowledged transaction (%syes_tx grew by %d over %d commits)", sp, d.yesTx, d.commits)
	}
	return nil
}

// checkAsync fails unless semi-sync was OFF throughout an async run.
func (p *pair) checkAsync(before counters, d delta) error {
	if before.status != "OFF" || d.statusEnd != "OFF" {
		return fmt.Errorf("async run with %sstatus %s at the start and %s at the end", p.f.SemiStatusPrefix, before.status, d.statusEnd)
	}
	return nil
}

// benchSystem runs every phase on one system. Failures are recorded in the
// result, which always holds what was measured.
func benchSystem(ctx context.Context, logger *slog.Logger, system string, o Options) *systemResult {
	r := &systemResult{}
	p, err := startPair(ctx, logger, system, o)
	defer func() {
		if r.err != nil {
			r.logs = p.logs()
		}
		if err := p.close(ctx); err != nil {
			logger.Error("close", "err", err)
			r.err = errors.Join(r.err, fmt.Errorf("close: %w", err))
		}
	}()
	r.version = p.version
	if err != nil {
		r.err = err
		return r
	}
	if o.has("slap") {
		if r.err = slapPhase(ctx, logger, p, o, r); r.err != nil {
			return r
		}
	}
	if o.has("sysbench") {
		if r.err = sysbenchPhase(ctx, logger, p, o, r); r.err != nil {
			return r
		}
	}
	r.noteAsyncAcks()
	return r
}

// noteAsyncAcks notes acknowledgements sent while semi-sync was OFF on the
// primary (MySQL and MariaDB stop asking for them).
func (r *systemResult) noteAsyncAcks() {
	var acks, commits int64
	for _, s := range r.slap {
		if !s.mode.semi() {
			acks, commits = acks+s.d.acks, commits+s.d.commits
		}
	}
	for _, s := range r.sb {
		if !s.mode.semi() {
			acks, commits = acks+s.d.acks, commits+s.d.commits
		}
	}
	if acks > 0 {
		r.notes = append(r.notes, fmt.Sprintf("the replica sent %d semi-sync acks for %d commits of the async runs: the source kept asking for acks while semi-sync was OFF", acks, commits))
	}
}

// slapRun is one mariadb-slap measurement.
type slapRun struct {
	rtt     time.Duration
	mode    mode
	seconds float64
	// d covers slap's timed phase only: the hooks snapshot the counters
	// just before and just after it.
	d delta
}

func (s slapRun) commitsPerClient(conc int) float64 { return float64(s.d.commits) / float64(conc) }

// rttBound is the least time the timed phase can take when every write
// commit of a client waits one round trip: commits per client x RTT.
func (s slapRun) rttBound(conc int) time.Duration {
	return time.Duration(s.commitsPerClient(conc) * float64(s.rtt))
}

func slapPhase(ctx context.Context, logger *slog.Logger, p *pair, o Options, r *systemResult) error {
	for _, rtt := range []time.Duration{0, o.RTT} {
		p.link.SetLatency(rtt / 2)
		for _, m := range modes(p.system) {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			run, err := p.slap(ctx, o, rtt, m)
			if err != nil {
				return fmt.Errorf("mariadb-slap (RTT %v, %s): %w", rtt, m, err)
			}
			r.slap = append(r.slap, run)
			logger.Info("mariadb-slap", "rtt", rtt, "mode", m.String(), "seconds", run.seconds,
				"timed_commits", run.d.commits, "commits_per_ack", fmt.Sprintf("%.1f", run.d.commitsPerAck()))
			if err := p.waitCaughtUp(ctx, o.WaitTimeout); err != nil {
				return fmt.Errorf("after mariadb-slap (RTT %v, %s): %w", rtt, m, err)
			}
		}
	}
	p.link.SetLatency(0)
	return nil
}

// mode is how commits are made durable in a run.
type mode int

const (
	async mode = iota
	// semiWrite is semi-sync with the replica acknowledging once the
	// transaction is written to its relay log: Petrel's default
	// (rpl_semi_sync_replica_ack_after=RELAY_WRITE), MySQL's and MariaDB's
	// only behaviour.
	semiWrite
	// semiSync is semi-sync with the replica acknowledging only once its
	// relay log is fsynced (Petrel's RELAY_SYNC).
	semiSync
)

func (m mode) semi() bool { return m != async }

func (m mode) String() string {
	switch m {
	case semiWrite:
		return "semi-sync"
	case semiSync:
		return "semi-sync RELAY_SYNC"
	}
	return "async"
}

// ackAfter is the Petrel replica's rpl_semi_sync_replica_ack_after for m.
func (m mode) ackAfter() string {
	if m == semiSync {
		return "RELAY_SYNC"
	}
	return "RELAY_WRITE"
}

// modes are the modes a system is measured in.
func modes(system string) []mode {
	if system == "petrel" {
		return []mode{async, semiWrite, semiSync}
	}
	return []mode{async, semiWrite}
}

var slapSeconds = regexp.MustCompile(`Average number of seconds to run all queries:\s+([\d.]+) seconds`)

// slapHook is the --pre-system/--post-system script. mariadb-slap runs it
// with system(), synchronously and outside its timer, just before and
// just after the timed phase; it asks this program (bash's /dev/tcp, port
// filled in) to snapshot the counters under the name given as $1 and
// waits until that is done.
const slapHook = `#!/bin/bash
exec 3<>/dev/tcp/127.0.0.1/%d || exit 1
echo "$1" >&3
read -r -t 120 reply <&3
[ "$reply" = ok ]
`

// slapCommand is mariadb-slap's argument list against port.
func slapCommand(o Options, port int, password, hook string) []string {
	return []string{
		"--no-defaults", "--protocol=TCP", "-h", "127.0.0.1", "-P", strconv.Itoa(port),
		"-u", "root", "--password=" + password, "--skip-ssl",
		"--auto-generate-sql", "--concurrency=" + strconv.Itoa(o.SlapConcurrency),
		"--number-of-queries=" + strconv.Itoa(o.SlapQueries),
		"--pre-system=bash '" + hook + "' pre",
		"--post-system=bash '" + hook + "' post",
	}
}

func (p *pair) slap(ctx context.Context, o Options, rtt time.Duration, m mode) (slapRun, error) {
	run := slapRun{rtt: rtt, mode: m}
	if err := p.setMode(ctx, m); err != nil {
		return run, err
	}
	snaps, err := startSnapshotServer(ctx, p)
	if err != nil {
		return run, err
	}
	defer snaps.close()
	hook := filepath.Join(p.dir, "slap-hook.sh")
	if err := os.WriteFile(hook, []byte(fmt.Sprintf(slapHook, snaps.port())), 0o700); err != nil {
		return run, err
	}
	sctx, cancel := context.WithTimeout(ctx, o.SlapTimeout)
	defer cancel()
	cmd := exec.CommandContext(sctx, "mariadb-slap", slapCommand(o, p.primary.Port(), p.password, hook)...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return run, fmt.Errorf("%w\n%s", err, benchkit.LastLines(string(out), 20))
	}
	sm := slapSeconds.FindSubmatch(out)
	if sm == nil {
		return run, fmt.Errorf("no timing in mariadb-slap's output:\n%s", benchkit.LastLines(string(out), 20))
	}
	run.seconds, _ = strconv.ParseFloat(string(sm[1]), 64)
	before, after, err := snaps.result("pre", "post")
	if err != nil {
		return run, fmt.Errorf("counting the timed phase's commits: %w\n%s", err, benchkit.LastLines(string(out), 20))
	}
	run.d = diff(before, after)
	if m.semi() {
		err = p.checkSemi(before, run.d)
	} else {
		err = p.checkAsync(before, run.d)
	}
	return run, err
}

// snapshotServer takes a counters snapshot for each connection to it (one
// line: the snapshot's name; answer "ok"), so that mariadb-slap's hooks
// can mark the edges of its timed phase. It owns one accept goroutine that
// serves one connection at a time; close stops it and waits for it.
type snapshotServer struct {
	ln   net.Listener
	done chan struct{}

	mu struct {
		sync.Mutex
		snap map[string]counters
		errs []error
	}
}

// snapshotTimeout bounds one hook connection, snapshot included.
const snapshotTimeout = time.Minute

func startSnapshotServer(ctx context.Context, p *pair) (*snapshotServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &snapshotServer{ln: ln, done: make(chan struct{})}
	s.mu.snap = map[string]counters{}
	go func() {
		defer close(s.done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.serve(ctx, p, c)
		}
	}()
	return s, nil
}

func (s *snapshotServer) serve(ctx context.Context, p *pair, c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(snapshotTimeout))
	name, err := bufio.NewReader(c).ReadString('\n')
	var snap counters
	if err == nil {
		sctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
		snap, err = p.snapshot(sctx)
		cancel()
	}
	s.mu.Lock()
	if err != nil {
		s.mu.errs = append(s.mu.errs, err)
	} else {
		s.mu.snap[strings.TrimSpace(name)] = snap
	}
	s.mu.Unlock()
	if err == nil {
		io.WriteString(c, "ok\n")
	}
}

func (s *snapshotServer) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// result returns the two named snapshots.
func (s *snapshotServer) result(a, b string) (counters, counters, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x, okA := s.mu.snap[a]
	y, okB := s.mu.snap[b]
	if !okA || !okB {
		return x, y, errors.Join(fmt.Errorf("hook snapshots missing: %s=%v %s=%v", a, okA, b, okB), errors.Join(s.mu.errs...))
	}
	return x, y, nil
}

func (s *snapshotServer) close() {
	s.ln.Close()
	<-s.done
}

// sbRun is one sysbench measurement.
type sbRun struct {
	round        int
	syncBinlog   int
	mode         mode
	threads      int
	res          lab.SysbenchResult
	d            delta
	storageSyncs int64 // Petrel_storage_syncs delta (Petrel only; -1 if unknown)
}

func sysbenchPhase(ctx context.Context, logger *slog.Logger, p *pair, o Options, r *systemResult) error {
	if err := sqlq.Exec(ctx, p.pdb, "CREATE DATABASE IF NOT EXISTS "+benchDB); err != nil {
		return err
	}
	logger.Info("sysbench prepare", "tables", o.Tables, "table_size", o.TableSize)
	if _, err := lab.RunSysbench(ctx, p.sysbench(o, "prepare", 0, 0)); err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	if err := p.waitCaughtUp(ctx, o.WaitTimeout); err != nil {
		return fmt.Errorf("after prepare: %w", err)
	}
	current := 1
	for round := 1; round <= o.Rounds; round++ {
		if err := sysbenchRound(ctx, logger, p, o, r, round, &current); err != nil {
			return err
		}
	}
	if err := p.compareTables(ctx, o.Tables); err != nil {
		return fmt.Errorf("replica rows after the sysbench runs: %w", err)
	}
	r.notes = append(r.notes, fmt.Sprintf("replica caught up after every run; its sbtest tables match the primary's at the end (count, sum(id), sum(k) of %d tables)", o.Tables))
	return nil
}

// sbStep is one configuration of the sysbench plan.
type sbStep struct {
	syncBinlog int
	mode       mode
}

// sbPlan is the order of the configurations in a round for a system: as
// listed on odd rounds, reversed on even ones. A switch to sync_binlog=0
// always follows a semi-sync step, so Petrel's probe of it runs with
// semi-sync ON.
func sbPlan(system string, round int) []sbStep {
	var plan []sbStep
	ms := modes(system)
	for _, m := range ms {
		plan = append(plan, sbStep{1, m})
	}
	for i := len(ms) - 1; i >= 0; i-- {
		plan = append(plan, sbStep{0, ms[i]})
	}
	if round%2 == 0 {
		slices.Reverse(plan)
	}
	return plan
}

// sysbenchRound runs every configuration of the plan once; current is
// the primary's sync_binlog, carried from round to round.
func sysbenchRound(ctx context.Context, logger *slog.Logger, p *pair, o Options, r *systemResult, round int, current *int) error {
	for _, step := range sbPlan(p.system, round) {
		// Semi-sync first: the probe that checks sync_binlog=0 took
		// effect runs in the mode it is measured in.
		if err := p.setMode(ctx, step.mode); err != nil {
			return err
		}
		if step.syncBinlog != *current {
			how, err := p.setSyncBinlog(ctx, logger, step.syncBinlog)
			if err != nil {
				return fmt.Errorf("sync_binlog=%d: %w", step.syncBinlog, err)
			}
			*current = step.syncBinlog
			if step.syncBinlog == 0 {
				r.syncBinlog0 = how
			}
		}
		for _, th := range o.Threads {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			run, err := p.sysbenchRun(ctx, o, step.syncBinlog, step.mode, th)
			if err != nil {
				return fmt.Errorf("sysbench (sync_binlog=%d, %s, %s): %w", step.syncBinlog, step.mode, threadsName(th), err)
			}
			run.round = round
			r.sb = append(r.sb, run)
			logger.Info("sysbench", "round", round, "sync_binlog", step.syncBinlog, "mode", step.mode.String(), "threads", th,
				"tps", run.res.TPS, "p95_ms", run.res.LatencyP95Ms, "commits_per_group", fmt.Sprintf("%.1f", run.d.commitsPerGroup()),
				"commits_per_ack", fmt.Sprintf("%.1f", run.d.commitsPerAck()), "ignored_errors", run.res.IgnoredErrors)
			if run.res.IgnoredErrors > 0 {
				r.notes = append(r.notes, fmt.Sprintf("sysbench sync_binlog=%d %s %s: %d deadlocked transactions retried (1213 ignored)",
					step.syncBinlog, step.mode, threadsName(th), run.res.IgnoredErrors))
			}
			if err := p.waitCaughtUp(ctx, o.WaitTimeout); err != nil {
				return fmt.Errorf("after sysbench (sync_binlog=%d, %s, %s): %w", step.syncBinlog, step.mode, threadsName(th), err)
			}
		}
	}
	return nil
}

// sysbench returns the options of one sysbench invocation on the primary.
func (p *pair) sysbench(o Options, command string, threads int, d time.Duration) lab.SysbenchOptions {
	return lab.SysbenchOptions{
		Workload: "oltp_write_only", Command: command, Port: p.primary.Port(), Password: p.password,
		DB: benchDB, Tables: o.Tables, TableSize: o.TableSize, Threads: threads,
		Duration: d, ExtraArgs: o.SysbenchArgs,
	}
}

func (p *pair) sysbenchRun(ctx context.Context, o Options, syncBinlog int, m mode, threads int) (sbRun, error) {
	run := sbRun{syncBinlog: syncBinlog, mode: m, threads: threads, storageSyncs: -1}
	if err := p.setMode(ctx, m); err != nil {
		return run, err
	}
	before, err := p.snapshot(ctx)
	if err != nil {
		return run, err
	}
	ss0 := p.storageSyncs(ctx)
	res, err := lab.RunSysbench(ctx, p.sysbench(o, "run", threads, o.Duration))
	if err != nil {
		return run, err
	}
	run.res = res
	after, err := p.snapshot(ctx)
	if err != nil {
		return run, err
	}
	if ss1 := p.storageSyncs(ctx); ss0 >= 0 && ss1 >= 0 {
		run.storageSyncs = ss1 - ss0
	}
	run.d = diff(before, after)
	if m.semi() {
		return run, p.checkSemi(before, run.d)
	}
	return run, p.checkAsync(before, run.d)
}

// storageSyncs is Petrel's Petrel_storage_syncs (fsyncs of its storage
// WAL), -1 elsewhere.
func (p *pair) storageSyncs(ctx context.Context) int64 {
	st := statusMap{}
	if err := readStatus(ctx, p.pdb, "Petrel_storage_syncs", st); err != nil {
		return -1
	}
	return st.int("Petrel_storage_syncs")
}

// probeWrites commits n one-row transactions on the primary and returns
// how much the binlog's commit and fsync-group counters grew.
func (p *pair) probeWrites(ctx context.Context, n int) (commits, groups int64, err error) {
	if err := sqlq.Exec(ctx, p.pdb,
		"CREATE TABLE IF NOT EXISTS "+benchDB+".probe (id INT PRIMARY KEY, n INT)",
		"REPLACE INTO "+benchDB+".probe VALUES (1, 0)"); err != nil {
		return 0, 0, err
	}
	before, err := p.snapshot(ctx)
	if err != nil {
		return 0, 0, err
	}
	for i := 0; i < n; i++ {
		if err := sqlq.Exec(ctx, p.pdb, "UPDATE "+benchDB+".probe SET n = n + 1 WHERE id = 1"); err != nil {
			return 0, 0, err
		}
	}
	after, err := p.snapshot(ctx)
	if err != nil {
		return 0, 0, err
	}
	return after.commits - before.commits, after.groups - before.groups, nil
}

const probeCommits = 50

// setSyncBinlog puts sync_binlog=v in place on the primary and returns how:
// by SET GLOBAL when that takes effect, else (Petrel) by restarting the
// primary with v in its config file. On Petrel "takes effect" for v=0 means
// Binlog_group_commits stops growing under single-row commits.
func (p *pair) setSyncBinlog(ctx context.Context, logger *slog.Logger, v int) (string, error) {
	if err := sqlq.Exec(ctx, p.pdb, fmt.Sprintf("SET GLOBAL sync_binlog = %d", v)); err != nil {
		return "", err
	}
	got, err := sqlq.String(ctx, p.pdb, "SELECT @@GLOBAL.sync_binlog")
	if err != nil {
		return "", err
	}
	if got != strconv.Itoa(v) {
		return "", fmt.Errorf("SET GLOBAL sync_binlog = %d left @@GLOBAL.sync_binlog = %s", v, got)
	}
	if p.system != "petrel" || v != 0 {
		return fmt.Sprintf("SET GLOBAL sync_binlog = %d (@@GLOBAL.sync_binlog reads %s)", v, got), nil
	}
	commits, groups, err := p.probeWrites(ctx, probeCommits)
	if err != nil {
		return "", err
	}
	if groups == 0 {
		return fmt.Sprintf("SET GLOBAL sync_binlog = 0 took effect: %d probe commits, Binlog_group_commits +0", commits), nil
	}
	how := fmt.Sprintf("SET GLOBAL sync_binlog = 0 was accepted (@@GLOBAL.sync_binlog reads 0) but did not take effect: "+
		"%d probe commits still made %d binlog fsync groups (Binlog_group_commits). The primary was restarted with "+
		"sync_binlog = 0 in its config file", commits, groups)
	logger.Warn("SET GLOBAL sync_binlog=0 did not take effect; restarting the primary with it in its config file",
		"probe_commits", commits, "groups", groups)
	if err := p.restartPrimary(ctx, 0); err != nil {
		return "", err
	}
	commits, groups, err = p.probeWrites(ctx, probeCommits)
	if err != nil {
		return "", err
	}
	if groups != 0 {
		return "", fmt.Errorf("sync_binlog = 0 in the config file: %d probe commits still made %d binlog fsync groups", commits, groups)
	}
	if err := p.waitCaughtUp(ctx, time.Minute); err != nil {
		return "", err
	}
	return how + fmt.Sprintf("; after the restart %d probe commits made 0 groups.", commits), nil
}
