package main

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"petrel/bench/internal/benchkit"
	"petrel/lab"
	"petrel/labrun"
)

const (
	benchDB = "sbtest"
	// petrelPassword is root's password on the Petrel servers; MariaDB's
	// root has none (lab's install).
	petrelPassword = "petrel"
	// queryTimeout bounds one query of the benchmark's own (samples,
	// statements); table digests get digestTimeout.
	queryTimeout = 10 * time.Second
	// pollInterval is how often waits poll the replica.
	pollInterval = 20 * time.Millisecond
	// threadCheckInterval is how often waits look at the replica's thread
	// status, to fail fast when replication broke.
	threadCheckInterval = time.Second
)

// sqlq runs the benchmark's own statements, each bounded.
var sqlq = benchkit.Querier{Timeout: queryTimeout}

// flavor is how one system spells replication and reports its progress.
type flavor struct {
	// primaryPos and replicaPos are the variables holding each side's
	// position; counter turns a position into a transaction count.
	primaryPos, replicaPos string
	counter                func(pos string) (int64, error)
	// status is the replica status statement and the rest its columns.
	status                    string
	ioRunning, sqlRunning     string
	behind                    string // Seconds_Behind_*
	received                  string // the position the receiver has fetched
	ioError, sqlError         string
	stopApplier, startApplier string
}

// A flavor's counter is the cluster's (labrun.Cluster.Count), set at start.
var petrelFlavor = flavor{
	primaryPos: "@@GLOBAL.gtid_executed", replicaPos: "@@GLOBAL.gtid_executed",
	status:    "SHOW REPLICA STATUS",
	ioRunning: "Replica_IO_Running", sqlRunning: "Replica_SQL_Running",
	behind: "Seconds_Behind_Source", received: "Retrieved_Gtid_Set",
	ioError: "Last_IO_Error", sqlError: "Last_SQL_Error",
	stopApplier: "STOP REPLICA SQL_THREAD", startApplier: "START REPLICA SQL_THREAD",
}

var mariadbFlavor = flavor{
	primaryPos: "@@GLOBAL.gtid_binlog_pos", replicaPos: "@@GLOBAL.gtid_slave_pos",
	status:    "SHOW SLAVE STATUS",
	ioRunning: "Slave_IO_Running", sqlRunning: "Slave_SQL_Running",
	behind: "Seconds_Behind_Master", received: "Gtid_IO_Pos",
	ioError: "Last_IO_Error", sqlError: "Last_SQL_Error",
	stopApplier: "STOP SLAVE SQL_THREAD", startApplier: "START SLAVE SQL_THREAD",
}

// pair is one system's primary and replica, replicating: a labrun.Cluster
// (the lab's one harness: servers, GTID auto-position wiring, cleanup)
// with the status columns this benchmark reads. Its methods may be called
// from several goroutines once start has returned (the samplers share pdb
// and rdb, which database/sql makes safe).
type pair struct {
	system           string
	f                flavor
	c                *labrun.Cluster
	primary, replica benchkit.Server
	password         string // root's, on both
	pdb, rdb         *sql.DB
	version          string
}

// startPair starts a primary and a replica of system and wires replication.
// The pair is returned even on error, so that the caller can collect the
// servers' logs and close it.
func startPair(ctx context.Context, logger *slog.Logger, system string, o Options) (*pair, error) {
	p := &pair{system: system}
	base, _ := splitSystem(system)
	spec := labrun.ClusterSpec{System: base, PetrelArgs: o.PetrelArgs,
		MariaDBArgs: o.MariaDBArgs, MariaDBReplicaArgs: o.MariaDBReplicaArgs}
	env := &labrun.Env{Logger: logger}
	switch base {
	case "petrel":
		p.f, p.password = petrelFlavor, petrelPassword
		bin, err := lab.BuildPetrel(ctx)
		if err != nil {
			return p, err
		}
		env.PetrelBinary = bin
		if spec.ReplicaVars, err = replicaVariables(system); err != nil {
			return p, err
		}
	case "mariadb":
		p.f = mariadbFlavor
	default:
		return p, fmt.Errorf("unknown system %q", system)
	}
	c, err := labrun.StartCluster(ctx, env, spec)
	p.c = c
	if c != nil {
		if c.Primary != nil {
			p.primary = c.Primary
		}
		if len(c.Replicas) > 0 {
			p.replica = c.Replicas[0]
		}
		p.pdb = c.PDB
		if len(c.RDBs) > 0 {
			p.rdb = c.RDBs[0]
		}
		p.version = c.Version
	}
	if err != nil {
		return p, err
	}
	logger.Info("replicating", "primary_port", p.primary.Port(), "replica_port", p.replica.Port())
	p.f.counter = c.Count
	return p, p.configure(ctx, logger)
}

// configure sets the replica's applier configuration (variant.go) and
// waits until both replica threads run again.
func (p *pair) configure(ctx context.Context, logger *slog.Logger) error {
	if ps := primarySetup(p.system); len(ps) > 0 {
		if err := sqlq.Exec(ctx, p.pdb, ps...); err != nil {
			return fmt.Errorf("primary configuration: %w", err)
		}
		logger.Info("primary configured", "statements", ps)
	}
	stmts, err := variantSetup(p.system)
	if err != nil || len(stmts) == 0 {
		return err
	}
	if err := sqlq.Exec(ctx, p.rdb, stmts...); err != nil {
		return fmt.Errorf("replica applier configuration: %w", err)
	}
	_, err = p.waitStatus(ctx, "replica threads running", time.Minute, func(st map[string]string) bool {
		return st[p.f.ioRunning] == "Yes" && st[p.f.sqlRunning] == "Yes"
	})
	if err == nil {
		logger.Info("applier configured", "statements", stmts)
	}
	return err
}

