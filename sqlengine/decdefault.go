package sqlengine

import (
	"regexp"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"
)

// A DECIMAL column's literal default as MySQL shows it: at the column's
// scale (`decimal(5,2) DEFAULT '1.50'`, information_schema.COLUMNS'
// COLUMN_DEFAULT 1.50). GMS printed the number as written or parsed
// ('1.5', '2' for DEFAULT '2' of a DECIMAL(6,3)), which schema-diff
// tools read as a changed default.

// decimalDefault is GMS's DEFAULT of a number in SHOW CREATE TABLE.
var decimalDefault = regexp.MustCompile(` DEFAULT '(-?[0-9]+(\.[0-9]+)?)'`)

// decimalDefaultText rewrites stmt, GMS's CREATE TABLE text for a table
// of schema sch.
func decimalDefaultText(sch sql.Schema, stmt string) string {
	return editColumnLines(sch, stmt, func(l, _ string, c *sql.Column) (string, bool) {
		dt, ok := c.Type.(sql.DecimalType)
		if !ok {
			return l, false
		}
		m := decimalDefault.FindStringSubmatchIndex(l)
		if m == nil {
			return l, false
		}
		text, ok := atScale(l[m[2]:m[3]], dt)
		if !ok || text == l[m[2]:m[3]] {
			return l, false
		}
		return l[:m[2]] + text + l[m[3]:], true
	})
}

// atScale is number text s at dt's scale; ok false when s is no number.
func atScale(s string, dt sql.DecimalType) (string, bool) {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return s, false
	}
	return d.StringFixed(int32(dt.Scale())), true
}

// decimalColumnDefault is information_schema.COLUMNS' COLUMN_DEFAULT v of
// DECIMAL column c at its scale.
func decimalColumnDefault(c *sql.Column, v any) any {
	dt, ok := c.Type.(sql.DecimalType)
	s, isText := v.(string)
	if !ok || !isText {
		return v
	}
	if text, ok := atScale(s, dt); ok {
		return text
	}
	return v
}
