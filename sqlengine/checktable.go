package sqlengine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/sqlengine/sqlerr"
)

// CHECK TABLE t [, t2 ...] [FOR UPGRADE | QUICK | FAST | MEDIUM |
// EXTENDED | CHANGED], which vitess does not parse: storage reads every
// row and index entry of each table in one snapshot and reports what
// does not match (storage.CheckTable); every option reads it all.
// MySQL's result: "status OK", or the problems as "error" rows and
// "Corrupt"; a missing table is its 1146 text and "Operation failed".

const checkTablePattern = `CHECK TABLES? (.+?)(?: (?:FOR UPGRADE|QUICK|FAST|MEDIUM|EXTENDED|CHANGED))*`

func (e *Engine) checkTable(ctx context.Context, s *Session, m []string) (*AdminResult, error) {
	res := &AdminResult{Columns: []string{"Table", "Op", "Msg_type", "Msg_text"}}
	add := func(label, typ, text string) {
		res.Rows = append(res.Rows, []*string{Str(label), Str("check"), Str(typ), Str(text)})
	}
	for _, name := range strings.Split(m[1], ",") {
		db, table := splitTableName(strings.TrimSpace(name), s.GetCurrentDatabase())
		label := db + "." + table
		problems, err := e.checkOne(ctx, s, db, table)
		if err != nil {
			adminFailed(add, label, err)
			continue
		}
		if len(problems) == 0 {
			add(label, "status", "OK")
			continue
		}
		for _, p := range problems {
			add(label, "error", p)
		}
		add(label, "error", "Corrupt")
	}
	return res, nil
}

// checkOne checks db.table once the session has shown it may read it.
func (e *Engine) checkOne(ctx context.Context, s *Session, db, table string) ([]string, error) {
	if err := e.mayReadTable(ctx, s, db, table); err != nil {
		return nil, err
	}
	tb := e.store.Catalog().Table(db, table)
	if tb == nil {
		return nil, sql.ErrTableNotFound.New(table)
	}
	_, problems, err := e.store.CheckTable(ctx, tb)
	if err != nil {
		return nil, fmt.Errorf("check of %s: %w", table, err)
	}
	return problems, nil
}

// REPAIR [NO_WRITE_TO_BINLOG | LOCAL] TABLE t [, t2 ...] [QUICK]
// [EXTENDED] [USE_FRM]: InnoDB's answer, which Petrel's tables share (a
// table is checked with CHECK TABLE and never needs MyISAM's repair):
// for each table "note: The storage engine for the table doesn't support
// repair", or its error when it is missing or not readable.
const repairTablePattern = `REPAIR (?:NO_WRITE_TO_BINLOG |LOCAL )?TABLES? (.+?)(?: (?:QUICK|EXTENDED|USE_FRM))*`

func (e *Engine) repairTable(ctx context.Context, s *Session, m []string) (*AdminResult, error) {
	res := &AdminResult{Columns: []string{"Table", "Op", "Msg_type", "Msg_text"}}
	add := func(label, typ, text string) {
		res.Rows = append(res.Rows, []*string{Str(label), Str("repair"), Str(typ), Str(text)})
	}
	for _, name := range strings.Split(m[1], ",") {
		db, table := splitTableName(strings.TrimSpace(name), s.GetCurrentDatabase())
		label := db + "." + table
		err := e.mayReadTable(ctx, s, db, table)
		if err == nil && e.store.Catalog().Table(db, table) == nil {
			err = sql.ErrTableNotFound.New(table)
		}
		if err != nil {
			adminFailed(add, label, err)
			continue
		}
		add(label, "note", "The storage engine for the table doesn't support repair")
	}
	return res, nil
}

// adminFailed adds a table maintenance statement's rows for a table it
// could not work on: the error's MySQL text, then "Operation failed".
func adminFailed(add func(label, typ, text string), label string, err error) {
	msg := err.Error()
	var se *mysql.SQLError
	if errors.As(sqlerr.MySQLError(err), &se) {
		msg = se.Message
	}
	add(label, "Error", msg)
	add(label, "status", "Operation failed")
}
