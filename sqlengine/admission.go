package sqlengine

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/admission"
	"petrel/internal/base"
	"petrel/sqlengine/arith"
)

// The admission gate: the shell around internal/admission's core. A
// transaction takes one of petrel_transaction_concurrency slots with its
// first statement (BEGIN, or a read) and gives it back when it ends
// (COMMIT, ROLLBACK, an implicit commit, a deadlock victim's rollback, the
// connection closing). Beyond the limit a statement waits, a
// transaction's own before new ones. A holder that has run nothing for
// transactionGrace does not count until it runs again, so a client
// idling inside a transaction cannot stall the others. Autocommit
// statements (they hold no lock and no read view past themselves), and
// statements of transactions that began without a slot (the limit was
// off, or they began with a write), go through. A waiting statement ends
// with KILL QUERY (1317), with its connection, or after the session's
// innodb_lock_wait_timeout with 1205, having run nothing (InnoDB's
// innodb_thread_concurrency waits with no limit; Petrel bounds every
// wait).

const (
	concurrencyVar = "petrel_transaction_concurrency"
	// admissionKickup is MariaDB's thread_pool_prio_kickup_timer default.
	admissionKickup = time.Second
	// transactionGrace: a slot holder idle this long stops counting.
	transactionGrace = 20 * time.Millisecond
)

// defaultConcurrency is petrel_transaction_concurrency's default: 4 per
// core, at least 32. Ordinary loads stay under it; at 1000 sysbench
// clients on 2 cores it lifts read_write's throughput by two thirds
// (docs/history/PERFORMANCE-log.md, "1000 clients").
func defaultConcurrency() int64 { return int64(max(32, 4*runtime.GOMAXPROCS(0))) }

// admissionVariable defines petrel_transaction_concurrency: a SET GLOBAL
// reaches the gate of the engine whose session ran it, at once, waking
// what a higher limit lets run; New takes the start-up value (the option
// file's) once the variables are set.
func admissionVariable() sql.SystemVariable {
	def := defaultConcurrency()
	return &sql.MysqlSystemVariable{
		Name: concurrencyVar, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: true,
		Type: types.NewSystemIntType(concurrencyVar, 0, 100000, false), Default: def,
		NotifyChanged: func(ctx *sql.Context, _ sql.SystemVariableScope, v sql.SystemVarValue) error {
			n, _ := arith.ToInt64(v.Val)
			if e := engineOf(ctx); e != nil && e.admission != nil {
				e.admission.setLimit(int(n))
			}
			return nil
		},
	}
}

type admitGate struct {
	// unlimited: the core has no limit (the variable is 0); statements
	// skip the gate altogether.
	unlimited atomic.Bool
	mu        sync.Mutex
	core      *admission.Core
	waiters   map[admission.ID]chan struct{}
	now       func() time.Time
	// tick is the one timer that lets waiting statements in when a
	// holder has been idle for the grace time (the core's NextTick);
	// tickAt is when it fires (zero: not armed).
	tick   *time.Timer
	tickAt time.Time
}

func newAdmitGate(limit int, now func() time.Time) *admitGate {
	g := &admitGate{
		core:    admission.NewCore(admission.Options{Limit: limit, Kickup: admissionKickup, Grace: transactionGrace}),
		waiters: map[admission.ID]chan struct{}{},
		now:     now,
	}
	g.unlimited.Store(limit <= 0)
	return g
}

// enter waits for a slot for statement id; nil once it runs (leave must
// follow), an error if ctx ended first or timeout() (when > 0) passed. A
// statement that has to wait does so under killable(ctx), so KILL QUERY
// reaches it.
func (g *admitGate) enter(ctx context.Context, id admission.ID, class admission.Class, timeout func() time.Duration, killable func(context.Context) (context.Context, func())) error {
	g.mu.Lock()
	now := g.now()
	if g.core.Arrive(id, class, now) {
		g.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	g.waiters[id] = ch
	g.arm(now)
	g.mu.Unlock()
	wctx, done := killable(ctx)
	defer done()
	var expired <-chan time.Time
	limit := timeout()
	if limit > 0 {
		deadline := time.NewTimer(limit)
		defer deadline.Stop()
		expired = deadline.C
	}
	for {
		select {
		case <-ch:
			return nil
		case <-expired:
			if g.giveUp(id) {
				return base.Errorf(base.ClassLockTimeout, "sqlengine: no transaction slot within innodb_lock_wait_timeout (%s)", limit)
			}
			return nil // let in at the deadline
		case <-wctx.Done():
			if !g.giveUp(id) {
				// Let in meanwhile: give the slot to the next one.
				g.leave(id)
			}
			return base.Wrap(base.ClassInterrupted, wctx.Err(), "sqlengine: waiting to run")
		}
	}
}

// giveUp takes waiting statement id out of the queue; false when it was
// let in meanwhile (it holds a slot).
func (g *admitGate) giveUp(id admission.ID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.waiters, id)
	return g.core.Cancel(id)
}

// arm sets the gate's timer for the core's next tick, when one is due
// earlier than the timer fires (a timer firing early finds nothing to do
// and is set again). Under g.mu.
func (g *admitGate) arm(now time.Time) {
	at, ok := g.core.NextTick(now)
	if !ok || (!g.tickAt.IsZero() && !at.Before(g.tickAt)) {
		return
	}
	g.tickAt = at
	d := max(at.Sub(now), 0)
	if g.tick == nil {
		g.tick = time.AfterFunc(d, g.fire)
	} else {
		g.tick.Reset(d)
	}
}

