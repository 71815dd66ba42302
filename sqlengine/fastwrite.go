package sqlengine

import (
	"context"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/base"
	"petrel/storage"
	"petrel/storage/keys"
)

// Write fast paths: prepared statements of the exact shapes
//
//	UPDATE [db.]t SET c = ? | c = c + <int> | c = c + ? [, ...] WHERE pk = ?
//	DELETE FROM [db.]t WHERE pk = ?
//	INSERT INTO [db.]t (every column) VALUES (?, ..., ?)
//
// on a table with a single-column integer primary key, no triggers in its
// database, no CHECK constraints and no generated columns, are executed
// here: one locked Get and one write, no planner. Anything else, and any
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

// setClause is one assignment of an UPDATE: col = ?, col = col + lit or
// col = col + ?.
type setClause struct {
	col   int
	add   bool  // col = col + ...
	param int   // index into the statement's parameters; -1 for lit
	lit   int64 // the literal added
}

// writePlan is a recognised write statement.
type writePlan struct {
	kind      writeKind
	db, table string
	qualified bool
	tableID   uint32
	ncols     int
	sets      []setClause
	pkParam   int   // parameter holding the primary key (UPDATE, DELETE)
	insCols   []int // INSERT: parameter i goes to column insCols[i]
	nparams   int

	priv privCache
}

// planWrite recognises a write fast-path statement; nil means "use GMS".
func (e *Engine) planWrite(s *Session, query string) *writePlan {
	stmt, err := ast.Parse(query)
	if err != nil {
		return nil
	}
	switch x := stmt.(type) {
	case *ast.Update:
		return e.planUpdate(s, x)
	case *ast.Delete:
		return e.planDelete(s, x)
	case *ast.Insert:
		return e.planInsert(s, x)
	}
	return nil
}

// fastTable resolves the single plain table of a write and checks it
// qualifies; the plan gets its identity.
func (e *Engine) fastTable(s *Session, te ast.TableExpr, p *writePlan) *storage.Table {
	ate, ok := te.(*ast.AliasedTableExpr)
	if !ok || ate.AsOf != nil || !ate.As.IsEmpty() || (ate.Hints != nil && len(ate.Hints.Indexes) > 0) {
		return nil
	}
	tn, ok := ate.Expr.(ast.TableName)
	if !ok {
		return nil
	}
	return e.fastTableName(s, tn, p)
}

// fastTableName is writeTable for the prepared write paths, which also
// want a single-column integer primary key (their UPDATE and DELETE find
// the row by it).
func (e *Engine) fastTableName(s *Session, tn ast.TableName, p *writePlan) *storage.Table {
	st := e.writeTable(s, tn, p)
	if st == nil || st.Hidden || len(st.Def.PK) != 1 || !isIntType(st.PKTypes[0]) {
		return nil
	}
	return st
}

// writeTable resolves the table a fast-path INSERT writes and checks it
// qualifies (no CHECK constraints, generated or ON UPDATE columns or
// triggers); the plan gets its identity.
func (e *Engine) writeTable(s *Session, tn ast.TableName, p *writePlan) *storage.Table {
	p.table, p.db = tn.Name.String(), tn.DbQualifier.String()
	p.qualified = p.db != ""
	if !p.qualified {
		p.db = s.GetCurrentDatabase()
	}
	st := e.store.Catalog().Table(p.db, p.table)
	if st == nil || len(st.Def.Checks) > 0 {
		return nil
	}
	for _, c := range st.Schema {
		if c.Generated != nil || c.OnUpdate != nil {
			return nil
		}
	}
	if d := e.store.Catalog().Database(p.db); d == nil || len(d.Def().Triggers) > 0 {
		return nil
	}
	p.tableID, p.ncols = st.Def.ID, len(st.Schema)
	return st
}

