package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
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
	// queryTimeout bounds one query of the benchmark's own.
	queryTimeout = 30 * time.Second
	// semiOnTimeout bounds the wait for a semi-sync client to register
	// (a replica reconnects within SOURCE_CONNECT_RETRY, 2 s on Petrel).
	semiOnTimeout = 2 * time.Minute
	pollInterval  = 20 * time.Millisecond
	// threadCheckInterval is how often waits look at the replica's thread
	// status, to fail fast when replication broke.
	threadCheckInterval = time.Second
)

// sqlq runs the benchmark's own statements, each bounded.
var sqlq = benchkit.Querier{Timeout: queryTimeout}

// flavor is how one system spells replication and semi-sync.
type flavor struct {
	// enable is the primary's semi-sync switch; statusPrefix starts the
	// names of its counters (Petrel answers to MySQL 8's source spelling).
	enable, statusPrefix string
	// primaryPos and replicaPos hold each side's position; counter turns
	// one into a transaction count (the cluster's, set at start).
	primaryPos, replicaPos string
	counter                func(pos string) (int64, error)
	// status is the replica status statement, the rest its columns.
	status                string
	ioRunning, sqlRunning string
	ioError, sqlError     string
}

var petrelFlavor = flavor{
	enable: "rpl_semi_sync_source_enabled", statusPrefix: "Rpl_semi_sync_source_",
	primaryPos: "@@GLOBAL.gtid_executed", replicaPos: "@@GLOBAL.gtid_executed",
	status:    "SHOW REPLICA STATUS",
	ioRunning: "Replica_IO_Running", sqlRunning: "Replica_SQL_Running",
	ioError: "Last_IO_Error", sqlError: "Last_SQL_Error",
}

var mariadbFlavor = flavor{
	enable: "rpl_semi_sync_master_enabled", statusPrefix: "Rpl_semi_sync_master_",
	primaryPos: "@@GLOBAL.gtid_binlog_pos", replicaPos: "@@GLOBAL.gtid_slave_pos",
	status:    "SHOW SLAVE STATUS",
	ioRunning: "Slave_IO_Running", sqlRunning: "Slave_SQL_Running",
	ioError: "Last_IO_Error", sqlError: "Last_SQL_Error",
}

// pair is one system's primary and replica, the replica fetching through
// link: a labrun.Cluster (the lab's one harness) with semi-sync on and
// the status this benchmark reads. Not safe for concurrent use.
type pair struct {
	system           string
	f                flavor
	c                *labrun.Cluster
	primary, replica benchkit.Server
	link             *lab.Link
	password         string // root's, on both
	pdb, rdb         *sql.DB
	version          string
	// dir holds the slap hooks.
	dir string
}

