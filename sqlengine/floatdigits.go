package sqlengine

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/storeval"
	"petrel/storage"
)

// FLOAT(M,D) and DOUBLE(M,D) columns. MySQL stores their values rounded
// to D places and within plus or minus 10^(M-D) - 10^-D (1264 past it),
// sends them with D decimals and prints D digits after the point
// (FLOAT(5,2) holds 1.24 for 1.236 and shows 1.00 for 1). GMS reads
// FLOAT(M,D) as FLOAT(p) of precision M (a DOUBLE past 24) and drops D,
// so Petrel stored 1.236. Petrel notes M and D from the parsed CREATE
// or ALTER TABLE with the TIME precisions (timefsp.go, timeNotes), gives
// GMS the plain type, keeps them in the catalog (ColumnDef.Digits), and
// the storing rules round each value (storeval's columnFloatDigits asks
// the session). Results of such a column have D decimals (floatFields),
// and the text protocol prints D digits (textFloats).

// floatTyped reports whether a parsed column type is FLOAT or DOUBLE.
func floatTyped(typ string) (isFloat, isDouble bool) {
	switch strings.ToLower(typ) {
	case "float":
		return true, false
	case "double", "real", "double precision":
		return false, true
	}
	return false, false
}

// declaredDigits are the M and D a column definition gives its FLOAT or
// DOUBLE type, nil when it gives none (or M is 0, which MySQL reads as
// plain FLOAT); ok is false when c is not FLOAT or DOUBLE.
func declaredDigits(c *ast.ColumnDefinition) (d *storage.FloatDigits, ok bool) {
	f, dbl := floatTyped(c.Type.Type)
	if !f && !dbl {
		return nil, false
	}
	if c.Type.Length == nil || c.Type.Scale == nil {
		return nil, true
	}
	m, err1 := strconv.Atoi(string(c.Type.Length.Val))
	n, err2 := strconv.Atoi(string(c.Type.Scale.Val))
	if err1 != nil || err2 != nil || m <= 0 {
		return nil, true
	}
	return &storage.FloatDigits{M: m, D: n}, true
}

// checkFloatDigits refuses FLOAT(M,D) and DOUBLE(M,D) columns MySQL
// refuses (M < D: 1427; D > 30: 1425; M > 255: 1439, in MySQL's order),
// then gives GMS the plain type: FLOAT stays single precision whatever
// M is (GMS made FLOAT(30,10) a DOUBLE). The statement's digits were
// noted before (noteTimePrecisions).
func checkFloatDigits(st ast.Statement) error {
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
			if c == nil {
				continue
			}
			digits, ok := declaredDigits(c)
			if !ok || c.Type.Scale == nil {
				continue
			}
			name := c.Name.String()
			if digits != nil {
				switch {
				case digits.M < digits.D:
					return mysqlerr.New(mysqlerr.ErMBiggerThanD, "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '%s').", name)
				case digits.D > 30:
					return mysqlerr.New(mysqlerr.ErTooBigScale, "Too-big scale %d specified for '%s'. Maximum is 30.", digits.D, name)
				case digits.M > 255:
					return mysqlerr.New(mysqlerr.ErTooBigDisplayWidth, "Display width out of range for column '%s' (max = 255)", name)
				}
			}
			c.Type.Length, c.Type.Scale = nil, nil
		}
	}
	return nil
}

// takeFloatDigits sets def's FLOAT and DOUBLE columns' digits: those
// the running statement declares from notes (nil for a plain type), the
// others from old, the table's definition before, by name. renamed maps
// a column's new lower-case name to its old one.
func takeFloatDigits(def *storage.TableDef, notes *timeNotes, old *storage.TableDef, renamed map[string]string) {
	for i := range def.Columns {
		cd := &def.Columns[i]
		t := strings.ToLower(cd.Type)
		if !strings.HasPrefix(t, "float") && !strings.HasPrefix(t, "double") {
			cd.Digits = nil
			continue
		}
		name := strings.ToLower(cd.Name)
		if notes != nil {
			if d, ok := notes.digits[name]; ok {
				cd.Digits = d
				continue
			}
		}
		cd.Digits = nil
		if oc := priorColumn(old, renamed, name); oc != nil && oc.Digits != nil {
			d := *oc.Digits
			cd.Digits = &d
		}
	}
}

// ColumnFloatDigits are the M and D of FLOAT or DOUBLE column col of a
// Petrel table, as storing a value asks the session; ok is false for a
// column without them.
func (s *Session) ColumnFloatDigits(col *sql.Column) (m, d int, ok bool) {
	if s.eng == nil || col.Source == "" || col.DatabaseSource == "" {
		return 0, 0, false
	}
	t := s.eng.store.Catalog().Table(col.DatabaseSource, col.Source)
	if t == nil || !t.HasDigits {
		return 0, 0, false
	}
	for _, cd := range t.Def.Columns {
		if strings.EqualFold(cd.Name, col.Name) {
			if cd.Digits == nil {
				return 0, 0, false
			}
			return cd.Digits.M, cd.Digits.D, true
		}
	}
	return 0, 0, false
}

// columnDigits are the M and D of column col of Petrel table db.table,
// nil for a column without them.
func (e *Engine) columnDigits(db, table, col string) *storage.FloatDigits {
	t := e.store.Catalog().Table(db, table)
	if t == nil || !t.HasDigits {
		return nil
	}
	for _, cd := range t.Def.Columns {
		if strings.EqualFold(cd.Name, col) {
			return cd.Digits
		}
	}
	return nil
}

