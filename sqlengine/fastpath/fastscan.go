package fastpath

import (
	"context"
	"strings"
	"sync"
	"unsafe"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/base"
	"petrel/sqlengine"
	"petrel/storage"
	"petrel/storage/keys"
)

// The table-scan fast path for text queries (COM_QUERY): statements of
// the shape
//
//	SELECT * FROM [db.]t
//	SELECT col[, col...] FROM [db.]t
//
// (no WHERE, alias, expression, DISTINCT, GROUP BY, ORDER BY, LIMIT or
// locking clause: a whole table in storage order, as the seed's mysqlslap
// --auto-generate-sql reads its table; SQL_NO_CACHE allowed, as
// mysqldump's and mariadb-dump's `SELECT /*!40001 SQL_NO_CACHE */ * FROM
// t` reads each table) over a table in storage are
// answered with one storage scan streamed to the client, without GMS's
// parse, analysis and row pipeline. GMS answers the first execution of
// each statement text (per current database); the result fields it sent
// are kept with the plan and reused while the table is the same catalog
// object (every DDL makes a new one) and the session's
// character_set_results is the one they were made for. A session with a
// non-default sql_select_limit, autocommit off outside a transaction, or
// without the table-level SELECT privilege gets GMS.

// scanPlan is a recognised table scan; fields are GMS's, nil until GMS
// answered it once.
type scanPlan struct {
	point pointPlan
	table *storage.Table
	// stored: formatting from the stored fields (scanfields.go), nil
	// when a column is of a type it does not format.
	stored *scanFields
}

type scanKey struct{ db, query string }

// scanPlans caches scan plans (and texts that are not scans: nil) by
// current database and statement text.
type scanPlans struct {
	mu sync.Mutex
	m  map[scanKey]*scanPlan
}

// maxScanPlans bounds the cache; a full cache starts again empty.
const maxScanPlans = 1024

// scanBatch is how many rows go to the client per callback.
const scanBatch = 128

func (c *scanPlans) get(k scanKey) (p *scanPlan, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, known = c.m[k]
	return p, known
}

func (c *scanPlans) put(k scanKey, p *scanPlan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxScanPlans {
		c.m = make(map[scanKey]*scanPlan)
	}
	c.m[k] = p
}

// scanText is a cheap filter run on every text statement before any map
// lookup or parse: a plain scan has only identifiers, '*', ',', '.',
// backquotes, spaces and the characters of mysqldump's version comment,
// and starts with SELECT.
func scanText(q string) bool {
	if len(q) < len("select * from t") || len(q) > 1024 || !strings.EqualFold(q[:6], "select") {
		return false
	}
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '_', c == '$', c == '*', c == ',', c == '.', c == '`',
			c == ' ', c == '\t', c == '\n', c == '\r',
			c == '/', c == '!': // mysqldump's /*!40001 SQL_NO_CACHE */
		default:
			return false
		}
	}
	return true
}

// planScan recognises a table scan; nil means "use GMS" (absent: the
// statement has a scan's shape but names no table in storage, which a
// later statement may create). The fields are filled in once GMS
// answered it.
func (e *Executor) planScan(s *sqlengine.Session, query string) (*scanPlan, bool) {
	stmt, err := ast.Parse(query)
	if err != nil {
		return nil, false
	}
	sel, ok := stmt.(*ast.Select)
	if !ok {
		return nil, false
	}
	// SQL_NO_CACHE (mysqldump and mariadb-dump send it) changes nothing.
	opts := sel.QueryOpts
	opts.SQLNoCache = false
	if sel.With != nil || opts != (ast.QueryOpts{}) || sel.GroupBy != nil || sel.Having != nil ||
		len(sel.OrderBy) > 0 || sel.Limit != nil || sel.Lock != "" || sel.Into != nil || len(sel.From) != 1 ||
		sel.Where != nil || len(sel.Window) > 0 || len(sel.SelectExprs) == 0 {
		return nil, false
	}
	ate, ok := sel.From[0].(*ast.AliasedTableExpr)
	if !ok || ate.AsOf != nil || !ate.As.IsEmpty() || ate.Hints != nil {
		return nil, false
	}
	tn, ok := ate.Expr.(ast.TableName)
	if !ok {
		return nil, false
	}
	p := &scanPlan{}
	pp := &p.point
	st := pp.resolve(e, s, tn)
	if st == nil {
		return nil, true
	}
	p.table = st
	pp.results = s.GetCharacterSetResults()
	for _, se := range sel.SelectExprs {
		switch x := se.(type) {
		case *ast.StarExpr:
			if len(sel.SelectExprs) != 1 || !x.TableName.IsEmpty() {
				return nil, false
			}
			for i := range st.Schema {
				pp.proj = append(pp.proj, i)
			}
		case *ast.AliasedExpr:
			c, ok := x.Expr.(*ast.ColName)
			if !ok || !x.As.IsEmpty() || !sameTable(c, pp, "") {
				return nil, false
			}
			i := st.Schema.IndexOfColName(c.Name.String())
			if i < 0 {
				return nil, false
			}
			pp.proj = append(pp.proj, i)
		default:
			return nil, false
		}
	}
	p.stored = newScanFields(st.Schema, pp.proj, pp.results)
	return p, false
}

