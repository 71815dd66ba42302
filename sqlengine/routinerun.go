package sqlengine

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/procedures"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/sqlmode"
)

// Petrel's routine interpreter (issue 31). GMS compiles a procedure's
// body into a flat list of operations (procedures.Parse: blocks as
// ScopeBegin/ScopeEnd, loops and IFs as jumps) and its interpreter runs
// them, but it takes handlers FOR SQLEXCEPTION and NOT FOUND only, picks
// one without regard to the condition or the block, runs only the first
// operation of a handler's body, and SIGNAL's items must be literals.
// Petrel runs the same operation list with its own loop, over GMS's
// variable and cursor stack, with MySQL's condition handling
// (routinecond.go): handlers for an error number, an SQLSTATE, a named
// condition, SQLWARNING, NOT FOUND and SQLEXCEPTION, chosen in the
// innermost block that has one, the most specific there; CONTINUE and
// EXIT; SIGNAL and RESIGNAL with values from variables.

// routineRun is one running procedure. Not safe for concurrent use.
type routineRun struct {
	ctx    *sql.Context
	runner sql.StatementRunner
	stack  *procedures.InterpreterStack
	// scopes are the blocks entered, outermost first, parallel to the
	// stack's scopes above its base.
	scopes []*routineScope
	// handling is the conditions whose handlers are running, innermost
	// last (RESIGNAL's).
	handling []*condition
	// lastSet is the rows of the last SELECT that returned a result set,
	// returned to GMS as the CALL's (Petrel's wire layer sends every set:
	// callresults.go).
	lastSch  sql.Schema
	lastRows []sql.Row
	// params are the procedure's parameter names, lower case.
	params []string
}

// routineScope is a block being run.
type routineScope struct {
	// ops is the operation list the block is in (a procedure's, or a
	// handler body's); end is the index of its ScopeEnd there.
	ops *[]*procedures.InterpreterOperation
	end int
	// label is the block's label, "" if none.
	label string
	// handlers and conditions are the block's DECLAREd ones.
	handlers   []*routineHandler
	conditions map[string]condition
	// muted blocks are those whose handlers are not active: the block
	// of a running handler and the blocks inside it.
	muted int
}

// exitBlock unwinds the run to the block an EXIT handler was declared
// in, which then ends.
type exitBlock struct{ scope *routineScope }

func (exitBlock) Error() string { return "exit handler" }

