// Package sqlstr reads SQL string literals as MySQL writes them: a
// quoted literal's text with its backslash escapes (\n, \t, \0, \' and
// any other character after a backslash as itself, but \% and \_, kept
// for LIKE) and doubled quotes undone, for the statements Petrel reads from their text (CLONE
// INSTANCE's password, a function's COMMENT, SHOW ... LIKE patterns).
package sqlstr

import "strings"

// Unescape is body, the text between a literal's quotes, with its
// escapes undone; quote is the literal's quote character.
func Unescape(body string, quote byte) string {
	if strings.IndexByte(body, '\\') < 0 && strings.IndexByte(body, quote) < 0 {
		return body
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body):
			i++
			switch body[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'Z':
				b.WriteByte(26)
			case '%', '_':
				// Kept escaped, for LIKE (MySQL's rule).
				b.WriteByte('\\')
				b.WriteByte(body[i])
			default:
				b.WriteByte(body[i])
			}
		case c == quote && i+1 < len(body) && body[i+1] == quote:
			i++
			b.WriteByte(quote)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Literal is the text of the quoted literal s ('...' or "..."), false if
// s is not one.
func Literal(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || (s[0] != '\'' && s[0] != '"') || s[len(s)-1] != s[0] {
		return "", false
	}
	return Unescape(s[1:len(s)-1], s[0]), true
}
