package fastpath

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/base"
	"petrel/sqlengine"
	"petrel/storage"
)

// The point-select fast path. GMS re-binds and re-analyses every execution
// of a prepared statement, which costs more CPU than the lookup itself.
// Prepared statements of the shape
//
//	SELECT col, ... | * FROM [db.]t WHERE <whole primary key> [FOR UPDATE | LOCK IN SHARE MODE]
//
// on a table with an integer primary key of one or more columns, the key
// given by parameters (fastkey.go: k1 = ? AND k2 = ?, or an IN list of
// keys), are executed here instead: one storage Get per key, in key
// order, no planner. A lock clause is taken inside an explicit
// transaction only (as exclusive locks, as the GMS path takes them).
// Anything else, and any doubt at execution time (schema changed,
// different current database, a type the fast path does not convert),
// falls back to GMS, which stays the reference behaviour.

// pointPlan is a prepared point select recognised at prepare time.
type pointPlan struct {
	db, table string
	qualified bool
	tableID   uint32
	ncols     int
	proj      []int
	fields    []*querypb.Field
	// results is the character_set_results the fields were made for; a
	// session that changed it since gets GMS's fields.
	results sql.CharacterSetID
	// priv remembers whose SELECT privilege was verified.
	priv privCache
	// keys: the parameters of each primary key read (point selects);
	// nbinds the statement's parameters; lock: FOR UPDATE or a shared
	// lock clause.
	keys   []keyParams
	nbinds int
	lock   bool
	// want flags the columns the statement reads, for a partial decode
	// (wantColumns; nil: all).
	want []bool
}

// wantColumns flags the schema ordinals proj of a table of ncols columns
// for storage's PointColumns; nil when proj names every column (a whole
// decode costs no more).
func wantColumns(proj []int, ncols int) []bool {
	want := make([]bool, ncols)
	n := 0
	for _, o := range proj {
		if o >= 0 && o < ncols && !want[o] {
			want[o] = true
			n++
		}
	}
	if n == ncols {
		return nil
	}
	return want
}

// fastPlans caches fast-path plans per connection and statement text.
type fastPlans struct {
	mu    sync.Mutex
	plans map[uint32]map[string]fastPlan
}

// fastPlan is one statement's plan: a point select or a write.
type fastPlan struct {
	// head: the catalog and session state the plan was made under
	// (fastgate.go).
	head   planHead
	point  *pointPlan
	write  *writePlan
	rng    *rangePlan
	index  *indexPlan
	prefix *prefixPlan
	join   *joinPlan
	count  *countJoinPlan
	gsum   *groupSumPlan
	txn    string // txnBegin or txnCommit
}

// any reports whether p holds a plan.
func (p fastPlan) any() bool {
	return p.point != nil || p.write != nil || p.rng != nil || p.index != nil || p.prefix != nil || p.join != nil || p.count != nil || p.gsum != nil || p.txn != ""
}

func (f *fastPlans) get(conn uint32, q string) fastPlan {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.plans[conn][q]
}

// put sets q's plan on conn; a plan with nothing in it removes q's (a
// statement prepared again that no fast path takes any more).
func (f *fastPlans) put(conn uint32, q string, p fastPlan) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !p.any() {
		delete(f.plans[conn], q)
		return
	}
	if f.plans == nil {
		f.plans = map[uint32]map[string]fastPlan{}
	}
	m := f.plans[conn]
	if m == nil {
		m = map[string]fastPlan{}
		f.plans[conn] = m
	}
	if len(m) < 256 {
		m[q] = p
	}
}

func (f *fastPlans) drop(conn uint32) {
	f.mu.Lock()
	delete(f.plans, conn)
	f.mu.Unlock()
}

// plainSelect parses query as a SELECT the fast paths may take: one
// table without AS OF or index hints, a WHERE, and no DISTINCT, GROUP BY,
// HAVING, ORDER BY, LIMIT, locking clause, INTO, window or
// SQL_CALC_FOUND_ROWS. Nil when it is not one.
func plainSelect(query string) (*ast.Select, *ast.AliasedTableExpr) {
	sel, ate := lockingSelect(query)
	if sel == nil || sel.Lock != "" {
		return nil, nil
	}
	return sel, ate
}

// lockingSelect is plainSelect that also takes FOR UPDATE and LOCK IN
// SHARE MODE (not SKIP LOCKED or NOWAIT).
func lockingSelect(query string) (*ast.Select, *ast.AliasedTableExpr) {
	sel, ate := selectShape(query)
	if sel == nil || sel.OrderBy != nil || sel.Limit != nil {
		return nil, nil
	}
	return sel, ate
}