// callProcedure runs the procedure of a CALL (for execOverrides):
// parameters in, the body, OUT and INOUT parameters back to the
// caller's variables. A procedure defined outside SQL (GMS's external
// procedures) is GMS's to run.
func callProcedure(ctx *sql.Context, n *plan.Call, row sql.Row) (sql.RowIter, error) {
	if n.Procedure == nil || n.Procedure.ExternalProc != nil {
		return rowexec.DefaultBuilder.Build(ctx, n, row)
	}
	for i, pe := range n.Params {
		if i >= len(n.Procedure.Params) {
			break
		}
		prm := n.Procedure.Params[i]
		v, err := pe.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if v, _, err = prm.Type.Convert(ctx, v); err != nil {
			return nil, err
		}
		// The parameter, and what it refers to (the caller's variable
		// of an INOUT argument), take the value.
		for spp := ctx.Session.GetStoredProcParam(strings.ToLower(prm.Name)); spp != nil; spp = spp.Reference {
			spp.Value = v
			if spp.Reference == spp {
				break
			}
		}
	}
	defer routineSQLMode(ctx, n)() // routines.go
	// GMS runs a procedure's statements with no transaction set (each
	// starts its own; shareTransaction gives them the caller's).
	oldTx := ctx.GetTransaction()
	ctx.SetTransaction(nil)
	r := &routineRun{ctx: ctx, runner: n.GetRunner(), stack: procedures.NewInterpreterStack()}
	for _, prm := range n.Procedure.Params {
		r.params = append(r.params, strings.ToLower(prm.Name))
	}
	if db := n.Database(); db != nil {
		r.stack.SetDatabase(db.Name())
	}
	ops := n.GetStatements()
	err := r.run(&ops)
	ctx.SetTransaction(oldTx)
	r.closeCursors()
	if err != nil {
		return nil, err
	}
	for i, pe := range n.Params {
		if i >= len(n.Procedure.Params) {
			break
		}
		prm := n.Procedure.Params[i]
		if prm.Direction == plan.ProcedureParamDirection_In {
			continue
		}
		spp := ctx.Session.GetStoredProcParam(strings.ToLower(prm.Name))
		if spp == nil {
			return nil, fmt.Errorf("parameter `%s` not found", prm.Name)
		}
		switch p := pe.(type) {
		case *expression.ProcedureParam:
			err = p.Set(ctx, spp.Value, spp.Type)
		case *expression.UserVar:
			v := spp.Value
			if prm.Direction == plan.ProcedureParamDirection_Out && !spp.HasBeenSet {
				v = nil
			}
			err = ctx.SetUserVariable(ctx, p.Name, v, spp.Type)
		case *expression.SystemVar:
			err = fmt.Errorf("unable to set `%s` as it is a system variable", p.Name)
		}
		if err != nil {
			return nil, err
		}
	}
	if r.lastSch != nil {
		n.SetSchema(r.lastSch)
		return sql.RowsToRowIter(r.lastRows...), nil
	}
	n.SetSchema(types.OkResultSchema)
	return sql.RowsToRowIter(sql.Row{types.NewOkResult(0)}), nil
}

// closeCursors closes what the blocks left open (an error unwound them).
func (r *routineRun) closeCursors() {
	for len(r.scopes) > 0 {
		r.popScope()
	}
}

func (r *routineRun) pushScope(ops *[]*procedures.InterpreterOperation, begin int) {
	r.stack.PushScope()
	end, depth := len(*ops), 0
	for i := begin; i < len(*ops); i++ {
		switch (*ops)[i].OpCode {
		case procedures.OpCode_ScopeBegin:
			depth++
		case procedures.OpCode_ScopeEnd:
			depth--
		}
		if depth == 0 {
			end = i
			break
		}
	}
	r.scopes = append(r.scopes, &routineScope{ops: ops, end: end, label: (*ops)[begin].Target})
}

func (r *routineRun) popScope() {
	if len(r.scopes) == 0 {
		return
	}
	r.scopes = r.scopes[:len(r.scopes)-1]
	r.stack.PopScope(r.ctx)
}

// run runs ops from the first; the scopes it enters are left when it
// returns, whatever it returns.
func (r *routineRun) run(ops *[]*procedures.InterpreterOperation) error {
	base := len(r.scopes)
	defer func() {
		for len(r.scopes) > base {
			r.popScope()
		}
	}()
	for pc := 0; pc < len(*ops); {
		next, err := r.exec(ops, pc)
		if err == nil && runsStatement((*ops)[pc]) {
			err = r.handledWarning()
		}
		if err != nil {
			next, err = r.raise(ops, pc, err)
			if err != nil {
				return err
			}
		}
		pc = next
	}
	return nil
}

// runsStatement reports whether op runs one of the body's statements
// (whose warnings a handler may take).
func runsStatement(op *procedures.InterpreterOperation) bool {
	switch op.OpCode {
	case procedures.OpCode_Select, procedures.OpCode_Set, procedures.OpCode_Execute, procedures.OpCode_Call:
		return true
	}
	return false
}

// handledWarning is the first warning the last statement left that an
// active handler takes (FOR SQLWARNING, or its number), as a condition
// to raise; nil when none is. A warning no handler takes stays.
func (r *routineRun) handledWarning() error {
	for _, w := range r.ctx.Session.Warnings() { // in the order raised
		if w.Level != "Warning" && w.Level != "Note" {
			continue
		}
		c := &condition{num: w.Code, state: "01000", msg: w.Message}
		if st := mysqlerr.State(w.Code); strings.HasPrefix(st, "01") || strings.HasPrefix(st, "02") {
			c.state = st
		}
		if h, _ := r.findHandler(c); h != nil {
			return &conditionError{*c}
		}
	}
	return nil
}