// pkWhere recognises WHERE pk = ? and returns the parameter's index.
func pkWhere(w *ast.Where, st *storage.Table, p *writePlan, params *int) bool {
	if w == nil || w.Type != ast.WhereStr {
		return false
	}
	cmp, ok := w.Expr.(*ast.ComparisonExpr)
	if !ok || cmp.Operator != ast.EqualStr {
		return false
	}
	col, ok := cmp.Left.(*ast.ColName)
	if !ok || !plainCol(col, p) || !strings.EqualFold(col.Name.String(), st.Schema[st.Def.PK[0]].Name) {
		return false
	}
	if v, ok := cmp.Right.(*ast.SQLVal); !ok || v.Type != ast.ValArg {
		return false
	}
	p.pkParam = *params
	*params++
	return true
}

// plainCol accepts col, t.col and db.t.col naming the plan's table.
func plainCol(c *ast.ColName, p *writePlan) bool {
	q := c.Qualifier.Name.String()
	if q == "" {
		return true
	}
	if db := c.Qualifier.DbQualifier.String(); db != "" && !strings.EqualFold(db, p.db) {
		return false
	}
	return strings.EqualFold(q, p.table)
}

func (e *Engine) planUpdate(s *Session, u *ast.Update) *writePlan {
	if u.With != nil || len(u.TableExprs) != 1 || u.OrderBy != nil || u.Limit != nil || u.Ignore != "" || len(u.Returning) > 0 {
		return nil
	}
	p := &writePlan{kind: writeUpdate}
	st := e.fastTable(s, u.TableExprs[0], p)
	if st == nil {
		return nil
	}
	params := 0
	seen := map[int]bool{}
	for _, ue := range u.Exprs {
		if !plainCol(ue.Name, p) {
			return nil
		}
		o := st.Schema.IndexOfColName(ue.Name.Name.String())
		if o < 0 || o == st.Def.PK[0] || seen[o] {
			return nil
		}
		seen[o] = true
		sc := setClause{col: o, param: -1}
		switch x := ue.Expr.(type) {
		case *ast.SQLVal:
			if x.Type != ast.ValArg {
				return nil
			}
			sc.param = params
			params++
		case *ast.BinaryExpr:
			c, ok := x.Left.(*ast.ColName)
			if x.Operator != ast.PlusStr || !ok || !plainCol(c, p) || !strings.EqualFold(c.Name.String(), st.Schema[o].Name) || !isIntType(st.Schema[o].Type) {
				return nil
			}
			v, ok := x.Right.(*ast.SQLVal)
			if !ok {
				return nil
			}
			sc.add = true
			switch v.Type {
			case ast.ValArg:
				sc.param = params
				params++
			case ast.IntVal:
				n, err := strconv.ParseInt(string(v.Val), 10, 64)
				if err != nil {
					return nil
				}
				sc.lit = n
			default:
				return nil
			}
		default:
			return nil
		}
		p.sets = append(p.sets, sc)
	}
	if len(p.sets) == 0 || !pkWhere(u.Where, st, p, &params) {
		return nil
	}
	p.nparams = params
	return p
}

func (e *Engine) planDelete(s *Session, d *ast.Delete) *writePlan {
	if d.With != nil || len(d.TableExprs) != 1 || len(d.Targets) > 0 || d.OrderBy != nil || d.Limit != nil || len(d.Partitions) > 0 || len(d.Returning) > 0 {
		return nil
	}
	p := &writePlan{kind: writeDelete}
	st := e.fastTable(s, d.TableExprs[0], p)
	if st == nil {
		return nil
	}
	params := 0
	if !pkWhere(d.Where, st, p, &params) {
		return nil
	}
	p.nparams = params
	return p
}

func (e *Engine) planInsert(s *Session, in *ast.Insert) *writePlan {
	if in.Action != ast.InsertStr || in.Ignore != "" || len(in.OnDup) > 0 || len(in.Partitions) > 0 || in.With != nil || len(in.Returning) > 0 {
		return nil
	}
	var vals ast.Values
	switch r := in.Rows.(type) {
	case ast.Values:
		vals = r
	case *ast.AliasedValues:
		if !r.As.IsEmpty() {
			return nil
		}
		vals = r.Values
	}
	if len(vals) != 1 {
		return nil
	}
	p := &writePlan{kind: writeInsert}
	st := e.fastTableName(s, in.Table, p)
	if st == nil || len(in.Columns) != len(st.Schema) || len(vals[0]) != len(st.Schema) {
		return nil
	}
	seen := map[int]bool{}
	for i, c := range in.Columns {
		o := st.Schema.IndexOfColName(c.String())
		if o < 0 || seen[o] {
			return nil
		}
		seen[o] = true
		if v, ok := vals[0][i].(*ast.SQLVal); !ok || v.Type != ast.ValArg {
			return nil
		}
		p.insCols = append(p.insCols, o)
	}
	p.nparams = len(st.Schema)
	return p
}

