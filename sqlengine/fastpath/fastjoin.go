package fastpath

import (
	"context"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/sqlengine"
	"petrel/storage"
)

// The point-join fast path: a prepared select of two or more tables in
// which every table's whole integer primary key is given by parameters,
// directly or through an equality with another table's key column:
//
//	SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse
//	WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?
//
// (TPC-C's NEW_ORDER, once per transaction) reads each table's one row by
// its key, as InnoDB's const join does, and answers the one joined row
// (none when a table has no such row). The tables are joined by commas or
// [INNER] JOIN ... ON; the conditions are a conjunction of col = ? and
// col = col over key columns only, each group of equal columns given one
// parameter. Anything else (another condition, a non-key column in an
// equality, an ambiguous column, a lock clause) goes to GMS.

// joinTable is one table of a point join.
type joinTable struct {
	point pointPlan // identity, privileges; keys: its one key's parameters
	alias string
}

// joinCol is an output column: a table of the join and a schema ordinal.
type joinCol struct{ table, ord int }

type joinPlan struct {
	tables  []*joinTable
	out     []joinCol
	fields  []*querypb.Field
	results sql.CharacterSetID
	nbinds  int
}

// planPointJoin recognises a point join; nil means "use GMS".
func (e *Executor) planPointJoin(s *sqlengine.Session, query string, fields []*querypb.Field) *joinPlan {
	stmt, err := ast.Parse(query)
	if err != nil {
		return nil
	}
	sel, ok := stmt.(*ast.Select)
	if !ok || sel.With != nil || sel.QueryOpts.Distinct || sel.GroupBy != nil || sel.Having != nil ||
		sel.Into != nil || sel.Where == nil || sel.Where.Type != ast.WhereStr || len(sel.Window) > 0 ||
		sel.QueryOpts.SQLCalcFoundRows || sel.Lock != "" || sel.OrderBy != nil || sel.Limit != nil || !readSessionOK(s) {
		return nil
	}
	jp := &joinPlan{results: s.GetCharacterSetResults()}
	var tables []*storage.Table
	conds := []ast.Expr{sel.Where.Expr}
	var from func(te ast.TableExpr) bool
	from = func(te ast.TableExpr) bool {
		switch x := te.(type) {
		case *ast.AliasedTableExpr:
			tn, ok := x.Expr.(ast.TableName)
			if !ok || x.AsOf != nil || (x.Hints != nil && len(x.Hints.Indexes) > 0) {
				return false
			}
			jt := &joinTable{alias: x.As.String()}
			st := jt.point.resolve(e, s, tn)
			if !intKey(st) {
				return false
			}
			jt.point.tableID, jt.point.ncols = st.Def.ID, len(st.Schema)
			jp.tables = append(jp.tables, jt)
			tables = append(tables, st)
			return true
		case *ast.JoinTableExpr:
			if x.Join != ast.JoinStr || x.Condition.On == nil || len(x.Condition.Using) > 0 {
				return false
			}
			conds = append(conds, x.Condition.On)
			return from(x.LeftExpr) && from(x.RightExpr)
		}
		return false
	}
	for _, te := range sel.From {
		if !from(te) {
			return nil
		}
	}
	if len(jp.tables) < 2 {
		return nil
	}
	for i := range jp.tables {
		for j := range i {
			if strings.EqualFold(jp.tables[i].name(), jp.tables[j].name()) {
				return nil // the same name twice: GMS's error
			}
		}
	}
	// Each column named in the conditions is a key column of one table;
	// equal columns form classes, each given one parameter.
	type colRef struct{ table, pos int }
	class := map[colRef]int{} // column -> class
	var parent []int
	param := []int{}
	var find func(int) int
	find = func(c int) int {
		for parent[c] != c {
			c = parent[c]
		}
		return c
	}
	classOf := func(c *ast.ColName) (int, bool) {
		t, o := jp.column(tables, c)
		if t < 0 {
			return 0, false
		}
		pos := -1
		for i, k := range tables[t].Def.PK {
			if k == o {
				pos = i
			}
		}
		if pos < 0 {
			return 0, false
		}
		ref := colRef{t, pos}
		if c, ok := class[ref]; ok {
			return find(c), true
		}
		class[ref] = len(parent)
		parent = append(parent, len(parent))
		param = append(param, -1)
		return len(parent) - 1, true
	}
	var cond func(x ast.Expr) bool
	cond = func(x ast.Expr) bool {
		switch x := x.(type) {
		case *ast.AndExpr:
			return cond(x.Left) && cond(x.Right)
		case *ast.ParenExpr:
			return cond(x.Expr)
		case *ast.ComparisonExpr:
			if x.Operator != ast.EqualStr {
				return false
			}
			l, lok := x.Left.(*ast.ColName)
			r, rok := x.Right.(*ast.ColName)
			switch {
			case lok && rok:
				a, ok1 := classOf(l)
				b, ok2 := classOf(r)
				if !ok1 || !ok2 {
					return false
				}
				if a != b {
					if param[a] >= 0 && param[b] >= 0 {
						return false // two parameters for one value
					}
					parent[b] = a
					param[a] = max(param[a], param[b])
				}
				return true
			case lok || rok:
				c, other := l, x.Right
				if !lok {
					c, other = r, x.Left
				}
				idx, ok := paramIndex(other)
				if !ok {
					return false
				}
				a, ok := classOf(c)
				if !ok || param[a] >= 0 {
					return false
				}
				param[a] = idx
				jp.nbinds = max(jp.nbinds, idx+1)
				return true
			}
		}
		return false
	}
	for _, c := range conds {
		if !cond(c) {
			return nil
		}
	}
	for t := range jp.tables {
		key := make(keyParams, len(tables[t].Def.PK))
		for pos := range key {
			c, ok := class[colRef{t, pos}]
			if !ok || param[find(c)] < 0 {
				return nil
			}
			key[pos] = param[find(c)]
		}
		jp.tables[t].point.keys = []keyParams{key}
	}
	// The select list: columns of the tables, by name or alias.
	for _, se := range sel.SelectExprs {
		ae, ok := se.(*ast.AliasedExpr)
		if !ok {
			return nil
		}
		c, ok := ae.Expr.(*ast.ColName)
		if !ok {
			return nil
		}
		t, o := jp.column(tables, c)
		if t < 0 {
			return nil
		}
		jp.out = append(jp.out, joinCol{t, o})
	}
	if len(fields) != len(jp.out) {
		return nil
	}
	for t, jt := range jp.tables {
		var proj []int
		for _, c := range jp.out {
			if c.table == t {
				proj = append(proj, c.ord)
			}
		}
		jt.point.want = wantColumns(proj, jt.point.ncols)
	}
	jp.fields = fields
	return jp
}

