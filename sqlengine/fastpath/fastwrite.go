package fastpath

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/shopspring/decimal"

	"petrel/internal/base"
	"petrel/internal/mysqlerr"
	"petrel/sqlengine"
	"petrel/storage"
	"petrel/storage/keys"
)

// Write fast paths: prepared statements of the exact shapes
//
//	UPDATE [db.]t SET c = ? | c = c + x | c = c - x | c = ? + lit [, ...] WHERE <whole primary key>
//	DELETE FROM [db.]t WHERE <whole primary key>
//	INSERT INTO [db.]t [(columns)] VALUES (?, ..., ?)[, (?, ..., ?)...]
//
// (x a parameter or a number; the key conditions are fastkey.go's: every
// column of an integer primary key by equality, or an IN list of keys)
// on a table with no triggers in its database, no CHECK constraints and
// no generated columns, are executed here: one locked Get and one write
// per key, in key order, no planner. An INSERT may leave out nullable
// columns that have no default (they are NULL). Anything else, and any
// doubt at execution (schema changed, a value the column type does not
// take cleanly, an error other than a lock wait or deadlock), falls back
// to GMS, after rolling back whatever the statement did: GMS stays the
// reference behaviour and produces the canonical errors.

type writeKind int

const (
	writeUpdate writeKind = iota + 1
	writeDelete
	writeInsert
)

// execWrite runs a write plan. ok=false means "let GMS do it" (nothing of
// the statement is left behind).
func (e *Executor) execWrite(ctx context.Context, s *sqlengine.Session, p *writePlan, bind map[string]*querypb.BindVariable, cb func(*sqltypes.Result) error) (ok bool, err error) {
	if len(bind) != p.nparams {
		return false, nil
	}
	if p.kind == writeInsert && p.insRows > 1 {
		n := len(p.insCols)
		rows := make([]func(int) (any, bool), p.insRows)
		for r := range rows {
			rows[r] = func(i int) (any, bool) { return bindValue(bind["v"+strconv.Itoa(r*n+i+1)]) }
		}
		return e.runWrite(ctx, s, p, rows, cb)
	}
	param := func(i int) (any, bool) { return bindValue(bind["v"+strconv.Itoa(i+1)]) }
	return e.runWrite(ctx, s, p, []func(int) (any, bool){param}, cb)
}

