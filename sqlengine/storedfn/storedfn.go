package storedfn

import (
	"errors"
	"fmt"
	"strings"

	"petrel/internal/sqlstr"
	"petrel/sqlengine/sqlmode"
)

// Prefix begins the name of a function's hidden procedure.
const Prefix = "__petrel_fn_"

// The hidden procedure's result parameters and outer label.
const (
	retParam  = "__petrel_ret"
	doneParam = "__petrel_done"
	bodyLabel = "__petrel_fn"
)

// HiddenName is the name of function name's hidden procedure.
func HiddenName(name string) string { return Prefix + strings.ToLower(name) }

// IsHidden reports a hidden procedure's name.
func IsHidden(name string) bool {
	return len(name) > len(Prefix) && strings.EqualFold(name[:len(Prefix)], Prefix)
}

// Param is one parameter: its name and its type as written.
type Param struct{ Name, Type string }

// Def is a parsed CREATE FUNCTION.
type Def struct {
	// Text is the statement as written (without a trailing ';').
	Text        string
	Definer     string // as written after DEFINER =, "" if none
	IfNotExists bool
	Database    string // the name's qualifier, "" if none
	Name        string
	Params      []Param
	Returns     string // the return type as written
	// Characteristics.
	Deterministic bool
	DataAccess    string // CONTAINS SQL (the default), NO SQL, READS SQL DATA, MODIFIES SQL DATA
	Security      string // DEFINER (the default) or INVOKER
	Comment       string // the COMMENT's text, unquoted
	Body          string
}

// ErrNotFunction: the statement is not a CREATE FUNCTION.
var ErrNotFunction = errors.New("storedfn: not a CREATE FUNCTION")

// SyntaxError is a statement that cannot be a CREATE FUNCTION: near is
// the text where it stops making sense (MySQL's 1064 quotes it).
type SyntaxError struct{ Near string }

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s'", e.Near)
}

// UDFError is CREATE [AGGREGATE] FUNCTION ... SONAME: a loadable
// function, which Petrel cannot load.
type UDFError struct{ Name string }

func (e *UDFError) Error() string { return "Can't find symbol '" + e.Name + "' in library" }

// scanner walks a statement's tokens.
type scanner struct {
	q    string
	toks []sqlmode.Token
	i    int
}

func newScanner(q string) *scanner { return &scanner{q: q, toks: sqlmode.Tokens(q, false)} }

func (s *scanner) done() bool { return s.i >= len(s.toks) }

func (s *scanner) text(i int) string {
	if i >= len(s.toks) {
		return ""
	}
	return s.q[s.toks[i].Start:s.toks[i].End]
}

// word is token i upper-cased when it is a keyword or identifier, else "".
func (s *scanner) word(i int) string {
	if i >= len(s.toks) || s.toks[i].Kind != 'i' {
		return ""
	}
	return strings.ToUpper(s.text(i))
}

// accept consumes the words ws in order, if they come next.
func (s *scanner) accept(ws ...string) bool {
	for k, w := range ws {
		if s.word(s.i+k) != w {
			return false
		}
	}
	s.i += len(ws)
	return true
}

func (s *scanner) punct(i int, p string) bool {
	return i < len(s.toks) && s.toks[i].Kind == 'p' && s.text(i) == p
}

// near is the text from token i on, for a syntax error.
func (s *scanner) near(i int) *SyntaxError {
	if i >= len(s.toks) {
		return &SyntaxError{}
	}
	rest := s.q[s.toks[i].Start:]
	if len(rest) > 80 {
		rest = rest[:80]
	}
	return &SyntaxError{Near: rest}
}

// ident reads an identifier, unquoting a backquoted one.
func (s *scanner) ident() (string, bool) {
	if s.done() {
		return "", false
	}
	t := s.toks[s.i]
	switch t.Kind {
	case 'i':
		s.i++
		return s.q[t.Start:t.End], true
	case 'q':
		s.i++
		v := s.q[t.Start+1 : t.End-1]
		return strings.ReplaceAll(v, "``", "`"), true
	}
	return "", false
}

// qualifiedName reads `[db.]name`; db is "" without a qualifier.
func (s *scanner) qualifiedName() (db, name string, ok bool) {
	if name, ok = s.ident(); !ok {
		return "", "", false
	}
	if s.punct(s.i, ".") {
		s.i++
		db = name
		if name, ok = s.ident(); !ok {
			return "", "", false
		}
	}
	return db, name, true
}

