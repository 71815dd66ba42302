package fastpath

import (
	"context"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"

	"petrel/sqlengine"
	"petrel/storage/keys"
)

// The grouped-sum fast path: a prepared sum of a DECIMAL column per
// value of an integer column over leading columns of the primary key:
//
//	SELECT ol_d_id, SUM(ol_amount) FROM order_line
//	WHERE (ol_w_id, ol_d_id, ol_o_id) IN ((?,?,?), ...) GROUP BY ol_d_id
//
// (TPC-C's DELIVERY: the ten delivered orders' totals) is answered with
// one scan of the primary key per listed prefix (keyPrefixCond's forms:
// an IN list of key prefixes or k1 = ? AND ...), in key order without
// duplicates, as GMS reads them; the groups come out in the order their
// first row was read, as GMS's grouping emits them, each sum exact
// (decimal arithmetic), NULL when every value in the group is NULL, no
// row when no row matched. The select list is the grouping column and
// the sum, in either order; anything else (another aggregate, HAVING,
// ORDER BY, LIMIT, a lock, a non-DECIMAL sum, a grouping column that is
// not an integer) goes to GMS.

type groupSumPlan struct {
	point    pointPlan // table identity, privileges, fields, keys (prefixes)
	groupCol int
	sumCol   int
	sumFirst bool  // SUM(...) is the first column of the result
	scale    int32 // the sum field's fractional digits
}

// planGroupSum recognises a grouped sum; nil means "use GMS".
func (e *Executor) planGroupSum(s *sqlengine.Session, query string, fields []*querypb.Field) *groupSumPlan {
	stmt, err := ast.Parse(query)
	if err != nil {
		return nil
	}
	sel, ok := stmt.(*ast.Select)
	if !ok || sel.With != nil || sel.QueryOpts.Distinct || len(sel.GroupBy) != 1 || sel.Having != nil ||
		sel.Into != nil || len(sel.From) != 1 || sel.Where == nil || sel.Where.Type != ast.WhereStr ||
		len(sel.Window) > 0 || sel.QueryOpts.SQLCalcFoundRows || sel.Lock != "" || sel.OrderBy != nil ||
		sel.Limit != nil || len(sel.SelectExprs) != 2 || len(fields) != 2 || !readSessionOK(s) {
		return nil
	}
	ate, ok := sel.From[0].(*ast.AliasedTableExpr)
	if !ok || ate.AsOf != nil || (ate.Hints != nil && len(ate.Hints.Indexes) > 0) {
		return nil
	}
	tn, ok := ate.Expr.(ast.TableName)
	if !ok {
		return nil
	}
	alias := ate.As.String()
	gp := &groupSumPlan{groupCol: -1, sumCol: -1}
	p := &gp.point
	st := p.resolve(e, s, tn)
	if !intKey(st) {
		return nil
	}
	p.tableID, p.ncols, p.fields, p.results = st.Def.ID, len(st.Schema), fields, s.GetCharacterSetResults()
	ours := func(c *ast.ColName) bool { return sameTable(c, p, alias) }
	column := func(x ast.Expr) int {
		c, ok := unparen(x).(*ast.ColName)
		if !ok || !ours(c) {
			return -1
		}
		return st.Schema.IndexOfColName(c.Name.String())
	}
	if p.keys = keyPrefixCond(sel.Where.Expr, st, ours); p.keys == nil {
		return nil
	}
	p.nbinds = countParams(p.keys)
	g := column(sel.GroupBy[0])
	if g < 0 || !isIntType(st.Schema[g].Type) {
		return nil
	}
	for i, se := range sel.SelectExprs {
		ae, ok := se.(*ast.AliasedExpr)
		if !ok {
			return nil
		}
		if f, ok := ae.Expr.(*ast.FuncExpr); ok {
			if gp.sumCol >= 0 || !strings.EqualFold(f.Name.String(), "sum") || !f.Qualifier.IsEmpty() || f.Distinct ||
				f.Over != nil || len(f.Exprs) != 1 {
				return nil
			}
			arg, ok := f.Exprs[0].(*ast.AliasedExpr)
			if !ok {
				return nil
			}
			o := column(arg.Expr)
			if o < 0 {
				return nil
			}
			dt, ok := st.Schema[o].Type.(sql.DecimalType)
			if !ok {
				return nil
			}
			if fields, ok = decimalSumFields(fields, i, dt); !ok {
				return nil
			}
			gp.sumCol, gp.sumFirst, gp.scale = o, i == 0, int32(dt.Scale())
			continue
		}
		if column(ae.Expr) != g || gp.groupCol >= 0 {
			return nil
		}
		gp.groupCol = g
	}
	if gp.groupCol < 0 || gp.sumCol < 0 {
		return nil
	}
	p.fields = fields
	return gp
}

