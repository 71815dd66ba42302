package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
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
	// queryTimeout bounds one query of the benchmark's own.
	queryTimeout = 30 * time.Second
	startTimeout = 2 * time.Minute
	// stopTimeout bounds the shutdown of one server, also on ^C.
	stopTimeout = 3 * time.Minute
	// semiOnTimeout bounds the wait for a semi-sync client to register
	// (a replica reconnects within SOURCE_CONNECT_RETRY, 2 s on Petrel).
	semiOnTimeout = 2 * time.Minute
	pollInterval  = 20 * time.Millisecond
	// threadCheckInterval is how often waits look at the replica's thread
	// status, to fail fast when replication broke.
	threadCheckInterval = time.Second
)

// sqlq runs the benchmark's own statements, hiding the replication
// password in errors.
var sqlq = benchkit.Querier{Timeout: queryTimeout, Secret: replPassword}

// flavor is how one system spells replication and semi-sync.
type flavor struct {
	// enable is the primary's semi-sync switch; statusPrefix starts the
	// names of its counters (Petrel answers to MySQL 8's source spelling).
	enable, statusPrefix string
	// primaryPos and replicaPos hold each side's position; counter turns
	// one into a transaction count (set at connect for Petrel).
	primaryPos, replicaPos string
	counter                func(pos string) (int64, error)
	// status is the replica status statement, the rest its columns.
	status                string
	ioRunning, sqlRunning string
	ioError, sqlError     string
	// change is CHANGE ... TO with the port, user and password to fill in.
	change, start string
}

var petrelFlavor = flavor{
	enable: "rpl_semi_sync_source_enabled", statusPrefix: "Rpl_semi_sync_source_",
	primaryPos: "@@GLOBAL.gtid_executed", replicaPos: "@@GLOBAL.gtid_executed",
	status:    "SHOW REPLICA STATUS",
	ioRunning: "Replica_IO_Running", sqlRunning: "Replica_SQL_Running",
	ioError: "Last_IO_Error", sqlError: "Last_SQL_Error",
	change: "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, " +
		"SOURCE_USER='%s', SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=1",
	start: "START REPLICA",
}

var mariadbFlavor = flavor{
	enable: "rpl_semi_sync_master_enabled", statusPrefix: "Rpl_semi_sync_master_",
	primaryPos: "@@GLOBAL.gtid_binlog_pos", replicaPos: "@@GLOBAL.gtid_slave_pos",
	counter:   benchkit.MariaDBSeq,
	status:    "SHOW SLAVE STATUS",
	ioRunning: "Slave_IO_Running", sqlRunning: "Slave_SQL_Running",
	ioError: "Last_IO_Error", sqlError: "Last_SQL_Error",
	change: "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, " +
		"MASTER_USER='%s', MASTER_PASSWORD='%s', MASTER_USE_GTID=slave_pos",
	start: "START SLAVE",
}

// pair is one system's primary and replica, the replica fetching through
// link. Not safe for concurrent use.
type pair struct {
	system           string
	f                flavor
	primary, replica benchkit.Server
	link             *lab.Link
	password         string // root's, on both
	pdb, rdb         *sql.DB
	version          string
	// dir holds the Petrel datadirs and config files, and the slap hooks.
	dir string
	// primaryCnf is the Petrel primary's config file, rewritten to restart
	// it with another sync_binlog.
	primaryCnf string
}

// petrelPrimaryCnf is the Petrel primary's config file.
func petrelPrimaryCnf(syncBinlog int) string {
	return fmt.Sprintf("[mysqld]\nrpl_semi_sync_source_enabled = ON\nsync_binlog = %d\n", syncBinlog)
}

// petrelReplicaCnf is the Petrel replica's config file. A non-zero
// netTimeout sets replica_net_timeout: the receiver's write deadline is set
// once per connection, so with the default 10 s every connection fails its
// first ack written 10 s after connecting; the source then refuses the
// reconnecting replica (1236) if it holds transactions still waiting for
// that ack. A long timeout keeps one connection for the whole benchmark.
func petrelReplicaCnf(netTimeout time.Duration) string {
	cnf := "[mysqld]\nrpl_semi_sync_replica_enabled = ON\n"
	if netTimeout > 0 {
		cnf += fmt.Sprintf("replica_net_timeout = %d\n", int(netTimeout/time.Second))
	}
	return cnf
}

