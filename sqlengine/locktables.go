package sqlengine

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/arith"
	"petrel/sqlengine/tablelocks"
)

// LOCK TABLES, UNLOCK TABLES and FLUSH TABLES ... WITH READ LOCK, MySQL
// 8's way (issue 31). The decisions are tablelocks.Manager's (a pure
// core); this is its shell: one mutex around the Manager, and the waits.
// A statement that must wait (another session's lock conflicts) waits
// for a release, at most lock_wait_timeout (then 1205); KILL ends the
// wait (1317), and a session's end releases its locks. The statements'
// tables come from their plans (lockrule.go); FLUSH's from its parse
// (lockflush.go). LOCK TABLES is never written to the binary log (MySQL
// does not); writes under it are ordinary transactions.

// tableLocks is the engine's table locks. Safe for concurrent use.
type tableLocks struct {
	mu sync.Mutex
	m  *tablelocks.Manager
	// changed is closed (and replaced) when a lock is released: waiters
	// then ask again.
	changed chan struct{}
	gen     uint64
	// info is the text of a statement GMS's process list does not
	// show (FLUSH, an admin statement) while it may wait, by session.
	info map[uint32]string
	// active mirrors m.Active(): while no session holds a lock, no
	// statement is checked, and the fast paths may answer.
	active atomic.Bool
}

func newTableLocks() *tableLocks {
	return &tableLocks{m: tablelocks.New(), changed: make(chan struct{})}
}

// Active reports whether any session holds a table lock or the global
// read lock.
func (l *tableLocks) Active() bool { return l != nil && l.active.Load() }

// waitState is PROCESSLIST's state of a statement waiting here.
const waitState = "Waiting for table metadata lock"

// decide runs f under the mutex until it grants or refuses; while it says
// Wait, the statement waits for a release, at most lock_wait_timeout.
func (l *tableLocks) decide(ctx *sql.Context, s *Session, f func(m *tablelocks.Manager, id tablelocks.SessionID) tablelocks.Decision) error {
	id := tablelocks.SessionID(s.ID())
	var deadline <-chan time.Time
	for {
		l.mu.Lock()
		d := f(l.m, id)
		if d.Outcome != tablelocks.Wait {
			if deadline != nil {
				l.m.Waiting(id, "")
			}
			l.settle()
			l.mu.Unlock()
			if d.Outcome == tablelocks.Refused && d.Refusal == tablelocks.NotLockedForWrite && s.eng != nil {
				// MySQL refuses a write under read_only before it
				// opens (and lock-checks) the tables: 1290 first.
				if err := s.eng.checkWritable(ctx); err != nil {
					return err
				}
			}
			return refusal(d)
		}
		l.m.Waiting(id, waitState)
		ch := l.changed
		l.mu.Unlock()
		if deadline == nil {
			t := time.NewTimer(s.tableLockWait(ctx))
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-ch:
			continue
		case <-deadline:
		case <-ctx.Done():
		}
		l.mu.Lock()
		l.m.Waiting(id, "")
		l.mu.Unlock()
		if ctx.Err() != nil {
			return mysqlerr.New(mysqlerr.ErQueryInterrupted, "Query execution was interrupted")
		}
		return mysqlerr.New(mysqlerr.ErLockWaitTimeout, "Lock wait timeout exceeded; try restarting transaction")
	}
}

// do runs f, a release, under the mutex and wakes the waiters.
func (l *tableLocks) do(s uint32, f func(m *tablelocks.Manager, id tablelocks.SessionID)) {
	l.mu.Lock()
	f(l.m, tablelocks.SessionID(s))
	l.settle()
	l.mu.Unlock()
}

// settle wakes the waiters after a release and refreshes active; l.mu
// is held.
func (l *tableLocks) settle() {
	l.active.Store(l.m.Active())
	if g := l.m.Generation(); g != l.gen {
		l.gen = g
		close(l.changed)
		l.changed = make(chan struct{})
	}
}

// setInfo records (or with q "" forgets) the statement session id runs
// outside GMS's process list.
func (l *tableLocks) setInfo(id uint32, q string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if q == "" {
		delete(l.info, id)
		return
	}
	if l.info == nil {
		l.info = map[uint32]string{}
	}
	l.info[id] = q
}

