package sqlengine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/sqlerr"
	"petrel/sqlengine/sqlmode"
)

// A routine's conditions (routinerun.go's interpreter): DECLARE ...
// CONDITION, DECLARE ... HANDLER, SIGNAL and RESIGNAL, as MySQL 8 has
// them. A condition is an error number, an SQLSTATE and a message; a
// handler matches it by number, by SQLSTATE, or by class (SQLWARNING:
// SQLSTATE '01...', NOT FOUND: '02...', SQLEXCEPTION: any other but
// '00...'). The innermost active block with a matching handler handles
// the condition, with its most specific one (a number before an SQLSTATE
// before a class). A condition no handler takes ends the procedure with
// its error, but a warning ('01'), or the NOT FOUND of a SELECT ... INTO
// that found no row, is left as a warning and the procedure goes on.

// condition is a condition raised in a routine.
type condition struct {
	num   int
	state string
	msg   string
	// noDataWarning marks SELECT ... INTO's 1329, a warning when no
	// handler takes it (FETCH's is an error).
	noDataWarning bool
	// orig is the error as raised (GMS's kinds keep their mapping).
	orig error
}

func (c *condition) warning() bool { return strings.HasPrefix(c.state, "01") }

func (c *condition) err() error {
	if c.orig != nil {
		return c.orig
	}
	return mysqlerr.Relay(c.num, c.state, "%s", c.msg)
}

// noData is the condition 1329 (02000).
func noData(warning bool) error {
	return &conditionError{condition{num: mysqlerr.ErSPFetchNoData, state: "02000", msg: "No data - zero rows fetched, selected, or processed", noDataWarning: warning}}
}

// conditionError carries a condition the interpreter raised itself.
type conditionError struct{ c condition }

func (e *conditionError) Error() string { return e.c.msg }

// conditionOf is the condition err raises, nil for an error no handler
// may take (a cancelled statement).
func conditionOf(err error) *condition {
	var ce *conditionError
	if errors.As(err, &ce) {
		c := ce.c
		return &c
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	// As a client would see it: Petrel's mapping, over GMS's cast for
	// the errors it has no kind of its own for (a duplicate key's).
	var se *mysql.SQLError
	mapped := sqlerr.MySQLError(err)
	if !errors.As(mapped, &se) {
		mapped = sqlerr.MySQLError(sql.CastSQLError(err))
	}
	if errors.As(mapped, &se) {
		if se.Num == mysqlerr.ErQueryInterrupted {
			return nil
		}
		return &condition{num: se.Num, state: se.State, msg: se.Message, orig: err}
	}
	return &condition{num: mysqlerr.ErUnknown, state: "HY000", msg: err.Error(), orig: err}
}

// routineHandler is a DECLAREd handler.
type routineHandler struct {
	action ast.DeclareHandlerAction
	// conds are its conditions, names resolved: a number, an SQLSTATE
	// or a class.
	conds []handlerCond
	body  ast.Statement
}

type handlerCond struct {
	class string // "sqlwarning", "not_found", "sqlexception" or ""
	num   int
	state string
}

// specificity is how well hc matches c: 3 by number, 2 by SQLSTATE, 1
// by class, 0 not at all.
func (hc handlerCond) specificity(c *condition) int {
	switch {
	case hc.num != 0:
		if hc.num == c.num {
			return 3
		}
	case hc.state != "":
		if hc.state == c.state {
			return 2
		}
	case hc.class == string(ast.DeclareHandlerCondition_SqlWarning):
		if strings.HasPrefix(c.state, "01") {
			return 1
		}
	case hc.class == string(ast.DeclareHandlerCondition_NotFound):
		if strings.HasPrefix(c.state, "02") {
			return 1
		}
	case hc.class == string(ast.DeclareHandlerCondition_SqlException):
		if !strings.HasPrefix(c.state, "00") && !strings.HasPrefix(c.state, "01") && !strings.HasPrefix(c.state, "02") {
			return 1
		}
	}
	return 0
}

// findHandler is the handler that takes c and the block it is in, or
// nil.
func (r *routineRun) findHandler(c *condition) (*routineHandler, *routineScope) {
	for i := len(r.scopes) - 1; i >= 0; i-- {
		s := r.scopes[i]
		if s.muted > 0 {
			continue
		}
		var best *routineHandler
		bestScore := 0
		for _, h := range s.handlers {
			for _, hc := range h.conds {
				if sc := hc.specificity(c); sc > bestScore {
					best, bestScore = h, sc
				}
			}
		}
		if best != nil {
			return best, s
		}
	}
	return nil, nil
}

// namedCondition is the condition name DECLAREd in the innermost block
// that has it.
func (r *routineRun) namedCondition(name string) (condition, bool) {
	name = strings.ToLower(name)
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if c, ok := r.scopes[i].conditions[name]; ok {
			return c, true
		}
	}
	return condition{}, false
}

