package sqlmode

import (
	"context"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// String literals as MySQL reads them, whatever vitess's tokenizer does:
// under NO_BACKSLASH_ESCAPES a backslash is an ordinary character ('x\ny'
// is four characters; 'it\'s' is 'it\' followed by s). vitess always
// unescapes backslashes, so the statement text is rewritten into vitess's
// escaping before it is
// parsed (Text), by every parser Petrel runs on statement text: GMS's
// (through the engine's parser wrapper) and the text INSERT fast path.
// The rewrite only adds backslashes; offsets into the rewritten text map
// back to the original (multi-statement texts return their remainder as
// the client sent it, to be rewritten again under the sql_mode then in
// force).

// Outside NO_BACKSLASH_ESCAPES, '\%' and '\_' keep their backslash as in
// MySQL (vitess drops it): LIKE reads them as an escaped wildcard.

// Text returns q rewritten for vitess under the backslash rule nbe,
// and the offsets (in the rewritten text) where a backslash was added.
// q itself, and nil, when nothing needs adding.
func Text(q string, nbe, ansiQuotes bool) (string, []int) {
	q = oneCharacteristic(q)
	backslashes := strings.IndexByte(q, '\\') >= 0 && (nbe || strings.Contains(q, `\%`) || strings.Contains(q, `\_`))
	if !backslashes && !strings.Contains(q, "--") && !strings.Contains(q, "nknown") && !strings.Contains(q, "NKNOWN") {
		return q, nil
	}
	var b strings.Builder
	var added []int
	add := func() {
		added = append(added, b.Len())
		b.WriteByte('\\')
	}
	replaced := false
	n := len(q)
	for i := 0; i < n; i++ {
		c := q[i]
		switch {
		case c == '\'' || (c == '"' && !ansiQuotes):
			// A string literal: copy it, rewriting its backslashes.
			b.WriteByte(c)
			i++
			for i < n {
				d := q[i]
				if d == c {
					if i+1 < n && q[i+1] == c { // doubled quote
						b.WriteByte(d)
						b.WriteByte(d)
						i += 2
						continue
					}
					b.WriteByte(d)
					break
				}
				if d == '\\' {
					if nbe {
						b.WriteByte('\\')
						add()
						i++
						continue
					}
					if i+1 < n && (q[i+1] == '%' || q[i+1] == '_') {
						// MySQL keeps \% and \_ as two characters
						// (LIKE reads them as escaped wildcards);
						// vitess would drop the backslash.
						add()
					}
					b.WriteByte(d)
					if i+1 < n {
						b.WriteByte(q[i+1])
						i += 2
					} else {
						i++
					}
					continue
				}
				b.WriteByte(d)
				i++
			}
		case c == '`' || (c == '"' && ansiQuotes):
			// A quoted identifier: copied as it is.
			b.WriteByte(c)
			i++
			for i < n && q[i] != c {
				b.WriteByte(q[i])
				i++
			}
			if i < n {
				b.WriteByte(q[i])
			}
		case c == '-' && i+1 < n && q[i+1] == '-' && i+2 < n && q[i+2] > ' ':
			// -- not followed by a space or control character is two
			// minus signs in MySQL ('--6e-16'); vitess reads a comment
			// or fails, so a space goes between them.
			b.WriteByte(c)
			added = append(added, b.Len())
			b.WriteByte(' ')
		case (c == 'I' || c == 'i') && (i == 0 || !IsIdentByte(q[i-1])) && isUnknownTest(q[i:]) > 0:
			// x IS [NOT] UNKNOWN is x IS [NOT] NULL (vitess lacks it),
			// written in the same length so offsets stay.
			m := isUnknownTest(q[i:])
			b.WriteString(q[i : i+m-7])
			b.WriteString("   NULL") // NULL ends where UNKNOWN did: expression ends map back
			i += m - 1
			replaced = true
		case c == '#' || (c == '-' && i+1 < n && q[i+1] == '-' && (i+2 >= n || q[i+2] <= ' ')):
			// A comment to the end of the line.
			for i < n && q[i] != '\n' {
				b.WriteByte(q[i])
				i++
			}
			if i < n {
				b.WriteByte(q[i])
			}
		case c == '/' && i+1 < n && q[i+1] == '*' && !(i+2 < n && q[i+2] == '!'):
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				b.WriteString(q[i:])
				i = n
				break
			}
			b.WriteString(q[i : i+2+end+2])
			i += 2 + end + 1
		default:
			b.WriteByte(c)
		}
	}
	if len(added) == 0 && !replaced {
		return q, nil
	}
	return b.String(), added
}