// startPair starts a primary, a link to it and a replica behind the link,
// with semi-sync on, and wires replication. The pair is returned even on
// error, so that the caller can collect the servers' logs and close it.
func startPair(ctx context.Context, logger *slog.Logger, system string, o Options) (*pair, error) {
	p := &pair{system: system}
	var err error
	p.dir, err = os.MkdirTemp("", "bench-semisync-"+system+"-")
	if err != nil {
		return p, err
	}
	// Semi-sync with the servers' own 10 s timeout; restartPrimary
	// changes the Petrel primary's sync_binlog.
	spec := labrun.ClusterSpec{System: system, Net: labrun.NetLink, Semisync: true, SemisyncTimeout: 10 * time.Second,
		PetrelArgs: o.PetrelArgs, MariaDBArgs: o.MariaDBArgs, MariaDBReplicaArgs: o.MariaDBReplicaArgs}
	env := &labrun.Env{Logger: logger}
	switch system {
	case "petrel":
		p.f, p.password = petrelFlavor, petrelPassword
		if env.PetrelBinary, err = lab.BuildPetrel(ctx); err != nil {
			return p, err
		}
		spec.PrimaryVars = map[string]string{"sync_binlog": "1"}
		if o.PetrelReplicaNetTimeout > 0 {
			// The receiver's write deadline is set once per connection,
			// so with the default 10 s every connection fails its first
			// ack written 10 s after connecting; the source then refuses
			// the reconnecting replica (1236) if it holds transactions
			// still waiting for that ack. A long timeout keeps one
			// connection for the whole benchmark.
			spec.ReplicaVars = map[string]string{"replica_net_timeout": strconv.Itoa(int(o.PetrelReplicaNetTimeout / time.Second))}
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
		if len(c.Links) > 0 {
			p.link = c.Links[0]
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
	p.f.counter = c.Count
	if _, err := p.waitSemiOn(ctx); err != nil {
		return p, err
	}
	logger.Info("replicating through the link", "primary_port", p.primary.Port(),
		"link_port", p.link.Port(), "replica_port", p.replica.Port())
	return p, nil
}

// setMode switches semi-sync on the primary and checks the switch took:
// ON with at least one semi-sync client, or OFF. On Petrel it also sets
// the replica's acknowledgement point.
func (p *pair) setMode(ctx context.Context, m mode) error {
	on := m.semi()
	v := "OFF"
	if on {
		v = "ON"
	}
	if p.system == "petrel" && on {
		if err := sqlq.Exec(ctx, p.rdb, "SET GLOBAL rpl_semi_sync_replica_ack_after = '"+m.ackAfter()+"'"); err != nil {
			return err
		}
	}
	if err := sqlq.Exec(ctx, p.pdb, fmt.Sprintf("SET GLOBAL %s = %s", p.f.enable, v)); err != nil {
		return err
	}
	if on {
		_, err := p.waitSemiOn(ctx)
		return err
	}
	st, err := p.primaryStatus(ctx)
	if err != nil {
		return err
	}
	if s := st.str(p.f.statusPrefix + "status"); s != "OFF" {
		return fmt.Errorf("%s=OFF but %sstatus is %q", p.f.enable, p.f.statusPrefix, s)
	}
	return nil
}

// waitSemiOn waits until the primary's semi-sync status is ON with
// exactly one semi-sync client (the replica).
func (p *pair) waitSemiOn(ctx context.Context) (statusMap, error) {
	ctx, cancel := context.WithTimeout(ctx, semiOnTimeout)
	defer cancel()
	tick := time.NewTicker(pollInterval * 5)
	defer tick.Stop()
	var st statusMap
	var err error
	for {
		st, err = p.primaryStatus(ctx)
		if err == nil && st.str(p.f.statusPrefix+"status") == "ON" && st.int(p.f.statusPrefix+"clients") == 1 {
			return st, nil
		}
		select {
		case <-ctx.Done():
			hint := ""
			if p.system == "petrel" && st.int(p.f.statusPrefix+"clients") == 0 {
				// repl/source: a dump is semi-sync only if the source had
				// semi-sync enabled when the dump started.
				hint = " (Petrel never counts a replica whose dump started while semi-sync was OFF on the source: did the replica reconnect during an async run?)"
			}
			return nil, fmt.Errorf("semi-sync not ON with one client within %v: %sstatus=%q %sclients=%q (last error %v)%s",
				semiOnTimeout, p.f.statusPrefix, st.str(p.f.statusPrefix+"status"), p.f.statusPrefix, st.str(p.f.statusPrefix+"clients"), err, hint)
		case <-tick.C:
		}
	}
}

// statusMap is SHOW GLOBAL STATUS as name -> value.
type statusMap map[string]string

func (s statusMap) str(name string) string { return s[name] }

// int returns a numeric status value, -1 when missing or not a number.
func (s statusMap) int(name string) int64 {
	n, err := strconv.ParseInt(s[name], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// primaryStatus reads the primary's binlog and semi-sync status variables.
func (p *pair) primaryStatus(ctx context.Context) (statusMap, error) {
	st := statusMap{}
	for _, like := range []string{"Binlog_%", p.f.statusPrefix + "%"} {
		if err := readStatus(ctx, p.pdb, like, st); err != nil {
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

// binlogFile is the primary's current binlog file (SHOW MASTER STATUS).
func (p *pair) binlogFile(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	rows, err := p.pdb.QueryContext(ctx, "SHOW MASTER STATUS")
	if err != nil {
		return "", fmt.Errorf("SHOW MASTER STATUS: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	if !rows.Next() {
		return "", errors.Join(errors.New("SHOW MASTER STATUS: no row (binlog off?)"), rows.Err())
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return "", err
	}
	return vals[0].String, nil
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

// replicaStatus returns the replica status row as column -> value ("NULL"
// for NULL), or nil when there is none.
func (p *pair) replicaStatus(ctx context.Context) (map[string]string, error) {
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
	if st[p.f.sqlRunning] == "No" {
		return p.f.sqlRunning + "=No"
	}
	if st[p.f.ioRunning] == "No" && st[p.f.ioError] != "" {
		return fmt.Sprintf("%s=No: %s", p.f.ioRunning, st[p.f.ioError])
	}
	return ""
}

// waitThreads waits until both replica threads run.
func (p *pair) waitThreads(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var st map[string]string
	var err error
	for {
		st, err = p.replicaStatus(ctx)
		if err == nil && st != nil && st[p.f.ioRunning] == "Yes" && st[p.f.sqlRunning] == "Yes" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("replica threads not running within %v (last error %v; %s)", timeout, err, p.broken(st))
		case <-tick.C:
		}
	}
}

// waitCaughtUp waits until the replica has applied everything the primary
// has committed. It fails at once if replication broke.
func (p *pair) waitCaughtUp(ctx context.Context, timeout time.Duration) error {
	target, err := p.primaryCounter(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	lastCheck := time.Now()
	var got int64
	for {
		n, err := p.replicaCounter(ctx)
		if err == nil && n >= target {
			return nil
		}
		got = n
		if time.Since(lastCheck) >= threadCheckInterval {
			lastCheck = time.Now()
			if st, err := p.replicaStatus(ctx); err == nil && p.broken(st) != "" {
				return fmt.Errorf("replication broke at %d of %d transactions: %s", got, target, p.broken(st))
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("replica applied %d of %d transactions within %v: %w", got, target, timeout, ctx.Err())
		case <-tick.C:
		}
	}
}

// compareTables checks that the replica's sysbench tables hold what the
// primary's do (row count and column sums), after waitCaughtUp.
func (p *pair) compareTables(ctx context.Context, tables int) error {
	for i := 1; i <= tables; i++ {
		q := fmt.Sprintf("SELECT CONCAT(COUNT(*), '/', COALESCE(SUM(id), 0), '/', COALESCE(SUM(k), 0)) FROM %s.sbtest%d", benchDB, i)
		a, err := sqlq.String(ctx, p.pdb, q)
		if err != nil {
			return fmt.Errorf("primary: %w", err)
		}
		b, err := sqlq.String(ctx, p.rdb, q)
		if err != nil {
			return fmt.Errorf("replica: %w", err)
		}
		if a != b {
			return fmt.Errorf("sbtest%d differs: primary count/sum(id)/sum(k) %s, replica %s", i, a, b)
		}
	}
	return nil
}

// restartPrimary restarts the Petrel primary with sync_binlog set and
// waits until the replica is back as a semi-sync client.
func (p *pair) restartPrimary(ctx context.Context, syncBinlog int) error {
	if err := p.c.RestartPetrelPrimary(ctx, map[string]string{"sync_binlog": strconv.Itoa(syncBinlog)}); err != nil {
		return fmt.Errorf("restart primary: %w", err)
	}
	if err := p.waitThreads(ctx, time.Minute); err != nil {
		return fmt.Errorf("after restarting the primary: %w", err)
	}
	if _, err := p.waitSemiOn(ctx); err != nil {
		return fmt.Errorf("after restarting the primary: %w", err)
	}
	return nil
}

// close stops the link and the servers, each within its own bound even
// if ctx was cancelled, and removes the directories.
func (p *pair) close(ctx context.Context) error {
	var errs []error
	if p.c != nil {
		errs = append(errs, p.c.Close(ctx))
	}
	if p.dir != "" {
		errs = append(errs, os.RemoveAll(p.dir))
	}
	return errors.Join(errs...)
}

// logs returns the tails of both servers' output.
func (p *pair) logs() string {
	return benchkit.ServerLogs(p.system, p.primary, p.replica)
}
