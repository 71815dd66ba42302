package node

import (
	"context"
	"fmt"
	"net"
	"sync"

	"petrel/binlog"
	"petrel/internal/base"
	"petrel/internal/tcptune"
	"petrel/repl/replica"
	"petrel/repl/source"
	"petrel/storage"
	"petrel/surface/replsql"
	"petrel/surface/semisyncsql"
)

// openReplication wires the source side (dumps to replicas) and the
// replica side (CHANGE REPLICATION SOURCE, START REPLICA, ...). Both need
// the binary log.
func (n *Node) openReplication() error {
	e := n.sql
	if n.binlog == nil {
		replsql.Unconfigured(e)
		return nil
	}
	sid, err := base.ParseSID(n.meta.ServerUUID)
	if err != nil {
		return err
	}
	n.openSemiSync()
	n.source = source.New(source.Options{Log: n.binlog, ServerID: n.opts.ServerID, ServerUUID: sid, Logger: n.opts.Logger, Clock: n.opts.Clock,
		TCP: n.tcp.Options(), Semi: n.tracker})
	src := n.source
	n.tcp.Push(src.SetTCP)
	e.SetReplicationSource(replsql.SourceAdapter{S: n.source})

	sink, err := n.relaySink()
	if err != nil {
		return err
	}
	var rs replica.Sink
	if sink != nil {
		rs = sink
	}
	n.replica, err = replica.New(replica.Options{
		Sink:    rs,
		Datadir: n.opts.Datadir, ServerID: n.opts.ServerID, ServerUUID: n.meta.ServerUUID,
		Store: n.store, Log: n.binlog, Logger: n.opts.Logger, Clock: n.opts.Clock,
		Settings:        n.replicaSettings(),
		LockWaitTimeout: e.LockWaitTimeout,
		ReportAddr:      n.reportAddr,
		ExecDDL: func(ctx context.Context, q binlog.QueryInfo, o storage.Origin) error {
			return e.ExecReplicated(ctx, q.Database, q.Query, q.NoForeignKeyChecks, o)
		},
	})
	if err != nil {
		return fmt.Errorf("node: replica: %w", err)
	}
	n.repl.Attach(n.replica)
	n.pushReplicaSettings()
	replsql.Register(e, n.replica, n.source, n.opts.ServerID)
	return nil
}

// replicaSettings are the replica's settings as three surfaces hold
// them: replsql's own, semi-sync's switch, the sockets' options.
func (n *Node) replicaSettings() replica.Settings {
	s := n.repl.Settings().Replica
	s.SemiSync = n.semi.ReplicaEnabled()
	s.TCP = n.tcp.Options()
	return s
}

// pushReplicaSettings configures the replica after every change of
// those settings. Each push composes all three after its own change was
// stored, and the pushes are serialised, so the last one holds every
// change made before it.
func (n *Node) pushReplicaSettings() {
	var mu sync.Mutex
	r := n.replica
	configure := func() {
		mu.Lock()
		defer mu.Unlock()
		r.Configure(n.replicaSettings())
	}
	n.repl.Push(func(replsql.Settings) { configure() })
	n.tcp.Push(func(tcptune.Options) { configure() })
	n.semi.Push(func(semisyncsql.Settings) { configure() })
}

// startReplica starts a configured replica at boot (skip_replica_start=OFF).
func (n *Node) startReplica() {
	if n.replica == nil || !n.replica.Configured() || n.repl.Settings().SkipStart {
		return
	}
	if err := n.replica.Start(true, true); err != nil {
		n.opts.Logger.Error("petrel: could not start replication", "error", err)
	}
}

func replicaStatusColumns() []string { return replica.StatusColumns }

// reportAddr is what the replica reports to its source (SHOW REPLICAS
// there; `petrel proxy` discovers replicas by it): its bind address
// unless that is a wildcard (the source then shows no host), and its
// configured port (0 when it picked a free one).
func (n *Node) reportAddr() (string, uint16) {
	host := n.opts.BindAddress
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = ""
	}
	return host, uint16(n.opts.Port)
}