// tryScan answers a text statement on the scan fast path. cb is the
// callback below fieldsFixed: a plan keeps the fields as fixFields left
// them, copies nobody mutates, and sends them to cb as they are.
// handled=false means "let GMS do it"; then GMS's callback is
// fieldsFixed(run), where run records the fields for the plan when the
// statement is a scan.
func (e *Executor) tryScan(ctx context.Context, c *mysql.Conn, s *sqlengine.Session, q string, cb mysql.ResultSpoolFn) (handled bool, run mysql.ResultSpoolFn, err error) {
	// libmysqlclient's mysqlslap sends the C string's terminating NUL.
	q = strings.TrimLeft(strings.TrimRight(q, "\x00 \t\r\n"), " \t\r\n")
	if !scanText(q) || !e.e.ExecutorOnFor(s) {
		return false, cb, nil
	}
	if sqlengine.OperatorText(s, q) {
		return false, cb, nil
	}
	k := scanKey{s.GetCurrentDatabase(), q}
	p, known := e.scans.get(k)
	if p != nil && p.point.fields != nil {
		// The rows go out in writes of up to sqlengine.GatherMax (gather.go), after
		// whatever vitess holds of earlier results.
		cc := sqlengine.Gather(c)
		if cc != nil {
			if err := c.FlushBuffer(); err != nil {
				return true, nil, err
			}
			cc.Start()
		}
		ok, err := e.execScan(ctx, s, p, cb, c, cc)
		if cc != nil {
			if werr := cc.End(); werr != nil && err == nil {
				err = werr
			}
		}
		if ok {
			e.fastReadCount.Add(1)
			return true, nil, err
		}
	}
	if known && p == nil {
		return false, cb, nil
	}
	// GMS answers; its fields (when it answers with as many columns as
	// the plan projects) complete a fresh plan.
	np, absent := e.planScan(s, q)
	if np == nil {
		if !absent {
			e.scans.put(k, nil)
		}
		return false, cb, nil
	}
	recorded := false
	return false, func(r *sqltypes.Result, more bool) error {
		if !recorded {
			recorded = true
			if len(r.Fields) == len(np.point.proj) {
				np.point.fields = make([]*querypb.Field, len(r.Fields))
				for i, f := range r.Fields {
					np.point.fields[i] = &querypb.Field{Name: f.Name, Type: f.Type, Table: f.Table, OrgTable: f.OrgTable,
						Database: f.Database, OrgName: f.OrgName, ColumnLength: f.ColumnLength, Charset: f.Charset,
						Decimals: f.Decimals, Flags: f.Flags}
				}
				e.scans.put(k, np)
			}
		}
		return cb(r, more)
	}, nil
}