// declare runs a DECLARE: a variable, a condition, a cursor or a
// handler, in the current block.
func (r *routineRun) declare(ctx *sql.Context, d *ast.Declare) error {
	var s *routineScope
	if len(r.scopes) > 0 {
		s = r.scopes[len(r.scopes)-1]
	}
	switch {
	case d.Condition != nil:
		c, err := declaredCondition(d.Condition)
		if err != nil {
			return err
		}
		if s != nil {
			if s.conditions == nil {
				s.conditions = map[string]condition{}
			}
			s.conditions[strings.ToLower(d.Condition.Name)] = c
		}
	case d.Cursor != nil:
		r.stack.NewCursor(strings.ToLower(d.Cursor.Name), d.Cursor.SelectStmt)
	case d.Handler != nil:
		h := &routineHandler{action: d.Handler.Action, body: d.Handler.Statement}
		if h.action == ast.DeclareHandlerAction_Undo {
			return sql.ErrDeclareHandlerUndo.New()
		}
		for _, cv := range unmaskHandler(d.Handler.ConditionValues) {
			var hc handlerCond
			switch cv.ValueType {
			case ast.DeclareHandlerCondition_MysqlErrorCode:
				n, err := strconv.Atoi(string(cv.MysqlErrorCode.Val))
				if err != nil || n <= 0 {
					return mysqlerr.New(mysqlerr.ErWrongValueOf, "Incorrect CONDITION value: '%s'", cv.MysqlErrorCode.Val)
				}
				hc.num = n
			case ast.DeclareHandlerCondition_SqlState:
				if err := checkSQLState(cv.String); err != nil {
					return err
				}
				hc.state = cv.String
			case ast.DeclareHandlerCondition_ConditionName:
				c, ok := r.namedCondition(cv.String)
				if !ok {
					return mysqlerr.New(mysqlerr.ErSPCondMismatch, "Undefined CONDITION: %s", cv.String)
				}
				hc.num, hc.state = c.num, c.state
				if hc.num != 0 {
					hc.state = ""
				}
			default:
				hc.class = string(cv.ValueType)
			}
			h.conds = append(h.conds, hc)
		}
		if s != nil {
			s.handlers = append(s.handlers, h)
		}
	case d.Variables != nil:
		typ, err := types.ColumnTypeToType(&d.Variables.VarType)
		if err != nil {
			return err
		}
		var v any
		if def := d.Variables.VarType.Default; def != nil {
			if v, err = r.value(ctx, def); err != nil {
				return err
			}
			if cv, _, err := typ.Convert(ctx, v); err == nil {
				v = cv
			}
		}
		for _, n := range d.Variables.Names {
			r.stack.NewVariableWithValue(n.Lowered(), typ, v)
		}
	}
	return nil
}

// declaredCondition is what DECLARE name CONDITION FOR ... names.
func declaredCondition(dc *ast.DeclareCondition) (condition, error) {
	if dc.MysqlErrorCode != nil {
		n, err := strconv.Atoi(string(dc.MysqlErrorCode.Val))
		if err != nil || n <= 0 {
			return condition{}, mysqlerr.New(mysqlerr.ErWrongValueOf, "Incorrect CONDITION value: '%s'", dc.MysqlErrorCode.Val)
		}
		return condition{num: n}, nil
	}
	if err := checkSQLState(dc.SqlStateValue); err != nil {
		return condition{}, err
	}
	return condition{state: dc.SqlStateValue}, nil
}

// checkSQLState refuses an SQLSTATE that is not five letters or digits,
// or is of class '00' (success), with MySQL's 1407.
func checkSQLState(st string) error {
	ok := len(st) == 5 && !strings.HasPrefix(st, "00")
	for _, ch := range st {
		if !(ch >= '0' && ch <= '9' || ch >= 'A' && ch <= 'Z') {
			ok = false
		}
	}
	if !ok {
		return mysqlerr.New(mysqlerr.ErSPBadSQLState, "Bad SQLSTATE: '%s'", st)
	}
	return nil
}

