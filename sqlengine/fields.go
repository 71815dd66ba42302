package sqlengine

import (
	"strings"

	"petrel/sqlengine/sqlmode"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// Column definitions as MySQL 8 sends them, where go-mysql-server differs
// and drivers read the difference (go-sql-driver's ColumnTypes: a BIT
// column with a text character set scans as a string, a FLOAT's scale
// decides DecimalSize, YEAR's UNSIGNED flag its scan type).

const (
	binaryCharset = 63 // the binary character set's collation id
	// notFixedDec is the decimals MySQL sends for a FLOAT or DOUBLE with no
	// declared scale (NOT_FIXED_DEC).
	notFixedDec = 31
)

// mysqlFields corrects fs in place: numeric, temporal, BIT and YEAR
// columns have the binary character set (GMS sends the default one), a
// FLOAT or DOUBLE with no scale has 31 decimals, YEAR is UNSIGNED ZEROFILL.
// It writes only fields that differ, so fields a prepared plan shares are
// written once, at prepare, and only read by executions.
func mysqlFields(fs []*querypb.Field) {
	for _, f := range fs {
		if !binaryTyped(f.Type) {
			continue
		}
		if f.Charset != binaryCharset {
			f.Charset = binaryCharset
		}
		switch f.Type {
		case sqltypes.Float32, sqltypes.Float64:
			if f.Decimals == 0 {
				f.Decimals = notFixedDec
			}
		case sqltypes.Year:
			if want := f.Flags | uint32(querypb.MySqlFlag_UNSIGNED_FLAG|querypb.MySqlFlag_ZEROFILL_FLAG); f.Flags != want {
				f.Flags = want
			}
		}
	}
}

// binaryTyped: the types MySQL sends with the binary character set
// whatever the connection's.
func binaryTyped(t querypb.Type) bool {
	switch t {
	case sqltypes.Int8, sqltypes.Uint8, sqltypes.Int16, sqltypes.Uint16, sqltypes.Int24, sqltypes.Uint24,
		sqltypes.Int32, sqltypes.Uint32, sqltypes.Int64, sqltypes.Uint64, sqltypes.Float32, sqltypes.Float64,
		sqltypes.Decimal, sqltypes.Bit, sqltypes.Year,
		sqltypes.Date, sqltypes.Time, sqltypes.Datetime, sqltypes.Timestamp:
		return true
	}
	return false
}

// fieldsFixed wraps a text-protocol result callback for statement text q
// with mysqlFields, timestampDecimals and aliasCase.
func (e *Engine) fieldsFixed(q string, cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	return func(res *sqltypes.Result, more bool) error {
		e.fixFields(q, res.Fields)
		return cb(res, more)
	}
}

// binaryFieldsFixed is fieldsFixed for a binary-protocol callback and
// prepared text q.
func (e *Engine) binaryFieldsFixed(q string, cb func(*sqltypes.Result) error) func(*sqltypes.Result) error {
	return func(res *sqltypes.Result) error {
		e.fixFields(q, res.Fields)
		return cb(res)
	}
}

func (e *Engine) fixFields(q string, fs []*querypb.Field) {
	mysqlFields(fs)
	e.timestampDecimals(fs)
	e.floatFields(fs) // floatdigits.go
	aliasCase(q, fs)
	trailingComments(fs)
}

// trailingComments takes a trailing /* comment */ off the name of a
// column named by its expression's text: GMS names it by the text up to
// the next comma or clause, so `SELECT RELEASE_LOCK('x') /* why */`
// named its column with the comment, where MySQL names it
// RELEASE_LOCK('x') (mtr information_schema_columns).
func trailingComments(fs []*querypb.Field) {
	for _, f := range fs {
		if f.OrgTable != "" || !strings.HasSuffix(f.Name, "*/") {
			continue
		}
		name := f.Name
		for strings.HasSuffix(name, "*/") {
			i := strings.LastIndex(name, "/*")
			if i <= 0 {
				break
			}
			name = strings.TrimRight(name[:i], " \t\r\n")
		}
		if name != "" {
			if f.OrgName == f.Name {
				f.OrgName = name
			}
			f.Name = name
		}
	}
}

// timestampDecimals gives a TIMESTAMP(n) or TIME(n) table column its n: GMS sends
// decimals only for DATETIME, and go-sql-driver formats a binary-protocol
// TIMESTAMP with the column's decimals, so TIMESTAMP(6) values lost their
// fraction. The column is found by the field's database, table and
// column name; through an alias it is not found and keeps 0.
func (e *Engine) timestampDecimals(fs []*querypb.Field) {
	for _, f := range fs {
		if (f.Type != sqltypes.Timestamp && f.Type != sqltypes.Time) || f.Decimals != 0 || f.Database == "" || f.OrgTable == "" {
			continue
		}
		t := e.store.Catalog().Table(f.Database, f.OrgTable)
		if t == nil {
			continue
		}
		for i, c := range t.Schema {
			if !strings.EqualFold(c.Name, f.OrgName) {
				continue
			}
			if dt, ok := c.Type.(sql.DatetimeType); ok && dt.Precision() > 0 {
				f.Decimals = uint32(dt.Precision())
			}
			if f.Type == sqltypes.Time && i < len(t.Def.Columns) && t.Def.Columns[i].FSP != nil {
				// TIME(n) (timefsp.go); timeAtPrecision prints n digits.
				f.Decimals = uint32(*t.Def.Columns[i].FSP)
			}
			break
		}
	}
}

// aliasCase gives result columns the case their table alias has in the
// statement text q: go-mysql-server lowercases aliases, and a client that
// names columns by table (go-sql-driver's columnsWithAlias) would read
// "a.one" for `... AS A`. Only an alias written after AS is recognised;
// others keep the lowercase name.
func aliasCase(q string, fs []*querypb.Field) {
	if len(fs) == 0 || !hasASKeyword(q) {
		return // the common case, checked without allocating
	}
	var lower []byte
	for _, f := range fs {
		if f.Table == "" || !hasASCIILetter(f.Table) || f.Table != asciiLower(f.Table) {
			continue
		}
		if lower == nil {
			lower = []byte(asciiLower(q))
		}
		if s, ok := aliasSpelling(q, lower, f.Table); ok && s != f.Table {
			f.Table = s
		}
	}
}

// aliasSpelling finds `AS alias` (alias optionally backquoted) in q, whose
// ASCII-lowercased copy is lower, and returns alias as q spells it.
func aliasSpelling(q string, lower []byte, alias string) (string, bool) {
	ls := string(lower)
	for from := 0; from < len(ls); {
		i := indexFrom(ls, alias, from)
		if i < 0 {
			return "", false
		}
		from = i + 1
		end := i + len(alias)
		if (i > 0 && sqlmode.IsIdentByte(ls[i-1])) || (end < len(ls) && sqlmode.IsIdentByte(ls[end])) {
			continue
		}
		j := i
		if j > 0 && ls[j-1] == '`' {
			j--
		}
		for j > 0 && isSpace(ls[j-1]) {
			j--
		}
		if j >= 3 && ls[j-2:j] == "as" && isSpace(ls[j-3]) && j < i {
			return q[i:end], true
		}
	}
	return "", false
}

// hasASKeyword reports whether q has an AS surrounded by whitespace (or a
// backquote after it).
func hasASKeyword(q string) bool {
	for i := 1; i+2 < len(q); i++ {
		if (q[i] == 'a' || q[i] == 'A') && (q[i+1] == 's' || q[i+1] == 'S') &&
			isSpace(q[i-1]) && (isSpace(q[i+2]) || q[i+2] == '`') {
			return true
		}
	}
	return false
}

func indexFrom(s, sub string, from int) int {
	if from >= len(s) {
		return -1
	}
	i := strings.Index(s[from:], sub)
	if i < 0 {
		return -1
	}
	return from + i
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

func hasASCIILetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'a' <= s[i] && s[i] <= 'z' {
			return true
		}
	}
	return false
}

// asciiLower lowercases ASCII letters only, so byte offsets stay those of
// the original text.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
