package sqlengine

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/arith"
	"petrel/sqlengine/sqlmode"
	"petrel/storage"
)

// TIME columns' fractional-seconds precision. MySQL's TIME is TIME(0):
// '10:11:12.5' is stored as 10:11:13 (rounded; truncated under
// TIME_TRUNCATE_FRACTIONAL), and TIME(3) keeps milliseconds. GMS has one
// TIME type, of microseconds, and refuses TIME(0) to TIME(5), so a plain
// TIME column kept '10:11:12.500000'. Petrel reads the declared
// precision from the parsed CREATE or ALTER TABLE (noteTimePrecisions,
// which hands GMS TIME(6)), keeps it in the catalog (ColumnDef.FSP), and
// rounds each value to it on the write path (fitTimeFSP), whichever
// path writes. Tables created before keep microseconds (FSP nil).

// timeNotes are the TIME columns one statement declares, by lower-case
// name, for table db.name (db empty: the current database).
type timeNotes struct {
	db, name string
	fsp      map[string]int
	// digits are the statement's FLOAT and DOUBLE columns' M and D (nil
	// for a plain type; floatdigits.go).
	digits map[string]*storage.FloatDigits
	// like is CREATE TABLE ... LIKE's source table, whose columns' TIME
	// precisions and digits the new table takes (GMS copies only the
	// source's schema).
	like *ast.TableName
}

// noteTimePrecisions records, in ctx's session, the precision of every
// TIME column st declares, and gives GMS TIME(6) in place of TIME(0..5).
// Under REAL_AS_FLOAT it also makes REAL columns FLOAT.
func noteTimePrecisions(ctx context.Context, st ast.Statement) {
	sctx, ok := ctx.(*sql.Context)
	if !ok || sctx == nil || sctx.Session == nil {
		return
	}
	s, ok := sctx.Session.(*Session)
	if !ok {
		return
	}
	var ddls []*ast.DDL
	var table ast.TableName
	switch x := st.(type) {
	case *ast.DDL:
		ddls, table = []*ast.DDL{x}, x.Table
	case *ast.AlterTable:
		ddls, table = x.Statements, x.Table
	default:
		return // (GMS parses other text, trigger bodies, between a DDL's parse and its run)
	}
	realAsFloat := sqlmode.On(sqlmode.Load(sctx), "REAL_AS_FLOAT")
	var notes *timeNotes
	note := func() *timeNotes {
		if notes == nil {
			notes = &timeNotes{db: table.DbQualifier.String(), name: table.Name.String(), fsp: map[string]int{}, digits: map[string]*storage.FloatDigits{}}
		}
		return notes
	}
	if d, ok := st.(*ast.DDL); ok && d.OptLike != nil && len(d.OptLike.LikeTables) == 1 {
		note().like = &d.OptLike.LikeTables[0]
	}
	for _, d := range ddls {
		if d == nil || d.TableSpec == nil {
			continue
		}
		for _, c := range d.TableSpec.Columns {
			if c != nil && realAsFloat && strings.EqualFold(c.Type.Type, "real") {
				// REAL_AS_FLOAT: REAL is FLOAT, not DOUBLE.
				c.Type.Type = "float"
			}
			if c == nil {
				continue
			}
			if digits, ok := declaredDigits(c); ok {
				note().digits[strings.ToLower(c.Name.String())] = digits
				continue
			}
			if !strings.EqualFold(c.Type.Type, "time") {
				continue
			}
			fsp := 0
			if c.Type.Length != nil {
				n, err := strconv.Atoi(string(c.Type.Length.Val))
				if err != nil || n < 0 || n > 6 {
					continue // GMS's error
				}
				fsp = n
			}
			c.Type.Length = ast.NewIntVal([]byte("6"))
			note().fsp[strings.ToLower(c.Name.String())] = fsp
		}
	}
	s.timeFSP = notes
}

