package fastpath

import (
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"

	"petrel/sqlengine"
	"petrel/storage"
	"petrel/storage/keys"
)

// The write fast paths' plans (fastwrite.go runs them): recognising
// a statement's shape, its table and its values' conversions.

// setClause is one assignment of an UPDATE: col = ?, col = col +/- x
// (x a parameter or a literal) or col = ? +/- lit.
type setClause struct {
	col   int
	add   bool // col = col +/- x, or col = ? +/- lit when onParam
	sub   bool // - rather than +
	param int  // index into the statement's parameters; -1 for lit
	// onParam: col = ? +/- lit, the parameter being base.
	onParam bool
	base    int
	lit     any // the literal operand (int64, decimal.Decimal or float64)
}

// writePlan is a recognised write statement.
type writePlan struct {
	kind      writeKind
	db, table string
	qualified bool
	tableID   uint32
	ncols     int
	sets      []setClause
	keys      []keyParams // the rows' primary keys (UPDATE, DELETE)
	prefix    bool        // keys are leading columns of the key: ranges
	insCols   []int       // INSERT: parameter i goes to column insCols[i]
	insRows   int         // INSERT: rows of parameters (prepared VALUES lists)
	nparams   int

	priv privCache
}

// planWrite recognises a write fast-path statement; nil means "use GMS".
func (e *Executor) planWrite(s *sqlengine.Session, query string) *writePlan {
	stmt, err := ast.Parse(query)
	if err != nil {
		return nil
	}
	return e.planWriteStmt(s, stmt)
}