// raise handles the condition err raised by the operation at pc: the
// index of the operation to run next, or the error that ends the run.
func (r *routineRun) raise(ops *[]*procedures.InterpreterOperation, pc int, err error) (int, error) {
	var ex exitBlock
	if errors.As(err, &ex) {
		return r.exitTo(ops, ex)
	}
	c := conditionOf(err)
	if c == nil {
		return 0, err
	}
	h, hs := r.findHandler(c)
	if h == nil {
		if c.warning() || c.noDataWarning {
			r.ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: c.num, Message: c.msg})
			return pc + 1, nil
		}
		return 0, c.err()
	}
	if err := r.runHandler(h, hs, c); err != nil {
		if errors.As(err, &ex) {
			return r.exitTo(ops, ex)
		}
		return 0, err
	}
	if h.action == ast.DeclareHandlerAction_Exit {
		return r.exitTo(ops, exitBlock{hs})
	}
	return pc + 1, nil
}

// exitTo ends the block ex names, when it is among ops' blocks: the
// index after its end; otherwise ex goes on to the run around.
func (r *routineRun) exitTo(ops *[]*procedures.InterpreterOperation, ex exitBlock) (int, error) {
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if r.scopes[i] != ex.scope {
			continue
		}
		if ex.scope.ops != ops {
			return 0, ex
		}
		for len(r.scopes) > i {
			r.popScope()
		}
		return ex.scope.end + 1, nil
	}
	return 0, ex
}

// runHandler runs h's body for condition c, with the handlers of h's
// block (and the blocks inside it) inactive.
func (r *routineRun) runHandler(h *routineHandler, hs *routineScope, c *condition) error {
	at := len(r.scopes)
	for i, s := range r.scopes {
		if s == hs {
			at = i
		}
	}
	for _, s := range r.scopes[at:] {
		s.muted++
	}
	r.handling = append(r.handling, c)
	defer func() {
		for _, s := range r.scopes[at:] {
			s.muted--
		}
		r.handling = r.handling[:len(r.handling)-1]
	}()
	var body []*procedures.InterpreterOperation
	if err := procedures.ConvertStmt(&body, r.stack, h.body); err != nil {
		return err
	}
	return r.run(&body)
}

// subContext is a context for one operation's statements, as GMS's
// interpreter gives each.
func (r *routineRun) subContext() *sql.Context {
	c := sql.NewContext(r.ctx.Context)
	c.Session = r.ctx.Session
	return c
}

// query runs st and reads its rows.
func (r *routineRun) query(ctx *sql.Context, st ast.Statement) (sql.Schema, []sql.Row, error) {
	sch, it, _, err := r.runner.QueryWithBindings(ctx, "", st, nil, nil)
	if err != nil {
		return nil, nil, r.statementError(st, err)
	}
	rows, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		return nil, nil, r.statementError(st, err)
	}
	return sch, rows, nil
}

// statementError is the error of statement st as MySQL words it for that
// statement (stmterr.go: DROP TABLE's 1051, a table or routine named
// with its database), which the reply to the CALL cannot tell.
func (r *routineRun) statementError(st ast.Statement, err error) error {
	s, ok := r.ctx.Session.(*Session)
	if !ok || s.conn == nil {
		return err
	}
	c := conditionOf(err)
	if c == nil || c.num != mysqlerr.ErNoSuchTable && c.num != mysqlerr.ErSPDoesNotExist {
		return err
	}
	prev := s.conn.lastStmt
	s.conn.lastStmt = st
	mapped := s.statementError(mysqlerr.Relay(c.num, c.state, "%s", c.msg))
	s.conn.lastStmt = prev
	return mapped
}