// selectShape parses query as a SELECT of one table without AS OF or
// index hints, with a WHERE, and no DISTINCT, GROUP BY, HAVING, INTO,
// window, SQL_CALC_FOUND_ROWS or lock clause other than FOR UPDATE and
// LOCK IN SHARE MODE; ORDER BY and LIMIT are the caller's to check.
func selectShape(query string) (*ast.Select, *ast.AliasedTableExpr) {
	stmt, err := ast.Parse(query)
	if err != nil {
		return nil, nil
	}
	sel, ok := stmt.(*ast.Select)
	if !ok || sel.With != nil || sel.QueryOpts.Distinct || sel.GroupBy != nil || sel.Having != nil ||
		sel.Into != nil || len(sel.From) != 1 || sel.Where == nil || sel.Where.Type != ast.WhereStr ||
		len(sel.Window) > 0 || sel.QueryOpts.SQLCalcFoundRows {
		return nil, nil
	}
	switch sel.Lock {
	case "", ast.ForUpdateStr, ast.ShareModeStr:
	default:
		return nil, nil
	}
	ate, ok := sel.From[0].(*ast.AliasedTableExpr)
	if !ok || ate.AsOf != nil || (ate.Hints != nil && len(ate.Hints.Indexes) > 0) {
		return nil, nil
	}
	return sel, ate
}

// resolve names p's table as tn does (the session's current database when
// unqualified) and returns it from the catalog, nil when there is none.
func (p *pointPlan) resolve(e *Executor, s *sqlengine.Session, tn ast.TableName) *storage.Table {
	p.table, p.db = tn.Name.String(), tn.DbQualifier.String()
	p.qualified = p.db != ""
	if !p.qualified {
		p.db = s.GetCurrentDatabase()
	}
	return e.store.Catalog().Table(p.db, p.table)
}

// planPointSelect recognises a point select; nil means "use GMS".
func (e *Executor) planPointSelect(s *sqlengine.Session, query string, fields []*querypb.Field) *pointPlan {
	sel, ate := lockingSelect(query)
	if sel == nil {
		return nil
	}
	tn, ok := ate.Expr.(ast.TableName)
	if !ok {
		return nil
	}
	if !readSessionOK(s) {
		return nil
	}
	alias := ate.As.String()
	p := &pointPlan{lock: sel.Lock != ""}
	st := p.resolve(e, s, tn)
	if !intKey(st) {
		return nil
	}
	p.tableID, p.ncols = st.Def.ID, len(st.Schema)
	p.keys = keyCond(sel.Where.Expr, st, func(c *ast.ColName) bool { return sameTable(c, p, alias) })
	if p.keys == nil {
		return nil
	}
	p.nbinds = countParams(p.keys)
	proj, ok := selectColumns(sel.SelectExprs, st, p, alias, false)
	if !ok {
		return nil
	}
	p.proj = proj
	if len(fields) != len(p.proj) {
		return nil
	}
	p.want = wantColumns(proj, p.ncols)
	p.fields, p.results = fields, s.GetCharacterSetResults()
	return p
}

func sameTable(c *ast.ColName, p *pointPlan, alias string) bool {
	q := c.Qualifier.Name.String()
	if q == "" {
		return true
	}
	if db := c.Qualifier.DbQualifier.String(); db != "" && !strings.EqualFold(db, p.db) {
		return false
	}
	return strings.EqualFold(q, p.table) || (alias != "" && strings.EqualFold(q, alias))
}

func isIntType(t sql.Type) bool {
	switch t.Type() {
	case sqltypes.Int8, sqltypes.Int16, sqltypes.Int24, sqltypes.Int32, sqltypes.Int64,
		sqltypes.Uint8, sqltypes.Uint16, sqltypes.Uint24, sqltypes.Uint32, sqltypes.Uint64:
		return true
	}
	return false
}

// execPointSelect runs a point plan. ok=false means "let GMS do it".
func (e *Executor) execPointSelect(ctx context.Context, s *sqlengine.Session, p *pointPlan, bind map[string]*querypb.BindVariable, cb func(*sqltypes.Result) error) (ok bool, err error) {
	if (!p.qualified && !strings.EqualFold(s.GetCurrentDatabase(), p.db)) || s.GetCharacterSetResults() != p.results {
		return false, nil
	}
	st := e.store.Catalog().Table(p.db, p.table)
	if st == nil || st.Def.ID != p.tableID || len(st.Schema) != p.ncols {
		return false, nil
	}
	if len(bind) != p.nbinds {
		return false, nil
	}
	sctx := e.NewContext(ctx, s)
	if !e.canSelect(sctx, s, p) {
		return false, nil
	}
	keyVals, ok := encodeKeys(st, p.keys, func(pos int, v any) (any, bool) {
		cv, inRange, err := st.PKTypes[pos].Convert(sctx, v)
		return cv, err == nil && inRange == sql.InRange
	}, func(i int) (any, bool) { return intBind(bind["v"+strconv.Itoa(i+1)]) })
	if !ok {
		return false, nil
	}
	rt, ok := e.fastReadTxn(s, p.lock, len(keyVals) == 1)
	if !ok {
		return false, nil
	}
	defer rt.done()
	txn := rt.txn
	res := &sqltypes.Result{Fields: p.fields}
	for _, k := range keyVals {
		row, err := txn.PointColumns(ctx, st, k, p.want)
		if err != nil {
			return true, rt.fail(err)
		}
		if row == nil {
			continue
		}
		out, ok := projectRow(sctx, st.Schema, p.results, row, p.proj)
		if !ok {
			return false, nil
		}
		res.Rows = append(res.Rows, out)
	}
	return true, sendRead(s, res, cb)
}

