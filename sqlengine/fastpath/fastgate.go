package fastpath

import (
	"context"

	"petrel/sqlengine"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// The one decision point of the prepared fast paths (point, range and
// index reads, writes, BEGIN/COMMIT). A plan is made at prepare time under
// a catalog generation and the session's state; each execution asks
// fastGate whether it may still run. When the catalog (any DDL: tables,
// indexes, CHECK constraints, foreign keys, triggers, views) or a session variable
// (sql_mode, sql_select_limit, autocommit, character sets, ...) changed
// since, the statement is planned again with the same checks as at
// prepare; a re-plan that refuses evicts the cached plan, so the
// statement goes to GMS from then on. A session that has a temporary
// table gets no fast path at all (ExecutorOnFor: the table may shadow
// another of its name, and the executors resolve names in the catalog).
// SetFastWrites(false) turns every
// fast path off, which the differential tests use to run each shape both
// ways. The text paths (textinsert.go, fastscan.go) check the same
// things at each execution, having no cached plan to keep.
// petrel_fast_paths (global, ON by default) is that switch for operators
// and for the tests that run a corpus both ways over a real connection.

// fastRefusal names why a fast path may not run a statement; "" means it
// may.
type fastRefusal string

const (
	refuseOff     fastRefusal = "fast paths off"
	refuseCatalog fastRefusal = "catalog changed since the plan"
	refuseSession fastRefusal = "session variables changed since the plan"
)

// planHead is the state a fast plan was made under.
type planHead struct {
	gen  uint64 // catalog generation
	vars uint64 // the session's variable generation (Session.varGen)
}

// headNow is the state a plan made now is made under. It is read before
// planning: a DDL that lands while the plan is made forces a re-plan.
func (e *Executor) headNow(s *sqlengine.Session) planHead {
	return planHead{gen: e.store.Catalog().Generation(), vars: s.VarGen()}
}

// fastGate decides whether plan may run for s now.
func (e *Executor) fastGate(s *sqlengine.Session, h planHead) fastRefusal {
	switch {
	case !e.e.ExecutorOnFor(s):
		return refuseOff
	case e.store.Catalog().Generation() != h.gen:
		return refuseCatalog
	case s.VarGen() != h.vars:
		return refuseSession
	}
	return ""
}

// gatePlan returns the plan an execution of q may use: p itself, a plan
// made again after a catalog or session change (kept for the next
// executions), or none.
func (e *Executor) gatePlan(conn uint32, s *sqlengine.Session, q string, p fastPlan) fastPlan {
	switch e.fastGate(s, p.head) {
	case "":
		return p
	case refuseOff:
		return fastPlan{}
	}
	e.fastReplans.Add(1)
	np := e.replan(s, q, p)
	e.fast.put(conn, q, np)
	return np
}

// replan makes p's kind of plan for q again under the current catalog
// and session. The result fields sent by a read plan are the prepare's,
// so a read plan must find the same table definition.
func (e *Executor) replan(s *sqlengine.Session, q string, p fastPlan) fastPlan {
	np := fastPlan{head: e.headNow(s), txn: p.txn}
	if sqlengine.OperatorText(s, q) {
		return np // PIPES_AS_CONCAT or HIGH_NOT_PRECEDENCE: GMS's (pipesnot.go)
	}
	switch {
	case p.point != nil:
		if n := e.planPointSelect(s, q, p.point.fields); n != nil && n.sameTable(p.point) && n.nbinds == p.point.nbinds {
			np.point = n
		}
	case p.rng != nil:
		if n := e.planRange(s, q, p.rng.point.fields); n != nil && n.point.sameTable(&p.rng.point) {
			np.rng = n
		}
	case p.index != nil:
		if n := e.planIndexSelect(s, q, p.index.point.fields); n != nil && n.point.sameTable(&p.index.point) && n.nbinds == p.index.nbinds {
			np.index = n
		}
	case p.prefix != nil:
		if n := e.planPrefixSelect(s, q, p.prefix.point.fields); n != nil && n.point.sameTable(&p.prefix.point) && n.point.nbinds == p.prefix.point.nbinds {
			np.prefix = n
		}
	case p.join != nil:
		if n := e.planPointJoin(s, q, p.join.fields); n != nil && n.sameTables(p.join) {
			np.join = n
		}
	case p.count != nil:
		if n := e.planCountJoin(s, q, p.count.fields); n != nil && n.sameTables(p.count) {
			np.count = n
		}
	case p.gsum != nil:
		if n := e.planGroupSum(s, q, p.gsum.point.fields); n != nil && n.point.sameTable(&p.gsum.point) && n.point.nbinds == p.gsum.point.nbinds {
			np.gsum = n
		}
	case p.write != nil:
		if n := e.planWrite(s, q); n != nil && n.nparams == p.write.nparams {
			np.write = n
		}
	}
	return np
}

// sameTable reports whether two read plans read the same definition of
// the same table (the fields a prepare sent stay true).
func (p *pointPlan) sameTable(o *pointPlan) bool {
	return p.tableID == o.tableID && p.ncols == o.ncols && p.results == o.results
}

// readSessionOK is the session state a read plan needs: sql_select_limit
// at its default (the fast reads send every row).
func readSessionOK(s *sqlengine.Session) bool {
	def, _ := sql.HasDefaultValue(nil, s, "sql_select_limit")
	return def
}

// planFast makes the fast plan of statement q with nparams parameters
// and result fields f (GMS's, from its prepare or its first answer); an
// empty plan when no fast path takes it. txn: a statement without
// parameters may be BEGIN or COMMIT.
func (e *Executor) planFast(s *sqlengine.Session, q string, f []*querypb.Field, nparams int, txn bool) fastPlan {
	var np fastPlan
	if nparams == 0 {
		if txn {
			np.txn = txnStatement(q)
		}
		return np
	}
	// Only a SELECT can be a read plan: a write is parsed once, not once
	// per read shape tried first (11% of the CPU of a load of prepared
	// multi-row INSERTs).
	stmt, err := ast.Parse(q)
	if err != nil {
		return np
	}
	if _, ok := stmt.(*ast.Select); !ok {
		if w := e.planWriteStmt(s, stmt); w != nil && nparams == w.nparams {
			np.write = w
		}
		return np
	}
	if plan := e.planPointSelect(s, q, f); plan != nil && nparams == plan.nbinds {
		np.point = plan
	} else if r := e.planRange(s, q, f); r != nil && nparams == 2 {
		np.rng = r
	} else if ip := e.planIndexSelect(s, q, f); ip != nil && nparams == ip.nbinds {
		np.index = ip
	} else if pp := e.planPrefixSelect(s, q, f); pp != nil && nparams == pp.point.nbinds {
		np.prefix = pp
	} else if jp := e.planPointJoin(s, q, f); jp != nil && nparams == jp.nbinds {
		np.join = jp
	} else if cp := e.planCountJoin(s, q, f); cp != nil && nparams == cp.nbinds {
		np.count = cp
	} else if gp := e.planGroupSum(s, q, f); gp != nil && nparams == gp.point.nbinds {
		np.gsum = gp
	}
	return np
}

// execFastRead runs plan's read, if it has one; ok=false means "let GMS
// do it" (nothing was sent). A fast read sends the fields its plan keeps
// and always a result set.
func (e *Executor) execFastRead(ctx context.Context, s *sqlengine.Session, plan fastPlan, bind map[string]*querypb.BindVariable, cb func(*sqltypes.Result) error) (ok bool, err error) {
	switch {
	case plan.point != nil:
		ok, err = e.execPointSelect(ctx, s, plan.point, bind, cb)
	case plan.rng != nil:
		ok, err = e.execRange(ctx, s, plan.rng, bind, cb)
	case plan.prefix != nil:
		ok, err = e.execPrefixSelect(ctx, s, plan.prefix, bind, cb)
	case plan.index != nil:
		ok, err = e.execIndexSelect(ctx, s, plan.index, bind, cb)
	case plan.join != nil:
		ok, err = e.execPointJoin(ctx, s, plan.join, bind, cb)
	case plan.count != nil:
		ok, err = e.execCountJoin(ctx, s, plan.count, bind, cb)
	case plan.gsum != nil:
		ok, err = e.execGroupSum(ctx, s, plan.gsum, bind, cb)
	}
	if ok {
		e.fastReadCount.Add(1)
	}
	if err != nil {
		s.EndAborted()
	}
	return ok, err
}

// execFastWrite runs plan's write or transaction statement, if it has
// one; ok=false means "let GMS do it".
func (e *Executor) execFastWrite(ctx context.Context, s *sqlengine.Session, plan fastPlan, bind map[string]*querypb.BindVariable, cb func(*sqltypes.Result) error) (ok bool, err error) {
	switch {
	case plan.write != nil:
		ok, err = e.execWrite(ctx, s, plan.write, bind, cb)
	case plan.txn != "":
		ok, err = e.execTxnStatement(ctx, s, plan.txn, cb)
	}
	if err != nil {
		s.EndAborted()
	}
	return ok, err
}