// value is the single value of expression e, the routine's variables
// read.
func (r *routineRun) value(ctx *sql.Context, e ast.Expr) (any, error) {
	sel := &ast.Select{SelectExprs: ast.SelectExprs{&ast.AliasedExpr{Expr: e}}}
	r.bind(sel)
	_, rows, err := r.query(ctx, sel)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return nil, mysqlerr.New(mysqlerr.ErUnknown, "routine: expression %s gave %d rows", ast.String(e), len(rows))
	}
	return rows[0][0], nil
}

// assign sets variable or parameter name to v, converted to its type.
func (r *routineRun) assign(ctx *sql.Context, name string, v any) error {
	name = strings.ToLower(name)
	if iv := r.stack.GetVariable(name); iv != nil {
		cv, err := storeConvert(ctx, name, iv.Type, v)
		if err != nil {
			return err
		}
		return r.stack.SetVariable(name, cv)
	}
	if spp := ctx.Session.GetStoredProcParam(name); spp != nil {
		cv, err := storeConvert(ctx, name, spp.Type, v)
		if err != nil {
			return err
		}
		v = cv
	}
	return ctx.Session.SetStoredProcParam(name, v)
}

// storeConvert is v as a value of variable name's type typ, as MySQL
// stores it: a string longer than the type takes is 1406 in strict mode,
// else cut with warning 1265 ("at row 1", MySQL's words for a routine's
// variable). A value the type does not convert otherwise is kept as it
// is (GMS's interpreter kept every value so).
func storeConvert(ctx *sql.Context, name string, typ sql.Type, v any) (any, error) {
	if typ == nil {
		return v, nil
	}
	cv, _, err := typ.Convert(ctx, v)
	if err == nil {
		return cv, nil
	}
	st, isString := typ.(sql.StringType)
	if !isString || !types.ErrLengthBeyondLimit.Is(err) || types.IsTextBlob(typ) {
		return v, nil
	}
	mode := sqlmode.Load(ctx)
	if mode.ModeEnabled("STRICT_TRANS_TABLES") || mode.ModeEnabled("STRICT_ALL_TABLES") {
		return nil, mysqlerr.New(mysqlerr.ErDataTooLong, "Data too long for column '%s' at row 1", name)
	}
	s := []rune(signalText(v))
	if n := st.MaxCharacterLength(); int64(len(s)) > n {
		s = s[:n]
	}
	ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErWarnDataTruncated, Message: fmt.Sprintf("Data truncated for column '%s' at row 1", name)})
	return string(s), nil
}

// isVar reports whether name is one of the routine's variables or
// parameters.
func (r *routineRun) isVar(name string) bool {
	return r.stack.GetVariable(name) != nil || r.ctx.Session.GetStoredProcParam(strings.ToLower(name)) != nil
}

