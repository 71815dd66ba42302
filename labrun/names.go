package labrun

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"petrel/lab"
)

// Names are one system's spellings of replication's state, for programs
// that read it themselves (the experiments, the sweep): the
// position variables, the replica status statement and its columns, the
// applier's switches and the primary's semi-sync status.
type Names struct {
	// PrimaryPos and ReplicaPos are the variables holding each side's
	// position (Count turns one into a transaction count).
	PrimaryPos, ReplicaPos string
	// Status is the replica status statement; the rest are its columns.
	Status                string
	IORunning, SQLRunning string
	IOError, SQLError     string
	// Behind is Seconds_Behind_*; Received the position the receiver
	// has fetched.
	Behind, Received          string
	StopApplier, StartApplier string
	// SemiEnabled is the primary's semi-sync switch; SemiStatusPrefix
	// starts the names of its status counters (Petrel answers to MySQL
	// 8's source spelling).
	SemiEnabled, SemiStatusPrefix string
}

// names holds what flavor does not: columns only the bench programs read.
var names = map[string]struct{ behind, received, semiPrefix string }{
	"petrel":  {"Seconds_Behind_Source", "Retrieved_Gtid_Set", "Rpl_semi_sync_source_"},
	"mariadb": {"Seconds_Behind_Master", "Gtid_IO_Pos", "Rpl_semi_sync_master_"},
}

// Names returns the cluster's system's spellings.
func (c *Cluster) Names() Names {
	x := names[c.System]
	return Names{
		PrimaryPos: c.f.primaryPos, ReplicaPos: c.f.replicaPos,
		Status: c.f.status, IORunning: c.f.ioRunning, SQLRunning: c.f.sqlRunning,
		IOError: c.f.ioError, SQLError: c.f.sqlError,
		Behind: x.behind, Received: x.received,
		StopApplier: c.f.stopApplier, StartApplier: c.f.startApplier,
		SemiEnabled: c.f.semiEnabled, SemiStatusPrefix: x.semiPrefix,
	}
}

// Pair is the cluster's primary and first replica with their
// connections and the first replica's link, each nil when not started:
// what the programs that drive one primary and one replica hold.
type Pair struct {
	Primary, Replica Node
	PDB, RDB         *sql.DB
	Link             *lab.Link // when Net is NetLink
}

// FirstPair returns the primary and the first replica (see Pair).
func (c *Cluster) FirstPair() Pair {
	p := Pair{Primary: c.Primary, PDB: c.PDB}
	if len(c.Replicas) > 0 {
		p.Replica = c.Replicas[0]
	}
	if len(c.RDBs) > 0 {
		p.RDB = c.RDBs[0]
	}
	if len(c.Links) > 0 {
		p.Link = c.Links[0]
	}
	return p
}

// Broken describes a replica thread that stopped with an error, from a
// status row of ReplicaStatus, or "" when none did; a missing row is
// "no replica status".
func (c *Cluster) Broken(st map[string]string) string {
	if st == nil {
		return "no replica status"
	}
	return c.broken(st)
}

// WaitReplicaStatus polls replica i's status every pollInterval until ok
// accepts it, within timeout; what names the wait in the error.
func (c *Cluster) WaitReplicaStatus(ctx context.Context, i int, what string, timeout time.Duration, ok func(map[string]string) bool) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var st map[string]string
	var err error
	for {
		if st, err = c.ReplicaStatus(ctx, i); err == nil && st != nil && ok(st) {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting %v for %s: %w (last status error %v; %s)", timeout, what, ctx.Err(), err, c.Broken(st))
		case <-tick.C:
		}
	}
}

// WaitReplicaThreads waits until both of replica i's threads run.
func (c *Cluster) WaitReplicaThreads(ctx context.Context, i int, timeout time.Duration) error {
	_, err := c.WaitReplicaStatus(ctx, i, "replica threads running", timeout, func(st map[string]string) bool {
		return st[c.f.ioRunning] == "Yes" && st[c.f.sqlRunning] == "Yes"
	})
	return err
}
