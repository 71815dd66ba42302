package labrun

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
)

// Failover (issue 34; bench/failover.sh, e2e TestClusterAutoFailover): a
// primary and two semi-sync replicas under a write load, the primary
// killed (SIGKILL), a replica promoted, the clients finding it. Petrel
// runs `petrel cluster --replicas 2 --auto-failover` (semi-sync strict,
// its failure detector and promotion); MariaDB has no failover in the
// server (MaxScale, orchestrator or replication-manager do it from
// outside; none is in Debian), so the lab does what such a tool does, by
// script, with the same detection rule as Petrel's (the primary
// unreachable for 1 s, probed every 200 ms).

func init() {
	register(&Experiment{
		Name: "failover",
		Description: "A primary and two semi-sync replicas under 4 writers; the primary is killed (SIGKILL) and a replica promoted " +
			"(Petrel: `petrel cluster --auto-failover`; MariaDB: the lab's script, the server having no failover of its own); each writer " +
			"tries the next server after an error (a replica refuses writes). Time from the kill to the promotion and to the first " +
			"acknowledged write, and every acknowledged commit looked for on the new primary.",
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "commits", Title: "Commits per second, from the kill to the first write after it shaded", Kind: Lines, XLabel: "time (s)", YLabel: "commits/s"},
			{ID: "seconds", Title: "Time from the kill", Kind: Bars, YLabel: "s", Categories: []string{"to promotion", "to first write"}},
		},
		Trial: failoverTrial,
	})
}

const (
	appUser     = "app"
	appPassword = "app-pw"
	// failoverDownFor and failoverProbe are MariaDB's scripted detector:
	// Petrel's defaults (failover.Options.DownFor, cluster's Interval).
	failoverDownFor = time.Second
	failoverProbe   = 200 * time.Millisecond
	// failoverWithin bounds the wait for a promotion.
	failoverWithin = time.Minute
	// mariadbSemiTimeout stands in for Petrel's strict semi-sync (no
	// timeout): longer than any trial's commit waits.
	mariadbSemiTimeout = time.Minute
)

// failoverResult is what the kill and the promotion did.
type failoverResult struct {
	killAt, promotedAt time.Duration // since the load's start
	// killedAt is when the killed primary was gone: a commit it
	// acknowledged between the SIGKILL and its death (a few ms) is not a
	// write after the kill.
	killedAt   time.Duration
	semisync   bool // the primary's semi-sync was on just before the kill
	newPrimary int  // index among the cluster's nodes (0: the first primary)
	err        error
}

