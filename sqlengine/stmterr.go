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
// failed statement's error through statementError.
//
//   - DROP TABLE of a table that does not exist is 1051 "Unknown table
//     'db.t'" in MySQL; GMS's planner fails with the 1146 of a read. The
//     parse notes a DROP TABLE (noteDropTable), the reply maps its 1146.
//   - A stored function or procedure that does not exist is named with
//     its database, "FUNCTION test.g does not exist" (GMS: "FUNCTION g").

// noteDropTable notes on the session whether statement st is a DROP
// TABLE without IF EXISTS, and the database its tables are in; every
// statement the session parses resets it.
func noteDropTable(ctx context.Context, st ast.Statement) {
	c, ok := ctx.(*sql.Context)
	if !ok || c == nil {
		return
	}
	s, ok := c.Session.(*Session)
	if !ok {
		return
	}
	s.dropTableDB = ""
	d, ok := st.(*ast.DDL)
	if !ok || d.Action != ast.DropStr || d.IfExists || len(d.FromTables) == 0 {
		return
	}
	db := d.FromTables[0].DbQualifier.String()
	if db == "" {
		db = s.GetCurrentDatabase()
	}
	s.dropTableDB = db
	if db == "" {
		s.dropTableDB = "\x00" // a DROP TABLE with no database: names unqualified
	}
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
	dropDB := s.dropTableDB
	s.dropTableDB = ""
	switch se.Num {
	case mysqlerr.ErNoSuchTable:
		m := noSuchTableMsg.FindStringSubmatch(se.Message)
		if dropDB == "" || m == nil {
			return err
		}
		name := m[1]
		if dropDB != "\x00" && !strings.Contains(name, ".") {
			name = dropDB + "." + name
		}
		return mysqlerr.New(mysqlerr.ErBadTable, "Unknown table '%s'", name)
	case mysqlerr.ErSPDoesNotExist:
		m := noSuchRoutine.FindStringSubmatch(se.Message)
		db := s.GetCurrentDatabase()
		if m == nil || db == "" {
			return err
		}
		return mysqlerr.New(mysqlerr.ErSPDoesNotExist, "%s %s.%s does not exist", m[1], db, m[2])
	}
	return err
}