// signal raises the condition a SIGNAL (or, resignal, a RESIGNAL)
// names, with its SET items' values.
func (r *routineRun) signal(ctx *sql.Context, s *ast.Signal, resignal bool) error {
	var c condition
	if resignal {
		if len(r.handling) == 0 {
			return mysqlerr.New(mysqlerr.ErResignalNoHandler, "RESIGNAL when handler not active")
		}
		c = *r.handling[len(r.handling)-1]
		c.orig = nil
	}
	state := s.SqlStateValue
	if s.ConditionName != "" {
		nc, ok := r.namedCondition(s.ConditionName)
		if !ok {
			return mysqlerr.New(mysqlerr.ErSPCondMismatch, "Undefined CONDITION: %s", s.ConditionName)
		}
		if nc.state == "" {
			return mysqlerr.New(mysqlerr.ErSignalBadConditionType, "SIGNAL/RESIGNAL can only use a CONDITION defined with SQLSTATE")
		}
		state = nc.state
	}
	if state != "" {
		if err := checkSQLState(state); err != nil {
			return err
		}
		c.state, c.num, c.msg = state, signalNumber(state), signalMessage(state)
	}
	for _, it := range s.Info {
		var v any
		var err error
		if !signalNull(it.Value) {
			if v, err = r.value(ctx, it.Value); err != nil {
				return err
			}
		}
		switch it.ConditionItemName {
		case ast.SignalConditionItemName_MysqlErrno:
			n, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
			if v == nil || err != nil || !validErrno(n) {
				return mysqlerr.New(mysqlerr.ErWrongValueForVar, "Variable 'MYSQL_ERRNO' can't be set to the value of '%v'", signalText(v))
			}
			c.num = int(n)
		case ast.SignalConditionItemName_MessageText:
			if v == nil {
				return mysqlerr.New(mysqlerr.ErWrongValueForVar, "Variable 'MESSAGE_TEXT' can't be set to the value of 'NULL'")
			}
			msg, err := conditionItem(ctx, "MESSAGE_TEXT", signalText(v), 128)
			if err != nil {
				return err
			}
			c.msg = msg
		default:
			name := strings.ToUpper(string(it.ConditionItemName))
			if v == nil {
				return mysqlerr.New(mysqlerr.ErWrongValueForVar, "Variable '%s' can't be set to the value of 'NULL'", name)
			}
			if _, err := conditionItem(ctx, name, signalText(v), 64); err != nil {
				return err
			}
		}
	}
	c.noDataWarning = false
	return &conditionError{c}
}

// signalNull reports whether e is the NULL of a SIGNAL's item, which
// the statement's text gave quoted (sqlmode/condname.go's signalNulls).
func signalNull(e ast.Expr) bool {
	c, ok := e.(*ast.ColName)
	return ok && c.Qualifier.IsEmpty() && strings.EqualFold(c.Name.String(), "NULL")
}

// conditionItem is v as SIGNAL's item name stores it, at most max
// characters: longer, it is 1648 ER_COND_ITEM_TOO_LONG in strict mode
// and otherwise cut to max with warning 1647, as MySQL assigns it
// (mtr's signal_sqlmode: a 129-character MESSAGE_TEXT under sql_mode ”
// signals its condition, 1644).
func conditionItem(ctx *sql.Context, name, v string, max int) (string, error) {
	r := []rune(v)
	if len(r) <= max {
		return v, nil
	}
	if m := sqlmode.Load(ctx); m.ModeEnabled("STRICT_TRANS_TABLES") || m.ModeEnabled("STRICT_ALL_TABLES") {
		return "", mysqlerr.New(mysqlerr.ErCondItemTooLong, "Data too long for condition item '%s'", name)
	}
	ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.WarnCondItemTruncated, Message: fmt.Sprintf("Data truncated for condition item '%s'", name)})
	return string(r[:max]), nil
}

// validErrno reports whether n may be a SIGNAL's MYSQL_ERRNO: 1 to
// 65534 (MySQL's test suite, signal.test, refuses 65535).
func validErrno(n int64) bool { return n > 0 && n < 65535 }

func signalText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

// signalNumber is MySQL's error number for a SIGNAL of state without
// MYSQL_ERRNO.
func signalNumber(state string) int {
	switch state[:2] {
	case "01":
		return mysqlerr.ErSignalWarn
	case "02":
		return mysqlerr.ErSignalNotFound
	}
	return mysqlerr.ErSignalException
}

// signalMessage is MySQL's message for a SIGNAL of state without
// MESSAGE_TEXT.
func signalMessage(state string) string {
	switch state[:2] {
	case "01":
		return "Unhandled user-defined warning condition"
	case "02":
		return "Unhandled user-defined not found condition"
	}
	return "Unhandled user-defined exception condition"
}

