package labrun

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"petrel/lab"
)

// The one harness of the lab: a primary and its replicas of either system,
// wired by GTID auto-position, the replicas reaching the primary directly,
// through a userspace Link each, or across a WAN (namespaces). It replaces
// the pair types bench/cmd/repl and bench/cmd/semisync (now the
// replication-sysbench and semisync-cost experiments) each had.

const (
	// LabDB is the database experiments write to; the end-state check
	// digests every table in it.
	LabDB = "lab"
	// petrelPassword is root's password on Petrel nodes; MariaDB's root
	// has none (lab's install).
	petrelPassword = "petrel"
	replUser       = "repl"
	replPassword   = "repl-pw"
	queryTimeout   = 10 * time.Second
	nodeStart      = 2 * time.Minute
	nodeStop       = time.Minute
	pollInterval   = 20 * time.Millisecond
	// wiringSemiTimeout bounds a semi-sync wait while a cluster is wired.
	wiringSemiTimeout = 300 * time.Millisecond
)

// Node is what lab.Petrel and lab.MariaDB have in common.
type Node interface {
	Port() int
	Pid() int
	Datadir() string
	Host() string
	Log() string
	DB(db string) (*sql.DB, error)
	Stop(ctx context.Context) error
	Kill() error
	Restart(ctx context.Context) error
}

// flavor is how one system spells replication.
type flavor struct {
	primaryPos, replicaPos string
	status                 string
	ioRunning, sqlRunning  string
	ioError, sqlError      string
	change                 string // host, port, user, password
	start, stop            string
	stopApplier            string
	startApplier           string
	semiEnabled            string // the primary's semi-sync switch
	semiTimeout            string // its timeout in ms
	semiReplica            string // the replica's
	semiStatus             string // the primary's status variable
	semiNoReplica          string // whether commits wait with no semi-sync replica
	workers                string // parallel applier threads
}

var flavors = map[string]flavor{
	"petrel": {
		primaryPos: "@@GLOBAL.gtid_executed", replicaPos: "@@GLOBAL.gtid_executed",
		status: "SHOW REPLICA STATUS", ioRunning: "Replica_IO_Running", sqlRunning: "Replica_SQL_Running",
		ioError: "Last_IO_Error", sqlError: "Last_SQL_Error",
		change: "CHANGE REPLICATION SOURCE TO SOURCE_HOST='%s', SOURCE_PORT=%d, SOURCE_USER='%s', " +
			"SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1",
		start: "START REPLICA", stop: "STOP REPLICA",
		stopApplier: "STOP REPLICA SQL_THREAD", startApplier: "START REPLICA SQL_THREAD",
		semiEnabled: "rpl_semi_sync_source_enabled", semiTimeout: "rpl_semi_sync_source_timeout",
		semiReplica: "rpl_semi_sync_replica_enabled", semiStatus: "Rpl_semi_sync_source_status",
		semiNoReplica: "rpl_semi_sync_source_wait_no_replica",
		workers:       "replica_parallel_workers",
	},
	"mariadb": {
		primaryPos: "@@GLOBAL.gtid_binlog_pos", replicaPos: "@@GLOBAL.gtid_slave_pos",
		status: "SHOW SLAVE STATUS", ioRunning: "Slave_IO_Running", sqlRunning: "Slave_SQL_Running",
		ioError: "Last_IO_Error", sqlError: "Last_SQL_Error",
		change: "CHANGE MASTER TO MASTER_HOST='%s', MASTER_PORT=%d, MASTER_USER='%s', " +
			"MASTER_PASSWORD='%s', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1",
		start: "START SLAVE", stop: "STOP SLAVE",
		stopApplier: "STOP SLAVE SQL_THREAD", startApplier: "START SLAVE SQL_THREAD",
		semiEnabled: "rpl_semi_sync_master_enabled", semiTimeout: "rpl_semi_sync_master_timeout",
		semiReplica: "rpl_semi_sync_slave_enabled", semiStatus: "Rpl_semi_sync_master_status",
		semiNoReplica: "rpl_semi_sync_master_wait_no_slave",
		workers:       "slave_parallel_threads",
	},
}

