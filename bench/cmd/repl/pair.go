package main

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"petrel/lab"
	"petrel/lab/benchkit"
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
	// threadCheckInterval is how often waits look at the replica's thread
	// status, to fail fast when replication broke.
	threadCheckInterval = time.Second
)

// sqlq runs the benchmark's own statements, each bounded.
var sqlq = benchkit.Querier{Timeout: queryTimeout}

// pair is one system's primary and replica, replicating: a labrun.Cluster
// (the lab's one harness: servers, GTID auto-position wiring, cleanup)
// with the status columns this benchmark reads. Its methods may be called
// from several goroutines once start has returned (the samplers share pdb
// and rdb, which database/sql makes safe).
type pair struct {
	system           string
	f                labrun.Names
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
		p.password = petrelPassword
		bin, err := lab.BuildPetrel(ctx)
		if err != nil {
			return p, err
		}
		env.PetrelBinary = bin
		if spec.ReplicaVars, err = replicaVariables(system); err != nil {
			return p, err
		}
	case "mariadb":
	default:
		return p, fmt.Errorf("unknown system %q", system)
	}
	c, err := labrun.StartCluster(ctx, env, spec)
	p.c = c
	if c != nil {
		fp := c.FirstPair()
		p.primary, p.replica, p.pdb, p.rdb = fp.Primary, fp.Replica, fp.PDB, fp.RDB
		p.f, p.version = c.Names(), c.Version
	}
	if err != nil {
		return p, err
	}
	logger.Info("replicating", "primary_port", p.primary.Port(), "replica_port", p.replica.Port())
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
	err = p.c.WaitReplicaThreads(ctx, 0, time.Minute)
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
	return p.c.PrimaryCount(ctx)
}

func (p *pair) replicaCounter(ctx context.Context) (int64, error) {
	return p.c.ReplicaCount(ctx, 0)
}

// status returns the replica status row as column -> value ("NULL" for
// NULL), or nil when there is none.
func (p *pair) status(ctx context.Context) (map[string]string, error) {
	return p.c.ReplicaStatus(ctx, 0)
}

// broken describes a replica thread that stopped with an error, or "".
func (p *pair) broken(st map[string]string) string { return p.c.Broken(st) }

// waitApplied waits until the replica has applied target transactions and
// returns when it saw that. It fails at once if replication broke.
func (p *pair) waitApplied(ctx context.Context, target int64, timeout time.Duration) (time.Time, error) {
	if err := p.c.WaitApplied(ctx, 0, target, timeout); err != nil {
		return time.Time{}, err
	}
	return time.Now(), nil
}

// waitReceived waits until the replica's receiver has fetched target
// transactions.
func (p *pair) waitReceived(ctx context.Context, target int64, timeout time.Duration) error {
	_, err := p.waitStatus(ctx, fmt.Sprintf("%s reaching %d", p.f.Received, target), timeout, func(st map[string]string) bool {
		n, err := p.c.Count(st[p.f.Received])
		return err == nil && n >= target
	})
	return err
}

// waitStatus polls the replica status until ok accepts it.
func (p *pair) waitStatus(ctx context.Context, what string, timeout time.Duration, ok func(map[string]string) bool) (map[string]string, error) {
	return p.c.WaitReplicaStatus(ctx, 0, what, timeout, ok)
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