// takeTimePrecisions sets the precision of def's TIME columns: those the
// running statement declares from its notes, the others (an ALTER that
// rebuilds the table) from old, the table's definition before, by name.
// renamed maps a column's new lower-case name to its old one.
func takeTimePrecisions(ctx *sql.Context, def *storage.TableDef, old *storage.TableDef, renamed map[string]string) {
	var notes *timeNotes
	if s, ok := ctx.Session.(*Session); ok && s.timeFSP != nil {
		n := s.timeFSP
		db := n.db
		if db == "" {
			db = ctx.GetCurrentDatabase()
		}
		if strings.EqualFold(db, def.Database) && strings.EqualFold(n.name, def.Name) {
			notes = n
		}
		if notes != nil && notes.like != nil && old == nil && s.eng != nil {
			src := notes.like.DbQualifier.String()
			if src == "" {
				src = ctx.GetCurrentDatabase()
			}
			if t := s.eng.store.Catalog().Table(src, notes.like.Name.String()); t != nil {
				old = &t.Def
			}
		}
	}
	takeFloatDigits(def, notes, old, renamed) // floatdigits.go
	for i := range def.Columns {
		cd := &def.Columns[i]
		if !strings.HasPrefix(strings.ToLower(cd.Type), "time") || strings.HasPrefix(strings.ToLower(cd.Type), "timestamp") {
			cd.FSP = nil
			continue
		}
		name := strings.ToLower(cd.Name)
		if notes != nil {
			if fsp, ok := notes.fsp[name]; ok {
				cd.FSP = &fsp
				continue
			}
		}
		cd.FSP = nil
		if oc := priorColumn(old, renamed, name); oc != nil && oc.FSP != nil {
			fsp := *oc.FSP
			cd.FSP = &fsp
		}
	}
}

// fitTimeFSP rounds row's TIME values to their columns' precisions
// (in a copy of row when one changes).
func fitTimeFSP(ctx *sql.Context, st *storage.Table, row sql.Row) sql.Row {
	copied := false
	for i, cd := range st.Def.Columns {
		if cd.FSP == nil || *cd.FSP >= 6 || i >= len(row) {
			continue
		}
		ts, ok := row[i].(types.Timespan)
		if !ok {
			continue
		}
		r := arith.RoundTimespan(ctx, ts, *cd.FSP)
		if r == ts {
			continue
		}
		if !copied {
			row = append(sql.Row(nil), row...)
			copied = true
		}
		row[i] = r
	}
	return row
}

// timeAtPrecision prints TIME, DATETIME and TIMESTAMP values of
// precision 1 to 6 with their precision's digits ('12:00:00.600' for
// TIME(3), '2024-02-29 10:11:12.50' for DATETIME(2)), as MySQL does; GMS
// prints six digits for a TIME, as many as are not zero for the others. The field's
// Decimals come from the catalog (timestampDecimals); TIME(0) values are
// stored rounded and print without a fraction already, and columns
// created before precisions were kept have Decimals 0.
func timeAtPrecision(res *sqltypes.Result) {
	for i, f := range res.Fields {
		if f.Type != sqltypes.Time && f.Type != sqltypes.Datetime && f.Type != sqltypes.Timestamp || f.Decimals == 0 || f.Decimals > 6 {
			continue
		}
		if f.Type != sqltypes.Time && f.OrgTable == "" && f.Table == "" && f.Decimals == 6 {
			// A DATETIME expression: GMS types many at precision 6
			// (FROM_UNIXTIME(0), CONVERT_TZ, STR_TO_DATE) where
			// MySQL's is 0, so its 6 is not trusted. A precision of 1
			// to 5 is a column's or a cast's, carried through GREATEST,
			// COALESCE, MAX or DATE_ADD: CAST(x AS DATETIME(3)) prints
			// three digits, as MySQL's.
			continue
		}
		n := int(f.Decimals)
		for _, row := range res.Rows {
			if i >= len(row) || row[i].IsNull() {
				continue
			}
			b := row[i].Raw()
			whole := b
			frac := []byte(nil)
			if dot := bytes.IndexByte(b, '.'); dot >= 0 {
				whole, frac = b[:dot], b[dot+1:]
			}
			if len(frac) == n {
				continue
			}
			out := make([]byte, 0, len(whole)+1+n)
			out = append(append(out, whole...), '.')
			for j := 0; j < n; j++ {
				if j < len(frac) {
					out = append(out, frac[j])
				} else {
					out = append(out, '0')
				}
			}
			row[i] = sqltypes.MakeTrusted(f.Type, out)
		}
	}
}