// execScan runs a scan plan. ok=false means "let GMS do it" (nothing was
// sent).
func (e *Executor) execScan(ctx context.Context, s *sqlengine.Session, p *scanPlan, cb mysql.ResultSpoolFn, c *mysql.Conn, cc *sqlengine.Gathered) (ok bool, err error) {
	pp := &p.point
	if (!pp.qualified && !strings.EqualFold(s.GetCurrentDatabase(), pp.db)) || s.GetCharacterSetResults() != pp.results {
		return false, nil
	}
	st := e.store.Catalog().Table(pp.db, pp.table)
	if st != p.table {
		return false, nil
	}
	sctx := e.NewContext(ctx, s)
	if def, _ := sql.HasDefaultValue(sctx, s, "sql_select_limit"); !def {
		return false, nil
	}
	if !e.canSelect(sctx, s, pp) {
		return false, nil
	}
	txn, owned, ok := e.readTxnFor(s, true)
	if !ok {
		return false, nil
	}
	if owned {
		defer txn.Rollback()
	}
	it, err := txn.Scan(ctx, st, 0, nil, nil, false)
	if err != nil {
		return false, nil
	}
	defer it.Close()
	it.Project(pp.proj)
	s.ClearWarnings()
	// The callback writes a batch to the connection before it returns and
	// keeps nothing: every batch reuses the rows and the byte arena the
	// values are written into.
	rows := make([][]sqltypes.Value, scanBatch)
	vals := make([]sqltypes.Value, scanBatch*len(pp.proj))
	for i := range rows {
		rows[i] = vals[i*len(pp.proj) : (i+1)*len(pp.proj) : (i+1)*len(pp.proj)]
	}
	arena := make([]byte, 0, scanArena)
	sent := false
	n, inBatch := int64(0), 0
	flush := func() error {
		sent = true
		err := cb(&sqltypes.Result{Fields: pp.fields, Rows: rows[:inBatch]}, false)
		inBatch, arena = 0, arena[:0]
		return err
	}
	var fields []keys.Field
	if sf := p.stored; sf != nil && it.Raw() && cc != nil && cc.Buf() != nil {
		// The first row is read before anything is sent, so that a
		// storage error there is GMS's to report ...
		fields = make([]keys.Field, len(st.Schema))
		raw, err := it.NextRaw()
		if err != nil || (raw != nil && sf.dec.Decode(fields, raw) != nil) {
			return false, nil
		}
		if raw != nil {
			// ... and converted (into a scratch packet): a value GMS
			// cannot convert is GMS's to report too.
			if _, _, ok := sf.appendPacket(sctx, pp.results, fields, arena, 0, make([]sqltypes.Value, 1)); !ok {
				return false, nil
			}
		}
		// vitess writes the column definitions; the rows are written here.
		sent = true
		if err := cb(&sqltypes.Result{Fields: pp.fields}, false); err != nil {
			return true, err
		}
		if err := c.FlushBuffer(); err != nil {
			return true, err
		}
		if raw == nil {
			scanDone(s, 0)
			return true, nil
		}
		if seq, ok := cc.Seq(); ok {
			n, err := e.scanPackets(ctx, sctx, it, sf, pp.results, cc, seq, fields)
			if err != nil {
				return true, err
			}
			scanDone(s, n)
			return true, nil
		}
		// Not whole packets (it cannot be: tryScan flushed vitess's buffer
		// before gathering): vitess writes the rows after all, the first
		// one from its decoded fields.
		var ok bool
		if arena, ok = sf.row(sctx, pp.results, fields, rows[0], arena); !ok {
			return true, errScanConvert
		}
		inBatch, n = 1, 1
	}
	// next converts the next row into rows[inBatch]; done at the end.
	var next func() (done bool, err error)
	if sf := p.stored; sf != nil && it.Raw() {
		if fields == nil {
			fields = make([]keys.Field, len(st.Schema))
		}
		next = func() (bool, error) {
			raw, err := it.NextRaw()
			if err != nil || raw == nil {
				return true, err
			}
			if err := sf.dec.Decode(fields, raw); err != nil {
				return true, err
			}
			// The text fields alias the iterator's buffer: row copies
			// them into the arena.
			var ok bool
			if arena, ok = sf.row(sctx, pp.results, fields, rows[inBatch], arena); !ok {
				return true, errScanConvert
			}
			return false, nil
		}
	} else {
		var buf sql.Row
		next = func() (bool, error) {
			// The row's strings alias the storage iterator's buffer:
			// wireRow copies them into the arena before the next call.
			row, err := it.NextBorrowed(buf)
			if err != nil || row == nil {
				return true, err
			}
			buf = row
			var ok bool
			if arena, ok = wireRow(sctx, st.Schema, pp.results, row, pp.proj, rows[inBatch], arena); !ok {
				return true, errScanConvert
			}
			return false, nil
		}
	}
	for {
		done, err := next()
		if err != nil {
			if !sent {
				return false, nil
			}
			if err == errScanConvert {
				return true, err
			}
			return true, sqlengine.ToMySQLError(err)
		}
		if done {
			break
		}
		inBatch++
		n++
		if inBatch == scanBatch {
			if err := ctx.Err(); err != nil {
				return true, err
			}
			if err := flush(); err != nil {
				return true, err
			}
		}
	}
	if inBatch > 0 || !sent {
		if err := flush(); err != nil {
			return true, err
		}
	}
	scanDone(s, n)
	return true, nil
}

