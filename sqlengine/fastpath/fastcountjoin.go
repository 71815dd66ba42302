package fastpath

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/sqlengine"
	"petrel/storage"
	"petrel/storage/keys"
)

// The distinct-count join fast path: a prepared COUNT(DISTINCT col) over
// two tables, the first read by a range of its primary key, the second
// by its whole primary key for each row of the first:
//
//	SELECT COUNT(DISTINCT (s_i_id)) FROM order_line, stock
//	WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? - 20
//	AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?
//
// (TPC-C's STOCK_LEVEL) is answered as InnoDB's nested loop does it: one
// scan of the outer table's key range (equalities on the key's leading
// columns, bounds on the next one), one point read of the inner table per
// outer row (each distinct inner key read once), the inner row kept when
// its filters hold, the distinct values counted. Every column involved is
// an integer, so counting needs no collation; conditions are a
// conjunction of exactly these forms, each term once:
//
//	outer.key = ?                       (a leading key column)
//	outer.key < | <= | > | >= ? [± n]   (the key column after them)
//	inner.key = ? | inner.key = outer.col   (every inner key column; col of the same type)
//	inner.col < | <= | > | >= | = ?         (a column of the inner table)
//
// Any other term, type, clause (GROUP BY, ORDER BY, LIMIT, a lock, JOIN
// ... ON) or a bound parameter that is not an integer goes to GMS.

// countBound is outer.key op (param + add).
type countBound struct {
	op    string
	param int
	add   int64
}

// countKeyPart gives one inner key column: a parameter, or (param < 0)
// the outer row's column outerOrd.
type countKeyPart struct {
	param    int
	outerOrd int
}

// countFilter is inner.col op param.
type countFilter struct {
	ord   int
	op    string
	param int
}

type countJoinPlan struct {
	tables   [2]*joinTable // outer, inner
	eq       []int         // parameters of the outer key's leading columns
	bounds   []countBound  // on the outer key column len(eq)
	innerKey []countKeyPart
	filters  []countFilter
	distinct joinCol // 0: outer, 1: inner
	outerUse []int   // outer columns read
	fields   []*querypb.Field
	results  sql.CharacterSetID
	nbinds   int
}

// planCountJoin recognises a distinct-count join; nil means "use GMS".
func (e *Executor) planCountJoin(s *sqlengine.Session, query string, fields []*querypb.Field) *countJoinPlan {
	stmt, err := ast.Parse(query)
	if err != nil {
		return nil
	}
	sel, ok := stmt.(*ast.Select)
	if !ok || sel.With != nil || sel.QueryOpts.Distinct || sel.GroupBy != nil || sel.Having != nil ||
		sel.Into != nil || sel.Where == nil || sel.Where.Type != ast.WhereStr || len(sel.Window) > 0 ||
		sel.QueryOpts.SQLCalcFoundRows || sel.Lock != "" || sel.OrderBy != nil || sel.Limit != nil ||
		len(sel.From) != 2 || len(sel.SelectExprs) != 1 || len(fields) != 1 || fields[0].Type != sqltypes.Int64 ||
		!readSessionOK(s) {
		return nil
	}
	// The select list: COUNT(DISTINCT col).
	ae, ok := sel.SelectExprs[0].(*ast.AliasedExpr)
	if !ok {
		return nil
	}
	f, ok := ae.Expr.(*ast.FuncExpr)
	if !ok || !strings.EqualFold(f.Name.String(), "count") || !f.Qualifier.IsEmpty() || !f.Distinct || f.Over != nil || len(f.Exprs) != 1 {
		return nil
	}
	arg, ok := f.Exprs[0].(*ast.AliasedExpr)
	if !ok {
		return nil
	}
	countCol, ok := unparen(arg.Expr).(*ast.ColName)
	if !ok {
		return nil
	}
	var tables [2]*storage.Table
	var jts [2]*joinTable
	for i, te := range sel.From {
		x, ok := te.(*ast.AliasedTableExpr)
		if !ok {
			return nil
		}
		tn, ok := x.Expr.(ast.TableName)
		if !ok || x.AsOf != nil || (x.Hints != nil && len(x.Hints.Indexes) > 0) {
			return nil
		}
		jt := &joinTable{alias: x.As.String()}
		st := jt.point.resolve(e, s, tn)
		if !intKey(st) {
			return nil
		}
		jt.point.tableID, jt.point.ncols = st.Def.ID, len(st.Schema)
		jts[i], tables[i] = jt, st
	}
	if strings.EqualFold(jts[0].name(), jts[1].name()) {
		return nil // the same name twice: GMS's error
	}
	var terms []ast.Expr
	var conj func(x ast.Expr)
	conj = func(x ast.Expr) {
		if a, ok := x.(*ast.AndExpr); ok {
			conj(a.Left)
			conj(a.Right)
			return
		}
		terms = append(terms, unparen(x))
	}
	conj(sel.Where.Expr)
	// Either table may be the outer one.
	for outer := 0; outer < 2; outer++ {
		cp := &countJoinPlan{fields: fields, results: s.GetCharacterSetResults()}
		cp.tables = [2]*joinTable{jts[outer], jts[1-outer]}
		ts := [2]*storage.Table{tables[outer], tables[1-outer]}
		if cp.plan(ts, terms, countCol) {
			return cp
		}
	}
	return nil
}