// runWrite runs a write plan with its values: one row's for an UPDATE or
// DELETE, one or more rows' for an INSERT (the text path's multi-row
// VALUES). ok=false means "let GMS do it" (nothing of the statement is
// left behind).
func (e *Executor) runWrite(ctx context.Context, s *sqlengine.Session, p *writePlan, rows []func(int) (any, bool), cb func(*sqltypes.Result) error) (ok bool, err error) {
	if len(rows) == 0 || (p.kind != writeInsert && len(rows) != 1) {
		return false, nil
	}
	if !p.qualified && !strings.EqualFold(s.GetCurrentDatabase(), p.db) {
		return false, nil
	}
	st := e.store.Catalog().Table(p.db, p.table)
	if st == nil || st.Def.ID != p.tableID || len(st.Schema) != p.ncols || st.InForeignKey() {
		return false, nil
	}
	param := rows[0]
	sctx := e.NewContext(ctx, s)
	if !e.canWrite(sctx, s, p) || e.e.CheckWritable(sctx) != nil {
		return false, nil
	}

	// The transaction: the session's explicit one, or an autocommit one.
	var txn *storage.Txn
	var explicit *sqlengine.Transaction
	if t, ok := s.GetTransaction().(*sqlengine.Transaction); ok && t != nil {
		if t.Aborted() != nil || t.ReadOnly() {
			return false, nil
		}
		explicit, txn = t, t.Storage()
		s.StatementStart(t)
	} else {
		if !s.Autocommit() || s.TxnCharacteristicsPending(false) || s.TxnCharacteristicsPending(true) || s.ReadOnlySession() {
			return false, nil // GMS opens the implicit transaction
		}
		txn = e.store.Begin()
		txn.SetSession(s.ID())
		sqlengine.RunTxnHook(sctx, s, txn)
		if d := s.LockWaitTimeout(sctx); d > 0 {
			txn.SetLockTimeout(d)
		}
		defer txn.Rollback() // no-op once committed
	}

	var keyList [][]byte
	if p.kind != writeInsert {
		var ok bool
		keyList, ok = encodeKeys(st, p.keys, func(pos int, v any) (any, bool) { return convert(sctx, st, st.Def.PK[pos], v) }, param)
		if !ok {
			return false, nil
		}
	}
	txn.StatementBegin()
	var ed rowEdit
	var fallback bool
	var werr error
	if p.kind == writeInsert {
		for r, values := range rows {
			ed.row = r + 1
			if fallback, werr = e.writeRow(sctx, txn, st, p, nil, values, &ed); werr != nil || fallback {
				break
			}
		}
	} else {
		if p.prefix {
			// Each prefix's rows (the prefixes are distinct, so their
			// ranges are disjoint, and in key order), locked in key order
			// as the scan reads them, then edited as read, a prefix at a
			// time: the transaction keeps the last rows it read under
			// their locks (storage/lockedread.go, 16 of them), and
			// DELIVERY's ten orders of about ten lines each would
			// otherwise be read again from Pebble by the UPDATE for all
			// but the last 16 lines. The primary key is never SET here,
			// so an edited row stays in its prefix.
			for _, lo := range keyList {
				var locked []sql.Row
				if locked, werr = lockedRows(ctx, txn, st, [][]byte{lo}); werr != nil {
					break
				}
				for _, old := range locked {
					if fallback, werr = e.editRow(sctx, txn, st, p, old, param, &ed); werr != nil || fallback {
						break
					}
				}
				if werr != nil || fallback {
					break
				}
			}
			keyList = nil
		}
		for _, k := range keyList {
			if fallback, werr = e.writeRow(sctx, txn, st, p, k, param, &ed); werr != nil || fallback {
				break
			}
		}
	}
	res := ed.result(p.kind)
	txn.SetLockingReads(false)
	if werr == nil && !fallback {
		txn.StatementComplete()
		if explicit == nil {
			if err := txn.Commit(ctx); err != nil {
				return true, s.CommitError(err)
			}
		}
		s.ClearWarnings()
		for i := range ed.notes {
			s.Warn(&ed.notes[i])
		}
		s.SetLastQueryInfoInt(sql.RowCount, int64(res.RowsAffected))
		e.fastWriteCount.Add(1)
		return true, cb(res)
	}
	// Undo the statement; a lock wait timeout or a deadlock is answered
	// here (a retry through GMS would wait again), anything else by GMS.
	switch c := base.ClassOf(werr); {
	case werr != nil && c == base.ClassDeadlock:
		txn.Rollback()
		if explicit != nil {
			explicit.Abort(werr)
		}
		return true, sqlengine.ToMySQLError(werr)
	case werr != nil && c == base.ClassLockTimeout:
		if rerr := txn.StatementRollback(); rerr != nil {
			return true, sqlengine.ToMySQLError(rerr)
		}
		return true, sqlengine.ToMySQLError(werr)
	}
	if rerr := txn.StatementRollback(); rerr != nil {
		return true, sqlengine.ToMySQLError(rerr)
	}
	return false, nil
}

// lockedRows is the rows under each of the key prefixes (in order, each
// a range of the primary key), read with locking reads: each row's
// latest version, locked.
func lockedRows(ctx context.Context, txn *storage.Txn, st *storage.Table, prefixes [][]byte) ([]sql.Row, error) {
	txn.SetLockingReads(true)
	var out []sql.Row
	for _, lo := range prefixes {
		it, err := txn.Scan(ctx, st, 0, lo, keys.PrefixSuccessor(lo), false)
		if err != nil {
			return nil, err
		}
		for {
			row, err := it.Next()
			if err != nil {
				it.Close()
				return nil, err
			}
			if row == nil {
				break
			}
			out = append(out, row)
		}
		it.Close()
	}
	return out, nil
}