// scanDone leaves the session as a SELECT of n rows through GMS does.
func scanDone(s *sqlengine.Session, n int64) {
	s.SetLastQueryInfoInt(sql.RowCount, -1)
	s.SetLastQueryInfoInt(sql.FoundRows, n)
}

// scanPackets writes the rows of it, starting with the one already
// decoded in fields, as protocol packets into cc's gathered bytes,
// numbered from seq, and tells cc how many it wrote; n is the number of
// rows. A value that does not convert ends the stream with
// errScanConvert (vitess then ends the connection, as for any error in
// the middle of a result).
func (e *Executor) scanPackets(ctx context.Context, sctx *sql.Context, it *storage.RowIter, sf *scanFields, results sql.CharacterSetID, cc *sqlengine.Gathered, seq byte, fields []keys.Field) (n int64, err error) {
	scratch := make([]sqltypes.Value, 1)
	first := seq
	defer func() { cc.Wrote(seq - first) }()
	buf := cc.Buf()
	for {
		var ok bool
		if *buf, seq, ok = sf.appendPacket(sctx, results, fields, *buf, seq, scratch); !ok {
			return n, errScanConvert
		}
		n++
		raw, err := it.NextRaw()
		if err != nil {
			return n, sqlengine.ToMySQLError(err)
		}
		if raw == nil {
			return n, nil
		}
		if err := sf.dec.Decode(fields, raw); err != nil {
			return n, sqlengine.ToMySQLError(err)
		}
		if len(*buf) >= sqlengine.GatherMax {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			if err := cc.Flush(); err != nil {
				return n, err
			}
		}
	}
}

// scanArena is the byte arena a batch's values are written into; values
// that do not fit get their own allocation.
const scanArena = 16 << 10

// wireRow converts the columns proj of a stored row into wire values in
// out (wireValue), the bytes written into arena's spare capacity (the
// arena grows over what the values use); ok=false when a value does not
// convert.
func wireRow(sctx *sql.Context, schema sql.Schema, results sql.CharacterSetID, row sql.Row, proj []int, out []sqltypes.Value, arena []byte) ([]byte, bool) {
	for i, o := range proj {
		if row[o] == nil {
			out[i] = sqltypes.NULL
			continue
		}
		var ok bool
		if arena, ok = wireInto(sctx, schema[o].Type, results, row[o], &out[i], arena); !ok {
			return arena, false
		}
	}
	return arena, true
}

// wireInto converts v, a non-NULL value of type t, into *out, written
// into arena's spare capacity when the type writes into the destination
// it is given; ok=false when it does not convert.
func wireInto(sctx *sql.Context, t sql.Type, results sql.CharacterSetID, v any, out *sqltypes.Value, arena []byte) ([]byte, bool) {
	w, err := wireValue(sctx, t, results, arena[len(arena):], v)
	if err != nil {
		return arena, false
	}
	*out = w
	// A type may return bytes it wrote into the arena, part of them (a
	// float's sign dropped), or bytes of its own.
	if raw := w.Raw(); len(raw) > 0 && cap(arena) > len(arena) {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(arena[:cap(arena)])))
		at := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
		if at >= base+uintptr(len(arena)) && at < base+uintptr(cap(arena)) {
			arena = arena[:int(at-base)+len(raw)]
		}
	}
	return arena, true
}

// errScanConvert: a stored value GMS's type could not convert, after part
// of the result was sent (GMS fails such a stream too).
var errScanConvert = base.Errorf(base.ClassCorrupt, "sqlengine: a stored value does not convert to its column's type")