func unparen(x ast.Expr) ast.Expr {
	for {
		p, ok := x.(*ast.ParenExpr)
		if !ok {
			return x
		}
		x = p.Expr
	}
}

// plan fills cp for ts (outer, inner) from the WHERE's terms; false when
// a term or column does not fit.
func (cp *countJoinPlan) plan(ts [2]*storage.Table, terms []ast.Expr, countCol *ast.ColName) bool {
	jp := &joinPlan{tables: cp.tables[:]}
	col := func(c *ast.ColName) (int, int, bool) {
		t, o := jp.column(ts[:], c)
		if t < 0 || !isIntType(ts[t].Schema[o].Type) {
			return 0, 0, false
		}
		return t, o, true
	}
	keyPos := func(t, o int) int {
		for i, k := range ts[t].Def.PK {
			if k == o {
				return i
			}
		}
		return -1
	}
	outerPK, innerPK := ts[0].Def.PK, ts[1].Def.PK
	eq := make([]int, len(outerPK))
	for i := range eq {
		eq[i] = -1
	}
	cp.innerKey = make([]countKeyPart, len(innerPK))
	for i := range cp.innerKey {
		cp.innerKey[i] = countKeyPart{param: -1, outerOrd: -1}
	}
	boundOrd := -1
	use := func(p int) { cp.nbinds = max(cp.nbinds, p+1) }
	for _, term := range terms {
		cmp, ok := term.(*ast.ComparisonExpr)
		if !ok || cmp.Escape != nil {
			return false
		}
		op := cmp.Operator
		switch op {
		case ast.EqualStr, ast.LessThanStr, ast.LessEqualStr, ast.GreaterThanStr, ast.GreaterEqualStr:
		default:
			return false
		}
		l, lok := cmp.Left.(*ast.ColName)
		r, rok := cmp.Right.(*ast.ColName)
		if lok && rok {
			// inner.key = outer.col, the two of one type.
			if op != ast.EqualStr {
				return false
			}
			lt, lo, ok1 := col(l)
			rt, ro, ok2 := col(r)
			if !ok1 || !ok2 || lt == rt {
				return false
			}
			if lt == 0 {
				lo, ro = ro, lo
			}
			pos := keyPos(1, lo)
			if pos < 0 || cp.innerKey[pos].param >= 0 || cp.innerKey[pos].outerOrd >= 0 ||
				!ts[0].Schema[ro].Type.Equals(ts[1].Schema[lo].Type) {
				return false
			}
			cp.innerKey[pos].outerOrd = ro
			continue
		}
		c, other := l, cmp.Right
		if !lok {
			if !rok {
				return false
			}
			c, other, op = r, cmp.Left, flipOp(op)
		}
		t, o, ok := col(c)
		if !ok {
			return false
		}
		param, add, ok := paramPlus(other)
		if !ok {
			return false
		}
		use(param)
		pos := keyPos(t, o)
		switch {
		case t == 0 && op == ast.EqualStr && add == 0 && pos >= 0 && eq[pos] < 0:
			eq[pos] = param
		case t == 0 && op != ast.EqualStr && pos >= 0 && (boundOrd < 0 || boundOrd == o):
			boundOrd = o
			cp.bounds = append(cp.bounds, countBound{op: op, param: param, add: add})
		case t == 1 && op == ast.EqualStr && add == 0 && pos >= 0 && cp.innerKey[pos].param < 0 && cp.innerKey[pos].outerOrd < 0:
			cp.innerKey[pos].param = param
		case t == 1 && add == 0 && pos < 0:
			cp.filters = append(cp.filters, countFilter{ord: o, op: op, param: param})
		default:
			return false
		}
	}
	// The equalities: the outer key's leading columns; the bounds: the
	// next one.
	n := 0
	for n < len(eq) && eq[n] >= 0 {
		n++
	}
	for _, p := range eq[n:] {
		if p >= 0 {
			return false
		}
	}
	if n == 0 || (boundOrd >= 0 && (n == len(outerPK) || outerPK[n] != boundOrd)) {
		return false
	}
	cp.eq = eq[:n]
	for _, k := range cp.innerKey {
		if k.param < 0 && k.outerOrd < 0 {
			return false
		}
		if k.outerOrd >= 0 {
			cp.outerUse = append(cp.outerUse, k.outerOrd)
		}
	}
	t, o, ok := col(countCol)
	if !ok {
		return false
	}
	cp.distinct = joinCol{t, o}
	if t == 0 {
		cp.outerUse = append(cp.outerUse, o)
	}
	return true
}

