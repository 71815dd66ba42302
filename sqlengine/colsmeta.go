package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// Column metadata as MySQL shows it in information_schema.COLUMNS and
// SHOW COLUMNS, where GMS's differs:
//   - a generated column's EXTRA is STORED GENERATED or VIRTUAL
//     GENERATED and its GENERATION_EXPRESSION the expression (GMS: both
//     empty, so schema readers such as ORMs' introspection took the
//     column for a plain one);
//   - a column with ON UPDATE CURRENT_TIMESTAMP has "on update
//     CURRENT_TIMESTAMP" in EXTRA (after DEFAULT_GENERATED);
//   - SHOW COLUMNS' Default of a string default is its text, unquoted
//     ('q' showed as 'q' with its quotes).

// catalogColumn is db.table's column named name, nil if none.
func (e *Engine) catalogColumn(db, table, name string) *sql.Column {
	t := e.store.Catalog().Table(db, table)
	if t == nil {
		return nil
	}
	for _, c := range t.Schema {
		if strings.EqualFold(c.Name, name) {
			return c
		}
	}
	return nil
}

// columnExtra is MySQL's EXTRA for c, given GMS's.
func columnExtra(c *sql.Column, gms string) string {
	if c == nil {
		return gms
	}
	if c.Generated != nil {
		if c.Virtual {
			return "VIRTUAL GENERATED"
		}
		return "STORED GENERATED"
	}
	if c.OnUpdate != nil && !strings.Contains(strings.ToLower(gms), "on update") {
		upd := "on update " + strings.ToUpper(strings.Trim(c.OnUpdate.String(), "()"))
		if gms == "" {
			return upd
		}
		return gms + " " + upd
	}
	return gms
}

// generationExpression is c's GENERATION_EXPRESSION ("" when c is not
// generated).
func generationExpression(c *sql.Column) string {
	if c == nil || c.Generated == nil {
		return ""
	}
	return exprText(c.Generated.String())
}

// unquotedDefault is SHOW COLUMNS' Default: a quoted string default as
// its text, an expression default (extra DEFAULT_GENERATED) as
// exprText.
func unquotedDefault(v any, extra string) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	if strings.HasPrefix(extra, "DEFAULT_GENERATED") && strings.HasPrefix(s, "(") {
		return exprText(s)
	}
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return v
	}
	return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
}

// exprText is an expression's text as MySQL shows it in
// GENERATION_EXPRESSION and an expression default: without the
// parentheses GMS wraps it in ("(((`a` + `b`)))", "((1 + 1))"), then in
// one pair when it is more than one term ("(`a` + `b`)", "json_array()").
func exprText(s string) string {
	for len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')' {
		if closing, _ := parenScan(s); closing != len(s)-1 {
			break
		}
		s = s[1 : len(s)-1]
	}
	if _, spaced := parenScan(s); spaced {
		return "(" + s + ")"
	}
	return s
}

// parenScan reads s outside quotes and backquotes: closing is the index
// of the parenthesis closing s's first one (-1 if none), spaced whether
// a space stands outside every parenthesis.
func parenScan(s string) (closing int, spaced bool) {
	closing = -1
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 && closing < 0 {
				closing = i
			}
		case c == ' ' && depth == 0:
			spaced = true
		}
	}
	return closing, spaced
}