// floatFields gives a FLOAT(M,D) or DOUBLE(M,D) table column's field
// its M as length and D as decimals, as MySQL sends them (GMS: 12 or 22,
// and 31). Found by the field's database, table and column name, as
// timestampDecimals finds TIME columns.
func (e *Engine) floatFields(fs []*querypb.Field) {
	for _, f := range fs {
		if (f.Type != sqltypes.Float32 && f.Type != sqltypes.Float64) || f.Database == "" || f.OrgTable == "" {
			continue
		}
		t := e.store.Catalog().Table(f.Database, f.OrgTable)
		if t == nil || !t.HasDigits {
			continue
		}
		for _, c := range t.Def.Columns {
			if strings.EqualFold(c.Name, f.OrgName) {
				if c.Digits != nil && (f.Decimals != uint32(c.Digits.D) || f.ColumnLength != uint32(c.Digits.M)) {
					f.Decimals, f.ColumnLength = uint32(c.Digits.D), uint32(c.Digits.M)
				}
				break
			}
		}
	}
}

// fixedDecimals prints a FLOAT or DOUBLE value b of a field with d
// fixed decimals as MySQL does: the value (a FLOAT's widened to double)
// by its shortest digits, rounded to d places or padded with zeros to
// them: FLOAT(30,10)'s 1e20 prints 100000002004087730000.0000000000.
func fixedDecimals(b []byte, f32 bool, d int) []byte {
	bits := 64
	if f32 {
		bits = 32
	}
	f, err := strconv.ParseFloat(string(b), bits)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return b
	}
	out := strconv.AppendFloat(nil, f, 'f', -1, 64)
	dot := bytes.IndexByte(out, '.')
	have := 0
	if dot >= 0 {
		have = len(out) - dot - 1
	}
	switch {
	case have > d:
		return strconv.AppendFloat(nil, f, 'f', d, 64)
	case have < d:
		if dot < 0 && d > 0 {
			out = append(out, '.')
		}
		for ; have < d; have++ {
			out = append(out, '0')
		}
	}
	return out
}

// floatTypeName is a FLOAT or DOUBLE column's type as MySQL prints it:
// float(5,2), double(8,3); base is float or double.
func floatTypeName(base string, d *storage.FloatDigits) string {
	return base + "(" + strconv.Itoa(d.M) + "," + strconv.Itoa(d.D) + ")"
}

// floatTypesText puts each FLOAT(M,D) and DOUBLE(M,D) column's declared
// type in place of GMS's float or double in SHOW CREATE TABLE's
// statement.
func floatTypesText(def *storage.TableDef, stmt string) string {
	for _, c := range def.Columns {
		if c.Digits == nil {
			continue
		}
		name := "\n  `" + strings.ReplaceAll(c.Name, "`", "``") + "` "
		for _, base := range []string{"float", "double"} {
			if i := strings.Index(stmt, name+base); i >= 0 {
				rest := stmt[i+len(name)+len(base):]
				if rest == "" || rest[0] == ' ' || rest[0] == ',' || rest[0] == '\n' {
					stmt = stmt[:i] + name + floatTypeName(base, c.Digits) + rest
					break
				}
			}
		}
	}
	return stmt
}

// fitFloatDigits stores row's values of the FLOAT(M,D) and DOUBLE(M,D)
// columns of st, a table an ALTER rewrites from old, whose digits the
// ALTER changes (in a copy of row when one changes), as MySQL's copy
// stores a value into a changed column: rounded, within range. The
// storing rules did this for statements' values; a rewrite's copied
// rows come here only, and a column that keeps its digits is copied as
// it is (its FLOAT values widened to double can lie just past the
// bound: FLOAT(30,10) holds 1e20 as 1.00000002e20).
func fitFloatDigits(ctx *sql.Context, st, old *storage.Table, row sql.Row, rowNum int) (sql.Row, error) {
	copied := false
	for i, cd := range st.Def.Columns {
		if cd.Digits == nil || i >= len(row) || row[i] == nil || i >= len(st.Schema) {
			continue
		}
		if o := defColumn(&old.Def, cd.Name); o != nil && o.Digits != nil && *o.Digits == *cd.Digits && strings.EqualFold(o.Type, cd.Type) {
			continue
		}
		v, err := storeval.FitFloatDigits(ctx, st.Schema[i], row[i], rowNum, cd.Digits.M, cd.Digits.D)
		if err != nil {
			return nil, err
		}
		cv, _, err := st.Schema[i].Type.Convert(ctx, v)
		if err != nil || cv == row[i] {
			continue
		}
		if !copied {
			row = append(sql.Row(nil), row...)
			copied = true
		}
		row[i] = cv
	}
	return row, nil
}

// priorColumn is the column of old, a table's definition before a
// statement changed it, that its column name (lower case) was: renamed
// maps new names to old ones. nil when old is nil or has none.
func priorColumn(old *storage.TableDef, renamed map[string]string, name string) *storage.ColumnDef {
	if old == nil {
		return nil
	}
	if o, ok := renamed[name]; ok {
		name = o
	}
	return defColumn(old, name)
}

// defColumn is def's column called name, nil when it has none.
func defColumn(def *storage.TableDef, name string) *storage.ColumnDef {
	for i := range def.Columns {
		if strings.EqualFold(def.Columns[i].Name, name) {
			return &def.Columns[i]
		}
	}
	return nil
}