// rowEdit counts what a write statement did.
type rowEdit struct {
	affected, matched uint64
	insertID          uint64
	// row is the row the values being stored belong to, as the notes
	// number it; notes are the statement's notes, filed once it succeeds.
	row   int
	notes []sql.Warning
}

// store is convert for a value stored into column o (an INSERT's value,
// an UPDATE's SET value; never a key looked up): a DOUBLE or DECIMAL
// with more fractional digits than a DECIMAL column keeps is rounded to
// its scale, with MySQL's note 1265, as the storing rules do outside
// strict exactness (storeval/storevalue.go's storeDecimal: a note in every mode).
// TPC-C's amounts are DOUBLE parameters (an order line's price times its
// quantity: 137.01000000000002), and such rows went to GMS whole.
func (ed *rowEdit) store(ctx *sql.Context, st *storage.Table, o int, v any) (any, bool) {
	if cv, ok := convert(ctx, st, o, v); ok {
		return cv, true
	}
	col := st.Schema[o]
	r, ok := roundedDecimal(col, v)
	if !ok {
		return nil, false
	}
	ed.notes = append(ed.notes, sql.Warning{Level: "Note", Code: mysqlerr.ErWarnDataTruncated,
		Message: fmt.Sprintf("Data truncated for column '%s' at row %d", col.Name, ed.row)})
	return r, true
}

// roundedDecimal is v, a DOUBLE or DECIMAL, rounded to the scale of col,
// a DECIMAL column, as storeDecimal rounds it (a DOUBLE taken as
// decimal.NewFromFloat has it); ok only when digits were rounded away
// and the result is in the column's range (anything else is GMS's).
func roundedDecimal(col *sql.Column, v any) (decimal.Decimal, bool) {
	dt, ok := col.Type.(sql.DecimalType)
	if !ok {
		return decimal.Decimal{}, false
	}
	var d decimal.Decimal
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return decimal.Decimal{}, false
		}
		d = decimal.NewFromFloat(x)
	case decimal.Decimal:
		d = x
	default:
		return decimal.Decimal{}, false
	}
	r := d.Round(int32(dt.Scale()))
	if r.Equal(d) || !keys.DecimalFits(col.Type, r) {
		return decimal.Decimal{}, false
	}
	return r, true
}

// result is the statement's OK: an UPDATE's info text as MySQL words it.
func (ed *rowEdit) result(kind writeKind) *sqltypes.Result {
	res := &sqltypes.Result{RowsAffected: ed.affected, InsertID: ed.insertID}
	if kind == writeUpdate {
		res.Info = updateInfo(ed.matched, ed.affected)
	}
	return res
}

// updateInfos holds the info texts of UPDATEs of up to 16 rows, made
// once: an UPDATE's OK formatted its text each time.
var updateInfos = func() (t [17][17]string) {
	for m := range t {
		for c := range t[m] {
			t[m][c] = fmt.Sprintf("Rows matched: %d  Changed: %d  Warnings: 0", m, c)
		}
	}
	return t
}()

// updateInfo is an UPDATE's info text as MySQL words it.
func updateInfo(matched, changed uint64) string {
	if matched < 17 && changed < 17 {
		return updateInfos[matched][changed]
	}
	return fmt.Sprintf("Rows matched: %d  Changed: %d  Warnings: 0", matched, changed)
}

// writeRow does one row edit of the statement: the row inserted with
// param's values, or the row of key updated or deleted.
func (e *Executor) writeRow(ctx *sql.Context, txn *storage.Txn, st *storage.Table, p *writePlan, key []byte, param func(int) (any, bool), ed *rowEdit) (bool, error) {
	if p.kind == writeInsert {
		row := make(sql.Row, len(st.Schema))
		for i, o := range p.insCols {
			v, ok := param(i)
			if !ok {
				return true, nil
			}
			cv, ok := ed.store(ctx, st, o, v)
			if !ok {
				return true, nil
			}
			row[o] = cv
		}
		for o, c := range st.Schema {
			if !c.AutoIncrement {
				continue
			}
			n, ok := toUint64(row[o])
			if !ok || n == 0 {
				return true, nil // GMS allocates the value
			}
			st.NextAutoIncrement(n)
			ed.insertID = n
		}
		if keys.CheckRow(st.Schema, nil, row) != nil {
			return true, nil // GMS gives the error (1366)
		}
		if err := txn.Insert(ctx, st, row); err != nil {
			return !isLockError(err), err
		}
		ed.affected++
		return false, nil
	}
	// UPDATE, DELETE: the row of key, read with a lock.
	txn.SetLockingReads(true)
	old, err := txn.Point(ctx, st, key)
	if err != nil {
		return !isLockError(err), err
	}
	if old == nil {
		return false, nil
	}
	return e.editRow(ctx, txn, st, p, old, param, ed)
}

