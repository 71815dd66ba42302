package sqlengine

import (
	"strconv"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/storedfn"
)

// checkRoutine refuses, as MySQL does when it parses the statement, a
// CREATE PROCEDURE whose conditions are wrong (and a SIGNAL run alone
// with a bad SQLSTATE): a SIGNAL, RESIGNAL or handler naming a condition
// no enclosing block declares (1319), a SIGNAL of a condition defined by
// an error number (1646), an SQLSTATE that is not five letters or digits
// or is of class '00' (1407), a condition item SET twice (1641), two
// conditions of one name or two handlers for one condition in a block
// (1332, 1413). GMS's CREATE check does none of these (and takes a
// handler only FOR SQLEXCEPTION or NOT FOUND: maskRoutine).
func checkRoutine(st ast.Statement) error {
	switch x := st.(type) {
	case *ast.Signal:
		if err := checkSignal(x, nil); err != nil {
			return err
		}
		// Run now: a MYSQL_ERRNO out of range (GMS's planner refuses
		// it with an error of its own).
		for _, it := range x.Info {
			if v, ok := it.Value.(*ast.SQLVal); ok && it.ConditionItemName == ast.SignalConditionItemName_MysqlErrno {
				if n, err := strconv.ParseInt(string(v.Val), 10, 64); err != nil || !validErrno(n) {
					return mysqlerr.New(mysqlerr.ErWrongValueForVar, "Variable 'MYSQL_ERRNO' can't be set to the value of '%s'", v.Val)
				}
			}
		}
		return nil
	case *ast.Resignal:
		return checkSignal(&x.Signal, nil)
	case *ast.DDL:
		if x.ProcedureSpec != nil && x.ProcedureSpec.Body != nil {
			if storedfn.IsHidden(x.ProcedureSpec.ProcName.Name.String()) {
				if err := noCommitIn(x.ProcedureSpec.Body); err != nil {
					return err
				}
			}
			return checkBlockStmt(x.ProcedureSpec.Body, nil)
		}
		if x.TriggerSpec != nil && x.TriggerSpec.Body != nil {
			return noCommitIn(x.TriggerSpec.Body)
		}
	}
	return nil
}

// noCommitIn refuses, with MySQL's 1422 when the function or trigger is
// created, a body that commits explicitly (COMMIT, ROLLBACK, START
// TRANSACTION) or implicitly (DDL but that of temporary tables, LOCK and
// UNLOCK TABLES). A stored function's body is its hidden procedure's.
func noCommitIn(body ast.Statement) error {
	var found bool
	walkStatements(body, func(n ast.SQLNode) { // routinecond.go
		switch x := n.(type) {
		case *ast.Commit, *ast.Rollback, *ast.Begin, *ast.LockTables, *ast.UnlockTables, *ast.AlterTable, *ast.DBDDL:
			found = true
		case *ast.DDL:
			// A routine, trigger or event created in a body is an error
			// of its own (GMS's).
			found = found || !x.Temporary && x.ProcedureSpec == nil && x.TriggerSpec == nil && x.EventSpec == nil
		}
	})
	if found {
		return mysqlerr.New(mysqlerr.ErCommitNotAllowedInSF, "Explicit or implicit commit is not allowed in stored function or trigger.")
	}
	return nil
}

// condScope is a block's conditions, inside its enclosing blocks'.
type condScope struct {
	outer *condScope
	conds map[string]*ast.DeclareCondition
}

func (s *condScope) lookup(name string) *ast.DeclareCondition {
	for ; s != nil; s = s.outer {
		if c, ok := s.conds[strings.ToLower(name)]; ok {
			return c
		}
	}
	return nil
}

