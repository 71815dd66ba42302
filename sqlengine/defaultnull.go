package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// defaultNullText writes MySQL's DEFAULT NULL into SHOW CREATE TABLE's
// column lines: MySQL 8 prints `a` int DEFAULT NULL for a nullable column
// without a default (timestamp NULL DEFAULT NULL for a TIMESTAMP, nothing
// for TEXT, BLOB and spatial columns, which take no default, nor for
// generated and AUTO_INCREMENT columns); GMS printed `a` int. Schema
// tools that compare a table's statement with MySQL's read the
// difference as a change.
func defaultNullText(sch sql.Schema, stmt string) string {
	return editColumnLines(sch, stmt, func(l, rest string, c *sql.Column) (string, bool) {
		if c.Nullable && types.IsTimestampType(c.Type) && strings.Contains(rest, " DEFAULT ") && !strings.Contains(rest, " NULL DEFAULT ") {
			// A nullable TIMESTAMP with a default: MySQL writes its NULL
			// (timestamp NULL DEFAULT ...).
			return strings.Replace(l, " DEFAULT ", " NULL DEFAULT ", 1), true
		}
		if !c.Nullable || c.Default != nil || c.Generated != nil || c.AutoIncrement || types.IsTextBlob(c.Type) || types.IsGeometry(c.Type) ||
			strings.Contains(rest, " DEFAULT ") || strings.Contains(rest, " GENERATED ") {
			return l, false
		}
		add := " DEFAULT NULL"
		if types.IsTimestampType(c.Type) {
			add = " NULL DEFAULT NULL"
		}
		body, tail := l, ""
		if strings.HasSuffix(body, ",") {
			body, tail = body[:len(body)-1], ","
		}
		if at := strings.Index(body, " COMMENT '"); at >= 0 {
			body, tail = body[:at], body[at:]+tail
		}
		return body + add + tail, true
	})
}

// editColumnLines gives edit each column line of stmt, a CREATE TABLE
// text of a table of schema sch, with what follows the column's name
// and the column; edit returns the line, and whether it changed it.
func editColumnLines(sch sql.Schema, stmt string, edit func(line, rest string, c *sql.Column) (string, bool)) string {
	lines := strings.Split(stmt, "\n")
	changed := false
	for i, l := range lines {
		if !strings.HasPrefix(l, "  `") {
			continue
		}
		name, rest, ok := quotedName(l[2:])
		if !ok {
			continue
		}
		o := sch.IndexOfColName(name)
		if o < 0 {
			continue
		}
		if nl, ok := edit(l, rest, sch[o]); ok {
			lines[i], changed = nl, true
		}
	}
	if !changed {
		return stmt
	}
	return strings.Join(lines, "\n")
}

// quotedName reads a backquoted identifier at the start of s (doubled
// backquotes inside), returning it and what follows.
func quotedName(s string) (name, rest string, ok bool) {
	if !strings.HasPrefix(s, "`") {
		return "", "", false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '`' {
			if i+1 < len(s) && s[i+1] == '`' {
				b.WriteByte('`')
				i++
				continue
			}
			return b.String(), s[i+1:], true
		}
		b.WriteByte(s[i])
	}
	return "", "", false
}
