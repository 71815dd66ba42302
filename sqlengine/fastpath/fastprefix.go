package fastpath

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/sqlengine"
	"petrel/storage"
	"petrel/storage/keys"
)

// The index-prefix fast path: prepared selects of one table that name
// the leading columns of an index by equality, the way applications read
// "this customer's orders, newest first":
//
//	SELECT col [AS a], ... | * | COUNT(*) | COUNT(col) FROM [db.]t
//	WHERE c1 = ? AND c2 = ? ...            (the first k columns of an index, any order)
//	[ORDER BY the index's next columns, all ASC or all DESC] [LIMIT n]
//	[FOR UPDATE | LOCK IN SHARE MODE]
//
// (TPC-C's customers by last name, an order's lines, a district's oldest
// new order, a customer's latest order) are answered by one scan of the
// index's key range for those values, in index order (backwards for
// DESC), stopping after LIMIT rows: InnoDB's ref access with the sort
// and limit given by the index. Equality columns may be integers or
// strings; a string's key is its collation's weights, so each row read
// is compared with the value again, as GMS's range re-check does, and a
// table whose keys keep trailing spaces under a PAD SPACE collation
// (KeyFormat 0) leaves string columns to GMS. A locking clause is taken
// inside an explicit transaction only. Anything else falls back to GMS.

type prefixCol struct {
	ord   int // schema ordinal
	param int // parameter index
	text  bool
}

type prefixPlan struct {
	point   pointPlan // table identity, fields, projection, lock
	ixID    uint8
	eq      []prefixCol // in index order
	reverse bool
	limit   int64 // -1: none
	agg     indexAgg
	aggCol  int
}

// planPrefixSelect recognises an index-prefix select; nil means "use GMS".
func (e *Executor) planPrefixSelect(s *sqlengine.Session, query string, fields []*querypb.Field) *prefixPlan {
	sel, ate := selectShape(query)
	if sel == nil || !readSessionOK(s) {
		return nil
	}
	tn, ok := ate.Expr.(ast.TableName)
	if !ok {
		return nil
	}
	alias := ate.As.String()
	pp := &prefixPlan{limit: -1, aggCol: -1}
	p := &pp.point
	p.lock = sel.Lock != ""
	st := p.resolve(e, s, tn)
	if st == nil {
		return nil
	}
	p.tableID, p.ncols, p.fields, p.results = st.Def.ID, len(st.Schema), fields, s.GetCharacterSetResults()
	ours := func(c *ast.ColName) bool { return sameTable(c, p, alias) }
	eq := map[int]int{} // schema ordinal -> parameter
	if !equalities(sel.Where.Expr, st, ours, eq) || len(eq) == 0 {
		return nil
	}
	var order []int
	desc := false
	for i, ob := range sel.OrderBy {
		c, ok := ob.Expr.(*ast.ColName)
		if !ok || !ours(c) {
			return nil
		}
		o := st.Schema.IndexOfColName(c.Name.String())
		if o < 0 {
			return nil
		}
		d := ob.Direction == ast.DescScr
		if i > 0 && d != desc {
			return nil
		}
		desc = d
		order = append(order, o)
	}
	pp.reverse = desc
	if !pp.pickIndex(st, eq, order) {
		return nil
	}
	if sel.Limit != nil {
		if sel.Limit.Offset != nil {
			return nil
		}
		v, ok := sel.Limit.Rowcount.(*ast.SQLVal)
		if !ok || v.Type != ast.IntVal {
			return nil
		}
		n, err := strconv.ParseInt(string(v.Val), 10, 64)
		if err != nil || n < 0 {
			return nil
		}
		pp.limit = n
	}
	ip := &indexPlan{aggCol: -1}
	ip.point.table, ip.point.db = p.table, p.db
	if !ip.planSelectList(sel.SelectExprs, st, fields, alias, true) {
		return nil
	}
	if ip.agg != aggNone && (pp.limit >= 0 || len(order) > 0) {
		return nil
	}
	p.proj, pp.agg, pp.aggCol = ip.point.proj, ip.agg, ip.aggCol
	p.nbinds = len(eq)
	return pp
}

// equalities collects a conjunction of col = ? into eq (schema ordinal
// to parameter index), each column once.
func equalities(x ast.Expr, st *storage.Table, ours func(*ast.ColName) bool, eq map[int]int) bool {
	switch x := x.(type) {
	case *ast.AndExpr:
		return equalities(x.Left, st, ours, eq) && equalities(x.Right, st, ours, eq)
	case *ast.ParenExpr:
		return equalities(x.Expr, st, ours, eq)
	case *ast.ComparisonExpr:
		if x.Operator != ast.EqualStr {
			return false
		}
		c, ok := x.Left.(*ast.ColName)
		if !ok || !ours(c) {
			return false
		}
		o := st.Schema.IndexOfColName(c.Name.String())
		if _, dup := eq[o]; o < 0 || dup {
			return false
		}
		idx, ok := paramIndex(x.Right)
		if !ok {
			return false
		}
		eq[o] = idx
		return true
	}
	return false
}

