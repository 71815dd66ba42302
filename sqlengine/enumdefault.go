package sqlengine

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage"
)

// SHOW CREATE TABLE writes an ENUM or SET column's members as SQL strings
// and its default as its member text, as MySQL does: GMS wrote the stored form, the member's index or
// the set's bits (DEFAULT '2' for DEFAULT 'b'), which MySQL and MariaDB
// refuse when the dump is loaded (1067: '2' is no member).

// enumDefaultNumber is GMS's DEFAULT of such a column.
var enumDefaultNumber = regexp.MustCompile(` DEFAULT '[0-9]+'`)

// enumDefaultText rewrites stmt, GMS's CREATE TABLE text for a table of
// schema sch. (The schema's defaults are not resolved here; the number
// GMS wrote is the member's index, or the set's bits.)
func enumDefaultText(sch sql.Schema, stmt string) string {
	return editColumnLines(sch, stmt, func(l, rest string, c *sql.Column) (string, bool) {
		et, isEnum := c.Type.(sql.EnumType)
		st, isSet := c.Type.(sql.SetType)
		if !isEnum && !isSet {
			return l, false
		}
		changed := false
		// Members holding a quote or a backslash written as SQL strings
		// (GMS wrote them as they are: enum('it's')).
		if r := strings.TrimPrefix(rest, " "); r != rest {
			if q := storage.QuotedMembers(c.Type, r); q != r {
				l, changed = l[:len(l)-len(r)]+q, true
			}
		}
		loc := enumDefaultNumber.FindStringIndex(l)
		if loc == nil {
			return l, changed
		}
		n, err := strconv.ParseUint(l[loc[0]+len(" DEFAULT '"):loc[1]-1], 10, 64)
		if err != nil {
			return l, changed
		}
		var member string
		if isEnum {
			m, ok := et.At(int(n))
			if !ok {
				return l, changed
			}
			member = m
		} else if member, err = st.BitsToString(n); err != nil {
			return l, changed
		}
		text := strings.ReplaceAll(strings.ReplaceAll(member, `\`, `\\`), "'", "''")
		return l[:loc[0]] + " DEFAULT '" + text + "'" + l[loc[1]:], true
	})
}
