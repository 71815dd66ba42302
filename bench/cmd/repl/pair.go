package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"petrel/bench/internal/benchkit"
	"petrel/lab"
)

const (
	benchDB = "sbtest"
	// petrelPassword is root's password on the Petrel servers; MariaDB's
	// root has none (lab's install).
	petrelPassword = "petrel"
	replUser       = "repl"
	replPassword   = "repl-pw"
	// queryTimeout bounds one query of the benchmark's own (samples,
	// statements); table digests get digestTimeout.
	queryTimeout = 10 * time.Second
	startTimeout = 2 * time.Minute
	// stopTimeout bounds the shutdown of one server, also on ^C.
	stopTimeout = 3 * time.Minute
	// pollInterval is how often waits poll the replica.
	pollInterval = 20 * time.Millisecond
	// threadCheckInterval is how often waits look at the replica's thread
	// status, to fail fast when replication broke.
	threadCheckInterval = time.Second
)

// sqlq runs the benchmark's own statements, hiding the replication
// password in errors.
var sqlq = benchkit.Querier{Timeout: queryTimeout, Secret: replPassword}

// flavor is how one system spells replication and reports its progress.
type flavor struct {
	// primaryPos and replicaPos are the variables holding each side's
	// position; counter turns a position into a transaction count.
	primaryPos, replicaPos string
	counter                func(pos string) (int64, error)
	// status is the replica status statement and the rest its columns.
	status                string
	ioRunning, sqlRunning string
	behind                string // Seconds_Behind_*
	received              string // the position the receiver has fetched
	ioError, sqlError     string
	// change is CHANGE ... TO with the port, user and password to fill in.
	change                           string
	start, stopApplier, startApplier string
}

// petrelFlavor needs its counter set to the primary's server_uuid.
var petrelFlavor = flavor{
	primaryPos: "@@GLOBAL.gtid_executed", replicaPos: "@@GLOBAL.gtid_executed",
	status:    "SHOW REPLICA STATUS",
	ioRunning: "Replica_IO_Running", sqlRunning: "Replica_SQL_Running",
	behind: "Seconds_Behind_Source", received: "Retrieved_Gtid_Set",
	ioError: "Last_IO_Error", sqlError: "Last_SQL_Error",
	change: "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, " +
		"SOURCE_USER='%s', SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=1",
	start: "START REPLICA", stopApplier: "STOP REPLICA SQL_THREAD", startApplier: "START REPLICA SQL_THREAD",
}

var mariadbFlavor = flavor{
	primaryPos: "@@GLOBAL.gtid_binlog_pos", replicaPos: "@@GLOBAL.gtid_slave_pos",
	counter:   benchkit.MariaDBSeq,
	status:    "SHOW SLAVE STATUS",
	ioRunning: "Slave_IO_Running", sqlRunning: "Slave_SQL_Running",
	behind: "Seconds_Behind_Master", received: "Gtid_IO_Pos",
	ioError: "Last_IO_Error", sqlError: "Last_SQL_Error",
	change: "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, " +
		"MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_USE_GTID=slave_pos",
	start: "START SLAVE", stopApplier: "STOP SLAVE SQL_THREAD", startApplier: "START SLAVE SQL_THREAD",
}

// pair is one system's primary and replica, replicating. Its methods may
// be called from several goroutines once start has returned (the samplers
// share pdb and rdb, which database/sql makes safe).
type pair struct {
	system           string
	f                flavor
	primary, replica benchkit.Server
	password         string // root's, on both
	pdb, rdb         *sql.DB
	version          string
	dirs             []string // Petrel datadirs; MariaDB.Stop removes its own
}

// startPair starts a primary and a replica of system and wires replication.
// The pair is returned even on error, so that the caller can collect the
// servers' logs and close it.
func startPair(ctx context.Context, logger *slog.Logger, system string, o Options) (*pair, error) {
	p := &pair{system: system}
	var err error
	base, _ := splitSystem(system)
	switch base {
	case "petrel":
		p.f, p.password = petrelFlavor, petrelPassword
		err = p.startPetrel(ctx, logger, o)
	case "mariadb":
		p.f = mariadbFlavor
		err = p.startMariaDB(ctx, logger, o)
	default:
		err = fmt.Errorf("unknown system %q", system)
	}
	if err == nil {
		err = p.connect(ctx)
	}
	if err == nil {
		err = p.wire(ctx, logger)
	}
	if err == nil {
		err = p.configure(ctx, logger)
	}
	return p, err
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

func (p *pair) startPetrel(ctx context.Context, logger *slog.Logger, o Options) error {
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		return err
	}
	for id, role := range []string{"primary", "replica"} {
		dir, err := os.MkdirTemp("", "bench-repl-petrel-")
		if err != nil {
			return err
		}
		p.dirs = append(p.dirs, dir)
		args := o.PetrelArgs
		if role == "replica" {
			if args, err = replicaConfig(p.system, dir, args); err != nil {
				return err
			}
		}
		srv, err := lab.StartPetrel(ctx, lab.PetrelOptions{
			Binary: bin, Datadir: filepath.Join(dir, "data"), ServerID: id + 1, RootPassword: petrelPassword,
			ExtraArgs: args, StartTimeout: startTimeout, StopTimeout: stopTimeout,
			Logger: logger.With("role", role),
		})
		if err != nil {
			return fmt.Errorf("start petrel %s: %w", role, err)
		}
		p.setServer(role, srv)
	}
	return nil
}

