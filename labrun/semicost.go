package labrun

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"petrel/lab"
)

// The mechanics of semisync-cost (exp_semicost.go; formerly
// bench/cmd/semisync): the primary's counters around a run, the
// acknowledgements counted from the link's bytes, the checks that
// semi-sync held (or stayed off) throughout a run, the modes, and
// sync_binlog=0 put in place and proved.

// semiPair is one system's primary and replica behind a link, with
// semi-sync configured: the trial's cluster and what this experiment
// reads of it.
type semiPair struct {
	c *Cluster
	f Names
}

// semiCounters is a snapshot of the primary's counters and the link's bytes.
type semiCounters struct {
	commits, groups       int64 // Binlog_commits, Binlog_group_commits
	yesTx, noTx           int64
	txWaits, txWaitTimeUs int64
	status                string // semi-sync status, ON/OFF
	clients               int64
	linkUp                int64 // bytes the link carried replica -> primary
	file                  string
}

// semiDelta is what happened between two snapshots.
type semiDelta struct {
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

func (d semiDelta) commitsPerGroup() float64 { return ratio64(d.commits, d.groups) }
func (d semiDelta) commitsPerAck() float64   { return ratio64(d.commits, d.acks) }

func ratio64(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// statusMap is SHOW GLOBAL STATUS as name -> value.
type statusMap map[string]string

// int returns a numeric status value, -1 when missing or not a number.
func (s statusMap) int(name string) int64 {
	n, err := strconv.ParseInt(s[name], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// primaryStatus reads the primary's binlog and semi-sync status variables.
func (p *semiPair) primaryStatus(ctx context.Context) (statusMap, error) {
	st := statusMap{}
	for _, like := range []string{"Binlog_%", p.f.SemiStatusPrefix + "%"} {
		if err := readStatus(ctx, p.c.PDB, like, st); err != nil {
			return nil, err
		}
	}
	return st, nil
}

func readStatus(ctx context.Context, db *sql.DB, like string, into statusMap) error {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS LIKE '"+like+"'")
	if err != nil {
		return fmt.Errorf("SHOW GLOBAL STATUS LIKE '%s': %w", like, err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var v sql.NullString
		if err := rows.Scan(&name, &v); err != nil {
			return err
		}
		into[name] = v.String
	}
	return rows.Err()
}

func (p *semiPair) snapshot(ctx context.Context) (semiCounters, error) {
	st, err := p.primaryStatus(ctx)
	if err != nil {
		return semiCounters{}, err
	}
	row, err := qRow(ctx, p.c.PDB, "SHOW MASTER STATUS")
	if err != nil {
		return semiCounters{}, err
	}
	if row == nil {
		return semiCounters{}, errors.New("SHOW MASTER STATUS: no row (binlog off?)")
	}
	sp := p.f.SemiStatusPrefix
	c := semiCounters{
		commits: st.int("Binlog_commits"), groups: st.int("Binlog_group_commits"),
		yesTx: st.int(sp + "yes_tx"), noTx: st.int(sp + "no_tx"),
		txWaits: st.int(sp + "tx_waits"), txWaitTimeUs: st.int(sp + "tx_wait_time"),
		status: st[sp+"status"], clients: st.int(sp + "clients"),
		linkUp: p.c.Links[0].Stats().Upstream, file: row["File"],
	}
	for name, v := range map[string]int64{"Binlog_commits": c.commits, "Binlog_group_commits": c.groups, sp + "yes_tx": c.yesTx, sp + "no_tx": c.noTx} {
		if v < 0 {
			return semiCounters{}, fmt.Errorf("status variable %s missing or not a number (%q)", name, st[name])
		}
	}
	return c, nil
}

func semiDiff(a, b semiCounters) semiDelta {
	d := semiDelta{
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

// check fails unless the run kept its mode. Semi-sync: ON with one
// client at the start, still ON at the end, no transaction released
// unacknowledged (no_tx) and some acknowledged (yes_tx). Async: OFF
// throughout.
func (p *semiPair) check(m semiMode, before semiCounters, d semiDelta) error {
	sp := p.f.SemiStatusPrefix
	if !m.semi() {
		if before.status != "OFF" || d.statusEnd != "OFF" {
			return fmt.Errorf("async run with %sstatus %s at the start and %s at the end", sp, before.status, d.statusEnd)
		}
		return nil
	}
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

// semiMode is how commits are made durable in a run.
type semiMode int

const (
	async semiMode = iota
	// semiWrite is semi-sync with the replica acknowledging once the
	// transaction is written to its relay log: Petrel's default
	// (rpl_semi_sync_replica_ack_after=RELAY_WRITE), MySQL's and MariaDB's
	// only behaviour.
	semiWrite
	// semiFsync is semi-sync with the replica acknowledging only once its
	// relay log is fsynced (Petrel's RELAY_SYNC).
	semiFsync
)

func (m semiMode) semi() bool { return m != async }

func (m semiMode) String() string {
	switch m {
	case semiWrite:
		return "semi-sync"
	case semiFsync:
		return "semi-sync RELAY_SYNC"
	}
	return "async"
}

// semiModes are the modes a system is measured in.
func semiModes(system string) []semiMode {
	if system == "petrel" {
		return []semiMode{async, semiWrite, semiFsync}
	}
	return []semiMode{async, semiWrite}
}

// setMode switches semi-sync on the primary and checks the switch took:
// ON with one semi-sync client, or OFF. On Petrel it also sets the
// replica's acknowledgement point.
func (p *semiPair) setMode(ctx context.Context, m semiMode) error {
	v := "OFF"
	if m.semi() {
		v = "ON"
		if p.c.System == "petrel" {
			ack := "RELAY_WRITE"
			if m == semiFsync {
				ack = "RELAY_SYNC"
			}
			if err := qExec(ctx, p.c.RDBs[0], "SET GLOBAL rpl_semi_sync_replica_ack_after = '"+ack+"'"); err != nil {
				return err
			}
		}
	}
	if err := qExec(ctx, p.c.PDB, fmt.Sprintf("SET GLOBAL %s = %s", p.f.SemiEnabled, v)); err != nil {
		return err
	}
	if m.semi() {
		return p.waitSemiOn(ctx)
	}
	st, err := p.primaryStatus(ctx)
	if err != nil {
		return err
	}
	if s := st[p.f.SemiStatusPrefix+"status"]; s != "OFF" {
		return fmt.Errorf("%s=OFF but %sstatus is %q", p.f.SemiEnabled, p.f.SemiStatusPrefix, s)
	}
	return nil
}

// semiOnTimeout bounds the wait for the replica to register as a
// semi-sync client (it reconnects within its connect retry).
const semiOnTimeout = 2 * time.Minute

// waitSemiOn waits until the primary's semi-sync status is ON with
// exactly one semi-sync client (the replica).
func (p *semiPair) waitSemiOn(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, semiOnTimeout)
	defer cancel()
	sp := p.f.SemiStatusPrefix
	var st statusMap
	var err error
	for {
		st, err = p.primaryStatus(ctx)
		if err == nil && st[sp+"status"] == "ON" && st.int(sp+"clients") == 1 {
			return nil
		}
		if lab.Sleep(ctx, 100*time.Millisecond) != nil {
			hint := ""
			if p.c.System == "petrel" && st.int(sp+"clients") == 0 {
				// A dump is semi-sync only if the source had semi-sync
				// enabled when the dump started.
				hint = " (Petrel never counts a replica whose dump started while semi-sync was OFF on the source: did the replica reconnect during an async run?)"
			}
			return fmt.Errorf("semi-sync not ON with one client within %v: %sstatus=%q %sclients=%q (last error %v)%s",
				semiOnTimeout, sp, st[sp+"status"], sp, st[sp+"clients"], err, hint)
		}
	}
}

// probeWrites commits n one-row transactions on the primary and returns
// how much the binlog's commit and fsync-group counters grew.
func (p *semiPair) probeWrites(ctx context.Context, n int) (commits, groups int64, err error) {
	if err := qExec(ctx, p.c.PDB, "CREATE TABLE IF NOT EXISTS "+LabDB+".probe (id INT PRIMARY KEY, n INT)",
		"REPLACE INTO "+LabDB+".probe VALUES (1, 0)"); err != nil {
		return 0, 0, err
	}
	before, err := p.snapshot(ctx)
	if err != nil {
		return 0, 0, err
	}
	for range n {
		if err := qExec(ctx, p.c.PDB, "UPDATE "+LabDB+".probe SET n = n + 1 WHERE id = 1"); err != nil {
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
func (p *semiPair) setSyncBinlog(ctx context.Context, v int) (string, error) {
	if err := qExec(ctx, p.c.PDB, fmt.Sprintf("SET GLOBAL sync_binlog = %d", v)); err != nil {
		return "", err
	}
	got, err := qString(ctx, p.c.PDB, "SELECT @@GLOBAL.sync_binlog")
	if err != nil {
		return "", err
	}
	if got != strconv.Itoa(v) {
		return "", fmt.Errorf("SET GLOBAL sync_binlog = %d left @@GLOBAL.sync_binlog = %s", v, got)
	}
	if p.c.System != "petrel" || v != 0 {
		return fmt.Sprintf("SET GLOBAL sync_binlog = %d", v), nil
	}
	commits, groups, err := p.probeWrites(ctx, probeCommits)
	if err != nil {
		return "", err
	}
	if groups == 0 {
		return fmt.Sprintf("SET GLOBAL sync_binlog = 0 took effect: %d probe commits, Binlog_group_commits +0", commits), nil
	}
	how := fmt.Sprintf("SET GLOBAL sync_binlog = 0 was accepted but did not take effect: %d probe commits still made %d binlog fsync groups; "+
		"the primary was restarted with sync_binlog = 0 in its config file", commits, groups)
	if err := p.c.RestartPetrelPrimary(ctx, map[string]string{"sync_binlog": "0"}); err != nil {
		return "", fmt.Errorf("restart primary: %w", err)
	}
	if err := p.c.WaitReplicaThreads(ctx, 0, time.Minute); err != nil {
		return "", fmt.Errorf("after restarting the primary: %w", err)
	}
	if err := p.waitSemiOn(ctx); err != nil {
		return "", fmt.Errorf("after restarting the primary: %w", err)
	}
	if commits, groups, err = p.probeWrites(ctx, probeCommits); err != nil {
		return "", err
	}
	if groups != 0 {
		return "", fmt.Errorf("sync_binlog = 0 in the config file: %d probe commits still made %d binlog fsync groups", commits, groups)
	}
	return how + fmt.Sprintf("; after the restart %d probe commits made 0 groups", commits), p.c.WaitCaughtUp(ctx, time.Minute)
}

// slapHook is the --pre-system/--post-system script. mariadb-slap runs it
// with system(), synchronously and outside its timer, just before and
// just after the timed phase; it asks the snapshot server (bash's
// /dev/tcp, port filled in) to snapshot the counters under the name given
// as $1 and waits until that is done.
const slapHook = `#!/bin/bash
exec 3<>/dev/tcp/127.0.0.1/%d || exit 1
echo "$1" >&3
read -r -t 120 reply <&3
[ "$reply" = ok ]
`

// snapshotServer takes a counters snapshot for each connection to it (one
// line: the snapshot's name; answer "ok"), so that mariadb-slap's hooks
// can mark the edges of its timed phase. It owns one accept goroutine that
// serves one connection at a time; close stops it and waits for it.
type snapshotServer struct {
	ln   net.Listener
	done chan struct{}

	mu struct {
		sync.Mutex
		snap map[string]semiCounters
		errs []error
	}
}

// snapshotTimeout bounds one hook connection, snapshot included.
const snapshotTimeout = time.Minute

func startSnapshotServer(ctx context.Context, p *semiPair) (*snapshotServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &snapshotServer{ln: ln, done: make(chan struct{})}
	s.mu.snap = map[string]semiCounters{}
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

func (s *snapshotServer) serve(ctx context.Context, p *semiPair, c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(snapshotTimeout))
	name, err := bufio.NewReader(c).ReadString('\n')
	var snap semiCounters
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
func (s *snapshotServer) result(a, b string) (semiCounters, semiCounters, error) {
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