// hasTimeFSP reports whether def has a TIME column of a precision other
// than 6 (the only one GMS's statement text knows).
func hasTimeFSP(def *storage.TableDef) bool {
	for _, c := range def.Columns {
		if c.TimeFSP() != 6 {
			return true
		}
	}
	return false
}

// timeTypesText puts each TIME column's declared type, as MySQL prints
// it (time, time(3)), in place of GMS's time(6) in SHOW CREATE TABLE's
// statement.
func timeTypesText(def *storage.TableDef, stmt string) string {
	for _, c := range def.Columns {
		fsp := c.TimeFSP()
		if fsp == 6 {
			continue
		}
		typ := "time"
		if fsp > 0 {
			typ = "time(" + strconv.Itoa(fsp) + ")"
		}
		name := "`" + strings.ReplaceAll(c.Name, "`", "``") + "` "
		stmt = strings.Replace(stmt, "\n  "+name+"time(6)", "\n  "+name+typ, 1)
		stmt = strings.Replace(stmt, "\n  "+name+"time(6)", "\n  "+name+typ, 1)
	}
	return stmt
}

// ColumnTimeFSP is the precision of TIME column col of a Petrel table
// (6 when it is not known: an expression's column, an older table), as
// storing a value asks the session.
func (s *Session) ColumnTimeFSP(col *sql.Column) int {
	if s.eng == nil || col.Source == "" || col.DatabaseSource == "" {
		return 6
	}
	t := s.eng.store.Catalog().Table(col.DatabaseSource, col.Source)
	if t == nil {
		return 6
	}
	for _, cd := range t.Def.Columns {
		if strings.EqualFold(cd.Name, col.Name) {
			return cd.TimeFSP()
		}
	}
	return 6
}

// timeTypeName is a TIME column's type as MySQL names it: time, time(3).
func timeTypeName(fsp int) string {
	if fsp == 0 {
		return "time"
	}
	return "time(" + strconv.Itoa(fsp) + ")"
}

// columnFSP is the declared precision of column col of Petrel table
// db.table, and whether it has one (a TIME column created since
// precisions are kept).
func (e *Engine) columnFSP(db, table, col string) (int, bool) {
	t := e.store.Catalog().Table(db, table)
	if t == nil {
		return 0, false
	}
	for _, cd := range t.Def.Columns {
		if strings.EqualFold(cd.Name, col) {
			if cd.FSP == nil {
				return 0, false
			}
			return *cd.FSP, true
		}
	}
	return 0, false
}

// showColumns is SHOW COLUMNS (DESCRIBE) as MySQL shows it: a string
// column's Type without its character set and collation (GMS's type
// name added them where they differ from utf8mb4_0900_bin, so every
// utf8mb4_0900_ai_ci column showed COLLATE: mtr's show_row_order-9226),
// the Collation column of SHOW FULL COLUMNS the column's own (GMS gave
// every text column utf8mb4_0900_bin and ENUM and SET none), and TIME
// columns' declared types.
func (e *Engine) showColumns(ctx *sql.Context, n *plan.ShowColumns, row sql.Row) (sql.RowIter, error) {
	var tb *Table
	if rt, ok := n.Child.(*plan.ResolvedTable); ok {
		if t, ok := petrelTable(rt.Table); ok && (hasTimeFSP(&t.t.Def) || t.t.HasDigits) {
			tb = t
		}
	}
	sch := n.TargetSchema()
	i := 0
	return gmsRows(ctx, n, row, func(r sql.Row) error {
		defer func() { i++ }()
		if len(r) < 2 || i >= len(sch) {
			return nil
		}
		if tc, ok := sch[i].Type.(sql.TypeWithCollation); ok {
			r[1] = tc.StringWithTableCollation(tc.Collation())
			if n.Full && len(r) > 2 {
				r[2] = nil
				if tc.Collation().CharacterSet() != sql.CharacterSet_binary {
					r[2] = tc.Collation().Name()
				}
			}
		}
		// Default unquoted, Extra as MySQL's (colsmeta.go).
		def, extra := 4, 5
		if n.Full {
			def, extra = 5, 6
		}
		if len(r) > extra {
			gms, _ := r[extra].(string)
			r[def] = decimalColumnDefault(sch[i], unquotedDefault(r[def], gms)) // decdefault.go
			r[extra] = columnExtra(sch[i], gms)
		}
		if tb != nil {
			name, _ := r[0].(string)
			if fsp, ok := e.columnFSP(tb.t.Def.Database, tb.t.Def.Name, name); ok {
				r[1] = timeTypeName(fsp)
			}
			if ty, _ := r[1].(string); ty == "float" || ty == "double" {
				if d := e.columnDigits(tb.t.Def.Database, tb.t.Def.Name, name); d != nil {
					r[1] = floatTypeName(ty, d)
				}
			}
		}
		return nil
	})
}