// mariadbDurable gives MariaDB the durability Petrel has by default
// (every commit fsynced in the binlog and the redo log) and a replica
// that logs what it applies, as a Petrel replica does.
var mariadbDurable = []string{
	"--log-bin=mysql-bin", "--binlog-format=ROW", "--log-slave-updates",
	"--sync-binlog=1", "--innodb-flush-log-at-trx-commit=1",
	"--innodb-buffer-pool-size=256M", "--max-connections=12000",
	"--relay-log=relay-bin", "--slave-net-timeout=10",
}

// NetKind is how replicas reach their primary.
type NetKind int

const (
	// NetDirect: straight to the primary on loopback.
	NetDirect NetKind = iota
	// NetLink: each replica through its own lab.Link (userspace proxy:
	// latency, black hole, cuts); no root needed.
	NetLink
	// NetWAN: the primary in a WAN's side 0, the replicas in side 1,
	// kernel TCP across lab's packet-level emulator (loss, delay,
	// bandwidth); root only.
	NetWAN
)

// ClusterSpec says what to start.
type ClusterSpec struct {
	// System is "petrel" or "mariadb".
	System string
	// Replicas is the number of replicas. Default 1, unless Standalone.
	Replicas int
	// Standalone starts the primary alone, with no replica (the sweep's
	// servers).
	Standalone bool
	// PetrelBinary, when set, is the petrel executable of this cluster's
	// nodes instead of the Env's (the sweep compares builds).
	PetrelBinary string
	Net          NetKind
	// LinkLatency is each Link's one-way latency (NetLink).
	LinkLatency time.Duration
	// WAN configures the emulator (NetWAN).
	WAN lab.WANOptions
	// Semisync turns semi-synchronous replication on, with
	// SemisyncTimeout (default 10 s) before the primary falls back.
	Semisync        bool
	SemisyncTimeout time.Duration
	// ReplicaWorkers sets the replicas' parallel applier threads
	// (0: the system's default).
	ReplicaWorkers int
	// PrimaryVars and ReplicaVars are further server variables, set at
	// start (Petrel: its option file; MariaDB: --name=value).
	PrimaryVars, ReplicaVars map[string]string
	// ReplicaEnv is added to the replicas' environment.
	ReplicaEnv []string
	// ReplicaSyncDelay, when set, gives the replicas a slow disk and
	// per-transaction durability: this latency before every fsync, as on
	// a networked disk, and applied transactions that wait for their
	// fsync. Petrel: petrel_storage_sync_delay and
	// petrel_replica_durable_apply=ON. MariaDB (whose replica fsyncs
	// every commit already: sync_binlog=1, innodb_flush_log_at_trx_commit=1):
	// lab's fsync delay library preloaded, since a device-mapper delay
	// target needs a kernel with the device mapper.
	ReplicaSyncDelay time.Duration
	// PetrelArgs are extra flags of every Petrel node.
	PetrelArgs []string
	// MariaDBArgs and MariaDBReplicaArgs, when set, replace the MariaDB
	// primary's and replicas' flags (default mariadbDurable).
	MariaDBArgs, MariaDBReplicaArgs []string
	// SourceOptions are appended to every replica's and the relay's
	// CHANGE REPLICATION SOURCE TO (e.g. ", SOURCE_COMPRESSION_ALGORITHMS
	// = 'zstd'").
	SourceOptions string
	// Relay puts one relay next to the replicas (the WAN's side 1): it
	// replicates from the primary and the replicas from it, so the
	// stream crosses the line once. Petrel runs `petrel relay` (keeps the
	// binlog, applies nothing); MariaDB, which has no such role, an
	// intermediate replica with log_slave_updates.
	Relay bool
}

// Cluster is one system's primary and replicas, replicating.
type Cluster struct {
	System   string
	f        flavor
	Primary  Node
	Replicas []Node
	// Relay is the relay (ClusterSpec.Relay), not among Replicas.
	Relay Node
	// Links are the replicas' links (NetLink), by replica.
	Links []*lab.Link
	// WAN is the emulator (NetWAN).
	WAN     *lab.WAN
	PDB     *sql.DB
	RDBs    []*sql.DB
	Version string
	uuid    string // Petrel primary's server_uuid
	// primaryVars are the primary's start-up variables.
	primaryVars map[string]string
	dir         string
	// fsyncCounts are the MariaDB replicas' fsync delay counts
	// (ReplicaSyncDelay), by replica.
	fsyncCounts []string
	// Commands are the server command lines and statements, for the report.
	Commands []Command
	env      *Env
	// gtidSets: replicas are caught up when their GTID set holds the
	// primary's (after a Petrel failover the sets hold two servers'
	// uuids, so counting the first primary's no longer tells).
	gtidSets bool
	// down are nodes out of the topology (a killed primary not brought
	// back), still stopped by Close.
	down []Node
	// stop, when set, stops what runs the nodes (a `petrel cluster`
	// supervisor); Close calls it after the nodes' own Stop.
	stop func(context.Context) error
}

