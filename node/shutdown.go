package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/storage"
	"petrel/surface/sysvar"
)

// defaultShutdownTimeout is shutdown_timeout's default, in seconds.
const defaultShutdownTimeout = 10

// shutdownVariables defines shutdown_timeout (Petrel's; MySQL has none):
// the seconds from SIGTERM to the process's exit, whatever storage does.
func (n *Node) shutdownVariables() {
	global := sql.GetMysqlScope(sql.SystemVariableScope_Global)
	n.globals.Add([]sql.SystemVariable{
		sysvar.Global(n.set, &sql.MysqlSystemVariable{Name: "shutdown_timeout", Scope: global, Dynamic: true,
			Type: types.NewSystemIntType("shutdown_timeout", 1, 31536000, false), Default: int64(defaultShutdownTimeout)},
			func(s *settings, v any) error {
				s.ShutdownTimeout = time.Duration(sysvar.Int(v)) * time.Second
				return nil
			}),
	}...)
}

// ShutdownTimeout is shutdown_timeout: how long Shutdown (and so Close)
// may take.
func (n *Node) ShutdownTimeout() time.Duration { return n.set.Get().ShutdownTimeout }

// Close is Shutdown bounded by shutdown_timeout.
func (n *Node) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), n.ShutdownTimeout())
	defer cancel()
	return n.Shutdown(ctx)
}

// errAbandoned reports the steps Shutdown left to recovery.
var errAbandoned = errors.New("node: shutdown deadline passed")

// Shutdown stops the server in MySQL's order, all of it within ctx's
// deadline (docs/design/shutdown.md):
//
//  1. No new connections; new statements get ER_SERVER_SHUTDOWN (1053).
//  2. Running statements finish, for up to half the time left.
//  3. Every client connection is closed; a statement still running is
//     cancelled and gets no reply (its client sees CR_SERVER_LOST 2013:
//     a commit among them may or may not be durable), and is waited for
//     until three quarters of the time are gone.
//  4. The replica threads stop, then the dump threads (late, so semi-sync
//     commits draining in step 2 could still be acknowledged).
//  5. Storage takes no more commits and finishes those in flight; the
//     binlog is synced and closed; storage flushes and closes.
//
// When the deadline passes, the step under way and every later one are
// abandoned and logged; the error names them. That is safe: every
// acknowledged commit is in the synced binlog (or Pebble's WAL), and the
// next start recovers from it. The node must not be used afterwards.
func (n *Node) Shutdown(ctx context.Context) error {
	log := n.opts.Logger
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, n.ShutdownTimeout())
		defer cancel()
	}
	deadline, _ := ctx.Deadline()
	start := time.Now()                                                                  // measured against ctx's deadline, which is wall-clock
	elapsed := func() time.Duration { return time.Since(start).Round(time.Millisecond) } // wall-clock, as start
	budget := deadline.Sub(start)
	at := func(frac float64) time.Time { return start.Add(time.Duration(float64(budget) * frac)) }

	if n.stopWatch != nil {
		n.stopWatch()
		<-n.watchDone
		<-n.memDone
	}
	n.closeMetrics()
	if n.sql != nil {
		// Calls without a session answer from the engine opened before
		// this one from here on (sqlengine/globals.go).
		defer n.sql.Close()
	}

	var errs []error
	if n.srv != nil {
		errs = append(errs, n.srv.Close()) // the listener
		running := n.sql.StopStatements()
		log.Info("petrel: shutdown: no new connections or statements", "running", running, "deadline", budget.Round(time.Millisecond))
		dctx, cancel := context.WithDeadline(ctx, at(0.5))
		left := n.sql.WaitStatements(dctx)
		cancel()
		closed, busy := n.sql.CloseConnections()
		if left > 0 || busy > 0 {
			log.Warn("petrel: shutdown: closed connections whose statements were still running; their clients see a lost connection (2013), and a commit among them may or may not be durable",
				"connections", closed, "running", max(left, busy), "after", elapsed())
			wctx, cancel := context.WithDeadline(ctx, at(0.75))
			if stuck := n.sql.WaitStatements(wctx); stuck > 0 {
				log.Warn("petrel: shutdown: statements still running after their connections were closed", "running", stuck)
			}
			cancel()
		} else {
			log.Info("petrel: shutdown: statements finished; connections closed", "connections", closed, "after", elapsed())
		}
	}

	// The remaining steps, in order; once one is abandoned, the rest are
	// too (each may need the one before to have finished).
	type step struct {
		what string
		fn   func(context.Context) error
	}
	var steps []step
	if n.replica != nil {
		steps = append(steps, step{"replication threads", func(context.Context) error { return n.replica.Close() }})
	}
	if n.srv != nil {
		steps = append(steps, step{"replication dump threads", func(context.Context) error { n.sql.CloseDumps(); return nil }})
	}
	if n.donor != nil {
		steps = append(steps, step{"clone snapshots", func(context.Context) error { return n.donor.Close() }})
	}
	if n.store != nil {
		steps = append(steps, step{"commits in flight", n.store.StopCommits})
	}
	if n.binlog != nil {
		steps = append(steps, step{"binlog close", func(context.Context) error { return n.binlog.Close() }})
	}
	if n.store != nil {
		steps = append(steps, step{"storage close (memtable flush)", n.store.CloseContext})
	}
	for i, s := range steps {
		err, finished := runBounded(ctx, s.fn)
		if finished && !errors.Is(err, storage.ErrAbandoned) {
			errs = append(errs, err)
			continue
		}
		var rest []string
		for _, r := range steps[i:] {
			rest = append(rest, r.what)
		}
		log.Error("petrel: shutdown deadline passed; abandoned the rest of the shutdown: the next start recovers from the binlog",
			"abandoned", rest, "err", err, "after", elapsed())
		errs = append(errs, fmt.Errorf("%w after %v: abandoned %v", errAbandoned, elapsed(), rest))
		break
	}
	return errors.Join(errs...)
}

// runBounded runs fn until ctx ends; finished is false if it was still
// running then (it goes on, abandoned).
func runBounded(ctx context.Context, fn func(context.Context) error) (err error, finished bool) {
	if ctx.Err() != nil {
		return ctx.Err(), false
	}
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	select {
	case err := <-done:
		return err, true
	case <-ctx.Done():
		return ctx.Err(), false
	}
}
