package sqlengine

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
)

// Errors whose MySQL number or message depends on the statement, which
// the error mapping (sqlerr) does not see: the handler's reply passes a
// failed statement's error through statementError, which reads the
// statement the session parsed last (noteStatement).
//
//   - DROP TABLE of a table that does not exist is 1051 "Unknown table
//     'db.t'" in MySQL; GMS's planner fails with the 1146 of a read.
//   - 1146 names the table with its database, "Table 'test.t' doesn't
//     exist" (GMS: "Table 't'").
//   - A stored function or procedure that does not exist is named with
//     its database, "FUNCTION test.g does not exist" (GMS: "FUNCTION g").

// noteStatement keeps statement st, just parsed, on the session's
// connection, for statementError (a pointer kept, nothing copied).
func noteStatement(ctx context.Context, st ast.Statement) {
	if c, ok := ctx.(*sql.Context); ok && c != nil {
		if s, ok := c.Session.(*Session); ok && s.conn != nil {
			s.conn.lastStmt = st
		}
	}
}

// noteClientStatement keeps st as the statement the client sent when
// it is the first parsed for the session's current query: GMS parses
// other text while it runs (a PREPARE's statement, a view's SELECT, a
// trigger's body), which noteStatement's lastStmt follows.
func noteClientStatement(ctx context.Context, st ast.Statement) {
	c, ok := ctx.(*sql.Context)
	if !ok || c == nil {
		return
	}
	s, ok := c.Session.(*Session)
	if !ok || s.conn == nil || c.Pid() == s.conn.clientPid {
		return
	}
	s.conn.clientPid, s.conn.preparing, s.conn.insertInto, s.conn.insertVerb = c.Pid(), "", "", ""
	switch x := st.(type) {
	case *ast.Prepare:
		s.conn.preparing = x.Name
	case *ast.Begin:
		// START TRANSACTION releases table locks (locktables.go).
		s.eng.tlocks.releaseTables(s.ID())
	case *ast.Insert:
		s.conn.insertInto, s.conn.insertVerb = x.Table.Name.String(), "INSERT"
		if x.Action == ast.ReplaceStr {
			s.conn.insertVerb = "REPLACE"
		}
	}
}

// tableDB is the database statement st names table name in (the
// session's current one when unqualified), and whether st is a DROP
// TABLE without IF EXISTS naming it.
func (s *Session) tableDB(st ast.Statement, name string) (db string, found, drop bool) {
	if d, ok := st.(*ast.DDL); ok && d.Action == ast.DropStr && !d.IfExists {
		for _, t := range d.FromTables {
			if strings.EqualFold(t.Name.String(), name) {
				db = t.DbQualifier.String()
				if db == "" {
					db = s.GetCurrentDatabase()
				}
				return db, true, true
			}
		}
	}
	if st == nil {
		return "", false, false
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if t, ok := n.(ast.TableName); ok && !found && strings.EqualFold(t.Name.String(), name) {
			db, found = t.DbQualifier.String(), true
			if db == "" {
				db = s.GetCurrentDatabase()
			}
		}
		return !found, nil
	}, st)
	return db, found, false
}

var (
	noSuchTableMsg = regexp.MustCompile(`^Table '(.*)' doesn't exist$`)
	noSuchRoutine  = regexp.MustCompile(`^(FUNCTION|PROCEDURE) ([^.` + "`" + `]*) does not exist$`)
)

// statementError is err, a client error of the statement the session
// ran, with the number and message MySQL gives for that statement.
func (s *Session) statementError(err error) error {
	var se *mysql.SQLError
	if err == nil || !errors.As(err, &se) {
		return err
	}
	var st ast.Statement
	if s.conn != nil {
		st, s.conn.lastStmt = s.conn.lastStmt, nil
	}
	if s.conn != nil && s.conn.preparing != "" && s.eng != nil {
		// A PREPARE that fails leaves no statement of its name, as in
		// MySQL (the one prepared before is gone: EXECUTE is 1243); GMS
		// kept the earlier one.
		s.eng.gms.PreparedDataCache.UncacheStmt(s.ID(), s.conn.preparing)
	}
	switch se.Num {
	case mysqlerr.ErNoSuchTable:
		m := noSuchTableMsg.FindStringSubmatch(se.Message)
		if m != nil && s.eng != nil && notLockedTable(s, st) {
			return notLockedError(m[1]) // locktables.go
		}
		if m == nil || strings.Contains(m[1], ".") {
			return err
		}
		db, found, drop := s.tableDB(st, m[1])
		switch {
		case drop && db != "":
			return mysqlerr.New(mysqlerr.ErBadTable, "Unknown table '%s.%s'", db, m[1])
		case drop:
			return mysqlerr.New(mysqlerr.ErBadTable, "Unknown table '%s'", m[1])
		case found && db != "":
			return mysqlerr.New(mysqlerr.ErNoSuchTable, "Table '%s.%s' doesn't exist", db, m[1])
		}
	case mysqlerr.ErSPDoesNotExist:
		m := noSuchRoutine.FindStringSubmatch(se.Message)
		db := s.GetCurrentDatabase()
		if m == nil || db == "" {
			return err
		}
		return mysqlerr.New(mysqlerr.ErSPDoesNotExist, "%s %s.%s does not exist", m[1], db, m[2])
	case mysqlerr.ErUnknown:
		// An INSERT into a view that is not insertable (viewinsert.go
		// rewrote the others): MySQL's 1471.
		if s.conn != nil && s.conn.insertInto != "" && se.Message == "expected insert destination to be resolved or unresolved table" {
			return mysqlerr.New(mysqlerr.ErNonInsertableTable, "The target table %s of the %s is not insertable-into", s.conn.insertInto, s.conn.insertVerb)
		}
	}
	return err
}
