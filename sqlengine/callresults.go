package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/procedures"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/wire"
)

// CALL's result sets, as MySQL sends them (issue 31): one result set for
// every SELECT the procedure runs, in order, then an OK for the CALL (or
// the error that stopped it, after the sets made before it). GMS's
// interpreter keeps only the last SELECT's rows, so Petrel watches the
// statements it runs: the engine's StatementRunner (callRunner) is
// wrapped, and while a CALL runs, the rows of each of the procedure's own
// SELECTs (not the SELECTs GMS makes up to evaluate SET, IF and loop
// conditions) are kept, converted for the wire, on the session.
//
// vitess writes one result set per reply, so the sets go out two ways.
// A CALL that is the whole command (COM_QUERY of one statement,
// COM_STMT_EXECUTE) has its sets written ahead of vitess's reply
// (wire.Conn.WriteResultSets, text or binary rows), and vitess's OK or
// error follows them. A CALL inside a multi-statement text goes out one
// set per round of vitess's multi-statement loop: the handler hands back
// a marker as the text's "rest", and the next round, finding it, sends
// the next set. A client without CLIENT_MULTI_RESULTS gets MySQL's 1312
// when a procedure would return rows.

// callCapture is the CALL being run on a session.
type callCapture struct {
	// selects are the procedures' own SELECT statements, set operations
	// included (the interpreter hands the runner these very pointers).
	selects map[ast.SelectStatement]struct{}
	// sets are the result sets sent so far, in order.
	sets []*sqltypes.Result
	err  error
}

// pendingMarker begins the "rest" handed back to vitess while result
// sets of a CALL are still to be sent; no client text begins so.
const pendingMarker = "\x00petrel:call-results\x00"

// noteCall records the SELECTs of the procedure a CALL is about to run
// (execOverrides calls it for every plan.Call GMS builds).
func noteCall(ctx *sql.Context, n *plan.Call) {
	s, ok := ctx.Session.(*Session)
	if !ok || s.call == nil || n.Procedure == nil {
		return
	}
	for _, op := range n.Procedure.Ops {
		if op == nil {
			continue
		}
		switch sel := op.PrimaryData.(type) {
		case *ast.Select:
			if op.OpCode == procedures.OpCode_Select && sel.Into == nil {
				s.call.selects[sel] = struct{}{}
			}
		case *ast.SetOp:
			// SELECT ... UNION SELECT ...: a result set too (the
			// interpreter runs it as a plain statement).
			s.call.selects[sel] = struct{}{}
		}
	}
}

// callInItsDatabase builds (and so runs: GMS's interpreter runs the
// procedure while the Call node is built) a CALL with the procedure's
// database current, as MySQL runs a routine's body: its unqualified
// table names are the routine's database's, not the caller's (CALL
// mtr.add_suppression(...) from the test database). The caller's
// database is current again afterwards.
func callInItsDatabase(ctx *sql.Context, n *plan.Call, row sql.Row) (sql.RowIter, error) {
	db := n.Database()
	if db == nil || db.Name() == "" || strings.EqualFold(db.Name(), ctx.GetCurrentDatabase()) {
		return callProcedure(ctx, n, row) // routinerun.go
	}
	cur := ctx.GetCurrentDatabase()
	ctx.SetCurrentDatabase(db.Name())
	defer ctx.SetCurrentDatabase(cur)
	return callProcedure(ctx, n, row)
}

// callRunner is the StatementRunner GMS's interpreter runs a procedure's
// statements through.
type callRunner struct{ inner sql.StatementRunner }

