package sqlengine

import (
	"context"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// Executor answers the statements it can without go-mysql-server: the
// fast paths. It is the one decision point of "who answers this
// statement?": the handler offers it every text statement, prepare and
// execution, in one place each, after admission, the admin statements and
// DO; whatever it declines, GMS runs. Its own gate (fastgate.go) decides
// whether a cached plan may still run.
type Executor interface {
	// Text offers a text statement: a COM_QUERY, or the only statement of
	// a multi-statement packet. cb formats text results as MySQL does
	// (textFloats). handled=false: GMS runs q with run as its callback
	// (nothing was read or written).
	Text(ctx context.Context, c *mysql.Conn, s *Session, q string, cb mysql.ResultSpoolFn) (handled bool, run mysql.ResultSpoolFn, err error)
	// Prepare wraps GMS's COM_STMT_PREPARE of q (prepare runs it and
	// returns its result fields); the executor plans q once GMS has, and
	// drops or replaces an earlier plan of the same text.
	Prepare(c *mysql.Conn, s *Session, q string, nparams int, prepare func() ([]*querypb.Field, error)) ([]*querypb.Field, error)
	// Execute offers a COM_STMT_EXECUTE of q. Reads answer on raw (their
	// fields were fixed at prepare); writes on wrapped(), the callback
	// GMS's results get too. handled=false: GMS runs it.
	Execute(ctx context.Context, c *mysql.Conn, s *Session, q string, binds map[string]*querypb.BindVariable, raw func(*sqltypes.Result) error, wrapped func() func(*sqltypes.Result) error) (handled bool, err error)
	// Closed forgets a closed connection's plans.
	Closed(connID uint32)
}

// fastExecutor is the Executor over the fast paths of this package.
type fastExecutor struct{ e *Engine }

var _ Executor = fastExecutor{}

// Text tries, in order: BEGIN/COMMIT/ROLLBACK, an INSERT of literals, a
// cached scan, and a statement whose literals make it a prepared shape.
func (x fastExecutor) Text(ctx context.Context, c *mysql.Conn, s *Session, q string, cb mysql.ResultSpoolFn) (bool, mysql.ResultSpoolFn, error) {
	e := x.e
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

func (x fastExecutor) Prepare(c *mysql.Conn, s *Session, q string, nparams int, prepare func() ([]*querypb.Field, error)) ([]*querypb.Field, error) {
	e := x.e
	var head planHead
	if s != nil {
		head = e.headNow(s)
	}
	f, err := prepare()
	if s != nil {
		// A statement prepared again replaces its plan, or drops it when
		// no fast path takes it now (fastPlans.put).
		var np fastPlan
		if err == nil && !operatorText(s, q) {
			// operatorText: read differently under PIPES_AS_CONCAT or
			// HIGH_NOT_PRECEDENCE: GMS's (pipesnot.go).
			np = e.planFast(s, q, f, nparams, true)
		}
		np.head = head
		e.fast.put(c.ConnectionID, q, np)
	}
	return f, err
}

func (x fastExecutor) Execute(ctx context.Context, c *mysql.Conn, s *Session, q string, binds map[string]*querypb.BindVariable, raw func(*sqltypes.Result) error, wrapped func() func(*sqltypes.Result) error) (bool, error) {
	e := x.e
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

func (x fastExecutor) Closed(connID uint32) {
	x.e.fast.drop(connID)
	x.e.texts.drop(connID)
}
