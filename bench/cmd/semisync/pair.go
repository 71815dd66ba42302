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

	"petrel/lab"
	"petrel/lab/benchkit"
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
)

// sqlq runs the benchmark's own statements, each bounded.
var sqlq = benchkit.Querier{Timeout: queryTimeout}

// pair is one system's primary and replica, the replica fetching through
// link: a labrun.Cluster (the lab's one harness) with semi-sync on and
// the status this benchmark reads. Not safe for concurrent use.
type pair struct {
	system           string
	f                labrun.Names
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
		p.password = petrelPassword
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
	default:
		return p, fmt.Errorf("unknown system %q", system)
	}
	c, err := labrun.StartCluster(ctx, env, spec)
	p.c = c
	if c != nil {
		fp := c.FirstPair()
		p.primary, p.replica, p.pdb, p.rdb, p.link = fp.Primary, fp.Replica, fp.PDB, fp.RDB, fp.Link
		p.f, p.version = c.Names(), c.Version
	}
	if err != nil {
		return p, err
	}
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
	if err := sqlq.Exec(ctx, p.pdb, fmt.Sprintf("SET GLOBAL %s = %s", p.f.SemiEnabled, v)); err != nil {
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
	if s := st.str(p.f.SemiStatusPrefix + "status"); s != "OFF" {
		return fmt.Errorf("%s=OFF but %sstatus is %q", p.f.SemiEnabled, p.f.SemiStatusPrefix, s)
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
		if err == nil && st.str(p.f.SemiStatusPrefix+"status") == "ON" && st.int(p.f.SemiStatusPrefix+"clients") == 1 {
			return st, nil
		}
		select {
		case <-ctx.Done():
			hint := ""
			if p.system == "petrel" && st.int(p.f.SemiStatusPrefix+"clients") == 0 {
				// repl/source: a dump is semi-sync only if the source had
				// semi-sync enabled when the dump started.
				hint = " (Petrel never counts a replica whose dump started while semi-sync was OFF on the source: did the replica reconnect during an async run?)"
			}
			return nil, fmt.Errorf("semi-sync not ON with one client within %v: %sstatus=%q %sclients=%q (last error %v)%s",
				semiOnTimeout, p.f.SemiStatusPrefix, st.str(p.f.SemiStatusPrefix+"status"), p.f.SemiStatusPrefix, st.str(p.f.SemiStatusPrefix+"clients"), err, hint)
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
	for _, like := range []string{"Binlog_%", p.f.SemiStatusPrefix + "%"} {
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
	row, err := lab.QueryRow(ctx, p.pdb, "SHOW MASTER STATUS")
	if err != nil {
		return "", err
	}
	if row == nil {
		return "", errors.New("SHOW MASTER STATUS: no row (binlog off?)")
	}
	return row["File"], nil
}

// waitThreads waits until both replica threads run.
func (p *pair) waitThreads(ctx context.Context, timeout time.Duration) error {
	return p.c.WaitReplicaThreads(ctx, 0, timeout)
}

// waitCaughtUp waits until the replica has applied everything the primary
// has committed. It fails at once if replication broke.
func (p *pair) waitCaughtUp(ctx context.Context, timeout time.Duration) error {
	return p.c.WaitCaughtUp(ctx, timeout)
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