// QueryWithBindings implements sql.StatementRunner.
func (r callRunner) QueryWithBindings(ctx *sql.Context, query string, parsed ast.Statement, bindings map[string]ast.Expr, qFlags *sql.QueryFlags) (sql.Schema, sql.RowIter, *sql.QueryFlags, error) {
	sch, it, qf, err := r.inner.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
	if err != nil {
		return sch, it, qf, err
	}
	if isCursorSelect(parsed) {
		// A cursor's rows, read whole at OPEN (routineast.go cursorMark).
		rows, err := sql.RowIterToRows(ctx, it)
		if err != nil {
			return nil, nil, nil, err
		}
		return sch, sql.RowsToRowIter(rows...), qf, nil
	}
	if s, ok := ctx.Session.(*Session); ok && s.call != nil {
		if sel, ok := parsed.(ast.SelectStatement); ok {
			if _, ok := s.call.selects[sel]; ok {
				res := &sqltypes.Result{Fields: callFields(ctx, sch)}
				s.call.sets = append(s.call.sets, res)
				it = &recordIter{RowIter: it, sch: sch, res: res, c: s.call}
			}
		}
	}
	return sch, it, qf, err
}

// recordIter keeps the rows it passes on, as wire values.
type recordIter struct {
	sql.RowIter
	sch sql.Schema
	res *sqltypes.Result
	c   *callCapture
}

func (it *recordIter) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := it.RowIter.Next(ctx)
	if err != nil {
		return row, err
	}
	vals, cerr := server.RowToSQL(ctx, it.sch, row, nil, nil)
	if cerr != nil && it.c.err == nil {
		it.c.err = cerr
	}
	it.res.Rows = append(it.res.Rows, vals)
	return row, nil
}

// callFields are the column definitions of a procedure's result set.
func callFields(ctx *sql.Context, sch sql.Schema) []*querypb.Field {
	results := ctx.GetCharacterSetResults()
	out := make([]*querypb.Field, len(sch))
	for i, c := range sch {
		cs := uint32(sql.Collation_Default.CharacterSet())
		if t, ok := c.Type.(sql.TypeWithCollation); ok {
			cs = uint32(t.Collation().CharacterSet())
		}
		switch {
		case types.IsBinaryType(c.Type):
			cs = uint32(sql.Collation_binary)
		case results != sql.CharacterSet_Unspecified:
			cs = uint32(results)
		}
		var flags querypb.MySqlFlag
		if !c.Nullable {
			flags |= querypb.MySqlFlag_NOT_NULL_FLAG
		}
		if c.PrimaryKey {
			flags |= querypb.MySqlFlag_PRI_KEY_FLAG
		}
		if types.IsUnsigned(c.Type) {
			flags |= querypb.MySqlFlag_UNSIGNED_FLAG
		}
		f := &querypb.Field{
			Name: c.Name, OrgName: c.Name, Table: c.Source, OrgTable: c.Source, Database: c.DatabaseSource,
			Type: c.Type.Type(), Charset: cs, ColumnLength: c.Type.MaxTextResponseByteLength(ctx), Flags: uint32(flags),
		}
		switch t := c.Type.(type) {
		case sql.DecimalType:
			f.Decimals = uint32(t.Scale())
		case sql.DatetimeType:
			f.Decimals = uint32(t.Precision())
		}
		out[i] = f
	}
	return out
}

// isCall reports whether q is a CALL statement.
func isCall(q string) bool {
	w := firstWords(q, 1)
	return len(w) == 1 && (w[0] == "CALL" || strings.HasPrefix(w[0], "CALL("))
}

// callOutcome is what running a CALL gave.
type callOutcome struct {
	sets []*sqltypes.Result // the procedure's result sets, in order
	gms  []gmsAnswer        // GMS's own answer (an OK, or the last set again)
	err  error
}

type gmsAnswer struct {
	res  *sqltypes.Result
	more bool
}

// runCall runs a CALL through run (GMS's handler, whose answer is held
// back), its result sets kept.
func runCall(s *Session, run func(mysql.ResultSpoolFn) error) callOutcome {
	s.call = &callCapture{selects: map[ast.SelectStatement]struct{}{}}
	defer func() { s.call = nil }()
	var out callOutcome
	out.err = run(func(res *sqltypes.Result, more bool) error {
		out.gms = append(out.gms, gmsAnswer{res, more})
		return nil
	})
	if out.err == nil {
		out.err = s.call.err
	}
	out.sets = s.call.sets
	return out
}