func failoverTrial(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	var (
		c      *Cluster
		pc     *lab.PetrelCluster
		nodes  []Node
		err    error
		writer = 4
	)
	if t.System == "petrel" {
		c, pc, err = startSupervised(ctx, t)
	} else {
		c, err = t.Start(ctx, ClusterSpec{Replicas: 2, Semisync: true, SemisyncTimeout: mariadbSemiTimeout,
			PrimaryVars: map[string]string{"rpl_semi_sync_master_wait_point": "AFTER_SYNC"},
			ReplicaVars: map[string]string{"read_only": "ON"}})
	}
	if err != nil {
		return err
	}
	nodes = append([]Node{c.Primary}, c.Replicas...)
	if err := CreateLoadTable(ctx, c.PDB); err != nil {
		return err
	}
	grants := []string{fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", appUser, appPassword),
		fmt.Sprintf("GRANT ALL ON %s.* TO '%s'@'%%'", LabDB, appUser)}
	if err := qExec(ctx, c.PDB, grants...); err != nil {
		return err
	}
	if err := c.WaitCaughtUp(ctx, time.Minute); err != nil {
		return err
	}
	var pools []*sql.DB
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	for _, n := range nodes {
		pools = append(pools, appDB(n))
	}
	before, after := pick(m, 1500*time.Millisecond, 3*time.Second, 10*time.Second), pick(m, 6*time.Second, 6*time.Second, 20*time.Second)
	t.Command("load", fmt.Sprintf("%d writers as '%s' (ALL on %s.* only: a replica's read_only refuses them), unpaced autocommit INSERTs, "+
		"each writer moving to the next server (primary, replica1, replica2) after an error; SIGKILL of the primary after %v; load until %v after the kill",
		writer, appUser, LabDB, before, after))
	done := t.Phase("load, kill -9 of the primary, failover", before+after)
	defer done()
	res := make(chan failoverResult, 1)
	start := time.Now()
	go func() {
		var r failoverResult
		defer func() { res <- r }()
		if lab.Sleep(ctx, before) != nil {
			r.err = ctx.Err()
			return
		}
		// Semi-sync still on (not fallen back to async): only then is
		// every acknowledged commit on a replica.
		if r.semisync, r.err = c.SemisyncOn(ctx); r.err != nil {
			return
		}
		r.killAt = time.Since(start)
		if r.err = c.Primary.Kill(); r.err != nil {
			return
		}
		r.killedAt = time.Since(start)
		if pc != nil {
			r.newPrimary, r.promotedAt, r.err = awaitPromotion(ctx, pc, start)
		} else {
			r.newPrimary, r.promotedAt, r.err = mariadbFailover(ctx, t, c, start)
		}
	}()
	load, lerr := Load(ctx, pools[0], LoadOptions{Clients: writer, Duration: before + after, KeepAcked: true, Failover: pools[1:]})
	fo := <-res
	if err := firstErr(fo.err, lerr); err != nil {
		return err
	}
	var firstWrite time.Duration
	resumed := 0
	for _, cm := range load.Commits {
		// Writes sent after the kill: one sent before it and answered
		// by the old primary can be counted later on a busy host (its
		// client scheduled late), before any promotion.
		if cm.At-cm.Latency > fo.killedAt {
			if firstWrite == 0 {
				firstWrite = cm.At
			}
			resumed++
		}
	}
	if firstWrite == 0 {
		return fmt.Errorf("no write acknowledged in the %v after the kill (promotion %v after it; last error: %s)",
			after, (fo.promotedAt - fo.killAt).Round(time.Millisecond), load.FirstErr)
	}
	if err := c.retopology(ctx, nodes, fo.newPrimary, pc != nil); err != nil {
		return err
	}
	if pc != nil {
		// The killed node comes back as the new primary's replica: the
		// end-state check covers it.
		if err := awaitRejoin(ctx, c, nodes[0], nodes[fo.newPrimary]); err != nil {
			return err
		}
	}
	t.Shade("commits", Span{From: fo.killAt.Seconds(), To: firstWrite.Seconds(), Label: "no write"})
	t.Series("commits", bucket(load.Commits, 0.25, load.Elapsed.Seconds(), true))
	toPromotion, toWrite := (fo.promotedAt - fo.killAt).Seconds(), (firstWrite - fo.killAt).Seconds()
	t.Series("seconds", []Point{{X: 0, Y: toPromotion}, {X: 1, Y: toWrite}})
	lost, err := missingIDs(ctx, c, load.Acked)
	if err != nil {
		return err
	}
	t.Metric("kill to promotion", "s", toPromotion, true)
	t.Metric("kill to first write", "s", toWrite, true)
	t.Metric("acknowledged commits", "txn", float64(len(load.Acked)), false)
	t.Metric("acknowledged commits lost", "txn", float64(lost), true)
	t.Metric("commits after the kill", "txn", float64(resumed), false)
	t.Metric("failed statements during the failover", "stmt", float64(load.Errors), false)
	t.Metric("semi-sync on at the kill (1 = yes)", "bool", b2f(fo.semisync), false)
	if lost > 0 {
		return fmt.Errorf("%d of %d acknowledged commits missing on the new primary", lost, len(load.Acked))
	}
	return nil
}

// startSupervised starts `petrel cluster --replicas 2 --auto-failover`
// and wraps its nodes as a Cluster the runner checks and stops.
func startSupervised(ctx context.Context, t *Trial) (*Cluster, *lab.PetrelCluster, error) {
	done := t.Phase("start servers", 0)
	defer done()
	dir, err := os.MkdirTemp(t.Env.TempDir, "petrel-cluster-")
	if err != nil {
		return nil, nil, err
	}
	c := &Cluster{System: "petrel", f: flavors["petrel"], env: t.Env, dir: dir, gtidSets: true}
	t.adopt(c)
	pc, err := lab.StartPetrelCluster(ctx, lab.PetrelClusterOptions{Binary: t.Env.PetrelBinary, Dir: filepath.Join(dir, "cluster"),
		Replicas: 2, RootPassword: petrelPassword, ExtraArgs: []string{"--auto-failover"}, Logger: t.Env.Logger})
	if err != nil {
		return c, nil, fmt.Errorf("petrel cluster: %w", err)
	}
	c.stop = pc.Stop
	c.Commands = append(c.Commands, Command{System: "petrel", What: "cluster",
		Text: "petrel cluster --datadir DIR --base-port PORT --replicas 2 --root-password *** --log-level info --auto-failover"})
	c.Primary = &supervisedNode{pc: pc, i: 0}
	for i := 1; i < pc.Nodes(); i++ {
		c.Replicas = append(c.Replicas, &supervisedNode{pc: pc, i: i})
	}
	if err := c.connect(ctx); err != nil {
		return c, pc, err
	}
	t.versions = map[string]string{"petrel": c.Version}
	return c, pc, qExec(ctx, c.PDB, "CREATE DATABASE IF NOT EXISTS "+LabDB)
}