// bindValue turns a bound parameter into a Go value for Convert; ok=false
// for types the fast path leaves to GMS.
func bindValue(bv *querypb.BindVariable) (any, bool) {
	if bv == nil {
		return nil, false
	}
	switch {
	case bv.Type == sqltypes.Null:
		return nil, true
	case sqltypes.IsSigned(bv.Type):
		n, err := strconv.ParseInt(string(bv.Value), 10, 64)
		return n, err == nil
	case sqltypes.IsUnsigned(bv.Type):
		n, err := strconv.ParseUint(string(bv.Value), 10, 64)
		return n, err == nil
	case sqltypes.IsText(bv.Type) || sqltypes.IsBinary(bv.Type):
		// Strings arrive as MYSQL_TYPE_STRING/VAR_STRING, which the
		// protocol layer calls binary.
		return string(bv.Value), true
	}
	return nil, false
}

// convert fits v into column o's type, as GMS's INSERT and UPDATE do;
// ok=false when it does not fit exactly (GMS then decides: error, warning
// or truncation).
func convert(ctx *sql.Context, st *storage.Table, o int, v any) (any, bool) {
	col := st.Schema[o]
	if v == nil {
		return nil, col.Nullable
	}
	// MySQL's storing rules first (storevalue.go): a value they would
	// clip, truncate or refuse is GMS's to store, with its warning or
	// error.
	v, err := storeValue(ctx, storeMode{strict: true, exact: true}, col, v, 1)
	if err != nil {
		return nil, false
	}
	cv, inRange, err := col.Type.Convert(ctx, v)
	if err != nil || inRange != sql.InRange {
		return nil, false
	}
	if ts, ok := cv.(types.Timespan); ok && st.Def.Columns[o].TimeFSP() < 6 {
		cv = roundTimespan(ctx, ts, st.Def.Columns[o].TimeFSP())
	}
	return cv, true
}

// execWrite runs a write plan. ok=false means "let GMS do it" (nothing of
// the statement is left behind).
func (e *Engine) execWrite(ctx context.Context, s *Session, p *writePlan, bind map[string]*querypb.BindVariable, cb func(*sqltypes.Result) error) (ok bool, err error) {
	if len(bind) != p.nparams {
		return false, nil
	}
	param := func(i int) (any, bool) { return bindValue(bind["v"+strconv.Itoa(i+1)]) }
	return e.runWrite(ctx, s, p, []func(int) (any, bool){param}, cb)
}