// name is how the statement names the table: its alias, else its name.
func (jt *joinTable) name() string {
	if jt.alias != "" {
		return jt.alias
	}
	return jt.point.table
}

// column finds the table and schema ordinal c names; -1 when it names
// none or is ambiguous.
func (jp *joinPlan) column(tables []*storage.Table, c *ast.ColName) (int, int) {
	q, db := c.Qualifier.Name.String(), c.Qualifier.DbQualifier.String()
	found, ord := -1, -1
	for t, jt := range jp.tables {
		if q != "" {
			if db != "" && (jt.alias != "" || !strings.EqualFold(db, jt.point.db)) {
				continue
			}
			if !strings.EqualFold(q, jt.name()) {
				continue
			}
		}
		o := tables[t].Schema.IndexOfColName(c.Name.String())
		if o < 0 {
			continue
		}
		if found >= 0 {
			return -1, -1
		}
		found, ord = t, o
	}
	return found, ord
}

// sameTables reports whether two join plans read the same definitions of
// the same tables.
func (jp *joinPlan) sameTables(o *joinPlan) bool {
	if len(jp.tables) != len(o.tables) || jp.nbinds != o.nbinds {
		return false
	}
	for i := range jp.tables {
		if !jp.tables[i].point.sameTable(&o.tables[i].point) {
			return false
		}
	}
	return true
}

// execPointJoin runs a point join; ok=false means "let GMS do it".
func (e *Executor) execPointJoin(ctx context.Context, s *sqlengine.Session, jp *joinPlan, bind map[string]*querypb.BindVariable, cb func(*sqltypes.Result) error) (bool, error) {
	if len(bind) != jp.nbinds || s.GetCharacterSetResults() != jp.results {
		return false, nil
	}
	sctx := e.NewContext(ctx, s)
	tables := make([]*storage.Table, len(jp.tables))
	keys := make([][]byte, len(jp.tables))
	for i := range jp.tables {
		p := &jp.tables[i].point
		if !p.qualified && !strings.EqualFold(s.GetCurrentDatabase(), p.db) {
			return false, nil
		}
		st := e.store.Catalog().Table(p.db, p.table)
		if st == nil || st.Def.ID != p.tableID || len(st.Schema) != p.ncols || !e.canSelect(sctx, s, p) {
			return false, nil
		}
		k, ok := encodeKeys(st, p.keys, func(pos int, v any) (any, bool) {
			cv, inRange, err := st.PKTypes[pos].Convert(sctx, v)
			return cv, err == nil && inRange == sql.InRange
		}, func(i int) (any, bool) { return intBind(bind["v"+strconv.Itoa(i+1)]) })
		if !ok || len(k) != 1 {
			return false, nil
		}
		tables[i], keys[i] = st, k[0]
	}
	rt, ok := e.fastReadTxn(s, false, false)
	if !ok {
		return false, nil
	}
	defer rt.done()
	rows := make([]sql.Row, len(tables))
	res := &sqltypes.Result{Fields: jp.fields}
	for i, st := range tables {
		row, err := rt.txn.PointColumns(ctx, st, keys[i], jp.tables[i].point.want)
		if err != nil {
			return true, rt.fail(err)
		}
		if row == nil {
			return true, sendRead(s, res, cb)
		}
		rows[i] = row
	}
	out := make([]sqltypes.Value, len(jp.out))
	for i, c := range jp.out {
		v, ok := wireColumn(sctx, tables[c.table].Schema[c.ord].Type, jp.results, rows[c.table][c.ord])
		if !ok {
			return false, nil
		}
		out[i] = v
	}
	res.Rows = append(res.Rows, out)
	return true, sendRead(s, res, cb)
}
