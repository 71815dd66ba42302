package sqlengine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"petrel/sqlengine/sqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// OPTIMIZE [NO_WRITE_TO_BINLOG | LOCAL] TABLE t [, t2 ...], which vitess
// does not parse: each table's key range is compacted (storage's
// CompactTable), so its files are rewritten with the table's codec and
// what its deleted and overwritten rows held is given back, as InnoDB's
// rebuild does. The answer has MySQL's columns, one status row a table.
// It is not written to the binary log (a replica compacts on its own
// schedule; no row changes).

const optimizeTablePattern = `OPTIMIZE (?:NO_WRITE_TO_BINLOG |LOCAL )?TABLES? (.+)`

func (e *Engine) optimizeTable(ctx context.Context, s *Session, m []string) (*AdminResult, error) {
	res := &AdminResult{Columns: []string{"Table", "Op", "Msg_type", "Msg_text"}}
	for _, name := range strings.Split(m[1], ",") {
		db, table := splitTableName(strings.TrimSpace(name), s.GetCurrentDatabase())
		label := db + "." + table
		err := e.optimizeOne(ctx, s, db, table)
		if err != nil {
			msg := err.Error()
			var se *mysql.SQLError
			if errors.As(sqlerr.MySQLError(err), &se) {
				msg = se.Message
			}
			res.Rows = append(res.Rows, []*string{Str(label), Str("optimize"), Str("Error"), Str(msg)},
				[]*string{Str(label), Str("optimize"), Str("status"), Str("Operation failed")})
			continue
		}
		res.Rows = append(res.Rows, []*string{Str(label), Str("optimize"), Str("status"), Str("OK")})
	}
	return res, nil
}

// optimizeOne compacts db.table once the session has shown it may read
// it (a SELECT through the session: its privileges apply, and a missing
// table gets MySQL's 1146).
func (e *Engine) optimizeOne(ctx context.Context, s *Session, db, table string) error {
	if err := e.mayReadTable(ctx, s, db, table); err != nil {
		return err
	}
	tb := e.store.Catalog().Table(db, table)
	if tb == nil {
		return sql.ErrTableNotFound.New(table)
	}
	return e.store.CompactTable(ctx, tb)
}

// mayReadTable runs an empty SELECT of db.table through the session:
// its privileges apply, and a missing table gets MySQL's 1146.
func (e *Engine) mayReadTable(ctx context.Context, s *Session, db, table string) error {
	query := fmt.Sprintf("SELECT 1 FROM %s.%s LIMIT 0", quoteIdent(db), quoteIdent(table))
	pid := sql.WithPid(internalPids + e.nextPid.Add(1))
	sctx, err := e.gms.ProcessList.BeginQuery(sql.NewContext(ctx, sql.WithSession(s), sql.WithProcessList(e.gms.ProcessList), sql.WithQuery(query), pid), query)
	if err != nil {
		return err
	}
	defer e.gms.ProcessList.EndQuery(sctx)
	_, iter, _, err := e.gms.Query(sctx, query)
	if err != nil {
		return err
	}
	_, err = sql.RowIterToRows(sctx, iter)
	return err
}