// StartCluster starts spec's servers and wires replication. The cluster
// is returned even on error so that the caller can Close it.
func StartCluster(ctx context.Context, env *Env, spec ClusterSpec) (*Cluster, error) {
	f, ok := flavors[spec.System]
	if !ok {
		return nil, fmt.Errorf("unknown system %q (want petrel or mariadb)", spec.System)
	}
	if spec.Standalone {
		spec.Replicas = 0
	} else if spec.Replicas <= 0 {
		spec.Replicas = 1
	}
	if spec.SemisyncTimeout <= 0 {
		spec.SemisyncTimeout = 10 * time.Second
	}
	c := &Cluster{System: spec.System, f: f, env: env}
	dir, err := os.MkdirTemp(env.TempDir, spec.System+"-")
	if err != nil {
		return c, err
	}
	c.dir = dir
	if spec.Net == NetWAN {
		if c.WAN, err = lab.NewWAN(ctx, spec.WAN); err != nil {
			return c, fmt.Errorf("wan: %w", err)
		}
	}
	pvars, rvars := c.vars(spec)
	c.primaryVars = pvars
	var fsyncLib string
	if spec.ReplicaSyncDelay > 0 && spec.System == "mariadb" {
		if fsyncLib, err = lab.BuildFsyncDelay(ctx, dir); err != nil {
			return c, err
		}
	}
	if c.Primary, err = c.startNode(ctx, spec, "primary", 1, pvars, 0, nil); err != nil {
		return c, err
	}
	if spec.Relay {
		if c.Relay, err = c.startNode(ctx, spec, "relay", spec.Replicas+2, nil, 1, nil); err != nil {
			return c, err
		}
	}
	for i := range spec.Replicas {
		env := slices.Clone(spec.ReplicaEnv)
		if fsyncLib != "" {
			count, err := filepath.Abs(filepath.Join(dir, fmt.Sprintf("replica%d.fsyncs", i+1)))
			if err != nil {
				return c, err
			}
			c.fsyncCounts = append(c.fsyncCounts, count)
			env = append(env, lab.FsyncDelayEnv(fsyncLib, spec.ReplicaSyncDelay, count)...)
		}
		n, err := c.startNode(ctx, spec, fmt.Sprintf("replica%d", i+1), i+2, rvars, 1, env)
		if err != nil {
			return c, err
		}
		c.Replicas = append(c.Replicas, n)
	}
	if err := c.connect(ctx); err != nil {
		return c, err
	}
	return c, c.wire(ctx, spec)
}

// vars are the primary's and the replicas' start-up variables.
func (c *Cluster) vars(spec ClusterSpec) (p, r map[string]string) {
	p, r = map[string]string{}, map[string]string{}
	if spec.Semisync {
		p[c.f.semiEnabled] = "ON"
		// The wiring's own statements run before any replica is
		// connected: they must not wait out a long timeout (Petrel
		// waits then even with wait_no_replica OFF, which only acts
		// when a replica leaves), so the primary starts with a short
		// one and wire sets the experiment's once the replicas are in.
		p[c.f.semiTimeout] = strconv.FormatInt(min(spec.SemisyncTimeout, wiringSemiTimeout).Milliseconds(), 10)
		p[c.f.semiNoReplica] = "OFF"
		r[c.f.semiReplica] = "ON"
	}
	if spec.ReplicaWorkers > 0 {
		r[c.f.workers] = strconv.Itoa(spec.ReplicaWorkers)
	}
	if spec.ReplicaSyncDelay > 0 && c.System == "petrel" {
		r["petrel_storage_sync_delay"] = spec.ReplicaSyncDelay.String()
		r["petrel_replica_durable_apply"] = "ON"
	}
	maps.Copy(p, spec.PrimaryVars)
	maps.Copy(r, spec.ReplicaVars)
	return p, r
}