// editRow updates or deletes old, a row the statement read with a lock.
func (e *Executor) editRow(ctx *sql.Context, txn *storage.Txn, st *storage.Table, p *writePlan, old sql.Row, param func(int) (any, bool), ed *rowEdit) (bool, error) {
	if p.kind == writeDelete {
		if err := txn.Delete(ctx, st, old); err != nil {
			return !isLockError(err), err
		}
		ed.affected++
		return false, nil
	}
	ed.matched++
	nw := old.Copy()
	for _, sc := range p.sets {
		v, ok := setValue(sc, old, param)
		if !ok {
			return true, nil
		}
		ed.row = 1 // an UPDATE's notes name row 1, as GMS's do (storeExpr)
		cv, ok := ed.store(ctx, st, sc.col, v)
		if !ok {
			return true, nil
		}
		nw[sc.col] = cv
	}
	eq, err := sqlengine.RowsIdentical(ctx, old, nw, st.Schema)
	if err != nil {
		return true, nil
	}
	if eq {
		return false, nil
	}
	if keys.CheckRow(st.Schema, old, nw) != nil {
		return true, nil // GMS gives the error (1366)
	}
	// old is the row the locking read returned, unmodified: UpdateRead
	// takes it as the stored row instead of decoding that again.
	if err := txn.UpdateRead(ctx, st, old, nw); err != nil {
		return !isLockError(err), err
	}
	ed.affected++
	return false, nil
}

// setValue is the value an assignment gives a row whose stored values are
// old; ok=false leaves the statement to GMS.
func setValue(sc setClause, old sql.Row, param func(int) (any, bool)) (any, bool) {
	var operand any = sc.lit
	if sc.param >= 0 {
		pv, ok := param(sc.param)
		if !ok {
			return nil, false
		}
		if !sc.add {
			return pv, true
		}
		operand = pv
	}
	base := old[sc.col]
	if sc.onParam {
		pv, ok := param(sc.base)
		if !ok {
			return nil, false
		}
		base = pv
	}
	return addValues(base, operand, sc.sub)
}

func isLockError(err error) bool {
	c := base.ClassOf(err)
	return c == base.ClassDeadlock || c == base.ClassLockTimeout
}

// toInt64Strict reads a signed integer column value or parameter.
func toInt64Strict(v any) (int64, bool) {
	switch x := v.(type) {
	case uint64:
		if x > 1<<63-1 {
			return 0, false
		}
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint8:
		return int64(x), true
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	case int:
		return int64(x), true
	}
	return 0, false
}

func toUint64(v any) (uint64, bool) {
	switch x := v.(type) {
	case uint64:
		return x, true
	case nil:
		return 0, false
	}
	n, ok := toInt64Strict(v)
	if !ok || n < 0 {
		return 0, false
	}
	return uint64(n), true
}

// canWrite checks the statement's privileges (once per plan, account and
// grants generation).
func (e *Executor) canWrite(ctx *sql.Context, s *sqlengine.Session, p *writePlan) bool {
	var privs []sql.PrivilegeType
	switch p.kind {
	case writeInsert:
		privs = []sql.PrivilegeType{sql.PrivilegeType_Insert}
	case writeUpdate:
		privs = []sql.PrivilegeType{sql.PrivilegeType_Update, sql.PrivilegeType_Select}
	case writeDelete:
		privs = []sql.PrivilegeType{sql.PrivilegeType_Delete, sql.PrivilegeType_Select}
	}
	return p.priv.allowed(ctx, e.e.Grants(), p.db, p.table, privs...)
}