// adopt hands the runner a cluster the trial started itself.
func (t *Trial) adopt(c *Cluster) { t.clusters = append(t.clusters, c) }

// awaitPromotion waits until cluster.json records a failover and returns
// the new primary and the promotion's time since start.
func awaitPromotion(ctx context.Context, pc *lab.PetrelCluster, start time.Time) (int, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, failoverWithin)
	defer cancel()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		p, changes, err := pc.State()
		if err == nil && len(changes) > 0 {
			return p, changes[len(changes)-1].At.Sub(start), nil
		}
		select {
		case <-ctx.Done():
			return 0, 0, fmt.Errorf("petrel cluster promoted no replica within %v of the kill (state: %v)\n%s", failoverWithin, err, lastLines(pc.Log(), 20))
		case <-tick.C:
		}
	}
}

// mariadbFailover is the lab's scripted MariaDB failover: the primary
// confirmed dead (unreachable for failoverDownFor), the replica that
// received the most promoted once it applied its relay log, the other
// pointed at it, then writes allowed. It returns the new primary's index
// among the nodes and the time the writes were allowed, since start.
func mariadbFailover(ctx context.Context, t *Trial, c *Cluster, start time.Time) (int, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, failoverWithin)
	defer cancel()
	var downSince time.Time
	for {
		pctx, pcancel := context.WithTimeout(ctx, failoverProbe*5/2)
		err := c.PDB.PingContext(pctx)
		pcancel()
		now := time.Now()
		if err == nil {
			downSince = time.Time{}
		} else if downSince.IsZero() {
			downSince = now
		} else if now.Sub(downSince) >= failoverDownFor {
			break
		}
		if lab.Sleep(ctx, failoverProbe) != nil {
			return 0, 0, fmt.Errorf("mariadb failover: the primary was not confirmed dead: %w", ctx.Err())
		}
	}
	best, bestPos, bestSeq := -1, "", int64(-1)
	for i := range c.Replicas {
		st, err := c.ReplicaStatus(ctx, i)
		if err != nil {
			return 0, 0, fmt.Errorf("mariadb failover: replica%d: %w", i+1, err)
		}
		seq, err := lab.MariaDBSeq(st["Gtid_IO_Pos"])
		if err != nil {
			return 0, 0, err
		}
		if seq > bestSeq {
			best, bestPos, bestSeq = i, st["Gtid_IO_Pos"], seq
		}
	}
	db := c.RDBs[best]
	var waited sql.NullInt64
	wctx, wcancel := context.WithTimeout(ctx, 35*time.Second)
	err := db.QueryRowContext(wctx, "SELECT MASTER_GTID_WAIT(?, 30)", bestPos).Scan(&waited)
	wcancel()
	if err != nil || waited.Int64 != 0 {
		return 0, 0, fmt.Errorf("mariadb failover: replica%d did not apply its relay log to %s within 30 s: %v", best+1, bestPos, err)
	}
	promote := []string{"STOP SLAVE", "RESET SLAVE ALL",
		"SET GLOBAL rpl_semi_sync_master_wait_point = AFTER_SYNC",
		fmt.Sprintf("SET GLOBAL rpl_semi_sync_master_timeout = %d", mariadbSemiTimeout.Milliseconds()),
		"SET GLOBAL rpl_semi_sync_master_enabled = ON"}
	if err := qExec(ctx, db, promote...); err != nil {
		return 0, 0, fmt.Errorf("mariadb failover: promote replica%d: %w", best+1, err)
	}
	nb := c.Replicas[best]
	change := fmt.Sprintf(c.f.change, nb.Host(), nb.Port(), replUser, replPassword)
	for i, rdb := range c.RDBs {
		if i == best {
			continue
		}
		if err := qExec(ctx, rdb, "STOP SLAVE", change, "START SLAVE"); err != nil {
			return 0, 0, fmt.Errorf("mariadb failover: point replica%d at replica%d: %w", i+1, best+1, err)
		}
	}
	if err := qExec(ctx, db, "SET GLOBAL read_only = OFF"); err != nil {
		return 0, 0, err
	}
	at := time.Since(start)
	t.Command("failover (the lab's script)", fmt.Sprintf("ping the primary every %v (%v timeout) until unreachable for %v; "+
		"the replica with the highest Gtid_IO_Pos: SELECT MASTER_GTID_WAIT(Gtid_IO_Pos, 30); %s; "+
		"the other replica: STOP SLAVE; %s; START SLAVE; then on the new primary: SET GLOBAL read_only = OFF",
		failoverProbe, failoverProbe*5/2, failoverDownFor, strings.Join(promote, "; "), "CHANGE MASTER TO MASTER_HOST='NEW', MASTER_PORT=PORT, ..., MASTER_USE_GTID=slave_pos"))
	t.Note("MariaDB has no failover of its own (MaxScale, orchestrator and replication-manager do it from outside the server, and none is in Debian): " +
		"its figures are the lab's script's, which detects as Petrel's detector does (unreachable for 1 s, probed every 200 ms) with one observer where Petrel " +
		"wants two; its killed primary is left down (bringing it back needs its unacknowledged binlog tail cut, --init-rpl-role=SLAVE, or a rebuild), " +
		"while `petrel cluster` brings Petrel's back as a replica, which the end-state check covers. MariaDB's semi-sync has no strict mode: a 60 s timeout stands in.")
	return best + 1, at, nil
}