func (c *Cluster) startNode(ctx context.Context, spec ClusterSpec, role string, id int, vars map[string]string, side int, env []string) (Node, error) {
	logger := c.env.Logger.With("system", c.System, "role", role)
	var wan *lab.WAN
	if c.WAN != nil {
		wan = c.WAN
	}
	switch c.System {
	case "petrel":
		cnf := filepath.Join(c.dir, role+".cnf")
		if err := writePetrelConfig(cnf, vars); err != nil {
			return nil, err
		}
		bin := c.env.PetrelBinary
		if spec.PetrelBinary != "" {
			bin = spec.PetrelBinary
		}
		o := lab.PetrelOptions{
			Binary: bin, Datadir: filepath.Join(c.dir, role), ServerID: id, Command: petrelCommand(role),
			RootPassword: petrelPassword, ExtraArgs: append([]string{"--config", cnf}, spec.PetrelArgs...), Env: env,
			StartTimeout: nodeStart, StopTimeout: nodeStop, Logger: logger, WAN: wan, Side: side,
		}
		c.Commands = append(c.Commands, Command{System: c.System, What: role + " server",
			Text: fmt.Sprintf("petrel "+petrelCommand(role)+" --datadir DIR --server-id %d --root-password *** --config %s.cnf  # %s", id, role, strings.TrimSpace(strings.ReplaceAll(petrelConfig(vars), "\n", "; ")))})
		n, err := lab.StartPetrel(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("start petrel %s: %w", role, explainStart(err))
		}
		return n, nil
	default:
		args := slices.Clone(mariadbDurable)
		if role == "primary" && spec.MariaDBArgs != nil {
			args = slices.Clone(spec.MariaDBArgs)
		} else if role != "primary" && spec.MariaDBReplicaArgs != nil {
			args = slices.Clone(spec.MariaDBReplicaArgs)
		}
		for _, k := range slices.Sorted(maps.Keys(vars)) {
			args = append(args, "--"+k+"="+vars[k])
		}
		datadir := filepath.Join(c.dir, role)
		tmpl, err := c.env.mariadbTemplate(ctx)
		if err != nil {
			return nil, err
		}
		if tmpl != "" {
			// lab skips mariadb-install-db for a datadir holding mysql/.
			if out, err := exec.CommandContext(ctx, "cp", "-a", tmpl, datadir).CombinedOutput(); err != nil {
				return nil, fmt.Errorf("copy the initialised MariaDB datadir: %w: %s", err, out)
			}
		}
		o := lab.MariaDBOptions{
			Datadir: datadir, ServerID: id, ExtraArgs: args, Env: env,
			StartTimeout: nodeStart, StopTimeout: nodeStop, Logger: logger, WAN: wan, Side: side,
		}
		prefix := ""
		for _, e := range env {
			prefix += e + " "
		}
		c.Commands = append(c.Commands, Command{System: c.System, What: role + " server",
			Text: fmt.Sprintf("%smariadbd --no-defaults --datadir DIR --server-id %d %s", prefix, id, strings.Join(args, " "))})
		n, err := lab.StartMariaDB(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("start mariadb %s: %w", role, explainStart(err))
		}
		return n, nil
	}
}

// petrelCommand is the petrel subcommand of a role.
func petrelCommand(role string) string {
	if role == "relay" {
		return "relay"
	}
	return "server"
}

// explainStart turns the usual start failure into advice.
func explainStart(err error) error {
	if strings.Contains(err.Error(), "address already in use") || strings.Contains(err.Error(), "Address already in use") {
		return fmt.Errorf("a port lab picked as free was taken before the server bound it (ports in use; retry, or stop whatever holds ports 12000-32000): %w", err)
	}
	return err
}

func (c *Cluster) connect(ctx context.Context) error {
	var err error
	if c.PDB, err = c.Primary.DB(""); err != nil {
		return err
	}
	for _, r := range c.Replicas {
		db, err := r.DB("")
		if err != nil {
			return err
		}
		c.RDBs = append(c.RDBs, db)
	}
	if c.Version, err = qString(ctx, c.PDB, "SELECT VERSION()"); err != nil {
		return err
	}
	if c.System == "petrel" {
		c.uuid, err = qString(ctx, c.PDB, "SELECT @@GLOBAL.server_uuid")
	}
	return err
}