// waitInfo is session id's wait state, and the statement text recorded
// by setInfo.
func (l *tableLocks) waitInfo(id uint32) (state, info string) {
	if !l.Active() {
		return "", ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.WaitState(tablelocks.SessionID(id)), l.info[id]
}

// inLockedTables reports whether session id is in locked-tables mode.
func (l *tableLocks) inLockedTables(id uint32) bool {
	if !l.Active() {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.InLockedTables(tablelocks.SessionID(id))
}

// holdsGlobal reports whether session id holds the global read lock.
func (l *tableLocks) holdsGlobal(id uint32) bool {
	if !l.Active() {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.HoldsGlobal(tablelocks.SessionID(id))
}

// locked is session id's locks.
func (l *tableLocks) locked(id uint32) []tablelocks.Request {
	if !l.Active() {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m.Locked(tablelocks.SessionID(id))
}

// release drops every lock of session id (UNLOCK TABLES, the session's
// end).
func (l *tableLocks) release(id uint32) {
	if !l.Active() {
		return
	}
	l.do(id, func(m *tablelocks.Manager, s tablelocks.SessionID) { m.Unlock(s) })
}

// releaseTables drops session id's table locks, keeping a global read
// lock (START TRANSACTION).
func (l *tableLocks) releaseTables(id uint32) {
	if !l.Active() {
		return
	}
	l.do(id, func(m *tablelocks.Manager, s tablelocks.SessionID) { m.UnlockTables(s) })
}

// readOnlyOn is SET GLOBAL read_only (or super_read_only) = ON by ctx's
// session, as MySQL takes the global read lock for it: refused under the
// session's LOCK TABLES or in its explicit transaction (1192), it waits
// for other sessions' WRITE locks.
func (l *tableLocks) readOnlyOn(ctx *sql.Context) error {
	s := ctxSession(ctx)
	if s == nil || s.conn == nil {
		return nil
	}
	if s.GetIgnoreAutoCommit() && s.GetTransaction() != nil {
		return errLockedTables()
	}
	if !l.Active() {
		return nil
	}
	return l.decide(ctx, s, func(m *tablelocks.Manager, id tablelocks.SessionID) tablelocks.Decision {
		return m.ReadOnly(id)
	})
}

// installProcessListState makes information_schema.PROCESSLIST show a
// statement waiting for a table lock as MySQL does (STATE "Waiting for
// table metadata lock"; GMS shows "running").
func (e *Engine) installProcessListState(cat *analyzer.Catalog) error {
	return rewriteInfoSchemaRows(cat, information_schema.ProcessListTableName, func(r sql.Row) error {
		if len(r) > 6 {
			if id, ok := r[0].(uint64); ok {
				if st, info := e.tlocks.waitInfo(uint32(id)); st != "" {
					r[6] = st
					if q, _ := r[7].(string); q == "" && info != "" {
						r[4], r[7] = "Query", info
					}
				}
			}
		}
		return nil
	})
}

// notLockedTable reports whether a missing table of statement st is,
// for session s, one it did not lock: under LOCK TABLES MySQL looks a
// name up in the locked list only, so a name missing there is 1100 even
// when no table has it (DROP TABLE and CREATE ... keep their errors).
func notLockedTable(s *Session, st ast.Statement) bool {
	if !s.eng.tlocks.inLockedTables(s.ID()) {
		return false
	}
	switch x := st.(type) {
	case *ast.DDL:
		// A view's CREATE is the last statement parsed when the view
		// was planned (TRUNCATE v1), not the client's.
		return x.Action != ast.DropStr && (x.Action != ast.CreateStr || x.ViewSpec != nil)
	case *ast.Show, *ast.Explain:
		return false
	}
	return st != nil
}

// notLockedError is ER_TABLE_NOT_LOCKED for name (db.table or table).
func notLockedError(name string) error {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return refusal(tablelocks.Decision{Outcome: tablelocks.Refused, Refusal: tablelocks.NotLocked, Name: name})
}

// refusal is a decision's error: MySQL's number and message.
func refusal(d tablelocks.Decision) error {
	if d.Outcome != tablelocks.Refused {
		return nil
	}
	switch d.Refusal {
	case tablelocks.NotLocked:
		return mysqlerr.New(mysqlerr.ErTableNotLocked, "Table '%s' was not locked with LOCK TABLES", d.Name)
	case tablelocks.NotLockedForWrite:
		return mysqlerr.New(mysqlerr.ErTableNotLockedForWrite, "Table '%s' was locked with a READ lock and can't be updated", d.Name)
	case tablelocks.ReadLockHeld:
		return mysqlerr.New(mysqlerr.ErCantUpdateWithReadlock, "Can't execute the query because you have a conflicting read lock")
	case tablelocks.LockedTables:
		return errLockedTables()
	}
	return errors.New("sqlengine: unknown table lock refusal")
}

func errLockedTables() error {
	return mysqlerr.New(mysqlerr.ErLockOrActiveTransaction, "Can't execute the given command because you have active locked tables or an active transaction")
}

// tableLockWait is the session's lock_wait_timeout (MySQL's metadata
// lock wait, default a year).
func (s *Session) tableLockWait(ctx *sql.Context) time.Duration {
	if v, err := s.GetSessionVariable(ctx, "lock_wait_timeout"); err == nil {
		if n, ok := arith.ToInt64(v); ok && n > 0 {
			return time.Duration(n) * time.Second
		}
	}
	return 365 * 24 * time.Hour
}

// lockRequests are a LOCK TABLES plan's requests: each table under the
// name it is locked as; a view with the tables it reads (implicit: MySQL
// locks a view's tables with it).
func lockRequests(ctx *sql.Context, n *plan.LockTables) []tablelocks.Request {
	var out []tablelocks.Request
	for _, l := range n.Locks {
		mode := tablelocks.Read
		if l.Write {
			mode = tablelocks.Write
		}
		node, alias := l.Table, ""
		if ta, ok := node.(*plan.TableAlias); ok {
			node, alias = ta.Child, ta.Name()
		}
		if pt := tableOfNode(node); pt != nil {
			if pt.temp == nil {
				out = append(out, tablelocks.Request{Table: tablelocks.Table{DB: pt.db.name, Name: pt.Name()}, Alias: alias, Mode: mode})
			}
			continue
		}
		if sa, ok := node.(*plan.SubqueryAlias); ok {
			out = append(out, tablelocks.Request{Table: tablelocks.Table{DB: ctx.GetCurrentDatabase(), Name: sa.Name()}, Alias: alias, Mode: mode})
			transform.Inspect(sa.Child, func(n sql.Node) bool {
				if pt := tableOfNode(n); pt != nil && pt.temp == nil {
					out = append(out, tablelocks.Request{Table: tablelocks.Table{DB: pt.db.name, Name: pt.Name()}, Mode: mode, Implicit: true})
				}
				return true
			})
		}
	}
	return out
}

// lockTablesNode runs LOCK TABLES: it commits the session's transaction
// and releases its table locks (as MySQL does), then waits for the locks.
type lockTablesNode struct{ reqs []tablelocks.Request }

var _ sql.ExecSourceRel = (*lockTablesNode)(nil)

func (n *lockTablesNode) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	s := ctxSession(ctx)
	if s == nil || s.eng == nil {
		return sql.RowsToRowIter(), nil
	}
	if err := s.implicitCommit(ctx); err != nil {
		return nil, err
	}
	l := s.eng.tlocks
	l.do(s.ID(), func(m *tablelocks.Manager, id tablelocks.SessionID) { m.UnlockTables(id) })
	err := l.decide(ctx, s, func(m *tablelocks.Manager, id tablelocks.SessionID) tablelocks.Decision {
		return m.Lock(id, n.reqs)
	})
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(), nil
}

func (n *lockTablesNode) Resolved() bool       { return true }
func (n *lockTablesNode) IsReadOnly() bool     { return true }
func (n *lockTablesNode) String() string       { return "LockTables" }
func (n *lockTablesNode) Schema() sql.Schema   { return nil }
func (n *lockTablesNode) Children() []sql.Node { return nil }
func (n *lockTablesNode) WithChildren(ch ...sql.Node) (sql.Node, error) {
	if len(ch) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(ch), 0)
	}
	return n, nil
}

// unlockTablesNode runs UNLOCK TABLES: it releases the session's table
// locks and global read lock, committing its transaction if it held
// table locks (MySQL's implicit commit).
type unlockTablesNode struct{}

var _ sql.ExecSourceRel = (*unlockTablesNode)(nil)

func (n *unlockTablesNode) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	s := ctxSession(ctx)
	if s == nil || s.eng == nil {
		return sql.RowsToRowIter(), nil
	}
	l := s.eng.tlocks
	if l.inLockedTables(s.ID()) {
		if err := s.implicitCommit(ctx); err != nil {
			return nil, err
		}
	}
	l.release(s.ID())
	return sql.RowsToRowIter(), nil
}

func (n *unlockTablesNode) Resolved() bool       { return true }
func (n *unlockTablesNode) IsReadOnly() bool     { return true }
func (n *unlockTablesNode) String() string       { return "UnlockTables" }
func (n *unlockTablesNode) Schema() sql.Schema   { return nil }
func (n *unlockTablesNode) Children() []sql.Node { return nil }
func (n *unlockTablesNode) WithChildren(ch ...sql.Node) (sql.Node, error) {
	if len(ch) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(ch), 0)
	}
	return n, nil
}