// decimalSumFields is fields with field i made the field of SUM over a
// DECIMAL(p,s) column as the engine sends it when it runs the statement
// (sqlengine's exactagg.go: MySQL's DECIMAL(p+22, s), p capped at 65);
// GMS's prepare announced a DOUBLE. The fields are copied, the prepare's
// left as they are.
func decimalSumFields(fields []*querypb.Field, i int, col sql.DecimalType) ([]*querypb.Field, bool) {
	switch fields[i].Type {
	case sqltypes.Decimal, sqltypes.Float64:
	default:
		return nil, false
	}
	dt, err := types.CreateDecimalType(min(col.Precision()+22, 65), col.Scale())
	if err != nil {
		return nil, false
	}
	out := copyFields(fields)
	out[i].Type = sqltypes.Decimal
	out[i].Decimals = uint32(dt.Scale())
	out[i].ColumnLength = dt.MaxTextResponseByteLength(nil)
	return out, true
}

// execGroupSum runs a grouped sum; ok=false means "let GMS do it".
func (e *Executor) execGroupSum(ctx context.Context, s *sqlengine.Session, gp *groupSumPlan, bind map[string]*querypb.BindVariable, cb func(*sqltypes.Result) error) (bool, error) {
	p := &gp.point
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
	prefixes, ok := encodeKeys(st, p.keys, func(pos int, v any) (any, bool) {
		cv, inRange, err := st.PKTypes[pos].Convert(sctx, v)
		return cv, err == nil && inRange == sql.InRange
	}, func(i int) (any, bool) { return intBind(bind["v"+strconv.Itoa(i+1)]) })
	if !ok {
		return false, nil
	}
	rt, ok := e.fastReadTxn(s, false, len(prefixes) == 1)
	if !ok {
		return false, nil
	}
	defer rt.done()
	type group struct {
		key  any // the grouping column's value as stored
		sum  decimal.Decimal
		some bool // a non-NULL value was added
	}
	var groups []group
	index := map[int64]int{}
	nullGroup := -1
	need := []int{gp.groupCol, gp.sumCol}
	for _, lo := range prefixes {
		it, err := rt.txn.Scan(ctx, st, 0, lo, keys.PrefixSuccessor(lo), false)
		if err != nil {
			return true, rt.fail(err)
		}
		it.Project(need)
		for {
			row, err := it.Next()
			if err != nil {
				it.Close()
				return true, rt.fail(err)
			}
			if row == nil {
				break
			}
			gv := row[gp.groupCol]
			gi := -1
			if gv == nil {
				if nullGroup < 0 {
					nullGroup = len(groups)
					groups = append(groups, group{})
				}
				gi = nullGroup
			} else {
				k, ok := toInt64Strict(gv)
				if !ok {
					it.Close()
					return false, nil
				}
				var known bool
				if gi, known = index[k]; !known {
					gi = len(groups)
					index[k] = gi
					groups = append(groups, group{key: gv})
				}
			}
			switch v := row[gp.sumCol].(type) {
			case nil:
			case decimal.Decimal:
				groups[gi].sum = groups[gi].sum.Add(v)
				groups[gi].some = true
			default:
				it.Close()
				return false, nil
			}
		}
		it.Close()
	}
	res := &sqltypes.Result{Fields: p.fields}
	gtyp := st.Schema[gp.groupCol].Type
	for _, g := range groups {
		gv, ok := wireColumn(sctx, gtyp, p.results, g.key)
		if !ok {
			return false, nil
		}
		sv := sqltypes.NULL
		if g.some {
			sv = sqltypes.MakeTrusted(sqltypes.Decimal, []byte(g.sum.StringFixed(gp.scale)))
		}
		if gp.sumFirst {
			res.Rows = append(res.Rows, []sqltypes.Value{sv, gv})
		} else {
			res.Rows = append(res.Rows, []sqltypes.Value{gv, sv})
		}
	}
	return true, sendRead(s, res, cb)
}