// wire creates the replication user and the lab database, points every
// replica at the primary and waits until all have applied both.
func (c *Cluster) wire(ctx context.Context, spec ClusterSpec) error {
	stmts := []string{
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", replUser, replPassword),
		fmt.Sprintf("GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'", replUser),
	}
	if err := qExec(ctx, c.PDB, stmts...); err != nil {
		return fmt.Errorf("primary: %w", err)
	}
	srcHost, srcPort := c.Primary.Host(), c.Primary.Port()
	if c.Relay != nil {
		db, err := c.Relay.DB("")
		if err != nil {
			return err
		}
		defer db.Close()
		change := fmt.Sprintf(c.f.change, srcHost, srcPort, replUser, replPassword) + spec.SourceOptions
		c.Commands = append(c.Commands, Command{System: c.System, What: "relay",
			Text: strings.ReplaceAll(change, replPassword, "***") + "; " + c.f.start})
		if err := qExec(ctx, db, change, c.f.start); err != nil {
			return fmt.Errorf("relay: %w", err)
		}
		srcHost, srcPort = c.Relay.Host(), c.Relay.Port()
	}
	user, password := replUser, replPassword
	if c.Relay != nil && c.System == "petrel" {
		// A Petrel relay applies nothing, so it has no repl user: the
		// replicas log in as its root.
		user, password = "root", petrelPassword
	}
	for i, db := range c.RDBs {
		host, port := srcHost, srcPort
		if spec.Net == NetLink {
			l, err := lab.StartLink(fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				return err
			}
			l.SetLatency(spec.LinkLatency)
			c.Links = append(c.Links, l)
			host, port = "127.0.0.1", l.Port()
		}
		change := fmt.Sprintf(c.f.change, host, port, user, password) + spec.SourceOptions
		c.Commands = append(c.Commands, Command{System: c.System, What: fmt.Sprintf("replica%d", i+1),
			Text: strings.ReplaceAll(change, "'"+password+"'", "'***'") + "; " + c.f.start})
		if err := qExec(ctx, db, change, c.f.start); err != nil {
			return fmt.Errorf("replica%d: %w", i+1, err)
		}
	}
	if err := qExec(ctx, c.PDB, "CREATE DATABASE "+LabDB); err != nil {
		return err
	}
	if err := c.WaitCaughtUp(ctx, time.Minute); err != nil {
		return err
	}
	if spec.Semisync {
		// The experiment's timeout, and the servers' default of waiting
		// even with no semi-sync replica.
		set := []string{fmt.Sprintf("SET GLOBAL %s = %d", c.f.semiTimeout, spec.SemisyncTimeout.Milliseconds()),
			fmt.Sprintf("SET GLOBAL %s = ON", c.f.semiNoReplica)}
		c.Commands = append(c.Commands, Command{System: c.System, What: "primary, once the replicas are in", Text: strings.Join(set, "; ")})
		return qExec(ctx, c.PDB, set...)
	}
	return nil
}

// RestartPetrelPrimary restarts a Petrel primary with vars merged into
// its option file (start-up settings such as sync_binlog). The pools
// reconnect by themselves.
func (c *Cluster) RestartPetrelPrimary(ctx context.Context, vars map[string]string) error {
	p, ok := c.Primary.(*lab.Petrel)
	if !ok {
		return fmt.Errorf("restart with new settings: the %s primary is not Petrel", c.System)
	}
	maps.Copy(c.primaryVars, vars)
	if err := writePetrelConfig(filepath.Join(c.dir, "primary.cnf"), c.primaryVars); err != nil {
		return err
	}
	return p.Restart(ctx)
}

// writePetrelConfig writes vars as a Petrel option file and returns its
// text.
func writePetrelConfig(path string, vars map[string]string) error {
	return os.WriteFile(path, []byte(petrelConfig(vars)), 0o600)
}

func petrelConfig(vars map[string]string) string {
	var b strings.Builder
	b.WriteString("[mysqld]\n")
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		fmt.Fprintf(&b, "%s = %s\n", k, vars[k])
	}
	return b.String()
}

// PrimaryCount is the number of transactions the primary has logged
// (its own server's GTIDs).
func (c *Cluster) PrimaryCount(ctx context.Context) (int64, error) {
	return c.count(ctx, c.PDB, c.f.primaryPos)
}

// ReplicaCount is the number of the primary's transactions replica i has
// applied.
func (c *Cluster) ReplicaCount(ctx context.Context, i int) (int64, error) {
	return c.count(ctx, c.RDBs[i], c.f.replicaPos)
}