// exec runs the operation at pc: the index of the next.
func (r *routineRun) exec(ops *[]*procedures.InterpreterOperation, pc int) (int, error) {
	op := (*ops)[pc]
	ctx := r.subContext()
	switch op.OpCode {
	case procedures.OpCode_ScopeBegin:
		r.pushScope(ops, pc)
	case procedures.OpCode_ScopeEnd:
		r.popScope()
	case procedures.OpCode_Declare:
		return pc + 1, r.declare(ctx, op.PrimaryData.(*ast.Declare))
	case procedures.OpCode_Select:
		return pc + 1, r.selectOp(ctx, op.PrimaryData.(*ast.Select))
	case procedures.OpCode_Set:
		sel := op.PrimaryData.(*ast.Select)
		if !r.isVar(op.Target) {
			// Not a variable of the routine: a system variable named
			// without @@ (SET autocommit = 0).
			set := &ast.Set{Exprs: ast.SetVarExprs{&ast.SetVarExpr{Name: ast.NewColName(op.Target), Expr: sel.SelectExprs[0].(*ast.AliasedExpr).Expr}}}
			r.bind(set)
			_, _, err := r.query(ctx, set)
			return pc + 1, err
		}
		r.bind(sel)
		_, rows, err := r.query(ctx, sel)
		if err != nil {
			return 0, err
		}
		if len(rows) != 1 {
			return 0, mysqlerr.New(mysqlerr.ErUnknown, "routine: SET %s: %d rows", op.Target, len(rows))
		}
		return pc + 1, r.assign(ctx, op.Target, rows[0][0])
	case procedures.OpCode_If:
		sel := op.PrimaryData.(*ast.Select)
		r.bind(sel)
		_, rows, err := r.query(ctx, sel)
		if err != nil {
			return 0, err
		}
		if len(rows) != 1 {
			return 0, mysqlerr.New(mysqlerr.ErUnknown, "routine: condition gave %d rows", len(rows))
		}
		cond, _, err := types.Boolean.Convert(ctx, rows[0][0])
		if err != nil {
			return 0, err
		}
		if cond == nil || cond.(int8) == 0 {
			return op.Index, nil
		}
	case procedures.OpCode_Goto:
		if op.Index < 0 {
			// A LEAVE, in a handler's body, of a block around the
			// handler (a stored function's RETURN is one: storedfn).
			for i := len(r.scopes) - 1; i >= 0 && op.Index == -2; i-- {
				if s := r.scopes[i]; s.label != "" && strings.EqualFold(s.label, op.Target) {
					return 0, exitBlock{s}
				}
			}
			return 0, mysqlerr.New(mysqlerr.ErUnknown, "routine: jump to an unknown label %s", op.Target)
		}
		return r.jump(ops, pc, op.Index), nil
	case procedures.OpCode_Signal:
		return 0, r.signal(ctx, op.PrimaryData.(*ast.Signal), false)
	case procedures.OpCode_Open:
		return pc + 1, r.openCursor(ctx, op.PrimaryData.(*ast.OpenCursor))
	case procedures.OpCode_Fetch:
		return pc + 1, r.fetch(ctx, op.PrimaryData.(*ast.FetchCursor))
	case procedures.OpCode_Close:
		name := op.PrimaryData.(*ast.CloseCursor).Name
		cur := r.stack.GetCursor(name)
		if cur == nil {
			return 0, sql.ErrCursorNotFound.New(name)
		}
		if cur.RowIter == nil {
			return 0, sql.ErrCursorNotOpen.New(name)
		}
		err := cur.RowIter.Close(ctx)
		cur.RowIter = nil
		return pc + 1, err
	case procedures.OpCode_Call:
		return pc + 1, r.call(ctx, op.PrimaryData.(*ast.Call))
	case procedures.OpCode_Execute:
		if rs, ok := op.PrimaryData.(*ast.Resignal); ok {
			return 0, r.signal(ctx, &rs.Signal, true)
		}
		if ex, ok := op.PrimaryData.(*ast.Execute); ok {
			return pc + 1, r.execute(ctx, ex)
		}
		if err := unpreparable(ctx, op.PrimaryData); err != nil { // psrefuse.go
			return pc + 1, err
		}
		r.bind(op.PrimaryData)
		_, _, err := r.query(ctx, op.PrimaryData)
		return pc + 1, err
	case procedures.OpCode_Exception:
		return 0, op.Error
	default:
		return 0, mysqlerr.New(mysqlerr.ErUnknown, "routine: operation %d not supported", op.OpCode)
	}
	return pc + 1, nil
}