// GMS's CREATE PROCEDURE check (planbuilder) refuses a handler for
// anything but SQLEXCEPTION and NOT FOUND, and a condition FOR an error
// number. maskRoutine writes them, in a CREATE PROCEDURE's body as
// parsed, in forms the check takes and the interpreter reads back
// (unmaskHandler, declaredCondition): a handler's conditions after a
// marked SQLEXCEPTION, a condition's number with a placeholder
// SQLSTATE. The statement's text, which is what is stored, is unchanged.

// maskedMark is the String of the SQLEXCEPTION put first.
const maskedMark = "\x00petrel"

// maskRoutine masks the handlers and conditions of st, a CREATE
// PROCEDURE (other statements are left alone).
func maskRoutine(st ast.Statement) {
	d, ok := st.(*ast.DDL)
	if !ok || d.ProcedureSpec == nil || d.ProcedureSpec.Body == nil {
		return
	}
	walkStatements(d.ProcedureSpec.Body, maskDeclare)
}

// walkStatements calls f on each statement of a body, blocks and
// control statements entered (ast.Walk does not enter them all).
func walkStatements(st ast.Statement, f func(ast.SQLNode)) {
	f(st)
	each := func(list []ast.Statement) {
		for _, s := range list {
			walkStatements(s, f)
		}
	}
	switch x := st.(type) {
	case *ast.BeginEndBlock:
		each(x.Statements)
	case *ast.IfStatement:
		for _, c := range x.Conditions {
			each(c.Statements)
		}
		each(x.Else)
	case *ast.CaseStatement:
		for _, c := range x.Cases {
			each(c.Statements)
		}
		each(x.Else)
	case *ast.While:
		each(x.Statements)
	case *ast.Repeat:
		each(x.Statements)
	case *ast.Loop:
		each(x.Statements)
	case *ast.Declare:
		if x.Handler != nil && x.Handler.Statement != nil {
			walkStatements(x.Handler.Statement, f)
		}
	}
}

func maskDeclare(n ast.SQLNode) {
	d, ok := n.(*ast.Declare)
	if !ok {
		return
	}
	if c := d.Condition; c != nil && c.MysqlErrorCode != nil && c.SqlStateValue == "" {
		c.SqlStateValue = "HY000"
	}
	if h := d.Handler; h != nil && len(h.ConditionValues) > 0 && (len(h.ConditionValues) != 1 ||
		h.ConditionValues[0].ValueType != ast.DeclareHandlerCondition_SqlException && h.ConditionValues[0].ValueType != ast.DeclareHandlerCondition_NotFound) &&
		h.ConditionValues[0].String != maskedMark {
		h.ConditionValues = append([]ast.DeclareHandlerCondition{{ValueType: ast.DeclareHandlerCondition_SqlException, String: maskedMark}}, h.ConditionValues...)
	}
}

// unmaskHandler is a handler's conditions as written.
func unmaskHandler(cvs []ast.DeclareHandlerCondition) []ast.DeclareHandlerCondition {
	if len(cvs) > 0 && cvs[0].ValueType == ast.DeclareHandlerCondition_SqlException && cvs[0].String == maskedMark {
		return cvs[1:]
	}
	return cvs
}

// execSignal runs a SIGNAL outside a routine (GMS refused a warning's,
// '01', and left MYSQL_ERRNO and MESSAGE_TEXT unset when not given): the
// error it raises, or for a warning, the warning, and an OK.
func execSignal(ctx *sql.Context, n *plan.Signal) (sql.RowIter, error) {
	state := n.SqlStateValue
	if err := checkSQLState(state); err != nil {
		return nil, err
	}
	num, msg := signalNumber(state), signalMessage(state)
	if it, ok := n.Info[plan.SignalConditionItemName_MysqlErrno]; ok && it.IntValue != 0 {
		if !validErrno(it.IntValue) {
			return nil, mysqlerr.New(mysqlerr.ErWrongValueForVar, "Variable 'MYSQL_ERRNO' can't be set to the value of '%d'", it.IntValue)
		}
		num = int(it.IntValue)
	}
	if it, ok := n.Info[plan.SignalConditionItemName_MessageText]; ok {
		msg = it.StrValue
		if it.ExprVal != nil {
			v, err := it.ExprVal.Eval(ctx, nil)
			if err != nil {
				return nil, err
			}
			msg = signalText(v)
		}
	}
	if strings.HasPrefix(state, "01") {
		ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: num, Message: msg})
		return sql.RowsToRowIter(), nil
	}
	return nil, mysqlerr.Relay(num, state, "%s", msg)
}