// retopology makes node next the cluster's primary after a failover and
// the others its replicas: all of them when the killed one came back
// (rejoined), else the survivors, the killed one kept aside to be stopped.
func (c *Cluster) retopology(ctx context.Context, nodes []Node, next int, rejoined bool) error {
	if next <= 0 || next >= len(nodes) {
		return fmt.Errorf("failover promoted node %d of %d", next+1, len(nodes))
	}
	for _, db := range append([]*sql.DB{c.PDB}, c.RDBs...) {
		db.Close()
	}
	c.PDB, c.RDBs, c.Replicas = nil, nil, nil
	c.Primary = nodes[next]
	for i, n := range nodes {
		switch {
		case i == next:
		case i == 0 && !rejoined:
			c.down = append(c.down, n)
		default:
			c.Replicas = append(c.Replicas, n)
		}
	}
	return c.connect(ctx)
}

// awaitRejoin waits until the killed node replicates from the new primary.
func awaitRejoin(ctx context.Context, c *Cluster, old, primary Node) error {
	db, err := old.DB("")
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, failoverWithin)
	defer cancel()
	var st map[string]string
	for {
		st, err = qRow(ctx, db, c.f.status)
		if err == nil && st[sourcePortCol] == strconv.Itoa(primary.Port()) && st[c.f.ioRunning] == "Yes" && st[c.f.sqlRunning] == "Yes" {
			return nil
		}
		if lab.Sleep(ctx, 100*time.Millisecond) != nil {
			return fmt.Errorf("the killed primary did not rejoin as the new primary's replica within %v (status %v, %v)", failoverWithin, st, err)
		}
	}
}

const sourcePortCol = "Source_Port"

// appDB opens a pool for the application's account on n.
func appDB(n Node) *sql.DB {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = appUser, appPassword, "tcp", fmt.Sprintf("%s:%d", n.Host(), n.Port())
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = time.Second, 30*time.Second, 10*time.Second
	cfg.Logger = &mysql.NopLogger{}
	conn, _ := mysql.NewConnector(cfg) // valid by construction
	return sql.OpenDB(conn)
}

// supervisedNode is a `petrel cluster` node: the supervisor starts,
// restarts and stops it.
type supervisedNode struct {
	pc *lab.PetrelCluster
	i  int
}

func (n *supervisedNode) Port() int                      { return n.pc.Port(n.i) }
func (n *supervisedNode) Pid() int                       { return n.pc.Pid(n.i) }
func (n *supervisedNode) Datadir() string                { return n.pc.Datadir(n.i) }
func (n *supervisedNode) Host() string                   { return "127.0.0.1" }
func (n *supervisedNode) Log() string                    { return n.pc.Log() }
func (n *supervisedNode) DB(db string) (*sql.DB, error)  { return n.pc.DB(n.i, db) }
func (n *supervisedNode) Stop(ctx context.Context) error { return nil } // the supervisor stops its nodes
func (n *supervisedNode) Kill() error                    { return n.pc.Kill(n.i) }
func (n *supervisedNode) Restart(ctx context.Context) error {
	return errors.New("a `petrel cluster` node is restarted by its supervisor")
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
