// Package fastpath answers the statements that do not need
// go-mysql-server's analyzer: prepared and text point, range, prefix and
// index reads, point joins, distinct-count joins and grouped sums over
// key ranges (TPC-C's STOCK_LEVEL and DELIVERY), whole-table scans,
// single-row and key-prefix writes, INSERTs of literals,
// BEGIN/COMMIT/ROLLBACK. It is the backend's
// sqlengine.Executor: the handler offers it every statement at one
// decision point, and whatever it declines (or a plan its gate refuses:
// a catalog or session-variable change, petrel_fast_paths OFF) GMS runs.
//
// Contract: an answer here is the answer GMS gives through the same
// backend (rows, fields, errors and their numbers, warnings, locks,
// binlog effects); the differential tests in node run every shape both
// ways (docs/design/fastpaths.md). It uses only sqlengine's executor API
// (execapi.go) and storage.
package fastpath

import (
	"context"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"petrel/sqlengine"
	"petrel/storage"
)

// Executor is the fast paths of one engine: their plan caches and
// counters.
type Executor struct {
	e     *sqlengine.Engine
	store *storage.Engine

	fast  fastPlans
	texts textPlans // text statements with literals (textparam.go)
	scans scanPlans

	fastWriteCount atomic.Uint64
	fastReadCount  atomic.Uint64
	// fastReplans counts fast plans made again after a catalog or session
	// change (fastgate.go).
	fastReplans atomic.Uint64
}

var _ sqlengine.Executor = (*Executor)(nil)

// Install makes the fast paths e's executor and registers their status
// variables (Petrel_fast_path_writes, _reads, _replans).
func Install(e *sqlengine.Engine) *Executor {
	x := &Executor{e: e, store: e.Store()}
	e.RegisterStatus("Petrel_fast_path_writes", func() any { return x.fastWriteCount.Load() })
	e.RegisterStatus("Petrel_fast_path_reads", func() any { return x.fastReadCount.Load() })
	e.RegisterStatus("Petrel_fast_path_replans", func() any { return x.fastReplans.Load() })
	e.SetExecutor(x)
	return x
}

// NewContext is e's statement context for s.
func (e *Executor) NewContext(ctx context.Context, s *sqlengine.Session) *sql.Context {
	return e.e.NewContext(ctx, s)
}

// Text tries, in order: BEGIN/COMMIT/ROLLBACK, an INSERT of literals, a
// cached scan, and a statement whose literals make it a prepared shape.
func (e *Executor) Text(ctx context.Context, c *mysql.Conn, s *sqlengine.Session, q string, cb mysql.ResultSpoolFn) (bool, mysql.ResultSpoolFn, error) {
	if handled, err := e.tryTxnText(ctx, c, s, q, cb); handled {
		return true, nil, err
	}
	if handled, err := e.tryInsert(ctx, c, s, q, cb); handled {
		return true, nil, err
	}
	handled, run, err := e.tryScan(ctx, c, s, q, cb)
	if handled {
		return true, nil, err
	}
	return e.tryParams(ctx, c, s, q, run)
}

// Prepare plans q once GMS prepared it.
func (e *Executor) Prepare(c *mysql.Conn, s *sqlengine.Session, q string, nparams int, prepare func() ([]*querypb.Field, error)) ([]*querypb.Field, error) {
	var head planHead
	if s != nil {
		head = e.headNow(s)
	}
	f, err := prepare()
	if s != nil {
		// A statement prepared again replaces its plan, or drops it when
		// no fast path takes it now (fastPlans.put).
		var np fastPlan
		if err == nil && !sqlengine.OperatorText(s, q) {
			// OperatorText: read differently under PIPES_AS_CONCAT or
			// HIGH_NOT_PRECEDENCE: GMS's (pipesnot.go).
			np = e.planFast(s, q, f, nparams, true)
		}
		np.head = head
		e.fast.put(c.ConnectionID, q, np)
	}
	return f, err
}

// Execute runs q's cached plan if its gate lets it.
func (e *Executor) Execute(ctx context.Context, c *mysql.Conn, s *sqlengine.Session, q string, binds map[string]*querypb.BindVariable, raw func(*sqltypes.Result) error, wrapped func() func(*sqltypes.Result) error) (bool, error) {
	if s == nil {
		return false, nil
	}
	plan := e.fast.get(c.ConnectionID, q)
	if !plan.any() {
		return false, nil
	}
	plan = e.gatePlan(c.ConnectionID, s, q, plan)
	if ok, err := e.execFastRead(ctx, s, plan, binds, raw); ok {
		return true, err
	}
	return e.execFastWrite(ctx, s, plan, binds, wrapped())
}

// Closed forgets a closed connection's plans.
func (e *Executor) Closed(connID uint32) {
	e.fast.drop(connID)
	e.texts.drop(connID)
}
