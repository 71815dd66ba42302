package storedfn

import (
	"strings"

	"petrel/internal/sqlstr"
)

// Alter is a parsed ALTER PROCEDURE or ALTER FUNCTION: the routine and
// the characteristics it changes ("" or nil: unchanged).
type Alter struct {
	Function       bool
	Database, Name string
	Comment        *string // the COMMENT's text, unquoted
	DataAccess     string  // CONTAINS SQL, NO SQL, READS SQL DATA, MODIFIES SQL DATA
	Security       string  // DEFINER or INVOKER
}

// IsAlter reports whether q starts as ALTER PROCEDURE or ALTER FUNCTION.
func IsAlter(q string) bool {
	if strings.HasPrefix(strings.TrimSpace(q), "/*!") {
		q = Unwrap(q)
	}
	s := newScanner(q[:min(len(q), 64)])
	return s.accept("ALTER", "PROCEDURE") || s.accept("ALTER", "FUNCTION")
}

// ParseAlter reads ALTER {PROCEDURE | FUNCTION} [db.]name [characteristic
// ...], the characteristics MySQL's grammar takes there: COMMENT 'text',
// LANGUAGE SQL, the data access clause, SQL SECURITY {DEFINER |
// INVOKER}, in any order, the last of a kind winning ([NOT]
// DETERMINISTIC is CREATE's only: a syntax error).
func ParseAlter(q string) (*Alter, error) {
	q = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(Unwrap(q)), ";"))
	s := newScanner(q)
	a := &Alter{}
	switch {
	case s.accept("ALTER", "PROCEDURE"):
	case s.accept("ALTER", "FUNCTION"):
		a.Function = true
	default:
		return nil, s.near(0)
	}
	db, name, ok := s.qualifiedName()
	if !ok {
		return nil, s.near(s.i)
	}
	a.Database, a.Name = db, name
	for !s.done() {
		var c Def
		at := s.i
		if err := s.characteristics(&c); err != nil {
			return nil, err
		}
		if s.i == at {
			return nil, s.near(at)
		}
		// characteristics read them all, with defaults for those it did
		// not see: a's are those written.
		for i := at; i < s.i; {
			switch s.word(i) {
			case "COMMENT":
				cm, _ := sqlstr.Literal(s.text(i + 1))
				a.Comment = &cm
				i += 2
			case "LANGUAGE":
				i += 2
			case "CONTAINS", "NO":
				a.DataAccess = s.word(i) + " SQL"
				i += 2
			case "READS", "MODIFIES":
				a.DataAccess = s.word(i) + " SQL DATA"
				i += 3
			case "SQL":
				a.Security = s.word(i + 2)
				i += 3
			default:
				return nil, s.near(i)
			}
		}
	}
	return a, nil
}

// Apply returns create, a CREATE PROCEDURE or CREATE FUNCTION statement,
// with a's changes to its characteristics: they are written again, each
// on a line of its own as MySQL shows them, between the parameter list
// (a function's RETURNS clause) and the body, which keep their text.
func (a *Alter) Apply(create string) (string, error) {
	create = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(Unwrap(create)), ";"))
	s := newScanner(create)
	if !s.accept("CREATE") {
		return "", s.near(0)
	}
	s.skipDefiner()
	function := s.accept("FUNCTION")
	if !function && !s.accept("PROCEDURE") {
		return "", s.near(s.i)
	}
	s.accept("IF", "NOT", "EXISTS")
	if _, _, ok := s.qualifiedName(); !ok {
		return "", s.near(s.i)
	}
	if !s.punct(s.i, "(") {
		return "", s.near(s.i)
	}
	for depth := 0; ; s.i++ {
		if s.done() {
			return "", s.near(s.i)
		}
		if s.punct(s.i, "(") {
			depth++
		} else if s.punct(s.i, ")") {
			if depth--; depth == 0 {
				s.i++
				break
			}
		}
	}
	if function {
		if !s.accept("RETURNS") {
			return "", s.near(s.i)
		}
		if _, err := s.typeText(); err != nil {
			return "", err
		}
	}
	head := create[:s.toks[s.i-1].End]
	from := s.i
	var d Def
	if err := s.characteristics(&d); err != nil {
		return "", err
	}
	if s.done() {
		return "", s.near(s.i)
	}
	body := create[s.toks[s.i].Start:]
	// The COMMENT as written (characteristics unquoted it), or a's.
	comment := ""
	for i := from; i < s.i; i++ {
		if s.word(i) == "COMMENT" && s.toks[i+1].Kind == 's' {
			comment = s.text(i + 1)
		}
	}
	if a.Comment != nil {
		comment = QuoteString(*a.Comment)
	}
	if a.DataAccess != "" {
		d.DataAccess = a.DataAccess
	}
	if a.Security != "" {
		d.Security = a.Security
	}
	var b strings.Builder
	b.WriteString(head)
	if d.Deterministic {
		b.WriteString("\n    DETERMINISTIC")
	}
	if d.DataAccess != "CONTAINS SQL" {
		b.WriteString("\n    " + d.DataAccess)
	}
	if d.Security != "DEFINER" {
		b.WriteString("\n    SQL SECURITY " + d.Security)
	}
	if comment != "" {
		b.WriteString("\n    COMMENT " + comment)
	}
	b.WriteString("\n" + body)
	return b.String(), nil
}

// QuoteString is v as a string literal, escaped as MySQL writes one
// (append_unescaped): backslash, quote, newline, carriage return, NUL
// and Ctrl-Z.
func QuoteString(v string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\0`)
		case 032:
			b.WriteString(`\Z`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
