package node

import (
	"context"

	"petrel/binlog"
	"petrel/semisync"
	"petrel/surface/semisyncsql"
)

// semiWaiter adapts the Tracker to the binary log.
type semiWaiter struct {
	t *semisync.Tracker
}

func (w semiWaiter) Admit() error { return w.t.Admit() }

func (w semiWaiter) WaitAcked(ctx context.Context, p binlog.Position) error {
	return w.t.Wait(ctx, semisync.Pos{File: p.File, Off: p.Pos})
}

func (w semiWaiter) AfterSync() bool { return w.t.Settings().WaitPoint != semisync.AfterCommit }

// NetworkDurable: with semi-sync ON at AFTER_SYNC, a commit returns only
// once a replica holds it durably, so storage need not fsync it too.
func (w semiWaiter) NetworkDurable() bool { return w.t.NetworkDurable() }

// openSemiSync builds the tracker and plugs it into the log; the source
// and replica read the switches from it.
func (n *Node) openSemiSync() {
	v := n.semi
	n.tracker = semisync.New(v.Source(), func() semisync.Pos {
		p := n.binlog.SyncedPosition()
		return semisync.Pos{File: p.File, Off: p.Pos}
	}, n.opts.Clock)
	tracker := n.tracker
	v.Push(func(s semisyncsql.Settings) { tracker.Configure(s.Source) })
	n.binlog.SetCommitWaiter(semiWaiter{t: n.tracker})
	semisyncsql.Register(n.sql, n.tracker, func() bool {
		return n.replica != nil && v.ReplicaEnabled() && n.replica.CountersSnapshot().SemiSync
	})
}