// load creates the sysbench tables on the primary and waits until the
// replica has applied them.
func (p *pair) load(ctx context.Context, logger *slog.Logger, o Options) error {
	if err := sqlq.Exec(ctx, p.pdb, "CREATE DATABASE "+benchDB); err != nil {
		return err
	}
	logger.Info("sysbench prepare", "tables", o.Tables, "table_size", o.TableSize)
	if _, err := lab.RunSysbench(ctx, p.sysbench(o, "prepare", 0)); err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	target, err := p.primaryCounter(ctx)
	if err != nil {
		return err
	}
	if _, err := p.waitApplied(ctx, target, o.WaitTimeout); err != nil {
		return fmt.Errorf("after prepare: %w", err)
	}
	return nil
}

// sysbench returns the options of one sysbench invocation on the primary.
func (p *pair) sysbench(o Options, command string, d time.Duration) lab.SysbenchOptions {
	return lab.SysbenchOptions{
		Workload: o.Workload, Command: command, Port: p.primary.Port(), Password: p.password,
		DB: benchDB, Tables: o.Tables, TableSize: o.TableSize, Threads: o.Threads,
		Duration: d, ExtraArgs: o.SysbenchArgs,
	}
}

func (p *pair) primaryCounter(ctx context.Context) (int64, error) {
	return p.counter(ctx, p.pdb, p.f.primaryPos)
}

func (p *pair) replicaCounter(ctx context.Context) (int64, error) {
	return p.counter(ctx, p.rdb, p.f.replicaPos)
}

func (p *pair) counter(ctx context.Context, db *sql.DB, variable string) (int64, error) {
	pos, err := sqlq.String(ctx, db, "SELECT "+variable)
	if err != nil {
		return 0, err
	}
	return p.f.counter(pos)
}

// status returns the replica status row as column -> value ("NULL" for
// NULL), or nil when there is none.
func (p *pair) status(ctx context.Context) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	return lab.QueryRow(ctx, p.rdb, p.f.status)
}

// broken describes a replica thread that stopped with an error, or "".
func (p *pair) broken(st map[string]string) string {
	if st == nil {
		return "no replica status"
	}
	if e := st[p.f.sqlError]; e != "" {
		return fmt.Sprintf("%s=%s: %s", p.f.sqlRunning, st[p.f.sqlRunning], e)
	}
	if st[p.f.ioRunning] == "No" && st[p.f.ioError] != "" {
		return fmt.Sprintf("%s=No: %s", p.f.ioRunning, st[p.f.ioError])
	}
	return ""
}

// waitApplied waits until the replica has applied target transactions and
// returns when it saw that. It fails at once if replication broke.
func (p *pair) waitApplied(ctx context.Context, target int64, timeout time.Duration) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	lastCheck := time.Now()
	var got int64
	for {
		n, err := p.replicaCounter(ctx)
		if err == nil && n >= target {
			return time.Now(), nil
		}
		got = n
		if time.Since(lastCheck) >= threadCheckInterval {
			lastCheck = time.Now()
			if st, err := p.status(ctx); err == nil && p.broken(st) != "" {
				return time.Time{}, fmt.Errorf("replication broke at %d of %d: %s", got, target, p.broken(st))
			}
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("replica applied %d of %d transactions within %v: %w", got, target, timeout, ctx.Err())
		case <-tick.C:
		}
	}
}

// waitReceived waits until the replica's receiver has fetched target
// transactions.
func (p *pair) waitReceived(ctx context.Context, target int64, timeout time.Duration) error {
	_, err := p.waitStatus(ctx, fmt.Sprintf("%s reaching %d", p.f.received, target), timeout, func(st map[string]string) bool {
		n, err := p.f.counter(st[p.f.received])
		return err == nil && n >= target
	})
	return err
}

// waitStatus polls the replica status until ok accepts it.
func (p *pair) waitStatus(ctx context.Context, what string, timeout time.Duration, ok func(map[string]string) bool) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var st map[string]string
	var err error
	for {
		if st, err = p.status(ctx); err == nil && st != nil && ok(st) {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting %v for %s: %w (last status error %v; %s)", timeout, what, ctx.Err(), err, p.broken(st))
		case <-tick.C:
		}
	}
}

// close stops the servers, each within its own bound even if ctx was
// cancelled, and removes their datadirs.
func (p *pair) close(ctx context.Context) error {
	if p.c == nil {
		return nil
	}
	return p.c.Close(ctx)
}

// logs returns the tails of both servers' output.
func (p *pair) logs() string {
	return benchkit.ServerLogs(p.system, p.primary, p.replica)
}

// replicaPid is the replica server's process id (0: unknown).
func (p *pair) replicaPid() int {
	if p.c == nil || len(p.c.Replicas) == 0 {
		return 0
	}
	return p.c.Replicas[0].Pid()
}