// fire: holders idle for the grace time let waiting statements in, with
// no event to say so.
func (g *admitGate) fire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	g.tickAt = time.Time{}
	g.wake(g.core.Tick(now))
	g.arm(now)
}

// leave gives id's slot back.
func (g *admitGate) leave(id admission.ID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.wake(g.core.Leave(id, g.now()))
}

// idle: holder id's statement ended; it keeps its slot.
func (g *admitGate) idle(id admission.ID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	g.wake(g.core.Idle(id, now))
	g.arm(now)
}

// busy: holder id starts a statement.
func (g *admitGate) busy(id admission.ID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.core.Busy(id)
}

// setLimit changes the limit (0: none).
func (g *admitGate) setLimit(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.wake(g.core.SetLimit(n, g.now()))
	g.unlimited.Store(n <= 0)
}

func (g *admitGate) wake(ids []admission.ID) {
	for _, id := range ids {
		if ch, ok := g.waiters[id]; ok {
			delete(g.waiters, id)
			close(ch)
		}
	}
}

func (g *admitGate) stats() admission.Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.core.Stats(g.now())
}

// admit asks the gate for a slot for the statement q on c, unless it goes
// through without one, and returns what to do when the statement ends.
func (h *errHandler) admit(ctx context.Context, c *mysql.Conn, q string) (func(), error) {
	g := h.e.admission
	if g == nil {
		return noop, nil
	}
	s := h.e.session(c.ConnectionID)
	if s == nil || s.internal {
		return noop, nil
	}
	id := admission.ID(c.ConnectionID)
	if s.ticket {
		g.busy(id)
		return s.endStatement, nil
	}
	if g.unlimited.Load() {
		return noop, nil
	}
	kind := statementKind(q)
	class := admission.New
	switch {
	case kind == kindOther:
		return noop, nil
	case kind == kindRead && !s.GetIgnoreAutoCommit() && s.autocommit():
		// An autocommit read holds no lock and its read view only while it
		// runs: no slot.
		return noop, nil
	case kind == kindRead:
		t, ok := s.GetTransaction().(*Transaction)
		if ok && t != nil && t.txn.HoldsLocks() {
			return noop, nil // began without a slot and holds locks
		}
		if ok && t != nil && t.txn.Active() {
			class = admission.InTxn
		}
	}
	if err := g.enter(ctx, id, class, func() time.Duration { return s.lockWaitTimeout(sql.NewContext(ctx, sql.WithSession(s))) }, h.killable(s)); err != nil {
		return noop, err
	}
	s.ticket, s.ticketGate, s.ticketID = true, g, id
	return s.endStatement, nil
}

// endStatement: the session's transaction gives its slot back once it
// has ended (COMMIT, ROLLBACK, an implicit commit, a deadlock victim's
// rollback), else goes idle holding it.
func (s *Session) endStatement() {
	if !s.ticket {
		return
	}
	if s.GetTransaction() == nil {
		s.releaseTicket()
		return
	}
	s.ticketGate.idle(s.ticketID)
}

// releaseTicket gives the slot back (also when the connection closes).
func (s *Session) releaseTicket() {
	if s.ticket {
		s.ticket = false
		s.ticketGate.leave(s.ticketID)
		s.ticketGate = nil
	}
}

// killable makes a waiting statement's context one KILL QUERY ends.
func (h *errHandler) killable(s *Session) func(context.Context) (context.Context, func()) {
	return func(ctx context.Context) (context.Context, func()) {
		pl := h.e.gms.ProcessList
		op, err := pl.BeginOperation(sql.NewContext(ctx, sql.WithSession(s), sql.WithProcessList(pl)))
		if err != nil {
			return ctx, noop
		}
		return op, func() { pl.EndOperation(op) }
	}
}

func noop() {}

type stmtKind int

const (
	kindOther stmtKind = iota
	kindRead           // SELECT, WITH
	kindBegin          // BEGIN, START TRANSACTION
)

// statementKind reads q's first keyword.
func statementKind(q string) stmtKind {
	q = strings.TrimLeft(q, " \t\r\n(")
	word := q
	if i := strings.IndexAny(q, " \t\r\n(;"); i >= 0 {
		word = q[:i]
	}
	switch {
	case strings.EqualFold(word, "select"), strings.EqualFold(word, "with"):
		return kindRead
	case strings.EqualFold(word, "begin"), strings.EqualFold(word, "start"):
		return kindBegin
	}
	return kindOther
}

// registerAdmissionStatus adds the gate's counters as status variables.
func (e *Engine) registerAdmissionStatus() {
	for name, f := range map[string]func(admission.Stats) any{
		"Petrel_transactions_admitted": func(s admission.Stats) any { return int64(s.Holding) },
		"Petrel_transactions_idle":     func(s admission.Stats) any { return int64(s.Idle) },
		"Petrel_statements_waiting":    func(s admission.Stats) any { return int64(s.Waiting) },
		"Petrel_statements_queued":     func(s admission.Stats) any { return s.Queued },
		"Petrel_statements_kicked_up":  func(s admission.Stats) any { return s.Kicked },
	} {
		e.RegisterStatus(name, func() any { return f(e.admission.stats()) })
	}
}
