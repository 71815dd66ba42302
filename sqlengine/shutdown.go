package sqlengine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"petrel/sqlengine/sqlerr"

	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/base"
	"petrel/internal/mysqlerr"
	"petrel/sqlengine/wire"
)

// Shutdown, client side, in MySQL's order (docs/design/shutdown.md): the node stops the listener, then StopStatements turns new
// statements away with ER_SERVER_SHUTDOWN, WaitStatements lets the running
// ones finish, CloseConnections closes every client connection (a
// statement still running is cancelled and gets no reply: its client sees
// CR_SERVER_LOST, outcome unknown), and CloseDumps ends the replication
// dump threads last, so that a semi-sync commit draining meanwhile can
// still be acknowledged.

// connState is what shutdown needs to know about one client connection.
// It lives in mysql.Conn.ClientData. Safe for concurrent use (vitess runs a
// server-side cursor's statement on a goroutine of its own).
type connState struct {
	c *mysql.Conn
	// h is the connection's handler (COM_CHANGE_USER resets the
	// session through it: changeuser.go).
	h *errHandler
	// ctx is cancelled when the server closes the connection; every
	// command's context ends with it.
	ctx    context.Context
	cancel context.CancelFunc
	// busy counts the commands running; done ends one (begin's end).
	busy atomic.Int32
	done func()
	// dump is set once the connection streams the binlog to a replica.
	dump atomic.Bool
	// outcomeUnknown is set by a commit whose outcome is unknown
	// (base.ClassOutcomeUnknown); reply then drops the connection.
	outcomeUnknown atomic.Bool
	// codec decodes the connection's text from its character_set_client
	// (clientconv.go); nil until the first command reads the handshake's.
	codec atomic.Pointer[clientCodec]
	// stmtCtx is the running statement's context when it has a
	// max_execution_time (exectime.go); the connection's goroutine alone
	// uses it.
	stmtCtx context.Context
	// lastStmt is the statement the connection's session parsed last,
	// for the error MySQL gives it (stmterr.go); dropped once read. The
	// connection's goroutine alone uses it.
	lastStmt ast.Statement
	// clientPid is the query (its process id, new for each statement the
	// client sends) whose first parse noteClientStatement saw; preparing
	// is the name that statement prepares when it is a PREPARE, else ""
	// (stmterr.go). None of these holds the statement: a connection kept
	// its last 60 MB INSERT's text and tree until its next statement. The
	// connection's goroutine alone uses them.
	clientPid uint64
	preparing string
	// insertInto and insertVerb name the table an INSERT or REPLACE (the
	// verb) the client sent writes, for its 1471 (stmterr.go); "" for
	// any other statement.
	insertInto, insertVerb string
}

var _ wire.Commands = (*connState)(nil)

// MySQLConn implements wire.Commands.
func (cs *connState) MySQLConn() *mysql.Conn { return cs.c }

// Running implements wire.Commands: a command of the connection runs.
func (cs *connState) Running() bool { return cs.busy.Load() > 0 }

// connSet is the engine's registry of client connections.
type connSet struct {
	// stopping: new statements get ER_SERVER_SHUTDOWN.
	stopping atomic.Bool
	mu       struct {
		sync.Mutex
		conns  map[*connState]struct{}
		closed bool // CloseConnections ran: late connections are closed at once
	}
}

// errShutdown is MySQL's answer to a statement during shutdown. Nothing of
// the statement ran, so it is a definite failure; an open transaction of
// the connection is rolled back when the connection closes.
func errShutdown() error {
	return mysqlerr.New(mysqlerr.ErServerShutdown, "Server shutdown in progress")
}

// NewConnection implements mysql.Handler: the connection is registered
// for shutdown; its greeting carries the status flags (status.go).
func (h *errHandler) NewConnection(c *mysql.Conn) {
	h.Handler.NewConnection(c)
	h.setStatus(c)
	if cc, ok := c.Conn.(*wire.Conn); ok {
		cc.SetCheckPrepare(h.checkPrepare)
	}
	cs := &connState{c: c, h: h}
	cs.ctx, cs.cancel = context.WithCancel(context.Background())
	cs.done = func() { cs.busy.Add(-1) }
	c.ClientData = cs
	set := &h.e.conns
	set.mu.Lock()
	late := set.mu.closed
	if !late {
		if set.mu.conns == nil {
			set.mu.conns = map[*connState]struct{}{}
		}
		set.mu.conns[cs] = struct{}{}
	}
	set.mu.Unlock()
	if late {
		cs.close()
	}
}

func (h *errHandler) forget(c *mysql.Conn) {
	if cs, ok := c.ClientData.(*connState); ok {
		h.e.conns.mu.Lock()
		delete(h.e.conns.mu.conns, cs)
		h.e.conns.mu.Unlock()
		cs.cancel()
	}
}

