package fastpath

import (
	"context"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/sqlengine"
	"petrel/storage"
	"petrel/storage/keys"
)

// The primary-key range fast path: prepared statements of the shapes
//
//	SELECT [DISTINCT] col FROM [db.]t WHERE pk BETWEEN ? AND ? [ORDER BY col]
//	SELECT SUM(col) FROM [db.]t WHERE pk BETWEEN ? AND ?
//
// (sysbench's range queries) on a table with a single-column integer
// primary key are answered with one storage scan: no planner. The result
// columns are the ones GMS announced at prepare time; anything unexpected
// falls back to GMS.

type rangePlan struct {
	point    pointPlan // table identity, privileges, fields
	col      int       // projected (or summed) column
	sum      bool
	distinct bool
	ordered  bool // ORDER BY col
}

// planRange recognises a range select; nil means "use GMS".
func (e *Executor) planRange(s *sqlengine.Session, query string, fields []*querypb.Field) *rangePlan {
	stmt, err := ast.Parse(query)
	if err != nil || len(fields) != 1 || !readSessionOK(s) {
		return nil
	}
	sel, ok := stmt.(*ast.Select)
	if !ok || sel.With != nil || sel.GroupBy != nil || sel.Having != nil || sel.Limit != nil || sel.Lock != "" ||
		sel.Into != nil || len(sel.From) != 1 || sel.Where == nil || sel.Where.Type != ast.WhereStr ||
		len(sel.Window) > 0 || sel.QueryOpts.SQLCalcFoundRows || len(sel.SelectExprs) != 1 {
		return nil
	}
	ate, ok := sel.From[0].(*ast.AliasedTableExpr)
	if !ok || ate.AsOf != nil || !ate.As.IsEmpty() || (ate.Hints != nil && len(ate.Hints.Indexes) > 0) {
		return nil
	}
	tn, ok := ate.Expr.(ast.TableName)
	if !ok {
		return nil
	}
	r := &rangePlan{distinct: sel.QueryOpts.Distinct}
	p := &r.point
	st := p.resolve(e, s, tn)
	if st == nil || st.Hidden || len(st.Def.PK) != 1 || !isIntType(st.PKTypes[0]) {
		return nil
	}
	p.tableID, p.ncols, p.fields, p.results = st.Def.ID, len(st.Schema), fields, s.GetCharacterSetResults()
	// WHERE pk BETWEEN ? AND ?
	rc, ok := sel.Where.Expr.(*ast.RangeCond)
	if !ok || rc.Operator != ast.BetweenStr {
		return nil
	}
	col, ok := rc.Left.(*ast.ColName)
	if !ok || !sameTable(col, p, "") || !strings.EqualFold(col.Name.String(), st.Schema[st.Def.PK[0]].Name) {
		return nil
	}
	for _, b := range []ast.Expr{rc.From, rc.To} {
		if v, ok := b.(*ast.SQLVal); !ok || v.Type != ast.ValArg {
			return nil
		}
	}
	ae, ok := sel.SelectExprs[0].(*ast.AliasedExpr)
	if !ok || !ae.As.IsEmpty() {
		return nil
	}
	var c *ast.ColName
	switch x := ae.Expr.(type) {
	case *ast.ColName:
		c = x
	case *ast.FuncExpr:
		if !strings.EqualFold(x.Name.String(), "sum") || x.Distinct || len(x.Exprs) != 1 || r.distinct || x.Over != nil {
			return nil
		}
		arg, ok := x.Exprs[0].(*ast.AliasedExpr)
		if !ok {
			return nil
		}
		if c, ok = arg.Expr.(*ast.ColName); !ok {
			return nil
		}
		r.sum = true
	default:
		return nil
	}
	if !sameTable(c, p, "") {
		return nil
	}
	if r.col = st.Schema.IndexOfColName(c.Name.String()); r.col < 0 {
		return nil
	}
	if r.sum && (!isIntType(st.Schema[r.col].Type) || !sqlengine.ExactSumField(fields[0], st.Schema[r.col].Type)) {
		return nil
	}
	switch len(sel.OrderBy) {
	case 0:
		if r.distinct {
			return nil // GMS's DISTINCT order without ORDER BY is its own
		}
	case 1:
		o := sel.OrderBy[0]
		oc, ok := o.Expr.(*ast.ColName)
		if r.sum || !ok || o.Direction != ast.AscScr || !sameTable(oc, p, "") || !strings.EqualFold(oc.Name.String(), c.Name.String()) {
			return nil
		}
		r.ordered = true
	default:
		return nil
	}
	return r
}