// Column ordinals of GMS's information_schema.COLUMNS rows.
const (
	isColsSchema, isColsTable, isColsName, isColsNumericPrecision, isColsNumericScale, isColsDatetimePrecision, isColsType = 1, 2, 3, 10, 11, 12, 15
	isColsExtra, isColsGeneration, isColsDefault                                                                           = 17, 20, 5
)

// timeColumnsIter wraps information_schema.COLUMNS' row source orig so
// that TIME columns report their declared precision and type (GMS: 6
// and time(6) for all).
func (e *Engine) timeColumnsIter(orig func(*sql.Context, sql.Catalog, sql.Schema) (sql.RowIter, error)) func(*sql.Context, sql.Catalog, sql.Schema) (sql.RowIter, error) {
	return func(ctx *sql.Context, c sql.Catalog, all sql.Schema) (sql.RowIter, error) {
		it, err := orig(ctx, c, all)
		if err != nil {
			return nil, err
		}
		return fixedRows(ctx, it, func(r sql.Row) error {
			if len(r) <= isColsType {
				return nil
			}
			ty, _ := r[isColsType].(string)
			db, _ := r[isColsSchema].(string)
			tbl, _ := r[isColsTable].(string)
			name, _ := r[isColsName].(string)
			if len(r) > isColsGeneration {
				// EXTRA and GENERATION_EXPRESSION (colsmeta.go).
				col := e.catalogColumn(db, tbl, name)
				extra, _ := r[isColsExtra].(string)
				r[isColsExtra] = columnExtra(col, extra)
				if g := generationExpression(col); g != "" {
					r[isColsGeneration] = g
				}
				if col != nil {
					r[isColsDefault] = decimalColumnDefault(col, r[isColsDefault]) // decdefault.go
				}
			}
			if ty == "float" || ty == "double" {
				// FLOAT(M,D), DOUBLE(M,D): MySQL's precision is M, its
				// scale D (floatdigits.go).
				if d := e.columnDigits(db, tbl, name); d != nil {
					r[isColsType] = floatTypeName(ty, d)
					r[isColsNumericPrecision], r[isColsNumericScale] = d.M, d.D
				}
				return nil
			}
			if ty != "time(6)" {
				return nil
			}
			if fsp, ok := e.columnFSP(db, tbl, name); ok {
				r[isColsType] = timeTypeName(fsp)
				r[isColsDatetimePrecision] = fsp
			}
			return nil
		})
	}
}

// wrappedColumnsPC is the code of timeColumnsIter's closure: a COLUMNS
// table whose row source is already one is not wrapped again.
var wrappedColumnsPC = reflect.ValueOf((&Engine{}).timeColumnsIter(nil)).Pointer()

// timeColumns gives the information_schema.COLUMNS table being read
// timeColumnsIter's row source. GMS makes the table anew for every
// statement, so this happens when the statement's scan is built (an
// exec-builder override that builds nothing itself).
func (e *Engine) timeColumns(ct *information_schema.ColumnsTable) {
	if ct.RowIter != nil && reflect.ValueOf(ct.RowIter).Pointer() != wrappedColumnsPC {
		ct.RowIter = e.timeColumnsIter(ct.RowIter)
	}
}

// unwrapTable is the table under GMS's wrappers (ProcessTable and the
// like).
func unwrapTable(t sql.Table) sql.Table {
	for i := 0; i < 4; i++ {
		w, ok := t.(sql.TableWrapper)
		if !ok {
			break
		}
		t = w.Underlying()
	}
	return t
}

// castTime is CAST(x AS TIME[(n)]): TIME(n), the fraction rounded to n
// digits (truncated under TIME_TRUNCATE_FRACTIONAL), where GMS keeps
// microseconds.
type castTime struct {
	sql.Expression
	fsp int
}