// flipOp is op with its operands swapped (? < c is c > ?).
func flipOp(op string) string {
	switch op {
	case ast.LessThanStr:
		return ast.GreaterThanStr
	case ast.LessEqualStr:
		return ast.GreaterEqualStr
	case ast.GreaterThanStr:
		return ast.LessThanStr
	case ast.GreaterEqualStr:
		return ast.LessEqualStr
	}
	return op
}

// paramPlus reads ?, ? + n or ? - n (n an integer literal) as the
// parameter and n (negated for -).
func paramPlus(x ast.Expr) (int, int64, bool) {
	x = unparen(x)
	if p, ok := paramIndex(x); ok {
		return p, 0, true
	}
	b, ok := x.(*ast.BinaryExpr)
	if !ok || (b.Operator != ast.PlusStr && b.Operator != ast.MinusStr) {
		return 0, 0, false
	}
	p, ok := paramIndex(unparen(b.Left))
	if !ok {
		return 0, 0, false
	}
	lit, ok := unparen(b.Right).(*ast.SQLVal)
	if !ok || lit.Type != ast.IntVal {
		return 0, 0, false
	}
	n, err := strconv.ParseInt(string(lit.Val), 10, 64)
	if err != nil || n == math.MinInt64 {
		return 0, 0, false
	}
	if b.Operator == ast.MinusStr {
		n = -n
	}
	return p, n, true
}

// sameTables reports whether two plans read the same definitions of the
// same tables in the same roles.
func (cp *countJoinPlan) sameTables(o *countJoinPlan) bool {
	return cp.nbinds == o.nbinds && cp.tables[0].point.sameTable(&o.tables[0].point) &&
		cp.tables[1].point.sameTable(&o.tables[1].point)
}

// int64Bind is parameter i as a signed integer; false for anything else
// (GMS answers then).
func int64Bind(bind map[string]*querypb.BindVariable, i int) (int64, bool) {
	v, ok := intBind(bind["v"+strconv.Itoa(i+1)])
	if !ok {
		return 0, false
	}
	x, ok := v.(int64)
	return x, ok
}