// planWriteStmt is planWrite of a parsed statement.
func (e *Executor) planWriteStmt(s *sqlengine.Session, stmt ast.Statement) *writePlan {
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
func (e *Executor) fastTable(s *sqlengine.Session, te ast.TableExpr, p *writePlan) *storage.Table {
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

// fastTableName is writeTable for the prepared UPDATE and DELETE, which
// also want an integer primary key (they find the rows by it).
func (e *Executor) fastTableName(s *sqlengine.Session, tn ast.TableName, p *writePlan) *storage.Table {
	st := e.writeTable(s, tn, p)
	if !intKey(st) {
		return nil
	}
	return st
}

// writeTable resolves the table a fast-path INSERT writes and checks it
// qualifies (no CHECK constraints, foreign keys either way, generated or
// ON UPDATE columns or triggers); the plan gets its identity.
func (e *Executor) writeTable(s *sqlengine.Session, tn ast.TableName, p *writePlan) *storage.Table {
	p.table, p.db = tn.Name.String(), tn.DbQualifier.String()
	p.qualified = p.db != ""
	if !p.qualified {
		p.db = s.GetCurrentDatabase()
	}
	st := e.store.Catalog().Table(p.db, p.table)
	if st == nil || len(st.Def.Checks) > 0 || st.InForeignKey() {
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

// keyWhere recognises a WHERE giving whole primary keys (keyCond) and
// records them; params grows to cover their parameters.
func keyWhere(w *ast.Where, st *storage.Table, p *writePlan, params *int) bool {
	if w == nil || w.Type != ast.WhereStr {
		return false
	}
	p.keys = keyPrefixCond(w.Expr, st, func(c *ast.ColName) bool { return plainCol(c, p) })
	if p.keys == nil {
		return false
	}
	p.prefix = len(p.keys[0]) < len(st.Def.PK)
	*params = max(*params, countParams(p.keys))
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

func (e *Executor) planUpdate(s *sqlengine.Session, u *ast.Update) *writePlan {
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
	isKey := map[int]bool{}
	for _, o := range st.Def.PK {
		isKey[o] = true
	}
	for _, ue := range u.Exprs {
		if !plainCol(ue.Name, p) {
			return nil
		}
		o := st.Schema.IndexOfColName(ue.Name.Name.String())
		if o < 0 || isKey[o] || seen[o] {
			return nil
		}
		seen[o] = true
		sc, ok := setOf(ue.Expr, st, p, o)
		if !ok {
			return nil
		}
		p.sets = append(p.sets, sc)
	}
	if len(p.sets) == 0 || !keyWhere(u.Where, st, p, &params) {
		return nil
	}
	// The parameters are numbered in text order: the SET clauses' come
	// first, the keys' after them.
	for _, sc := range p.sets {
		params = max(params, sc.param+1, sc.base+1)
	}
	p.nparams = params
	return p
}

// setOf recognises one assignment to column o.
func setOf(x ast.Expr, st *storage.Table, p *writePlan, o int) (setClause, bool) {
	sc := setClause{col: o, param: -1, base: -1}
	if i, ok := paramIndex(x); ok {
		sc.param = i
		return sc, true
	}
	be, ok := x.(*ast.BinaryExpr)
	if !ok || (be.Operator != ast.PlusStr && be.Operator != ast.MinusStr) || !numberColumn(st.Schema[o]) {
		return sc, false
	}
	sc.add, sc.sub = true, be.Operator == ast.MinusStr
	operand := func(y ast.Expr) bool {
		if i, ok := paramIndex(y); ok {
			sc.param = i
			return true
		}
		if v, ok := y.(*ast.SQLVal); ok {
			sc.lit, ok = literalNumber(v)
			return ok
		}
		return false
	}
	if c, ok := be.Left.(*ast.ColName); ok {
		// col = col +/- x
		if !plainCol(c, p) || !strings.EqualFold(c.Name.String(), st.Schema[o].Name) {
			return sc, false
		}
		return sc, operand(be.Right)
	}
	// col = ? +/- lit
	i, ok := paramIndex(be.Left)
	v, isLit := be.Right.(*ast.SQLVal)
	if !ok || !isLit || v.Type == ast.ValArg {
		return sc, false
	}
	sc.onParam, sc.base = true, i
	sc.lit, ok = literalNumber(v)
	return sc, ok
}

func (e *Executor) planDelete(s *sqlengine.Session, d *ast.Delete) *writePlan {
	if d.With != nil || len(d.TableExprs) != 1 || len(d.Targets) > 0 || d.OrderBy != nil || d.Limit != nil || len(d.Partitions) > 0 || len(d.Returning) > 0 {
		return nil
	}
	p := &writePlan{kind: writeDelete}
	st := e.fastTable(s, d.TableExprs[0], p)
	if st == nil {
		return nil
	}
	params := 0
	if !keyWhere(d.Where, st, p, &params) {
		return nil
	}
	p.nparams = params
	return p
}

func (e *Executor) planInsert(s *sqlengine.Session, in *ast.Insert) *writePlan {
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
	if len(vals) == 0 {
		return nil
	}
	p := &writePlan{kind: writeInsert, insRows: len(vals)}
	st := e.writeTable(s, in.Table, p)
	if st == nil || len(in.Columns) == 0 || len(in.Columns) > len(st.Schema) {
		return nil
	}
	seen := make([]bool, len(st.Schema))
	for _, c := range in.Columns {
		o := st.Schema.IndexOfColName(c.String())
		if o < 0 || seen[o] {
			return nil
		}
		seen[o] = true
		p.insCols = append(p.insCols, o)
	}
	for o, c := range st.Schema {
		// A column left out must be NULL by default: nullable, no
		// default, no AUTO_INCREMENT (GMS evaluates other defaults).
		if !seen[o] && (!c.Nullable || c.Default != nil || c.AutoIncrement) {
			return nil
		}
		if c.AutoIncrement && len(vals) > 1 {
			return nil // GMS allocates the values of a multi-row INSERT
		}
	}
	n := len(in.Columns)
	for r, tuple := range vals {
		if len(tuple) != n {
			return nil
		}
		for i, x := range tuple {
			// The ?s in text order: row r's column i is parameter r*n+i.
			if idx, ok := paramIndex(x); !ok || idx != r*n+i {
				return nil
			}
		}
	}
	p.nparams = n * len(vals)
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
	case bv.Type == sqltypes.Float64 || bv.Type == sqltypes.Float32:
		// A DOUBLE parameter (drivers send Go's float64 so); convert only
		// stores it into numeric columns.
		f, err := strconv.ParseFloat(string(bv.Value), 64)
		return f, err == nil
	case bv.Type == sqltypes.Decimal:
		d, err := decimal.NewFromString(string(bv.Value))
		return d, err == nil
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
	switch x := v.(type) {
	case float64, decimal.Decimal:
		if !numberColumn(col) {
			return nil, false // a number's text in a string column is GMS's
		}
		if d, ok := x.(decimal.Decimal); ok && keys.DecimalFits(col.Type, d) {
			// Already the column's value (an unchanged DECIMAL of the
			// row, a parameter with the column's scale): storing
			// rules and Convert would return it as it is.
			return v, true
		}
	}
	// MySQL's storing rules first (storeval/storevalue.go): a value they would
	// clip, truncate or refuse is GMS's to store, with its warning or
	// error.
	v, err := sqlengine.StoreExact(ctx, col, v)
	if err != nil {
		return nil, false
	}
	if d, ok := v.(decimal.Decimal); ok && keys.DecimalFits(col.Type, d) {
		// The storing rules rounded it to the column's scale (a DOUBLE
		// parameter: TPC-C's amounts): Convert would return it as it is.
		return d, true
	}
	cv, inRange, err := col.Type.Convert(ctx, v)
	if err != nil || inRange != sql.InRange {
		return nil, false
	}
	if ts, ok := cv.(types.Timespan); ok && st.Def.Columns[o].TimeFSP() < 6 {
		cv = sqlengine.RoundTimespan(ctx, ts, st.Def.Columns[o].TimeFSP())
	}
	return cv, true
}