// startWithList is START TRANSACTION with two characteristics, WITH
// CONSISTENT SNAPSHOT and READ ONLY / READ WRITE, in either order.
var startWithList = regexp.MustCompile(`(?is)^(\s*START\s+TRANSACTION\s+)(?:(WITH\s+CONSISTENT\s+SNAPSHOT\s*,\s*)READ\s+(?:ONLY|WRITE)|READ\s+(?:ONLY|WRITE)(\s*,\s*WITH\s+CONSISTENT\s+SNAPSHOT))\s*;?\s*$`)

// oneCharacteristic blanks WITH CONSISTENT SNAPSHOT out of a START
// TRANSACTION that also names READ ONLY or READ WRITE: vitess parses one
// characteristic only. The snapshot is still taken: startSnapshot reads
// the clause from the statement as the client sent it. Blanks keep every
// offset.
func oneCharacteristic(q string) string {
	if len(q) > 200 || !strings.Contains(strings.ToUpper(q), "SNAPSHOT") {
		return q
	}
	m := startWithList.FindStringSubmatchIndex(q)
	if m == nil {
		return q
	}
	for _, g := range []int{2, 3} {
		if m[2*g] >= 0 {
			return q[:m[2*g]] + strings.Repeat(" ", m[2*g+1]-m[2*g]) + q[m[2*g+1]:]
		}
	}
	return q
}

var unknownTest = regexp.MustCompile(`(?i)^IS\s+(?:NOT\s+)?UNKNOWN`)

// isUnknownTest is the length of the IS [NOT] UNKNOWN at the start of s
// (ending at a word boundary), or 0.
func isUnknownTest(s string) int {
	loc := unknownTest.FindStringIndex(s)
	if loc == nil || (loc[1] < len(s) && IsIdentByte(s[loc[1]])) {
		return 0
	}
	return loc[1]
}

// OriginalOffset maps an offset into the rewritten text to the original.
func OriginalOffset(p int, added []int) int {
	n := 0
	for _, a := range added {
		if a < p {
			n++
		}
	}
	return p - n
}

// RewrittenRemainder returns the original text of what the inner parser
// left unparsed (rem, a suffix of the rewritten text r after the inner
// parser trimmed r's trailing spaces and delimiters) and the original text
// of the statement before it.
func RewrittenRemainder(q, r, rem string, delim rune, added []int) (parsed, remainder string) {
	if rem == "" {
		return sql.RemoveSpaceAndDelimiter(q, delim), ""
	}
	trimmed := strings.TrimRightFunc(r, func(c rune) bool { return c == delim || unicode.IsSpace(c) })
	p := OriginalOffset(len(trimmed)-len(rem), added)
	return sql.RemoveSpaceAndDelimiter(q[:p], delim), q[p:]
}

// SessionText is modeText under the sql_mode of ctx's session, then the
// operator modes' rewrites (pipesnot.go), then expression assignments to
// user variables (assign.go).
func SessionText(ctx context.Context, q string) (string, []int) {
	c, ok := ctx.(*sql.Context)
	if !ok || c == nil || c.Session == nil {
		r, added := Text(q, false, false)
		return withAssign(r, added, false)
	}
	m := Load(c)
	ansi := m.AnsiQuotes()
	r, added := Text(q, m.ModeEnabled("NO_BACKSLASH_ESCAPES"), ansi)
	pipes, high := On(m, "PIPES_AS_CONCAT") && strings.Contains(q, "||"), m.ModeEnabled("HIGH_NOT_PRECEDENCE")
	if high {
		r = highNot(r, ansi) // in place: offsets stay
	}
	if pipes {
		if r2, more := pipesConcat(r, ansi); more != nil {
			r, added = r2, composeAdded(added, more)
		}
	}
	return withAssign(r, added, ansi)
}