func (c *Cluster) count(ctx context.Context, db *sql.DB, v string) (int64, error) {
	pos, err := qString(ctx, db, "SELECT "+v)
	if err != nil {
		return 0, err
	}
	return c.Count(pos)
}

// Count turns a position of the system's (a GTID set, a MariaDB GTID
// position) into the number of the primary's transactions it holds.
func (c *Cluster) Count(pos string) (int64, error) {
	if c.System == "petrel" {
		return lab.GTIDCount(pos, c.uuid)
	}
	return lab.MariaDBSeq(pos)
}

// ReplicaStatus is replica i's status row, column to value.
func (c *Cluster) ReplicaStatus(ctx context.Context, i int) (map[string]string, error) {
	return qRow(ctx, c.RDBs[i], c.f.status)
}

// broken describes a replica thread stopped by an error, or "".
func (c *Cluster) broken(st map[string]string) string {
	if e := st[c.f.sqlError]; e != "" {
		return fmt.Sprintf("%s=%s: %s", c.f.sqlRunning, st[c.f.sqlRunning], e)
	}
	if st[c.f.ioRunning] == "No" && st[c.f.ioError] != "" {
		return fmt.Sprintf("%s=No: %s", c.f.ioRunning, st[c.f.ioError])
	}
	return ""
}

// WaitApplied waits until replica i has applied target transactions,
// failing at once if its replication broke.
func (c *Cluster) WaitApplied(ctx context.Context, i int, target int64, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var got int64
	var lastErr error
	for n := 0; ; n++ {
		v, err := c.ReplicaCount(ctx, i)
		if err == nil && v >= target {
			return nil
		}
		if err != nil {
			lastErr = err
		} else {
			got = v
		}
		if n%50 == 49 {
			if st, err := c.ReplicaStatus(ctx, i); err == nil && c.broken(st) != "" {
				return fmt.Errorf("%s replica%d: replication broke at %d of %d: %s", c.System, i+1, got, target, c.broken(st))
			}
		}
		select {
		case <-ctx.Done():
			if lastErr != nil {
				return fmt.Errorf("%s replica%d applied %d of %d transactions within %v (last error reading its position: %v): %w", c.System, i+1, got, target, timeout, lastErr, ctx.Err())
			}
			return fmt.Errorf("%s replica%d applied %d of %d transactions within %v: %w", c.System, i+1, got, target, timeout, ctx.Err())
		case <-tick.C:
		}
	}
}

// WaitCaughtUp waits until every replica has applied all the primary has.
func (c *Cluster) WaitCaughtUp(ctx context.Context, timeout time.Duration) error {
	if c.gtidSets {
		return c.waitHolds(ctx, timeout)
	}
	target, err := c.PrimaryCount(ctx)
	if err != nil {
		return err
	}
	for i := range c.Replicas {
		if err := c.WaitApplied(ctx, i, target, timeout); err != nil {
			return err
		}
	}
	return nil
}

// waitHolds waits until every replica's gtid_executed holds the
// primary's (Petrel).
func (c *Cluster) waitHolds(ctx context.Context, timeout time.Duration) error {
	want, err := qString(ctx, c.PDB, "SELECT @@GLOBAL.gtid_executed")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for i, db := range c.RDBs {
		var have string
		for n := 0; ; n++ {
			h, err := qString(ctx, db, "SELECT @@GLOBAL.gtid_executed")
			if err == nil {
				have = h
				if ok, err := lab.GTIDContains(h, want); err != nil {
					return err
				} else if ok {
					break
				}
			}
			if n%50 == 49 {
				if st, err := c.ReplicaStatus(ctx, i); err == nil && c.broken(st) != "" {
					return fmt.Errorf("%s replica%d: replication broke: %s", c.System, i+1, c.broken(st))
				}
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s replica%d holds %q, not all of the primary's %q, after %v: %w", c.System, i+1, have, want, timeout, ctx.Err())
			case <-tick.C:
			}
		}
	}
	return nil
}

// DelayedSyncs is how many fsyncs of replica i waited for the injected
// delay so far (ClusterSpec.ReplicaSyncDelay): Petrel's
// Petrel_storage_delayed_syncs, or the count MariaDB's fsync delay
// library keeps.
func (c *Cluster) DelayedSyncs(ctx context.Context, i int) (int64, error) {
	if c.System != "petrel" {
		if i >= len(c.fsyncCounts) {
			return 0, fmt.Errorf("%s replica%d has no injected fsync delay", c.System, i+1)
		}
		n, err := lab.ReadFsyncCount(c.fsyncCounts[i])
		return int64(n), err
	}
	return statusInt(ctx, c.RDBs[i], "Petrel_storage_delayed_syncs")
}