// startPair starts a primary, a link to it and a replica behind the link,
// and wires replication. The pair is returned even on error, so that the
// caller can collect the servers' logs and close it.
func startPair(ctx context.Context, logger *slog.Logger, system string, o Options) (*pair, error) {
	p := &pair{system: system}
	var err error
	p.dir, err = os.MkdirTemp("", "bench-semisync-"+system+"-")
	if err != nil {
		return p, err
	}
	switch system {
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
		p.link, err = lab.StartLink(fmt.Sprintf("127.0.0.1:%d", p.primary.Port()))
	}
	if err == nil {
		err = p.connect(ctx)
	}
	if err == nil {
		err = p.wire(ctx, logger)
	}
	return p, err
}

func (p *pair) startPetrel(ctx context.Context, logger *slog.Logger, o Options) error {
	bin, err := lab.BuildPetrel(ctx)
	if err != nil {
		return err
	}
	p.primaryCnf = filepath.Join(p.dir, "primary.cnf")
	replicaCnf := filepath.Join(p.dir, "replica.cnf")
	if err := os.WriteFile(p.primaryCnf, []byte(petrelPrimaryCnf(1)), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(replicaCnf, []byte(petrelReplicaCnf(o.PetrelReplicaNetTimeout)), 0o600); err != nil {
		return err
	}
	for id, role := range []string{"primary", "replica"} {
		dir := filepath.Join(p.dir, role)
		cnf := p.primaryCnf
		if role == "replica" {
			cnf = replicaCnf
		}
		srv, err := lab.StartPetrel(ctx, lab.PetrelOptions{
			Binary: bin, Datadir: dir, ServerID: id + 1, RootPassword: petrelPassword,
			ExtraArgs:    append([]string{"--config", cnf}, o.PetrelArgs...),
			StartTimeout: startTimeout, StopTimeout: stopTimeout,
			Logger: logger.With("role", role),
		})
		if err != nil {
			return fmt.Errorf("start petrel %s: %w", role, err)
		}
		p.setServer(role, srv)
	}
	return nil
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

// wire creates the replication user on the primary, points the replica
// at the link and waits until both replica threads run and the primary
// counts it as a semi-sync client.
func (p *pair) wire(ctx context.Context, logger *slog.Logger) error {
	err := sqlq.Exec(ctx, p.pdb,
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", replUser, replPassword),
		fmt.Sprintf("GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'", replUser))
	if err != nil {
		return fmt.Errorf("primary: %w", err)
	}
	err = sqlq.Exec(ctx, p.rdb, fmt.Sprintf(p.f.change, p.link.Port(), replUser, replPassword), p.f.start)
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	if err := p.waitThreads(ctx, time.Minute); err != nil {
		return err
	}
	if _, err := p.waitSemiOn(ctx); err != nil {
		return err
	}
	logger.Info("replicating through the link", "primary_port", p.primary.Port(),
		"link_port", p.link.Port(), "replica_port", p.replica.Port())
	return nil
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

// restartPrimary restarts the Petrel primary with a new config file and
// waits until the replica is back as a semi-sync client.
func (p *pair) restartPrimary(ctx context.Context, cnf string) error {
	pet, ok := p.primary.(*lab.Petrel)
	if !ok {
		return fmt.Errorf("restart: %s primary is not Petrel", p.system)
	}
	if err := os.WriteFile(p.primaryCnf, []byte(cnf), 0o600); err != nil {
		return err
	}
	p.pdb.Close()
	if err := pet.Restart(ctx); err != nil {
		return fmt.Errorf("restart primary: %w", err)
	}
	var err error
	if p.pdb, err = p.primary.DB(""); err != nil {
		return err
	}
	if err := p.waitThreads(ctx, time.Minute); err != nil {
		return fmt.Errorf("after restarting the primary: %w", err)
	}
	if _, err := p.waitSemiOn(ctx); err != nil {
		return fmt.Errorf("after restarting the primary: %w", err)
	}
	return nil
}

// close stops the link, the replica and the primary, each within
// stopTimeout even if ctx was cancelled, and removes the directory.
func (p *pair) close(ctx context.Context) error {
	for _, db := range []*sql.DB{p.pdb, p.rdb} {
		if db != nil {
			db.Close()
		}
	}
	var errs []error
	if p.link != nil {
		errs = append(errs, p.link.Close())
	}
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
	if p.dir != "" {
		if err := os.RemoveAll(p.dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// logs returns the tails of both servers' output.
func (p *pair) logs() string {
	return benchkit.ServerLogs(p.system, p.primary, p.replica)
}