// Unwrap is q without a version comment around the whole of it
// (mysqldump writes /*!50003 DROP FUNCTION IF EXISTS `f` */), else q.
func Unwrap(q string) string {
	t := strings.TrimSpace(q)
	t = strings.TrimSpace(strings.TrimSuffix(t, ";"))
	if !strings.HasPrefix(t, "/*!") || !strings.HasSuffix(t, "*/") || strings.Count(t, "*/") != 1 {
		return q
	}
	t = t[3 : len(t)-2]
	return strings.TrimLeft(t, "0123456789")
}

// IsCreate reports whether q starts as CREATE [DEFINER = ...] [AGGREGATE]
// FUNCTION, before any parsing of the rest.
func IsCreate(q string) bool {
	q = Unwrap(q)
	if !hasPrefixFold(strings.TrimLeft(q, " \t\r\n"), "CREATE") {
		return false
	}
	s := newScanner(q)
	if !s.accept("CREATE") {
		return false
	}
	s.skipDefiner()
	s.accept("AGGREGATE")
	return s.word(s.i) == "FUNCTION"
}

func hasPrefixFold(s, p string) bool { return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) }

// skipDefiner consumes DEFINER = user[@host] and returns it as written.
func (s *scanner) skipDefiner() string {
	if s.word(s.i) != "DEFINER" || !s.punct(s.i+1, "=") {
		return ""
	}
	start := s.i + 2
	s.i = start
	// user, then optional @host (the tokenizer reads @'h' or @h as a
	// variable token), or CURRENT_USER[()].
	if s.word(s.i) == "CURRENT_USER" {
		s.i++
		if s.punct(s.i, "(") && s.punct(s.i+1, ")") {
			s.i += 2
		}
	} else {
		s.i++
		if s.i < len(s.toks) && s.toks[s.i].Kind == 'v' {
			s.i++
			// @'host' is @ then a string.
			if s.text(s.i-1) == "@" && s.i < len(s.toks) && (s.toks[s.i].Kind == 's' || s.toks[s.i].Kind == 'q') {
				s.i++
			}
		}
	}
	if start >= len(s.toks) {
		return ""
	}
	return s.q[s.toks[start].Start:s.toks[s.i-1].End]
}

// Parse reads a CREATE FUNCTION statement (one statement: a trailing ';'
// is allowed).
func Parse(q string) (*Def, error) {
	q = Unwrap(q)
	q = strings.TrimRight(strings.TrimSpace(q), ";")
	q = strings.TrimSpace(q)
	s := newScanner(q)
	if !s.accept("CREATE") {
		return nil, ErrNotFunction
	}
	d := &Def{Text: q}
	d.Definer = s.skipDefiner()
	if s.accept("AGGREGATE") {
		if !s.accept("FUNCTION") {
			return nil, ErrNotFunction
		}
		name, _ := s.ident()
		return nil, &UDFError{Name: name}
	}
	if !s.accept("FUNCTION") {
		return nil, ErrNotFunction
	}
	d.IfNotExists = s.accept("IF", "NOT", "EXISTS")
	db, name, ok := s.qualifiedName()
	if !ok {
		return nil, s.near(s.i)
	}
	d.Database, d.Name = db, name
	if s.word(s.i) == "RETURNS" {
		// CREATE FUNCTION f RETURNS type SONAME 'lib': a loadable function.
		return nil, &UDFError{Name: name}
	}
	if !s.punct(s.i, "(") {
		return nil, s.near(s.i)
	}
	s.i++
	params, err := s.params()
	if err != nil {
		return nil, err
	}
	d.Params = params
	if !s.accept("RETURNS") {
		return nil, s.near(s.i)
	}
	if d.Returns, err = s.typeText(); err != nil {
		return nil, err
	}
	if s.word(s.i) == "SONAME" {
		return nil, &UDFError{Name: name}
	}
	if err := s.characteristics(d); err != nil {
		return nil, err
	}
	if s.done() {
		return nil, s.near(s.i)
	}
	d.Body = strings.TrimSpace(q[s.toks[s.i].Start:])
	return d, nil
}

// params reads "name type, ..." up to the closing parenthesis.
func (s *scanner) params() ([]Param, error) {
	var out []Param
	if s.punct(s.i, ")") {
		s.i++
		return out, nil
	}
	for {
		// MySQL allows no IN/OUT in a function's parameters.
		if w := s.word(s.i); w == "IN" || w == "OUT" || w == "INOUT" {
			return nil, s.near(s.i)
		}
		name, ok := s.ident()
		if !ok {
			return nil, s.near(s.i)
		}
		typ, err := s.typeText()
		if err != nil {
			return nil, err
		}
		out = append(out, Param{Name: name, Type: typ})
		switch {
		case s.punct(s.i, ","):
			s.i++
		case s.punct(s.i, ")"):
			s.i++
			return out, nil
		default:
			return nil, s.near(s.i)
		}
	}
}