// replicaConfig writes the replica's option file in dir when its system
// names start-up settings (replicaVariables) and returns args with
// --config added.
func replicaConfig(system, dir string, args []string) ([]string, error) {
	vars, err := replicaVariables(system)
	if err != nil || len(vars) == 0 {
		return args, err
	}
	var b strings.Builder
	b.WriteString("[petrel]\n")
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		fmt.Fprintf(&b, "%s = %s\n", k, vars[k])
	}
	path := filepath.Join(dir, "replica.cnf")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return nil, err
	}
	return append(append([]string(nil), args...), "--config="+path), nil
}

func (p *pair) startMariaDB(ctx context.Context, logger *slog.Logger, o Options) error {
	args := [][]string{o.MariaDBArgs, o.MariaDBReplicaArgs}
	for id, role := range []string{"primary", "replica"} {
		srv, err := lab.StartMariaDB(ctx, lab.MariaDBOptions{
			ServerID: id + 1, ExtraArgs: args[id],
			StartTimeout: startTimeout, StopTimeout: stopTimeout,
			Logger: logger.With("role", role),
		})
		if err != nil {
			return fmt.Errorf("start mariadb %s: %w", role, err)
		}
		p.setServer(role, srv)
	}
	return nil
}

func (p *pair) setServer(role string, s benchkit.Server) {
	if role == "primary" {
		p.primary = s
	} else {
		p.replica = s
	}
}

// connect opens both servers' pools and learns what the counters need.
func (p *pair) connect(ctx context.Context) error {
	var err error
	if p.pdb, err = p.primary.DB(""); err != nil {
		return err
	}
	if p.rdb, err = p.replica.DB(""); err != nil {
		return err
	}
	if p.version, err = sqlq.String(ctx, p.pdb, "SELECT VERSION()"); err != nil {
		return err
	}
	if p.f.counter == nil {
		uuid, err := sqlq.String(ctx, p.pdb, "SELECT @@GLOBAL.server_uuid")
		if err != nil {
			return err
		}
		p.f.counter = func(set string) (int64, error) { return benchkit.GTIDCount(set, uuid) }
	}
	return nil
}

// wire creates the replication user on the primary, points the replica at
// it and waits until both replica threads run.
func (p *pair) wire(ctx context.Context, logger *slog.Logger) error {
	err := sqlq.Exec(ctx, p.pdb,
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", replUser, replPassword),
		fmt.Sprintf("GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'", replUser))
	if err != nil {
		return fmt.Errorf("primary: %w", err)
	}
	err = sqlq.Exec(ctx, p.rdb, fmt.Sprintf(p.f.change, p.primary.Port(), replUser, replPassword), p.f.start)
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	_, err = p.waitStatus(ctx, "replica threads running", time.Minute, func(st map[string]string) bool {
		return st[p.f.ioRunning] == "Yes" && st[p.f.sqlRunning] == "Yes"
	})
	if err == nil {
		logger.Info("replicating", "primary_port", p.primary.Port(), "replica_port", p.replica.Port())
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
	rows, err := p.rdb.QueryContext(ctx, p.f.status)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.f.status, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil || !rows.Next() {
		return nil, errors.Join(err, rows.Err())
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	st := make(map[string]string, len(cols))
	for i, c := range cols {
		st[c] = "NULL"
		if vals[i].Valid {
			st[c] = vals[i].String
		}
	}
	return st, nil
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

// close stops the replica, then the primary, each within stopTimeout even
// if ctx was cancelled, and removes the Petrel datadirs.
func (p *pair) close(ctx context.Context) error {
	for _, db := range []*sql.DB{p.pdb, p.rdb} {
		if db != nil {
			db.Close()
		}
	}
	var errs []error
	for _, s := range []benchkit.Server{p.replica, p.primary} {
		if s == nil {
			continue
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
		if err := s.Stop(sctx); err != nil {
			errs = append(errs, fmt.Errorf("stop %s on port %d: %w", p.system, s.Port(), err))
		}
		cancel()
	}
	for _, dir := range p.dirs {
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// logs returns the tails of both servers' output.
func (p *pair) logs() string {
	return benchkit.ServerLogs(p.system, p.primary, p.replica)
}

// replicaPid is the replica server's process id (0: unknown).
func (p *pair) replicaPid() int {
	if s, ok := p.replica.(interface{ Pid() int }); ok {
		return s.Pid()
	}
	return 0
}
