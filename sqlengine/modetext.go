package sqlengine

import (
	"context"
	"strings"
	"unicode"

	"github.com/dolthub/go-mysql-server/sql"
)

// String literals as MySQL reads them, whatever vitess's tokenizer does:
// under NO_BACKSLASH_ESCAPES a backslash is an ordinary character ('x\ny'
// is four characters; 'it\'s' is 'it\' followed by s). vitess always
// unescapes backslashes, so the statement text is rewritten into vitess's
// escaping before it is
// parsed (modeText), by every parser Petrel runs on statement text: GMS's
// (through the engine's parser wrapper) and the text INSERT fast path.
// The rewrite only adds backslashes; offsets into the rewritten text map
// back to the original (multi-statement texts return their remainder as
// the client sent it, to be rewritten again under the sql_mode then in
// force).

// Outside NO_BACKSLASH_ESCAPES, '\%' and '\_' keep their backslash as in
// MySQL (vitess drops it): LIKE reads them as an escaped wildcard.

// modeText returns q rewritten for vitess under the backslash rule nbe,
// and the offsets (in the rewritten text) where a backslash was added.
// q itself, and nil, when nothing needs adding.
func modeText(q string, nbe, ansiQuotes bool) (string, []int) {
	if strings.IndexByte(q, '\\') < 0 || (!nbe && !strings.Contains(q, `\%`) && !strings.Contains(q, `\_`)) {
		return q, nil
	}
	var b strings.Builder
	var added []int
	add := func() {
		added = append(added, b.Len())
		b.WriteByte('\\')
	}
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
		case c == '#' || (c == '-' && i+2 < n && q[i+1] == '-' && (q[i+2] == ' ' || q[i+2] == '\t')):
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
	if len(added) == 0 {
		return q, nil
	}
	return b.String(), added
}

// originalOffset maps an offset into the rewritten text to the original.
func originalOffset(p int, added []int) int {
	n := 0
	for _, a := range added {
		if a < p {
			n++
		}
	}
	return p - n
}

// sessionModes reads the backslash and quote rules of ctx's session.
func sessionModes(ctx context.Context) (nbe, ansiQuotes bool) {
	c, ok := ctx.(*sql.Context)
	if !ok || c == nil || c.Session == nil {
		return false, false
	}
	m := sql.LoadSqlMode(c)
	return m.ModeEnabled("NO_BACKSLASH_ESCAPES"), m.AnsiQuotes()
}

// rewrittenRemainder returns the original text of what the inner parser
// left unparsed (rem, a suffix of the rewritten text r after the inner
// parser trimmed r's trailing spaces and delimiters) and the original text
// of the statement before it.
func rewrittenRemainder(q, r, rem string, delim rune, added []int) (parsed, remainder string) {
	if rem == "" {
		return sql.RemoveSpaceAndDelimiter(q, delim), ""
	}
	trimmed := strings.TrimRightFunc(r, func(c rune) bool { return c == delim || unicode.IsSpace(c) })
	p := originalOffset(len(trimmed)-len(rem), added)
	return sql.RemoveSpaceAndDelimiter(q[:p], delim), q[p:]
}

// sessionText is modeText under the sql_mode of ctx's session.
func sessionText(ctx context.Context, q string) (string, []int) {
	nbe, ansi := sessionModes(ctx)
	return modeText(q, nbe, ansi)
}