// runWrite runs a write plan with its values: one row's for an UPDATE or
// DELETE, one or more rows' for an INSERT (the text path's multi-row
// VALUES). ok=false means "let GMS do it" (nothing of the statement is
// left behind).
func (e *Engine) runWrite(ctx context.Context, s *Session, p *writePlan, rows []func(int) (any, bool), cb func(*sqltypes.Result) error) (ok bool, err error) {
	if len(rows) == 0 || (p.kind != writeInsert && len(rows) != 1) {
		return false, nil
	}
	if !p.qualified && !strings.EqualFold(s.GetCurrentDatabase(), p.db) {
		return false, nil
	}
	st := e.store.Catalog().Table(p.db, p.table)
	if st == nil || st.Def.ID != p.tableID || len(st.Schema) != p.ncols {
		return false, nil
	}
	param := rows[0]
	sctx := e.NewContext(ctx, s)
	if !e.canWrite(sctx, s, p) || e.checkWritable(sctx) != nil {
		return false, nil
	}

	// The transaction: the session's explicit one, or an autocommit one.
	var txn *storage.Txn
	var explicit *Transaction
	if t, ok := s.GetTransaction().(*Transaction); ok && t != nil {
		if t.abort != nil || t.readOnly {
			return false, nil
		}
		explicit, txn = t, t.txn
		s.statementStart(t)
	} else {
		if !s.autocommit() || s.nextIso != nil || s.nextReadOnly != nil || s.sessionReadOnly() {
			return false, nil // GMS opens the implicit transaction
		}
		txn = e.store.Begin()
		txn.SetSession(s.ID())
		runTxnHook(sctx, s, txn)
		if d := s.lockWaitTimeout(sctx); d > 0 {
			txn.SetLockTimeout(d)
		}
		defer txn.Rollback() // no-op once committed
	}

	var key []byte
	if p.kind != writeInsert {
		kv, ok := param(p.pkParam)
		if !ok || kv == nil {
			return false, nil
		}
		cv, ok := convert(sctx, st, st.Def.PK[0], kv)
		if !ok {
			return false, nil
		}
		if key, err = st.PKKeyFromValues([]any{cv}); err != nil {
			return false, nil
		}
	}

	txn.StatementBegin()
	res, fallback, werr := e.writeRow(sctx, txn, st, p, key, param)
	for _, more := range rows[1:] {
		if werr != nil || fallback {
			break
		}
		var r *sqltypes.Result
		if r, fallback, werr = e.writeRow(sctx, txn, st, p, key, more); werr == nil && !fallback {
			res.RowsAffected += r.RowsAffected
		}
	}
	txn.SetLockingReads(false)
	if werr == nil && !fallback {
		txn.StatementComplete()
		if explicit == nil {
			if err := txn.Commit(ctx); err != nil {
				return true, s.commitError(err)
			}
		}
		s.ClearWarnings()
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
			explicit.abort = toMySQLError(werr)
		}
		return true, toMySQLError(werr)
	case werr != nil && c == base.ClassLockTimeout:
		if rerr := txn.StatementRollback(); rerr != nil {
			return true, toMySQLError(rerr)
		}
		return true, toMySQLError(werr)
	}
	if rerr := txn.StatementRollback(); rerr != nil {
		return true, toMySQLError(rerr)
	}
	return false, nil
}