// typeWords may follow a type's name as part of it.
var typeWords = map[string]bool{
	"UNSIGNED": true, "SIGNED": true, "ZEROFILL": true, "BINARY": true, "ASCII": true, "UNICODE": true,
	"PRECISION": true, "VARYING": true, "VARCHAR": true, "CHAR": true, "CHARACTER": true, "NATIONAL": true,
	"BYTE": true, "INT": true, "INTEGER": true, "TEXT": true, "BLOB": true,
}

// typeText reads a data type: words and a parenthesised list, then
// attributes (UNSIGNED, CHARACTER SET x, CHARSET x, COLLATE x). It stops
// at ',' or ')' at its own depth, or at a word that is not part of it.
func (s *scanner) typeText() (string, error) {
	start := s.i
	if s.done() || s.toks[s.i].Kind != 'i' {
		return "", s.near(s.i)
	}
	s.i++
	for !s.done() {
		switch {
		case s.punct(s.i, "("):
			depth := 0
			for ; !s.done(); s.i++ {
				if s.punct(s.i, "(") {
					depth++
				} else if s.punct(s.i, ")") {
					depth--
					if depth == 0 {
						s.i++
						break
					}
				}
			}
			if depth != 0 {
				return "", s.near(start)
			}
			continue
		case s.word(s.i) == "CHARACTER" && s.word(s.i+1) == "SET":
			s.i += 3
			continue
		case s.word(s.i) == "CHARSET" || s.word(s.i) == "COLLATE":
			s.i += 2
			continue
		case typeWords[s.word(s.i)]:
			s.i++
			continue
		}
		break
	}
	if s.i > len(s.toks) {
		return "", s.near(start)
	}
	return s.q[s.toks[start].Start:s.toks[s.i-1].End], nil
}

// characteristics reads COMMENT, LANGUAGE SQL, [NOT] DETERMINISTIC, the
// data access clause and SQL SECURITY, in any order.
func (s *scanner) characteristics(d *Def) error {
	d.DataAccess, d.Security = "CONTAINS SQL", "DEFINER"
	for !s.done() {
		switch {
		case s.accept("COMMENT"):
			if s.done() || s.toks[s.i].Kind != 's' {
				return s.near(s.i)
			}
			d.Comment, _ = sqlstr.Literal(s.text(s.i))
			s.i++
		case s.accept("LANGUAGE", "SQL"):
		case s.accept("NOT", "DETERMINISTIC"):
			d.Deterministic = false
		case s.accept("DETERMINISTIC"):
			d.Deterministic = true
		case s.accept("CONTAINS", "SQL"):
			d.DataAccess = "CONTAINS SQL"
		case s.accept("NO", "SQL"):
			d.DataAccess = "NO SQL"
		case s.accept("READS", "SQL", "DATA"):
			d.DataAccess = "READS SQL DATA"
		case s.accept("MODIFIES", "SQL", "DATA"):
			d.DataAccess = "MODIFIES SQL DATA"
		case s.accept("SQL", "SECURITY", "DEFINER"):
			d.Security = "DEFINER"
		case s.accept("SQL", "SECURITY", "INVOKER"):
			d.Security = "INVOKER"
		default:
			return nil
		}
	}
	return nil
}

// Procedure is the CREATE PROCEDURE text of d's hidden procedure: d's
// parameters as IN parameters, then OUT parameters for the value
// returned and for whether a RETURN ran, and d's body inside a labelled
// block where each RETURN expr sets both and leaves the block.
func (d *Def) Procedure() (string, error) {
	var b strings.Builder
	b.WriteString("CREATE PROCEDURE `" + HiddenName(d.Name) + "`(")
	for _, p := range d.Params {
		b.WriteString("IN " + quoteIdent(p.Name) + " " + ParamType(p.Type) + ", ")
	}
	b.WriteString("OUT `" + retParam + "` " + ParamType(d.Returns) + ", OUT `" + doneParam + "` INT)\n")
	body, err := rewriteReturns(d.Body)
	if err != nil {
		return "", err
	}
	b.WriteString("`" + bodyLabel + "`: BEGIN\n" + body + ";\nEND")
	return b.String(), nil
}