// StopApplier and StartApplier stop and start replica i's applier alone
// (the receiver keeps fetching).
func (c *Cluster) StopApplier(ctx context.Context, i int) error {
	return qExec(ctx, c.RDBs[i], c.f.stopApplier)
}

func (c *Cluster) StartApplier(ctx context.Context, i int) error {
	return qExec(ctx, c.RDBs[i], c.f.startApplier)
}

// SemisyncOn reads the primary's semi-sync status.
func (c *Cluster) SemisyncOn(ctx context.Context) (bool, error) {
	row, err := qRow(ctx, c.PDB, "SHOW GLOBAL STATUS LIKE '"+c.f.semiStatus+"'")
	if err != nil {
		return false, err
	}
	return strings.EqualFold(row["Value"], "ON"), nil
}

// Close stops the replicas, their links, the primary and the WAN, each
// bounded even when ctx is cancelled, and removes the datadirs.
func (c *Cluster) Close(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	var errs []error
	for _, db := range append([]*sql.DB{c.PDB}, c.RDBs...) {
		if db != nil {
			db.Close()
		}
	}
	for i := len(c.Replicas) - 1; i >= 0; i-- {
		errs = append(errs, stopNode(ctx, c.Replicas[i]))
	}
	for _, l := range c.Links {
		errs = append(errs, l.Close())
	}
	if c.Relay != nil {
		errs = append(errs, stopNode(ctx, c.Relay))
	}
	if c.Primary != nil {
		errs = append(errs, stopNode(ctx, c.Primary))
	}
	for _, n := range c.down {
		errs = append(errs, stopNode(ctx, n))
	}
	if c.stop != nil {
		errs = append(errs, c.stop(ctx))
	}
	if c.WAN != nil {
		errs = append(errs, c.WAN.Close())
	}
	if c.dir != "" {
		errs = append(errs, os.RemoveAll(c.dir))
	}
	return errors.Join(errs...)
}

func stopNode(ctx context.Context, n Node) error {
	ctx, cancel := context.WithTimeout(ctx, nodeStop+5*time.Second)
	defer cancel()
	if err := n.Stop(ctx); err != nil {
		return fmt.Errorf("stop port %d: %w", n.Port(), err)
	}
	return nil
}

// Logs are the tails of every server's output.
func (c *Cluster) Logs() string {
	var b strings.Builder
	nodes := append([]Node{c.Primary}, c.Replicas...)
	for i, n := range nodes {
		if n == nil {
			continue
		}
		role := "primary"
		if i > 0 {
			role = fmt.Sprintf("replica%d", i)
		}
		fmt.Fprintf(&b, "--- %s %s ---\n%s\n", c.System, role, lastLines(n.Log(), 20))
	}
	return b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// RootPassword is root's password on the cluster's servers (MariaDB's
// root has none: lab's install).
func (c *Cluster) RootPassword() string {
	if c.System == "petrel" {
		return petrelPassword
	}
	return ""
}

// Sysbench returns sysbench's options against the primary's lab
// database: the workload on tables x size rows, deadlocks (1213) retried;
// callers set Threads, Duration and Command.
func (c *Cluster) Sysbench(workload string, tables, size int) lab.SysbenchOptions {
	return lab.SysbenchOptions{Workload: workload, Port: c.Primary.Port(), Password: c.RootPassword(), DB: LabDB,
		Tables: tables, TableSize: size, ExtraArgs: []string{"--mysql-ignore-errors=1213"}}
}

// SysbenchPrepare loads o's tables on the primary and waits until every
// replica has applied them.
func (c *Cluster) SysbenchPrepare(ctx context.Context, o lab.SysbenchOptions, timeout time.Duration) error {
	o.Command = "prepare"
	if _, err := lab.RunSysbench(ctx, o); err != nil {
		return fmt.Errorf("sysbench prepare: %w", err)
	}
	if err := c.WaitCaughtUp(ctx, timeout); err != nil {
		return fmt.Errorf("after sysbench prepare: %w", err)
	}
	return nil
}