// jump goes from the operation at pc to the one at to, entering and
// leaving the blocks whose ends it passes.
func (r *routineRun) jump(ops *[]*procedures.InterpreterOperation, pc, to int) int {
	if to > pc {
		for i := pc + 1; i < to; i++ {
			switch (*ops)[i].OpCode {
			case procedures.OpCode_ScopeBegin:
				r.pushScope(ops, i)
			case procedures.OpCode_ScopeEnd:
				r.popScope()
			}
		}
		return to
	}
	for i := pc - 1; i >= to; i-- {
		switch (*ops)[i].OpCode {
		case procedures.OpCode_ScopeBegin:
			r.popScope()
		case procedures.OpCode_ScopeEnd:
			// Back into a block left: its scope again (an empty one, as
			// the loop enters it anew at its ScopeBegin, which pops it).
			r.stack.PushScope()
			r.scopes = append(r.scopes, &routineScope{ops: ops, end: i})
		}
	}
	return to
}

// selectOp runs a SELECT of the body: a result set, or values INTO
// variables.
func (r *routineRun) selectOp(ctx *sql.Context, sel *ast.Select) error {
	into := sel.Into
	r.bind(sel)
	if into == nil {
		if s, ok := ctx.Session.(*Session); ok && s.call != nil {
			// One of the CALL's result sets (callresults.go), also from
			// a handler's body, which noteCall does not see.
			s.call.selects[sel] = struct{}{}
		}
		sch, rows, err := r.query(ctx, sel)
		if err != nil {
			return err
		}
		r.lastSch, r.lastRows = sch, rows
		return nil
	}
	sel.Into = nil
	sch, rows, err := r.query(ctx, sel)
	sel.Into = into
	if err != nil {
		return err
	}
	switch {
	case len(rows) == 0:
		// MySQL's completion condition 1329: a warning, which a NOT
		// FOUND handler catches.
		return noData(true)
	case len(rows) > 1:
		return mysqlerr.New(mysqlerr.ErTooManyRows, "Result consisted of more than one row")
	}
	if len(rows[0]) != len(into.Variables) {
		return mysqlerr.New(mysqlerr.ErWrongNumberOfColumns, "The used SELECT statements have a different number of columns")
	}
	for i, v := range into.Variables {
		name := v.String()
		if strings.HasPrefix(name, "@") {
			if err := ctx.SetUserVariable(ctx, strings.ToLower(strings.TrimPrefix(name, "@")), rows[0][i], sch[i].Type); err != nil {
				return err
			}
			continue
		}
		if err := r.assign(ctx, name, rows[0][i]); err != nil {
			return err
		}
	}
	return nil
}

// openCursor runs a cursor's SELECT (read whole: routineast.go's
// cursorMark).
func (r *routineRun) openCursor(ctx *sql.Context, o *ast.OpenCursor) error {
	cur := r.stack.GetCursor(o.Name)
	if cur == nil {
		return sql.ErrCursorNotFound.New(o.Name)
	}
	if cur.RowIter != nil {
		return sql.ErrCursorAlreadyOpen.New(o.Name)
	}
	r.bind(cur.SelectStmt)
	sch, it, _, err := r.runner.QueryWithBindings(ctx, "", cur.SelectStmt, nil, nil)
	if err != nil {
		return err
	}
	cur.Schema, cur.RowIter = sch, it
	return nil
}

// fetch reads a cursor's next row into variables; past the last, the
// NOT FOUND condition 1329 (an error when no handler takes it).
func (r *routineRun) fetch(ctx *sql.Context, f *ast.FetchCursor) error {
	cur := r.stack.GetCursor(f.Name)
	if cur == nil {
		return sql.ErrCursorNotFound.New(f.Name)
	}
	if cur.RowIter == nil {
		return sql.ErrCursorNotOpen.New(f.Name)
	}
	row, err := cur.RowIter.Next(ctx)
	if err == io.EOF {
		return noData(false)
	}
	if err != nil {
		return err
	}
	if len(row) != len(f.Variables) {
		return sql.ErrFetchIncorrectCount.New()
	}
	for i, name := range f.Variables {
		if strings.HasPrefix(name, "@") {
			if err := ctx.SetUserVariable(ctx, strings.ToLower(strings.TrimPrefix(name, "@")), row[i], cur.Schema[i].Type); err != nil {
				return err
			}
			continue
		}
		if err := r.assign(ctx, name, row[i]); err != nil {
			return err
		}
	}
	return nil
}