// ParamType is a type as a procedure's parameter takes it: without its
// character set and collation, which vitess does not parse there.
func ParamType(t string) string {
	s := newScanner(t)
	var b strings.Builder
	last := 0
	for s.i < len(s.toks) {
		n := 0
		switch {
		case s.word(s.i) == "CHARSET" || s.word(s.i) == "COLLATE":
			n = 2
		case s.word(s.i) == "CHARACTER" && s.word(s.i+1) == "SET":
			n = 3
		}
		if n == 0 || s.i+n > len(s.toks) {
			s.i++
			continue
		}
		b.WriteString(t[last:s.toks[s.i].Start])
		last = s.toks[s.i+n-1].End
		s.i += n
	}
	b.WriteString(t[last:])
	return strings.TrimSpace(b.String())
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// rewriteReturns replaces each RETURN statement of body with a block
// that sets the result parameters and leaves the function's block.
func rewriteReturns(body string) (string, error) {
	s := newScanner(body)
	var b strings.Builder
	last := 0
	for s.i = 0; s.i < len(s.toks); s.i++ {
		if s.word(s.i) != "RETURN" {
			continue
		}
		start := s.toks[s.i].Start
		from := s.i + 1
		if from >= len(s.toks) {
			return "", s.near(s.i)
		}
		// The expression runs to the next ';' outside parentheses, or to
		// the end of the body.
		depth, j := 0, from
		for ; j < len(s.toks); j++ {
			if s.punct(j, "(") {
				depth++
			} else if s.punct(j, ")") {
				depth--
			} else if depth == 0 && s.punct(j, ";") {
				break
			}
		}
		if j == from {
			return "", s.near(s.i)
		}
		exprEnd := s.toks[j-1].End
		b.WriteString(body[last:start])
		fmt.Fprintf(&b, "BEGIN SET `%s` = (%s); SET `%s` = 1; LEAVE `%s`; END", retParam, body[s.toks[from].Start:exprEnd], doneParam, bodyLabel)
		last = exprEnd
		s.i = j
	}
	b.WriteString(body[last:])
	return b.String(), nil
}

// Drop is a parsed DROP FUNCTION.
type Drop struct {
	IfExists       bool
	Database, Name string
}

// ParseDrop reads DROP FUNCTION [IF EXISTS] [db.]name; false if q is not
// one.
func ParseDrop(q string) (Drop, bool) {
	q = Unwrap(q)
	s := newScanner(strings.TrimRight(strings.TrimSpace(q), ";"))
	if !s.accept("DROP", "FUNCTION") {
		return Drop{}, false
	}
	var d Drop
	d.IfExists = s.accept("IF", "EXISTS")
	db, name, ok := s.qualifiedName()
	if !ok {
		return Drop{}, false
	}
	d.Database, d.Name = db, name
	return d, s.done()
}

// IsDrop reports whether q starts as DROP FUNCTION.
func IsDrop(q string) bool {
	if strings.HasPrefix(strings.TrimSpace(q), "/*!") {
		q = Unwrap(q)
	}
	s := newScanner(q[:min(len(q), 64)])
	return s.accept("DROP", "FUNCTION")
}

// StatementEnd is the length of the CREATE FUNCTION statement at the
// start of q (up to and excluding its terminating ';'): its body's
// compound statements (BEGIN ... END, IF ... END IF, CASE ... END, loops)
// may hold ';'s of their own.
func StatementEnd(q string) int {
	s := newScanner(q)
	depth := 0
	stmtStart := false // at the start of a statement inside a body
	for ; s.i < len(s.toks); s.i++ {
		w := s.word(s.i)
		switch {
		case s.punct(s.i, ";"):
			if depth == 0 {
				return s.toks[s.i].Start
			}
			stmtStart = true
			continue
		case w == "BEGIN" || w == "CASE":
			depth++
			stmtStart = w == "BEGIN"
			continue
		case stmtStart && (w == "IF" || w == "LOOP" || w == "WHILE" || w == "REPEAT"):
			depth++
		case w == "END":
			depth--
			// END IF, END LOOP, ... and an optional label.
			if nw := s.word(s.i + 1); nw == "IF" || nw == "LOOP" || nw == "WHILE" || nw == "REPEAT" || nw == "CASE" {
				s.i++
			}
		}
		stmtStart = w == "THEN" || w == "ELSE" || w == "DO" || w == "LOOP" || w == "REPEAT" || s.punct(s.i, ":")
	}
	return len(q)
}