// writeRow does the statement's one row edit.
func (e *Engine) writeRow(ctx *sql.Context, txn *storage.Txn, st *storage.Table, p *writePlan, key []byte, param func(int) (any, bool)) (*sqltypes.Result, bool, error) {
	switch p.kind {
	case writeInsert:
		row := make(sql.Row, len(st.Schema))
		for i, o := range p.insCols {
			v, ok := param(i)
			if !ok {
				return nil, true, nil
			}
			cv, ok := convert(ctx, st, o, v)
			if !ok {
				return nil, true, nil
			}
			row[o] = cv
		}
		res := &sqltypes.Result{RowsAffected: 1}
		for o, c := range st.Schema {
			if !c.AutoIncrement {
				continue
			}
			n, ok := toUint64(row[o])
			if !ok || n == 0 {
				return nil, true, nil // GMS allocates the value
			}
			st.NextAutoIncrement(n)
			res.InsertID = n
		}
		if keys.CheckRow(st.Schema, nil, row) != nil {
			return nil, true, nil // GMS gives the error (1366)
		}
		if err := txn.Insert(ctx, st, row); err != nil {
			return nil, !isLockError(err), err
		}
		return res, false, nil
	case writeDelete:
		txn.SetLockingReads(true)
		old, err := txn.Point(ctx, st, key)
		if err != nil {
			return nil, !isLockError(err), err
		}
		if old == nil {
			return &sqltypes.Result{}, false, nil
		}
		if err := txn.Delete(ctx, st, old); err != nil {
			return nil, !isLockError(err), err
		}
		return &sqltypes.Result{RowsAffected: 1}, false, nil
	}
	txn.SetLockingReads(true)
	old, err := txn.Point(ctx, st, key)
	if err != nil {
		return nil, !isLockError(err), err
	}
	if old == nil {
		return &sqltypes.Result{Info: "Rows matched: 0  Changed: 0  Warnings: 0"}, false, nil
	}
	nw := old.Copy()
	for _, sc := range p.sets {
		var v any
		if sc.param >= 0 {
			pv, ok := param(sc.param)
			if !ok {
				return nil, true, nil
			}
			v = pv
		}
		if sc.add {
			base, ok := toInt64Strict(old[sc.col])
			if !ok || old[sc.col] == nil {
				return nil, true, nil
			}
			d := sc.lit
			if sc.param >= 0 {
				if d, ok = toInt64Strict(v); !ok {
					return nil, true, nil
				}
			}
			sum := base + d
			if (d > 0 && sum < base) || (d < 0 && sum > base) {
				return nil, true, nil
			}
			v = sum
		}
		cv, ok := convert(ctx, st, sc.col, v)
		if !ok {
			return nil, true, nil
		}
		nw[sc.col] = cv
	}
	eq, err := rowsIdentical(ctx, old, nw, st.Schema)
	if err != nil {
		return nil, true, nil
	}
	if eq {
		return &sqltypes.Result{Info: "Rows matched: 1  Changed: 0  Warnings: 0"}, false, nil
	}
	if keys.CheckRow(st.Schema, old, nw) != nil {
		return nil, true, nil // GMS gives the error (1366)
	}
	if err := txn.Update(ctx, st, old, nw); err != nil {
		return nil, !isLockError(err), err
	}
	return &sqltypes.Result{RowsAffected: 1, Info: "Rows matched: 1  Changed: 1  Warnings: 0"}, false, nil
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
	case bool:
		return 0, false
	}
	return toInt64(v)
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
func (e *Engine) canWrite(ctx *sql.Context, s *Session, p *writePlan) bool {
	var privs []sql.PrivilegeType
	switch p.kind {
	case writeInsert:
		privs = []sql.PrivilegeType{sql.PrivilegeType_Insert}
	case writeUpdate:
		privs = []sql.PrivilegeType{sql.PrivilegeType_Update, sql.PrivilegeType_Select}
	case writeDelete:
		privs = []sql.PrivilegeType{sql.PrivilegeType_Delete, sql.PrivilegeType_Select}
	}
	return p.priv.allowed(ctx, e.gms.Analyzer.Catalog.MySQLDb, p.db, p.table, privs...)
}

// Prepared BEGIN / START TRANSACTION and COMMIT (sysbench prepares them)
// run without the planner, doing exactly what GMS's nodes do.
const (
	txnBegin  = "begin"
	txnCommit = "commit"
)

func txnStatement(q string) string {
	switch strings.ToUpper(strings.Join(strings.Fields(strings.TrimRight(strings.TrimSpace(q), ";")), " ")) {
	case "BEGIN", "START TRANSACTION", "BEGIN WORK":
		return txnBegin
	case "COMMIT", "COMMIT WORK":
		return txnCommit
	}
	return ""
}

// execTxnStatement runs BEGIN or COMMIT; ok=false means "let GMS do it".
func (e *Engine) execTxnStatement(ctx context.Context, s *Session, kind string, cb func(*sqltypes.Result) error) (bool, error) {
	sctx := e.NewContext(ctx, s)
	cur, _ := s.GetTransaction().(*Transaction)
	switch kind {
	case txnBegin:
		if s.GetTransaction() != nil {
			return false, nil // GMS commits the open one first
		}
		tx, err := s.StartTransaction(sctx, sql.ReadWrite)
		if err != nil {
			return true, toMySQLError(err)
		}
		tx.(*Transaction).isoFixed = true // as START TRANSACTION's
		s.SetTransaction(tx)
		s.SetIgnoreAutoCommit(true)
	case txnCommit:
		if s.GetTransaction() == nil {
			break
		}
		if cur == nil || cur.abort != nil {
			return false, nil
		}
		err := s.CommitTransaction(sctx, cur)
		s.SetIgnoreAutoCommit(false)
		s.SetTransaction(nil)
		if err != nil {
			return true, err
		}
	default:
		return false, nil
	}
	s.ClearWarnings()
	return true, cb(&sqltypes.Result{})
}