// FSP is the cast's precision (arith.TimeFSP).
func (c *castTime) FSP() int { return c.fsp }

func (c *castTime) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.Expression.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if ts, ok := v.(types.Timespan); ok && ts == 0 {
		// Empty text is no time: NULL with 1292, as MySQL's (GMS:
		// 00:00:00).
		if sv, err := c.Expression.Children()[0].Eval(ctx, row); err == nil {
			if s, ok := sv.(string); ok && strings.TrimSpace(s) == "" {
				ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErWrongValue, Message: fmt.Sprintf("Truncated incorrect time value: '%s'", s)})
				return nil, nil
			}
		}
	}
	if v == nil {
		// A date and time string is its time of day in MySQL
		// ('2020-01-01 03:25:45' is 03:25:45); GMS reads NULL. Another
		// string is NULL with MySQL's warning.
		sv, err := c.Expression.Children()[0].Eval(ctx, row)
		if s, ok := sv.(string); ok && err == nil {
			if t := strings.TrimSpace(s); t != s && t != "" {
				// Spaces around a time are no part of it, as MySQL
				// reads them (GMS: NULL).
				if tv, _, err := types.Time.Convert(ctx, t); err == nil {
					v = tv
				}
			}
			if v == nil {
				v = timeOfDay(ctx, s)
			}
			if v == nil {
				ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErWrongValue, Message: fmt.Sprintf("Truncated incorrect time value: '%s'", s)})
				v = leadingTime(ctx, s)
			}
		}
	}
	if ts, ok := v.(types.Timespan); ok {
		return arith.RoundTimespan(ctx, ts, c.fsp), nil
	}
	return v, nil
}

// timeOfDay is the time of day of s when it is a date and time, else
// nil.
func timeOfDay(ctx *sql.Context, s string) any {
	if !strings.Contains(s, "-") || !strings.Contains(s, ":") {
		return nil
	}
	dv, _, err := types.DatetimeMaxPrecision.Convert(ctx, strings.TrimSpace(s))
	t, ok := dv.(time.Time)
	if err != nil || !ok {
		return nil
	}
	return types.Timespan((int64(t.Hour())*3600+int64(t.Minute())*60+int64(t.Second()))*1_000_000 + int64(t.Nanosecond()/1000))
}

// leadingTime is the time MySQL reads from the digits s starts with,
// as a number [H]HMMSS, the rest cut with the warning ('0000-00-00' is
// 00:00:00, '2024-07-04' 00:20:24, '123abc' 00:01:23); nil when s does
// not start with a digit or the number is no time.
func leadingTime(ctx *sql.Context, s string) any {
	s = strings.TrimLeft(s, " ")
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 || n > 9 {
		return nil
	}
	num, err := strconv.ParseInt(s[:n], 10, 64)
	if err != nil {
		return nil
	}
	tv, _, err := types.Time.Convert(ctx, num)
	if err != nil {
		return nil
	}
	return tv
}

func (c *castTime) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := c.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &castTime{Expression: e}, nil
}

// checkTemporalPrecision refuses a TIME, DATETIME or TIMESTAMP column of
// more than 6 fractional digits with MySQL's 1426, naming the column
// (GMS: 1105 "TIME only supports a length from 0 to 6").
func checkTemporalPrecision(st ast.Statement) error {
	var ddls []*ast.DDL
	switch x := st.(type) {
	case *ast.DDL:
		ddls = []*ast.DDL{x}
	case *ast.AlterTable:
		ddls = x.Statements
	}
	for _, d := range ddls {
		if d == nil || d.TableSpec == nil {
			continue
		}
		for _, c := range d.TableSpec.Columns {
			if c == nil || c.Type.Length == nil {
				continue
			}
			switch strings.ToLower(c.Type.Type) {
			case "time", "datetime", "timestamp":
			default:
				continue
			}
			if n, err := strconv.Atoi(string(c.Type.Length.Val)); err == nil && n > 6 {
				return mysqlerr.New(mysqlerr.ErTooBigPrecision, "Too-big precision %d specified for '%s'. Maximum is 6.", n, c.Name.String())
			}
		}
	}
	return nil
}
