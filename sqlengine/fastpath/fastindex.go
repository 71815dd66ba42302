package fastpath

import (
	"bytes"
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

// The index-range fast path: prepared selects of one table whose WHERE
// is a disjunction of conditions on the leading integer column c of an
// index (the primary key or a secondary index)
//
//	SELECT COUNT(*) | COUNT(col) | SUM(intcol) | col, ... FROM [db.]t
//	WHERE c BETWEEN ? AND ? [OR c BETWEEN ? AND ? | OR c = ? | OR c IN (?, ...)]...
//
// (sysbench's select_random_ranges and select_random_points, any client's
// "count in these ranges" or "rows with these keys") are answered with
// one storage scan per merged key interval, in index order: no planner.
// A count or sum that needs only index and primary-key columns reads the
// index entries alone (storage's covering scans). Anything unexpected
// falls back to GMS, the reference (tests compare the two).

type indexAgg int

const (
	aggNone indexAgg = iota
	aggCountStar
	aggCount
	aggSum
)

// indexCond is one disjunct: c BETWEEN lo AND hi (two bind names) or
// c = v (one).
type indexCond struct{ binds []string }

type indexPlan struct {
	point  pointPlan // table identity, privileges, fields, projection
	ixID   uint8
	keyCol int
	conds  []indexCond
	agg    indexAgg
	aggCol int
	nbinds int
}

// planIndexSelect recognises an index-range select; nil means "use GMS".
func (e *Executor) planIndexSelect(s *sqlengine.Session, query string, fields []*querypb.Field) *indexPlan {
	sel, ate := plainSelect(query)
	if sel == nil || !ate.As.IsEmpty() || !readSessionOK(s) {
		return nil
	}
	tn, ok := ate.Expr.(ast.TableName)
	if !ok {
		return nil
	}
	ip := &indexPlan{aggCol: -1}
	p := &ip.point
	st := p.resolve(e, s, tn)
	if st == nil {
		return nil
	}
	p.tableID, p.ncols, p.fields, p.results = st.Def.ID, len(st.Schema), fields, s.GetCharacterSetResults()
	var col string
	if !ip.collectConds(sel.Where.Expr, p, &col) || len(ip.conds) == 0 {
		return nil
	}
	if ip.keyCol = st.Schema.IndexOfColName(col); ip.keyCol < 0 || !isIntType(st.Schema[ip.keyCol].Type) {
		return nil
	}
	if ix, ok := leadingIndex(st, ip.keyCol); ok {
		ip.ixID = ix
	} else {
		return nil
	}
	if !ip.planSelectList(sel.SelectExprs, st, fields, "", false) {
		return nil
	}
	return ip
}

// collectConds gathers the disjuncts of where, all on one column.
func (ip *indexPlan) collectConds(x ast.Expr, p *pointPlan, col *string) bool {
	sameCol := func(c ast.Expr) bool {
		cn, ok := c.(*ast.ColName)
		if !ok || !sameTable(cn, p, "") {
			return false
		}
		if *col == "" {
			*col = cn.Name.String()
		}
		return strings.EqualFold(*col, cn.Name.String())
	}
	arg := func(v ast.Expr) (string, bool) {
		sv, ok := v.(*ast.SQLVal)
		if !ok || sv.Type != ast.ValArg || len(sv.Val) < 2 || sv.Val[0] != ':' {
			return "", false
		}
		ip.nbinds++
		return string(sv.Val[1:]), true
	}
	switch x := x.(type) {
	case *ast.OrExpr:
		return ip.collectConds(x.Left, p, col) && ip.collectConds(x.Right, p, col)
	case *ast.ParenExpr:
		return ip.collectConds(x.Expr, p, col)
	case *ast.RangeCond:
		if x.Operator != ast.BetweenStr || !sameCol(x.Left) {
			return false
		}
		lo, ok1 := arg(x.From)
		hi, ok2 := arg(x.To)
		if !ok1 || !ok2 {
			return false
		}
		ip.conds = append(ip.conds, indexCond{binds: []string{lo, hi}})
		return true
	case *ast.ComparisonExpr:
		if !sameCol(x.Left) {
			return false
		}
		switch x.Operator {
		case ast.EqualStr:
			v, ok := arg(x.Right)
			if !ok {
				return false
			}
			ip.conds = append(ip.conds, indexCond{binds: []string{v}})
			return true
		case ast.InStr:
			tuple, ok := x.Right.(ast.ValTuple)
			if !ok || len(tuple) == 0 {
				return false
			}
			for _, e := range tuple {
				v, ok := arg(e)
				if !ok {
					return false
				}
				ip.conds = append(ip.conds, indexCond{binds: []string{v}})
			}
			return true
		}
	}
	return false
}

// leadingIndex picks the index whose first column is o: the primary key
// when it is o alone, else the first secondary index led by o (no
// prefix).
func leadingIndex(st *storage.Table, o int) (uint8, bool) {
	if !st.Hidden && len(st.Def.PK) == 1 && st.Def.PK[0] == o {
		return 0, true
	}
	for _, ix := range st.Indexes {
		if len(ix.Ords) > 0 && ix.Ords[0] == o && (len(ix.Def.Prefix) == 0 || ix.Def.Prefix[0] == 0) {
			return ix.Def.ID, true
		}
	}
	return 0, false
}

// planSelectList accepts one aggregate, or plain columns and stars
// (aliased when withAs; alias is the table's).
func (ip *indexPlan) planSelectList(exprs ast.SelectExprs, st *storage.Table, fields []*querypb.Field, alias string, withAs bool) bool {
	p := &ip.point
	if len(exprs) == 1 {
		if ae, ok := exprs[0].(*ast.AliasedExpr); ok {
			if f, ok := ae.Expr.(*ast.FuncExpr); ok {
				return (withAs || ae.As.IsEmpty()) && ip.planAgg(f, st, fields)
			}
		}
	}
	proj, ok := selectColumns(exprs, st, p, alias, withAs)
	p.proj = proj
	return ok && len(fields) == len(p.proj)
}

func (ip *indexPlan) planAgg(f *ast.FuncExpr, st *storage.Table, fields []*querypb.Field) bool {
	if f.Distinct || f.Over != nil || len(f.Exprs) != 1 || len(fields) != 1 {
		return false
	}
	name := strings.ToLower(f.Name.String())
	if _, star := f.Exprs[0].(*ast.StarExpr); star {
		ip.agg = aggCountStar
		return name == "count" && fields[0].Type == sqltypes.Int64
	}
	arg, ok := f.Exprs[0].(*ast.AliasedExpr)
	if !ok {
		return false
	}
	c, ok := arg.Expr.(*ast.ColName)
	if !ok || !sameTable(c, &ip.point, "") {
		return false
	}
	if ip.aggCol = st.Schema.IndexOfColName(c.Name.String()); ip.aggCol < 0 {
		return false
	}
	switch name {
	case "count":
		ip.agg = aggCount
		return fields[0].Type == sqltypes.Int64
	case "sum":
		ip.agg = aggSum
		return isIntType(st.Schema[ip.aggCol].Type) && sqlengine.ExactSumField(fields[0], st.Schema[ip.aggCol].Type)
	}
	return false
}

// keySpan is one [lo, hi) interval of index keys.
type keySpan struct{ lo, hi []byte }

// spans converts the bound conditions into merged, ordered key intervals
// of the index; ok=false when a value is NULL or does not convert exactly
// (GMS decides those).
func (ip *indexPlan) spans(sctx *sql.Context, st *storage.Table, bind map[string]*querypb.BindVariable) ([]keySpan, bool) {
	typ := st.Schema[ip.keyCol].Type
	prefix := st.IndexKeyPrefix(ip.ixID)
	enc := func(name string) ([]byte, bool) {
		v, ok := intBind(bind[name])
		if !ok {
			return nil, false
		}
		cv, inRange, err := typ.Convert(sctx, v)
		if err != nil || inRange != sql.InRange || cv == nil {
			return nil, false
		}
		k, err := keys.AppendValue(slices.Clip(prefix), typ, cv)
		return k, err == nil
	}
	var out []keySpan
	for _, c := range ip.conds {
		lo, ok := enc(c.binds[0])
		if !ok {
			return nil, false
		}
		hi := lo
		if len(c.binds) == 2 {
			if hi, ok = enc(c.binds[1]); !ok {
				return nil, false
			}
		}
		if bytes.Compare(lo, hi) > 0 {
			continue // BETWEEN 5 AND 3: nothing
		}
		out = append(out, keySpan{lo, keys.PrefixSuccessor(hi)})
	}
	slices.SortFunc(out, func(a, b keySpan) int { return bytes.Compare(a.lo, b.lo) })
	merged := out[:0]
	for _, sp := range out {
		if n := len(merged); n > 0 && bytes.Compare(sp.lo, merged[n-1].hi) <= 0 {
			if bytes.Compare(sp.hi, merged[n-1].hi) > 0 {
				merged[n-1].hi = sp.hi
			}
			continue
		}
		merged = append(merged, sp)
	}
	return merged, true
}

// intBind returns an integer bind value. Others go to GMS: a string or
// float bound ('2.5') converts to the integer column by rounding, which
// would move an inclusive bound past the rows it must exclude.
func intBind(bv *querypb.BindVariable) (any, bool) {
	v, ok := bindValue(bv)
	switch v.(type) {
	case int64, uint64:
		return v, ok
	}
	return nil, false
}

// need lists the columns the plan reads from each row.
func (ip *indexPlan) need() []int {
	switch ip.agg {
	case aggCountStar:
		return []int{}
	case aggCount, aggSum:
		return []int{ip.aggCol}
	}
	return ip.point.proj
}

// execIndexSelect runs an index plan; ok=false means "let GMS do it".
func (e *Executor) execIndexSelect(ctx context.Context, s *sqlengine.Session, ip *indexPlan, bind map[string]*querypb.BindVariable, cb func(*sqltypes.Result) error) (bool, error) {
	p := &ip.point
	if len(bind) != ip.nbinds || (!p.qualified && !strings.EqualFold(s.GetCurrentDatabase(), p.db)) || s.GetCharacterSetResults() != p.results {
		return false, nil
	}
	st := e.store.Catalog().Table(p.db, p.table)
	if st == nil || st.Def.ID != p.tableID || len(st.Schema) != p.ncols {
		return false, nil
	}
	if ix, ok := leadingIndex(st, ip.keyCol); !ok || ix != ip.ixID {
		return false, nil
	}
	sctx := e.NewContext(ctx, s)
	if !e.canSelect(sctx, s, p) {
		return false, nil
	}
	spans, ok := ip.spans(sctx, st, bind)
	if !ok {
		return false, nil
	}
	// Several scans (or a secondary scan's row reads) must see one state:
	// outside a transaction, a read-only one with a read view.
	single := len(spans) <= 1 && ip.ixID == 0
	txn, owned, ok := e.readTxnFor(s, single)
	if !ok {
		return false, nil
	}
	if owned {
		defer txn.Rollback()
	}
	var acc indexAcc
	need := ip.need()
	for _, sp := range spans {
		it, err := txn.Scan(ctx, st, ip.ixID, sp.lo, sp.hi, false)
		if err != nil {
			return true, sqlengine.ToMySQLError(err)
		}
		if !it.Cover(need) {
			it.Project(need)
		}
		for {
			row, err := it.Next()
			if err != nil {
				it.Close()
				return true, sqlengine.ToMySQLError(err)
			}
			if row == nil {
				break
			}
			if !acc.add(ip, row) {
				it.Close()
				return false, nil
			}
		}
		it.Close()
	}
	res, ok := acc.result(sctx, ip, st)
	if !ok {
		return false, nil
	}
	return true, sendRead(s, res, cb)
}

// indexAcc accumulates an index plan's rows or aggregate.
type indexAcc struct {
	rows []sql.Row
	n    int64
	sum  int64
}

// add takes one row; false means "let GMS do it" (a sum that might
// overflow, a value of an unexpected type).
func (a *indexAcc) add(ip *indexPlan, row sql.Row) bool {
	switch ip.agg {
	case aggCountStar:
		a.n++
	case aggCount:
		if row[ip.aggCol] != nil {
			a.n++
		}
	case aggSum:
		v := row[ip.aggCol]
		if v == nil {
			return true
		}
		x, ok := toInt64Strict(v)
		if !ok || (x > 0 && a.sum > 1<<62) || (x < 0 && a.sum < -1<<62) {
			return false
		}
		a.sum += x
		a.n++
	default:
		a.rows = append(a.rows, row)
	}
	return true
}

func (a *indexAcc) result(sctx *sql.Context, ip *indexPlan, st *storage.Table) (*sqltypes.Result, bool) {
	p := &ip.point
	res := &sqltypes.Result{Fields: p.fields}
	switch ip.agg {
	case aggCountStar, aggCount:
		res.Rows = [][]sqltypes.Value{{sqltypes.NewInt64(a.n)}}
		return res, true
	case aggSum:
		if a.n == 0 {
			res.Rows = [][]sqltypes.Value{{sqltypes.NULL}}
			return res, true
		}
		res.Rows = [][]sqltypes.Value{{sqlengine.ExactSumValue(a.sum)}}
		return res, true
	}
	for _, row := range a.rows {
		out, ok := projectRow(sctx, st.Schema, p.results, row, p.proj)
		if !ok {
			return nil, false
		}
		res.Rows = append(res.Rows, out)
	}
	return res, true
}