// pickIndex finds the index (the primary key first) whose leading
// columns are exactly eq's and whose next columns are order's; the
// equality columns must have key encodings the scan can use as they are.
func (pp *prefixPlan) pickIndex(st *storage.Table, eq map[int]int, order []int) bool {
	try := func(id uint8, ords []int, plens []uint16) bool {
		k := len(eq)
		if len(ords) < k+len(order) {
			return false
		}
		for i, o := range ords[:k+len(order)] {
			if i < len(plens) && plens[i] > 0 {
				return false // a prefix column: its key is not the value's
			}
			if i < k {
				if _, ok := eq[o]; !ok {
					return false
				}
			} else if order[i-k] != o {
				return false
			}
		}
		var cols []prefixCol
		for _, o := range ords[:k] {
			t := st.Schema[o].Type
			c := prefixCol{ord: o, param: eq[o]}
			switch {
			case isIntType(t):
			case types.IsText(t) && !types.IsBinaryType(t):
				st, _ := t.(sql.StringType)
				if st == nil {
					return false
				}
				c.text = true
			default:
				return false
			}
			cols = append(cols, c)
		}
		pp.ixID, pp.eq = id, cols
		return true
	}
	textOK := func(cols []prefixCol) bool {
		for _, c := range cols {
			if c.text {
				coll := st.Schema[c.ord].Type.(sql.StringType).Collation()
				if st.Def.KeyFormat < storage.KeyFormatPadSpace && keys.PadSpace(coll) {
					return false
				}
			}
		}
		return true
	}
	if !st.Hidden && try(0, st.Def.PK, nil) && textOK(pp.eq) {
		return true
	}
	for _, ix := range st.Indexes {
		if ix.Def.Unique && len(order) > 0 && len(eq)+len(order) > len(ix.Ords) {
			continue
		}
		if try(ix.Def.ID, ix.Ords, ix.Def.Prefix) && textOK(pp.eq) {
			return true
		}
	}
	return false
}

// execPrefixSelect runs a prefix plan; ok=false means "let GMS do it".
func (e *Executor) execPrefixSelect(ctx context.Context, s *sqlengine.Session, pp *prefixPlan, bind map[string]*querypb.BindVariable, cb func(*sqltypes.Result) error) (bool, error) {
	p := &pp.point
	if len(bind) != p.nbinds || (!p.qualified && !strings.EqualFold(s.GetCurrentDatabase(), p.db)) || s.GetCharacterSetResults() != p.results {
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
	// The key prefix of the equality values, each converted to its
	// column's type without loss.
	lo := st.IndexKeyPrefix(pp.ixID)
	vals := make([]any, len(pp.eq))
	for i, c := range pp.eq {
		bv := bind["v"+strconv.Itoa(c.param+1)]
		var v any
		var ok bool
		if c.text {
			v, ok = bindValue(bv)
			if _, isStr := v.(string); !isStr {
				ok = false
			}
		} else {
			v, ok = intBind(bv)
		}
		if !ok || v == nil {
			return false, nil
		}
		typ := st.Schema[c.ord].Type
		cv, inRange, err := typ.Convert(sctx, v)
		if err != nil || inRange != sql.InRange || cv == nil {
			return false, nil
		}
		if c.text {
			if n, err := typ.Compare(sctx, v, cv); err != nil || n != 0 {
				return false, nil // shortened by the conversion: GMS's
			}
		}
		vals[i] = cv
		if lo, err = st.AppendKey(lo, typ, cv); err != nil {
			return false, nil
		}
	}
	hi := keys.PrefixSuccessor(lo)

	rt, ok := e.fastReadTxn(s, p.lock, false)
	if !ok {
		return false, nil
	}
	defer rt.done()
	txn, fail := rt.txn, func(err error) (bool, error) { return true, rt.fail(err) }
	it, err := txn.Scan(ctx, st, pp.ixID, slices.Clip(lo), hi, pp.reverse)
	if err != nil {
		return fail(err)
	}
	defer it.Close()
	ip := &indexPlan{agg: pp.agg, aggCol: pp.aggCol}
	ip.point.proj, ip.point.fields, ip.point.results = p.proj, p.fields, p.results
	need := ip.need()
	for _, c := range pp.eq {
		if c.text && !slices.Contains(need, c.ord) {
			need = append(slices.Clip(need), c.ord) // the re-check reads it
		}
	}
	if !p.lock && !it.Cover(need) {
		it.Project(need)
	}
	var acc indexAcc
	for pp.limit < 0 || int64(len(acc.rows)) < pp.limit {
		row, err := it.Next()
		if err != nil {
			return fail(err)
		}
		if row == nil {
			break
		}
		match := true
		for i, c := range pp.eq {
			if c.text {
				match = match && textEqual(sctx, st.Schema[c.ord].Type, vals[i], row[c.ord])
			}
		}
		if !match {
			continue
		}
		if !acc.add(ip, row) {
			return false, nil
		}
	}
	res, ok := acc.result(sctx, ip, st)
	if !ok {
		return false, nil
	}
	return true, sendRead(s, res, cb)
}

// textEqual compares two values of a string column as MySQL does: under a
// PAD SPACE collation trailing spaces do not count (GMS's Compare counts
// them; collcompare.go).
func textEqual(ctx *sql.Context, typ sql.Type, a, b any) bool {
	if st, ok := typ.(sql.StringType); ok && sqlengine.PadSpace(st.Collation()) {
		if x, ok := a.(string); ok {
			a = strings.TrimRight(x, " ")
		}
		if y, ok := b.(string); ok {
			b = strings.TrimRight(y, " ")
		}
	}
	n, err := typ.Compare(ctx, a, b)
	return err == nil && n == 0
}