// plain answers a CALL that made no result set (or a client that takes
// only one: 1312), and reports whether it did.
func (o callOutcome) plain(q string, multiResults bool, cb mysql.ResultSpoolFn) (bool, error) {
	if len(o.sets) == 0 || o.err != nil && !multiResults {
		if o.err != nil {
			return true, o.err
		}
		for _, a := range o.gms {
			if err := cb(a.res, a.more); err != nil {
				return true, err
			}
		}
		return true, nil
	}
	if !multiResults {
		return true, mysqlerr.New(mysqlerr.ErSPBadSelect, "PROCEDURE %s can't return a result set in the given context", callName(q))
	}
	return false, nil
}

// answerCall answers a CALL that is the whole command: its result sets
// written ahead of vitess's reply, then the OK through ok (or the error).
func (h *errHandler) answerCall(c *mysql.Conn, q string, o callOutcome, binaryRows bool, cb mysql.ResultSpoolFn) error {
	cc, isWire := c.Conn.(*wire.Conn)
	if done, err := o.plain(q, isWire && cc.MultiResults(), cb); done {
		return err
	}
	if !binaryRows {
		for _, set := range o.sets {
			_ = textFloats(func(*sqltypes.Result, bool) error { return nil })(set, false)
		}
	}
	h.setStatus(c)
	if err := c.FlushBuffer(); err != nil {
		return err
	}
	if err := cc.WriteResultSets(o.sets, binaryRows, c.Capabilities&mysql.CapabilityClientDeprecateEOF != 0, c.StatusFlags); err != nil {
		return err
	}
	if o.err != nil {
		return o.err
	}
	return cb(&sqltypes.Result{}, false)
}

// queueCall starts answering a CALL inside a multi-statement text: the
// first set now, the rest (and the OK or error) in the rounds that
// follow; pending reports whether any wait.
func (h *errHandler) queueCall(s *Session, q string, o callOutcome, cb mysql.ResultSpoolFn) (pending bool, err error) {
	if done, err := o.plain(q, true, cb); done {
		return false, err
	}
	last := pendingResult{res: &sqltypes.Result{}}
	if o.err != nil {
		last = pendingResult{err: o.err}
	}
	s.callPending = s.callPending[:0]
	for _, res := range o.sets[1:] {
		s.callPending = append(s.callPending, pendingResult{res: res})
	}
	s.callPending = append(s.callPending, last)
	return true, cb(o.sets[0], false)
}

// pendingResult is a result set of a CALL still to send, or the error
// that ended the procedure.
type pendingResult struct {
	res *sqltypes.Result
	err error
}

// callName is the procedure a CALL statement names.
func callName(q string) string {
	q = strings.TrimSpace(q)
	q = strings.TrimSpace(q[min(len(q), len("CALL")):])
	if i := strings.IndexAny(q, "( \t\n;"); i >= 0 {
		q = q[:i]
	}
	return q
}

// nextCallResult sends the next result set of the CALL whose sets wait
// on the session, when q is the marker vitess handed back; it returns
// the rest to hand back next (the marker again while sets remain).
func (h *errHandler) nextCallResult(c *mysql.Conn, q string, cb mysql.ResultSpoolFn) (rest string, ok bool, err error) {
	if !strings.HasPrefix(q, pendingMarker) {
		return "", false, nil
	}
	rest = q[len(pendingMarker):]
	s := h.e.session(c.ConnectionID)
	if s == nil || len(s.callPending) == 0 {
		return rest, true, nil
	}
	next := s.callPending[0]
	s.callPending = s.callPending[1:]
	if next.err != nil {
		// vitess sends the error and stops the text there.
		s.callPending = nil
		return "", true, h.reply(c, next.err)
	}
	cb = textFloats(h.statusSpool(c, cb))
	if len(s.callPending) > 0 {
		err = cb(next.res, false)
		h.setStatus(c)
		return pendingMarker + rest, true, err
	}
	// The CALL's own OK: more follows only if the client's text does.
	err = cb(next.res, strings.TrimSpace(rest) != "")
	h.setStatus(c)
	return rest, true, err
}