func checkBlockStmt(st ast.Statement, outer *condScope) error {
	list := func(stmts []ast.Statement, s *condScope) error {
		for _, x := range stmts {
			if err := checkBlockStmt(x, s); err != nil {
				return err
			}
		}
		return nil
	}
	switch x := st.(type) {
	case *ast.BeginEndBlock:
		s := &condScope{outer: outer, conds: map[string]*ast.DeclareCondition{}}
		handlers := map[string]bool{}
		for _, d := range x.Statements {
			decl, ok := d.(*ast.Declare)
			if !ok {
				continue
			}
			switch {
			case decl.Condition != nil:
				name := strings.ToLower(decl.Condition.Name)
				if _, dup := s.conds[name]; dup {
					return mysqlerr.New(mysqlerr.ErSPDupCond, "Duplicate condition: %s", decl.Condition.Name)
				}
				if decl.Condition.MysqlErrorCode == nil {
					if err := checkSQLState(decl.Condition.SqlStateValue); err != nil {
						return err
					}
				}
				s.conds[name] = decl.Condition
			case decl.Handler != nil:
				for _, cv := range unmaskHandler(decl.Handler.ConditionValues) {
					key := string(cv.ValueType) + ":" + strings.ToLower(cv.String)
					switch cv.ValueType {
					case ast.DeclareHandlerCondition_MysqlErrorCode:
						key = "errno:" + string(cv.MysqlErrorCode.Val)
					case ast.DeclareHandlerCondition_SqlState:
						if err := checkSQLState(cv.String); err != nil {
							return err
						}
					case ast.DeclareHandlerCondition_ConditionName:
						if s.lookup(cv.String) == nil {
							return mysqlerr.New(mysqlerr.ErSPCondMismatch, "Undefined CONDITION: %s", cv.String)
						}
					}
					if handlers[key] {
						return mysqlerr.New(mysqlerr.ErSPDupHandler, "Duplicate handler declared in the same block")
					}
					handlers[key] = true
				}
				if err := checkBlockStmt(decl.Handler.Statement, s); err != nil {
					return err
				}
			}
		}
		return list(x.Statements, s)
	case *ast.Signal:
		return checkSignal(x, outer)
	case *ast.Resignal:
		return checkSignal(&x.Signal, outer)
	case *ast.IfStatement:
		for _, c := range x.Conditions {
			if err := list(c.Statements, outer); err != nil {
				return err
			}
		}
		return list(x.Else, outer)
	case *ast.CaseStatement:
		for _, c := range x.Cases {
			if err := list(c.Statements, outer); err != nil {
				return err
			}
		}
		return list(x.Else, outer)
	case *ast.While:
		return list(x.Statements, outer)
	case *ast.Repeat:
		return list(x.Statements, outer)
	case *ast.Loop:
		return list(x.Statements, outer)
	}
	return nil
}

// checkSignal checks a SIGNAL's (or RESIGNAL's) condition and items.
func checkSignal(s *ast.Signal, scope *condScope) error {
	if s.ConditionName != "" {
		c := scope.lookup(s.ConditionName)
		if c == nil {
			return mysqlerr.New(mysqlerr.ErSPCondMismatch, "Undefined CONDITION: %s", s.ConditionName)
		}
		if c.MysqlErrorCode != nil {
			return mysqlerr.New(mysqlerr.ErSignalBadConditionType, "SIGNAL/RESIGNAL can only use a CONDITION defined with SQLSTATE")
		}
	} else if s.SqlStateValue != "" {
		if err := checkSQLState(s.SqlStateValue); err != nil {
			return err
		}
	}
	seen := map[ast.SignalConditionItemName]bool{}
	for _, it := range s.Info {
		if seen[it.ConditionItemName] {
			return mysqlerr.New(mysqlerr.ErDupSignalSet, "Duplicate condition information item '%s'", strings.ToUpper(string(it.ConditionItemName)))
		}
		seen[it.ConditionItemName] = true
	}
	return nil
}

// topLevelResignal is st, but for a RESIGNAL outside a routine (GMS's
// planner refuses it; a statement PREPAREd from one is MariaDB's test):
// a SIGNAL of the error it raises when it runs, 1645.
func topLevelResignal(st ast.Statement) ast.Statement {
	if _, ok := st.(*ast.Resignal); !ok {
		return st
	}
	return &ast.Signal{SqlStateValue: "0K000", Info: []ast.SignalInfo{
		{ConditionItemName: ast.SignalConditionItemName_MysqlErrno, Value: ast.NewIntVal([]byte(strconv.Itoa(mysqlerr.ErResignalNoHandler)))},
		{ConditionItemName: ast.SignalConditionItemName_MessageText, Value: ast.NewStrVal([]byte("RESIGNAL when handler not active"))},
	}}
}