// begin starts a client command on c: it is refused with
// ER_SERVER_SHUTDOWN once shutdown began, and otherwise runs under a
// context that CloseConnections cancels. end must be called when the
// command returns.
func (h *errHandler) begin(ctx context.Context, c *mysql.Conn) (_ context.Context, end func(), _ error) {
	cs, ok := c.ClientData.(*connState)
	if !ok {
		return ctx, func() {}, nil
	}
	// busy before the check, the check before StopStatements' count: a
	// command either sees the shutdown or is counted as running.
	cs.busy.Add(1)
	if h.e.conns.stopping.Load() {
		cs.busy.Add(-1)
		return ctx, nil, errShutdown()
	}
	cs.outcomeUnknown.Store(false)
	if ctx.Done() == nil {
		// vitess runs a connection's commands under a context that never
		// ends: the connection's own is the command's, with nothing to
		// allocate or register per command.
		return cs.ctx, cs.done, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(cs.ctx, cancel)
	return ctx, func() {
		stop()
		cancel()
		cs.busy.Add(-1)
	}, nil
}

// reply is the error a command returns to vitess: clientError's, or, when
// a commit's outcome is unknown, none at all. The connection is closed
// without a reply, so the client sees CR_SERVER_LOST (2013), which drivers
// treat as "the statement may or may not have run", as after MySQL died
// under a commit; a definite error would invite a retry that applies the
// transaction twice.
func (h *errHandler) reply(c *mysql.Conn, err error) error {
	// The end of a result set (EOF or OK) follows: its status flags.
	h.setStatus(c)
	if err == nil {
		return nil
	}
	if cs, ok := c.ClientData.(*connState); ok && cs.outcomeUnknown.Swap(false) {
		h.e.log.Warn("sqlengine: the outcome of a commit is unknown; closing its connection without a reply", "connection", c.ConnectionID, "err", err.Error())
		c.Close()
		return err
	}
	err = sqlerr.ClientError(interrupted(c, err))
	if s := h.e.session(c.ConnectionID); s != nil {
		err = s.statementError(err) // stmterr.go
		s.noteError(err)
	}
	return err
}

// commitError maps a commit's error for the session's client; an unknown
// outcome is noted for reply.
func (s *Session) commitError(err error) error {
	if base.ClassOf(err) == base.ClassOutcomeUnknown && s.conn != nil {
		s.conn.outcomeUnknown.Store(true)
	}
	return sqlerr.ToMySQL(err)
}

// StopStatements makes every new client statement fail with
// ER_SERVER_SHUTDOWN (1053) and returns how many are running.
func (e *Engine) StopStatements() int {
	e.conns.stopping.Store(true)
	return e.runningStatements()
}

func (e *Engine) runningStatements() int {
	e.conns.mu.Lock()
	defer e.conns.mu.Unlock()
	n := 0
	for cs := range e.conns.mu.conns {
		if !cs.dump.Load() && cs.busy.Load() > 0 {
			n++
		}
	}
	return n
}

// WaitStatements waits until no client statement runs, or ctx ends, and
// returns how many still run.
func (e *Engine) WaitStatements(ctx context.Context) int {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		n := e.runningStatements()
		if n == 0 {
			return 0
		}
		select {
		case <-ctx.Done():
			return n
		case <-tick.C:
		}
	}
}

// CloseConnections closes every client connection but the replication
// dumps, and connections that arrive later. A statement still running is
// cancelled (a lock wait or a semi-sync wait ends at once; a commit
// already in the binlog still finishes) and its reply is lost. It returns
// how many connections it closed and how many of them were running a
// statement.
func (e *Engine) CloseConnections() (closed, busy int) {
	e.conns.mu.Lock()
	e.conns.mu.closed = true
	var cs []*connState
	for c := range e.conns.mu.conns {
		if !c.dump.Load() {
			cs = append(cs, c)
		}
	}
	e.conns.mu.Unlock()
	for _, c := range cs {
		if c.busy.Load() > 0 {
			busy++
		}
		c.close()
	}
	return len(cs), busy
}

// CloseDumps ends the replication dump threads (their connections close)
// and returns how many there were.
func (e *Engine) CloseDumps() int {
	e.conns.mu.Lock()
	var cs []*connState
	for c := range e.conns.mu.conns {
		if c.dump.Load() {
			cs = append(cs, c)
		}
	}
	e.conns.mu.Unlock()
	for _, c := range cs {
		c.close()
	}
	return len(cs)
}

// close cancels the running commands, if any, and closes the connection.
func (cs *connState) close() {
	cs.cancel()
	cs.c.Close()
}