// compareInt applies op to a and b.
func compareInt(op string, a, b int64) bool {
	switch op {
	case ast.EqualStr:
		return a == b
	case ast.LessThanStr:
		return a < b
	case ast.LessEqualStr:
		return a <= b
	case ast.GreaterThanStr:
		return a > b
	case ast.GreaterEqualStr:
		return a >= b
	}
	return false
}

// execCountJoin runs a distinct-count join; ok=false means "let GMS do
// it".
func (e *Executor) execCountJoin(ctx context.Context, s *sqlengine.Session, cp *countJoinPlan, bind map[string]*querypb.BindVariable, cb func(*sqltypes.Result) error) (bool, error) {
	if len(bind) != cp.nbinds || s.GetCharacterSetResults() != cp.results {
		return false, nil
	}
	sctx := e.NewContext(ctx, s)
	var ts [2]*storage.Table
	for i, jt := range cp.tables {
		p := &jt.point
		if !p.qualified && !strings.EqualFold(s.GetCurrentDatabase(), p.db) {
			return false, nil
		}
		st := e.store.Catalog().Table(p.db, p.table)
		if st == nil || st.Def.ID != p.tableID || len(st.Schema) != p.ncols || !e.canSelect(sctx, s, p) {
			return false, nil
		}
		ts[i] = st
	}
	outer, inner := ts[0], ts[1]
	// A key column's value: the parameter converted to the column's type,
	// exactly (anything else is GMS's).
	keyValue := func(st *storage.Table, pos, param int) (any, bool) {
		v, ok := int64Bind(bind, param)
		if !ok {
			return nil, false
		}
		cv, inRange, err := st.PKTypes[pos].Convert(sctx, v)
		return cv, err == nil && inRange == sql.InRange && cv != nil
	}
	prefix := outer.IndexKeyPrefix(0)
	for pos, param := range cp.eq {
		v, ok := keyValue(outer, pos, param)
		if !ok {
			return false, nil
		}
		var err error
		if prefix, err = outer.AppendKey(prefix, outer.PKTypes[pos], v); err != nil {
			return false, nil
		}
	}
	// The bounds as one inclusive interval [lo, hi] of the key column.
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	hasLo, hasHi := false, false
	empty := false
	for _, b := range cp.bounds {
		v, ok := int64Bind(bind, b.param)
		if !ok || (b.add > 0 && v > math.MaxInt64-b.add) || (b.add < 0 && v < math.MinInt64-b.add) {
			return false, nil // out of BIGINT's range: GMS's error
		}
		v += b.add
		switch b.op {
		case ast.LessThanStr:
			if v == math.MinInt64 {
				empty = true
			} else {
				hi, hasHi = min(hi, v-1), true
			}
		case ast.LessEqualStr:
			hi, hasHi = min(hi, v), true
		case ast.GreaterThanStr:
			if v == math.MaxInt64 {
				empty = true
			} else {
				lo, hasLo = max(lo, v+1), true
			}
		case ast.GreaterEqualStr:
			lo, hasLo = max(lo, v), true
		}
	}
	if empty || (hasLo && hasHi && lo > hi) {
		// No key satisfies the bounds: GMS's (whether its plan reads at
		// all, and so takes the transaction's read view, is its own).
		return false, nil
	}
	start, end := prefix, keys.PrefixSuccessor(prefix)
	if len(cp.bounds) > 0 {
		pos := len(cp.eq)
		typ := outer.PKTypes[pos]
		bound := func(v int64) ([]byte, bool) {
			cv, inRange, err := typ.Convert(sctx, v)
			if err != nil || inRange != sql.InRange || cv == nil {
				return nil, false
			}
			k, err := outer.AppendKey(append([]byte(nil), prefix...), typ, cv)
			return k, err == nil
		}
		var ok bool
		if hasLo {
			if start, ok = bound(lo); !ok {
				return false, nil
			}
		}
		if hasHi {
			k, ok := bound(hi)
			if !ok {
				return false, nil
			}
			end = keys.PrefixSuccessor(k)
		}
	}
	innerParams := make([]any, len(cp.innerKey))
	for pos, k := range cp.innerKey {
		if k.param >= 0 {
			v, ok := keyValue(inner, pos, k.param)
			if !ok {
				return false, nil
			}
			innerParams[pos] = v
		}
	}
	filterVals := make([]int64, len(cp.filters))
	for i, f := range cp.filters {
		v, ok := int64Bind(bind, f.param)
		if !ok {
			return false, nil
		}
		filterVals[i] = v
	}
	want := make([]bool, len(inner.Schema))
	for _, f := range cp.filters {
		want[f.ord] = true
	}
	if cp.distinct.table == 1 {
		want[cp.distinct.ord] = true
	}
	rt, ok := e.fastReadTxn(s, false, false)
	if !ok {
		return false, nil
	}
	defer rt.done()
	res := &sqltypes.Result{Fields: cp.fields}
	it, err := rt.txn.Scan(ctx, outer, 0, start, end, false)
	if err != nil {
		return true, rt.fail(err)
	}
	defer it.Close() // closed again once read (Close is idempotent)
	it.Project(cp.outerUse)
	// The inner keys of the outer rows (with the outer value counted,
	// for an outer distinct column), then each distinct inner key read
	// once, in key order: the reads move forward through the inner table.
	type outerRow struct {
		key string
		v   any
	}
	var outerRows []outerRow
	var innerKeys []string
	seen := map[string]bool{} // the inner keys in innerKeys
	key := inner.IndexKeyPrefix(0)
	base := len(key)
	for {
		row, err := it.Next()
		if err != nil {
			return true, rt.fail(err)
		}
		if row == nil {
			break
		}
		key = key[:base]
		null := false
		for pos, k := range cp.innerKey {
			v := innerParams[pos]
			if k.param < 0 {
				if v = row[k.outerOrd]; v == nil {
					null = true // NULL = x is never true
					break
				}
			}
			if key, err = inner.AppendKey(key, inner.PKTypes[pos], v); err != nil {
				return false, nil
			}
		}
		if null {
			continue
		}
		if !seen[string(key)] {
			seen[string(key)] = true
			innerKeys = append(innerKeys, string(key))
		}
		if cp.distinct.table == 0 {
			outerRows = append(outerRows, outerRow{key: string(key), v: row[cp.distinct.ord]})
		}
	}
	it.Close()
	slices.Sort(innerKeys)
	// keep: each inner key's row exists and passes the filters.
	keep := make(map[string]bool, len(innerKeys))
	counted := map[int64]struct{}{}
	count := func(v any) bool {
		if v == nil {
			return true // COUNT skips NULL
		}
		x, ok := toInt64Strict(v)
		if ok {
			counted[x] = struct{}{}
		}
		return ok
	}
	for _, k := range innerKeys {
		irow, err := rt.txn.PointColumns(ctx, inner, []byte(k), want)
		if err != nil {
			return true, rt.fail(err)
		}
		if irow == nil {
			continue
		}
		ok := true
		for i, f := range cp.filters {
			x := irow[f.ord]
			if x == nil {
				ok = false // NULL < x is not true
				break
			}
			xv, isInt := toInt64Strict(x)
			if !isInt {
				return false, nil
			}
			if !compareInt(f.op, xv, filterVals[i]) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		keep[k] = true
		if cp.distinct.table == 1 && !count(irow[cp.distinct.ord]) {
			return false, nil
		}
	}
	for _, r := range outerRows {
		if keep[r.key] && !count(r.v) {
			return false, nil
		}
	}
	res.Rows = [][]sqltypes.Value{{sqltypes.NewInt64(int64(len(counted)))}}
	return true, sendRead(s, res, cb)
}
