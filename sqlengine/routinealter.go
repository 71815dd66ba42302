package sqlengine

import (
	"context"
	"fmt"
	"strings"
	"time"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/sqlerr"
	"petrel/sqlengine/storedfn"
	"petrel/storage"
)

// ALTER PROCEDURE and ALTER FUNCTION (issue 31), which vitess does not
// parse: storedfn reads the statement and writes the routine's CREATE
// statement again with the characteristics changed (COMMENT, SQL
// SECURITY, the data access clause); the catalog record keeps the new
// text and the time of the change (information_schema.ROUTINES'
// LAST_ALTERED), committed with the ALTER's text, which the binary log
// records as a DDL query for replicas (isRoutineStatement: Petrel's
// applier runs it here too). As in MySQL the statement commits the
// session's open transaction first.
//
// SHOW PROCEDURE CODE and SHOW FUNCTION CODE, a debug build's
// statements, answer 1289 as a release build of MySQL does.

const (
	alterRoutinePattern    = `ALTER (?:PROCEDURE|FUNCTION) \S.*`
	showRoutineCodePattern = `SHOW (?:PROCEDURE|FUNCTION) CODE \S+`
)

func (e *Engine) registerRoutineStatements() {
	e.RegisterAdmin(alterRoutinePattern, 0, func(ctx context.Context, s *Session, _ []string) (*AdminResult, error) {
		return &AdminResult{}, e.alterRoutine(ctx, s, s.adminQuery)
	})
	e.RegisterAdmin(showRoutineCodePattern, 0, func(context.Context, *Session, []string) (*AdminResult, error) {
		return nil, mysqlerr.New(mysqlerr.ErFeatureDisabled, "The 'SHOW PROCEDURE|FUNCTION CODE' feature is disabled; you need MySQL built with '--with-debug' to have it working")
	})
}

// alterRoutine runs ALTER PROCEDURE or ALTER FUNCTION q in s.
func (e *Engine) alterRoutine(ctx context.Context, s *Session, q string) error {
	q = strings.TrimRight(strings.TrimSpace(q), "; \t\r\n")
	s.ClearWarnings()
	a, err := storedfn.ParseAlter(q)
	if err != nil {
		return functionParseError(err)
	}
	sctx := e.NewContext(ctx, s)
	if err := e.checkWritable(sctx); err != nil {
		return err
	}
	if e.tlocks.inLockedTables(s.ID()) {
		return errLockedTables() // locktables.go
	}
	if err := s.implicitCommit(sctx); err != nil {
		return err
	}
	db, err := e.routineDatabase(sctx, a.Database)
	if err != nil {
		return err
	}
	kind, name := "PROCEDURE", a.Name
	if a.Function {
		kind, name = "FUNCTION", storedfn.HiddenName(a.Name)
	}
	var create string
	if sd := db.sdb(); sd != nil {
		for _, p := range sd.Def().Procedures {
			if strings.EqualFold(p.Name, name) && (a.Function || !storedfn.IsHidden(p.Name)) {
				create = p.CreateStmt
			}
		}
	}
	if create == "" {
		return mysqlerr.New(mysqlerr.ErSPDoesNotExist, "%s %s.%s does not exist", kind, db.name, a.Name)
	}
	text, err := a.Apply(create)
	if err != nil {
		return functionParseError(err)
	}
	if !a.Function {
		// What GMS will parse at each CALL: never a stored text it cannot.
		if _, err := ast.Parse(text); err != nil {
			return mysqlerr.New(mysqlerr.ErUnknown, "ALTER %s: the changed CREATE statement does not parse: %v", kind, err)
		}
	}
	tx := e.store.Begin()
	if s.origin != nil {
		tx.SetOrigin(*s.origin)
	}
	err = e.store.Catalog().UpdateDatabase(tx, db.name, func(dd *storage.DatabaseDef) error {
		for i, p := range dd.Procedures {
			if strings.EqualFold(p.Name, name) {
				dd.Procedures[i].CreateStmt = text
				dd.Procedures[i].ModifiedAt = time.Now().UnixNano()
				return nil
			}
		}
		return fmt.Errorf("sqlengine: %s %s.%s went away", kind, db.name, a.Name)
	})
	if err != nil {
		tx.Rollback()
		return sqlerr.ToMySQL(err)
	}
	tx.LogQuery(sctx.GetCurrentDatabase(), q)
	if err := tx.Commit(sctx); err != nil {
		return sqlerr.ToMySQL(err)
	}
	return nil
}