// withAssign applies the assignment rewrite (assign.go) after r's,
// LOCK TABLE's and a quoted ENGINE name's (locktable.go), ALTER TABLE's
// space-separated options (altertableopts.go), a keyword after AFTER
// (afterword.go), N'text' and TRIM(LEADING FROM s) (stringforms.go), the
// locking-read clause's (lockclause.go), a two-part INTERVAL unit's
// (intervalunit.go), a function name as an alias (aliasword.go), a
// keyword as a table alias (tablealias.go), BINARY
// as a SET value (setbinary.go), a routine body's DO (routinedo.go) and
// CREATE TABLE ... SELECT's (ctas.go).
func withAssign(r string, added []int, ansi bool) (string, []int) {
	if r2, more := userAssign(r, ansi); more != nil {
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := lockTableSingular(r); more != nil {
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := alterSchema(r); more != nil {
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := alterTableOptions(r, ansi); more != nil { // altertableopts.go
		r, added = r2, composeAdded(added, more)
	}
	r = nationalStrings(r, ansi)                        // stringforms.go; in place
	if r2, more := afterColumns(r, ansi); more != nil { // afterword.go
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := trimSpaces(r, ansi); more != nil { // stringforms.go
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := lockClause(r, ansi); more != nil {
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := intervalUnits(r, ansi); more != nil { // intervalunit.go
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := quantified(r, ansi); more != nil { // quantified.go
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := substringFrom(r, ansi); more != nil { // substrfrom.go
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := bitLiteral(r, ansi); more != nil { // bitliteral.go
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := withRollup(r, ansi); more != nil { // rollup.go
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := aliasKeywords(r, ansi); more != nil { // aliasword.go
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := tableAliases(r, ansi); more != nil { // tablealias.go
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := setBinaryValue(r, ansi); more != nil { // setbinary.go
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := bodyDo(r, ansi); more != nil { // routinedo.go
		r, added = r2, composeAdded(added, more)
	}
	return createSelect(quotedEngine(optimizerHints(dropTables(r), ansi), ansi), ansi), added // in place (hints.go, locktable.go)
}

// OriginalNames gives the select list's unaliased expressions of st,
// parsed from the rewritten text r, the names they have in the client's
// own text q (a column is named by its expression as written: '\%',
// not the rewrite's '\\%'; 1 IS UNKNOWN, not 1 IS NULL).
func OriginalNames(q, r string, added []int, st ast.Statement) {
	if st == nil || q == r {
		return
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		ae, ok := n.(*ast.AliasedExpr)
		if !ok || ae.InputExpression == "" || ae.EndParsePos <= ae.StartParsePos || ae.EndParsePos > len(r) {
			return true, nil
		}
		s, e := OriginalOffset(ae.StartParsePos, added), OriginalOffset(ae.EndParsePos, added)
		if s < 0 || e > len(q) || s > e {
			return true, nil
		}
		rw := strings.Trim(r[ae.StartParsePos:ae.EndParsePos], " \n\t")
		og := strings.Trim(q[s:e], " \n\t")
		switch {
		case ae.InputExpression == rw:
			ae.InputExpression = og
		case len(rw) >= 2 && len(og) >= 2 && ae.InputExpression == rw[1:len(rw)-1]:
			ae.InputExpression = og[1 : len(og)-1] // a quoted literal's name loses its quotes
		}
		return true, nil
	}, st)
}

// On reports whether flag is in force under m, directly or through
// ANSI.
func On(m *sql.SqlMode, flag string) bool {
	return m.ModeEnabled(flag) || (ansiFlags[flag] && m.ModeEnabled("ANSI"))
}

func IsIdentByte(c byte) bool {
	return c == '_' || c == '$' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= utf8.RuneSelf
}

// ansiFlags are the flags sql_mode ANSI stands for (MySQL 8). GMS keeps
// ANSI as one flag; modeOn reads it as all of them.
var ansiFlags = map[string]bool{
	"REAL_AS_FLOAT": true, "PIPES_AS_CONCAT": true, "ANSI_QUOTES": true, "IGNORE_SPACE": true, "ONLY_FULL_GROUP_BY": true,
}
