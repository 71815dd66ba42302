package sqlengine

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"

	"petrel/sqlengine/sqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/mysqlerr"
)

// CHECKSUM TABLE t [, t2 ...] [QUICK | EXTENDED], which vitess does not
// parse: a checksum of each table's rows, independent of their order
// (the sum of each row's CRC-32, as MySQL's is), so a source and its
// replica, or a table and its copy, can be compared. The value is
// Petrel's own: each row's CRC-32 is over its columns' text as the
// client protocol sends them (a NULL marked apart), not over InnoDB's
// record format, so it is not comparable with MySQL's figure. QUICK
// (a live checksum MySQL keeps for MyISAM only) is read as EXTENDED,
// which answers for every table. A missing table has a NULL checksum
// and warning 1146, as in MySQL.

const checksumTablePattern = `CHECKSUM TABLES? (.+?)(?: (?:QUICK|EXTENDED))?`

func (e *Engine) checksumTable(ctx context.Context, s *Session, m []string) (*AdminResult, error) {
	res := &AdminResult{Columns: []string{"Table", "Checksum"}}
	for _, name := range strings.Split(m[1], ",") {
		db, table := splitTableName(strings.TrimSpace(name), s.GetCurrentDatabase())
		label := db + "." + table
		sum, err := e.tableChecksum(ctx, s, db, table)
		if err != nil {
			code, msg := mysqlerr.ErNoSuchTable, err.Error()
			var se *mysql.SQLError
			if errors.As(sqlerr.MySQLError(err), &se) {
				code, msg = se.Num, se.Message
			}
			s.Warn(&sql.Warning{Level: "Error", Code: code, Message: msg})
			res.Rows = append(res.Rows, []*string{Str(label), nil})
			continue
		}
		res.Rows = append(res.Rows, []*string{Str(label), Str(strconv.FormatUint(sum, 10))})
	}
	return res, nil
}

// splitTableName reads [db.]table, with or without backquotes.
func splitTableName(name, current string) (db, table string) {
	unquote := func(s string) string { return strings.ReplaceAll(strings.Trim(s, "`"), "``", "`") }
	if i := strings.Index(name, "."); i >= 0 && !strings.HasPrefix(name[i+1:], "`") == !strings.HasSuffix(name[:i], "`") {
		return unquote(name[:i]), unquote(name[i+1:])
	}
	return current, unquote(name)
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// tableChecksum is the sum of the CRC-32 of each row of db.table, read
// through the session (its privileges and snapshot apply).
func (e *Engine) tableChecksum(ctx context.Context, s *Session, db, table string) (uint64, error) {
	query := fmt.Sprintf("SELECT * FROM %s.%s", quoteIdent(db), quoteIdent(table))
	pid := sql.WithPid(internalPids + e.nextPid.Add(1))
	sctx, err := e.gms.ProcessList.BeginQuery(sql.NewContext(ctx, sql.WithSession(s), sql.WithProcessList(e.gms.ProcessList), sql.WithQuery(query), pid), query)
	if err != nil {
		return 0, err
	}
	defer e.gms.ProcessList.EndQuery(sctx)
	sch, iter, _, err := e.gms.Query(sctx, query)
	if err != nil {
		return 0, err
	}
	defer iter.Close(sctx)
	var sum uint64
	var buf []byte
	for {
		row, err := iter.Next(sctx)
		if err != nil {
			if err == io.EOF {
				return sum, nil
			}
			return 0, err
		}
		buf = buf[:0]
		for i, v := range row {
			if v == nil {
				buf = append(buf, 0)
				continue
			}
			buf = append(buf, 1)
			val, err := sch[i].Type.SQL(sctx, nil, v)
			if err != nil {
				return 0, err
			}
			b := val.ToBytes()
			buf = strconv.AppendInt(buf, int64(len(b)), 10)
			buf = append(buf, ':')
			buf = append(buf, b...)
		}
		sum += uint64(crc32.ChecksumIEEE(buf))
	}
}