// call runs a CALL of the body; an argument that is one of the
// routine's variables is passed by reference (OUT and INOUT).
func (r *routineRun) call(ctx *sql.Context, c *ast.Call) error {
	byRef := map[string]*sql.StoredProcParam{}
	for _, p := range c.Params {
		cn, ok := p.(*ast.ColName)
		if !ok || !cn.Qualifier.IsEmpty() {
			continue
		}
		name := cn.Name.Lowered()
		if iv := r.stack.GetVariable(name); iv != nil {
			byRef[name] = ctx.Session.NewStoredProcParam(name, &sql.StoredProcParam{Type: iv.Type, Value: iv.Value})
		}
	}
	defer r.keepParams(c)()
	r.bind(c)
	if c.ProcName.Qualifier.IsEmpty() {
		c.ProcName.Qualifier = ast.NewTableIdent(r.stack.GetDatabase())
	}
	sch, rows, err := r.query(ctx, c)
	if err != nil {
		return err
	}
	for name, spp := range byRef {
		if iv := r.stack.GetVariable(name); iv != nil {
			iv.Value = spp.Value
		}
	}
	if sch != nil && !types.IsOkResultSchema(sch) {
		r.lastSch, r.lastRows = sch, rows
	}
	return nil
}

// execute runs an EXECUTE of the body. A prepared statement that is
// running already (the EXECUTE that called this routine, directly or
// through others) is MySQL's 1444.
func (r *routineRun) execute(ctx *sql.Context, ex *ast.Execute) error {
	s, ok := ctx.Session.(*Session)
	if !ok {
		r.bind(ex)
		_, _, err := r.query(ctx, ex)
		return err
	}
	name := strings.ToLower(ex.Name)
	top, isExec := s.conn.topStatement().(*ast.Execute)
	if s.executing[name] > 0 || isExec && strings.EqualFold(top.Name, name) {
		return mysqlerr.New(mysqlerr.ErPSNoRecursion, "The prepared statement contains a stored routine call that refers to that same statement. It's not allowed to execute a prepared statement in such a recursive manner")
	}
	if s.executing == nil {
		s.executing = map[string]int{}
	}
	s.executing[name]++
	defer func() {
		if s.executing[name]--; s.executing[name] <= 0 {
			delete(s.executing, name)
		}
	}()
	_, _, err := r.query(ctx, ex)
	return err
}

// topStatement is the statement the connection parsed last (the one
// running, when a routine runs), nil without a connection.
func (cs *connState) topStatement() ast.Statement {
	if cs == nil {
		return nil
	}
	return cs.lastStmt
}

// keepParams keeps this procedure's parameters across the CALL c: GMS
// keeps one session-wide value per parameter name, so a procedure
// calling itself (or one with a parameter of the same name) found its
// parameters holding the callee's values after the CALL, where MySQL
// gives each call its own. The returned func restores them, but those
// c passes as arguments (an OUT or INOUT argument takes the callee's
// value).
func (r *routineRun) keepParams(c *ast.Call) func() {
	args := map[string]bool{}
	for _, p := range c.Params {
		if cn, ok := p.(*ast.ColName); ok && cn.Qualifier.IsEmpty() {
			args[cn.Name.Lowered()] = true
		}
	}
	type kept struct {
		p   *sql.StoredProcParam
		v   any
		set bool
		ref *sql.StoredProcParam
	}
	var ks []kept
	for _, name := range r.params {
		if p := r.ctx.Session.GetStoredProcParam(name); p != nil && !args[name] {
			ks = append(ks, kept{p, p.Value, p.HasBeenSet, p.Reference})
		}
	}
	return func() {
		for _, k := range ks {
			k.p.Value, k.p.HasBeenSet, k.p.Reference = k.v, k.set, k.ref
		}
	}
}