// sendRead sends a fast read's result and leaves the session as GMS
// leaves it after a SELECT: the previous statement's warnings cleared,
// FOUND_ROWS() the rows sent, ROW_COUNT() -1.
func sendRead(s *sqlengine.Session, res *sqltypes.Result, cb func(*sqltypes.Result) error) error {
	s.ClearWarnings()
	s.SetLastQueryInfoInt(sql.RowCount, -1)
	s.SetLastQueryInfoInt(sql.FoundRows, int64(len(res.Rows)))
	return cb(res)
}

// canSelect checks the SELECT privilege (once per plan, account and
// grants generation).
func (e *Executor) canSelect(ctx *sql.Context, s *sqlengine.Session, p *pointPlan) bool {
	return p.priv.allowed(ctx, e.e.Grants(), p.db, p.table, sql.PrivilegeType_Select)
}

var _ = mysql.ComStmtExecute

// projectRow turns the columns proj of a stored row into wire values for
// a client with character_set_results results (wireValue); ok=false when
// a value does not convert (the caller lets GMS answer).
func projectRow(sctx *sql.Context, schema sql.Schema, results sql.CharacterSetID, row sql.Row, proj []int) ([]sqltypes.Value, bool) {
	out := make([]sqltypes.Value, len(proj))
	for i, o := range proj {
		v, ok := wireColumn(sctx, schema[o].Type, results, row[o])
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// wireColumn is one stored value of a column of type typ for the client
// (NULL as NULL); ok=false when it does not convert.
func wireColumn(sctx *sql.Context, typ sql.Type, results sql.CharacterSetID, v any) (sqltypes.Value, bool) {
	if v == nil {
		return sqltypes.NULL, true
	}
	wv, err := wireValue(sctx, typ, results, nil, v)
	return wv, err == nil
}

// fastReadTxn is the transaction a fast read runs in: for a locking
// read the session's explicit transaction, with locking reads on until
// done (autocommit or a pending one-shot level: ok=false, GMS's);
// otherwise readTxnFor's.
type fastReadTxn struct {
	txn      *storage.Txn
	explicit *sqlengine.Transaction
	owned    bool
	lock     bool
}

func (e *Executor) fastReadTxn(s *sqlengine.Session, lock, single bool) (fastReadTxn, bool) {
	if !lock {
		txn, owned, ok := e.readTxnFor(s, single)
		return fastReadTxn{txn: txn, owned: owned}, ok
	}
	t, _ := s.GetTransaction().(*sqlengine.Transaction)
	if t == nil || t.Aborted() != nil || t.ReadOnly() {
		return fastReadTxn{}, false
	}
	s.StatementStart(t)
	t.Storage().SetLockingReads(true)
	return fastReadTxn{txn: t.Storage(), explicit: t, lock: true}, true
}

// done ends the read: locking reads off, an owned transaction gone.
func (r fastReadTxn) done() {
	if r.lock {
		r.txn.SetLockingReads(false)
	}
	if r.owned {
		r.txn.Rollback()
	}
}

// fail is err for the client; a deadlock victim's transaction is rolled
// back whole, as on the GMS path (session.go).
func (r fastReadTxn) fail(err error) error {
	if r.explicit != nil && base.ClassOf(err) == base.ClassDeadlock {
		r.txn.Rollback()
		r.explicit.Abort(err)
	}
	return sqlengine.ToMySQLError(err)
}

// selectColumns reads a select list of stars and columns of p's table
// (named as such or by alias) as schema ordinals; withAs accepts column
// aliases (they name the fields GMS's prepare made, not the values).
func selectColumns(exprs ast.SelectExprs, st *storage.Table, p *pointPlan, alias string, withAs bool) ([]int, bool) {
	var proj []int
	for _, se := range exprs {
		switch x := se.(type) {
		case *ast.StarExpr:
			if n := x.TableName.Name.String(); !x.TableName.IsEmpty() && !strings.EqualFold(n, p.table) && !strings.EqualFold(n, alias) {
				return nil, false
			}
			for i := range st.Schema {
				proj = append(proj, i)
			}
		case *ast.AliasedExpr:
			c, ok := x.Expr.(*ast.ColName)
			if !ok || (!withAs && !x.As.IsEmpty()) || !sameTable(c, p, alias) {
				return nil, false
			}
			o := st.Schema.IndexOfColName(c.Name.String())
			if o < 0 {
				return nil, false
			}
			proj = append(proj, o)
		default:
			return nil, false
		}
	}
	return proj, true
}