// execRange runs a range plan; ok=false means "let GMS do it".
func (e *Executor) execRange(ctx context.Context, s *sqlengine.Session, r *rangePlan, bind map[string]*querypb.BindVariable, cb func(*sqltypes.Result) error) (bool, error) {
	p := &r.point
	if len(bind) != 2 || (!p.qualified && !strings.EqualFold(s.GetCurrentDatabase(), p.db)) || s.GetCharacterSetResults() != p.results {
		return false, nil
	}
	st := e.store.Catalog().Table(p.db, p.table)
	if st == nil || st.Def.ID != p.tableID || len(st.Schema) != p.ncols {
		return false, nil
	}
	sctx := e.NewContext(ctx, s)
	if !e.canSelect(sctx, s, p) {
		return false, nil
	}
	var bounds [2][]byte
	for i, name := range []string{"v1", "v2"} {
		v, ok := intBind(bind[name])
		if !ok {
			return false, nil
		}
		cv, inRange, err := st.PKTypes[0].Convert(sctx, v)
		if err != nil || inRange != sql.InRange {
			return false, nil
		}
		if bounds[i], err = st.PKKeyFromValues([]any{cv}); err != nil {
			return false, nil
		}
	}
	txn, owned, ok := e.readTxnFor(s, true)
	if !ok {
		return false, nil
	}
	if owned {
		defer txn.Rollback()
	}
	res := &sqltypes.Result{Fields: p.fields}
	if string(bounds[0]) > string(bounds[1]) {
		if r.sum {
			res.Rows = [][]sqltypes.Value{{sqltypes.NULL}}
		}
		return true, sendRead(s, res, cb)
	}
	it, err := txn.Scan(ctx, st, 0, bounds[0], keys.PrefixSuccessor(bounds[1]), false)
	if err != nil {
		return true, sqlengine.ToMySQLError(err)
	}
	it.Project([]int{r.col})
	var vals []any
	var sum int64
	n := 0
	for {
		row, err := it.Next()
		if err != nil {
			it.Close()
			return true, sqlengine.ToMySQLError(err)
		}
		if row == nil {
			break
		}
		v := row[r.col]
		if v == nil {
			it.Close()
			return false, nil // NULL ordering and sums: GMS's
		}
		if r.sum {
			x, ok := toInt64Strict(v)
			if !ok || (x > 0 && sum > 1<<62) || (x < 0 && sum < -1<<62) {
				it.Close()
				return false, nil
			}
			sum += x
			n++
			continue
		}
		vals = append(vals, v)
	}
	it.Close()
	typ := st.Schema[r.col].Type
	if r.sum {
		if n == 0 {
			res.Rows = [][]sqltypes.Value{{sqltypes.NULL}}
			return true, sendRead(s, res, cb)
		}
		res.Rows = [][]sqltypes.Value{{sqlengine.ExactSumValue(sum)}}
		return true, sendRead(s, res, cb)
	}
	compare := func(a, b any) (int, error) { return typ.Compare(sctx, a, b) }
	if st, ok := typ.(sql.StringType); ok && st.CharacterSet() != sql.CharacterSet_binary {
		// The collation's order, several times faster than GMS's Compare
		// (keys.TextComparer agrees with it; values here are strings).
		if cmp, ok := keys.TextComparer(st.Collation()); ok {
			compare = func(a, b any) (int, error) {
				as, aok := a.(string)
				bs, bok := b.(string)
				if !aok || !bok {
					return typ.Compare(sctx, a, b)
				}
				return cmp(as, bs), nil
			}
		}
	}
	if r.ordered {
		var cmpErr error
		// slices' generic sort: sort.SliceStable's reflection-based swaps
		// were 10% of oltp_read_only's CPU.
		slices.SortStableFunc(vals, func(a, b any) int {
			c, err := compare(a, b)
			if err != nil {
				cmpErr = err
			}
			return c
		})
		if cmpErr != nil {
			return false, nil
		}
	}
	for i, v := range vals {
		if r.distinct && i > 0 {
			if c, err := compare(vals[i-1], v); err != nil {
				return false, nil
			} else if c == 0 {
				continue
			}
		}
		out, err := wireValue(sctx, typ, p.results, nil, v)
		if err != nil {
			return false, nil
		}
		res.Rows = append(res.Rows, []sqltypes.Value{out})
	}
	return true, sendRead(s, res, cb)
}

// readTxnFor returns the transaction of a fast-path read: the session's
// (its statement starting), or a fresh one (owned: the caller rolls it
// back): for a single storage read (one Point, or one primary-key Scan)
// one that takes no snapshot, else one whose reads share a read view.
// ok=false means "let GMS do it".
func (e *Executor) readTxnFor(s *sqlengine.Session, single bool) (txn *storage.Txn, owned, ok bool) {
	if t, ok := s.GetTransaction().(*sqlengine.Transaction); ok && t != nil {
		if t.Aborted() != nil {
			return nil, false, false
		}
		s.StatementStart(t)
		return t.Storage(), false, true
	}
	if s.TxnCharacteristicsPending(false) || !s.Autocommit() {
		// A pending one-shot level, or autocommit=0: GMS opens the
		// transaction the statement belongs to.
		return nil, false, false
	}
	if single {
		return e.store.BeginSingleRead(), true, true
	}
	return e.store.Begin(), true, true
}
