package sqlmode

import "strings"

// bitLiteral writes a bit-value literal of the 0b form, 0b101, as
// b'101': vitess's tokenizer knows only the quoted form and read 0b101
// as a column name (1054). MySQL's 0b is lower-case only (0B101 is an
// identifier), and an identifier with other characters (0b12, 0b1x)
// stays one. In place but for the closing quote, whose offsets it
// returns.
func bitLiteral(q string, ansiQuotes bool) (string, []int) {
	if !strings.Contains(q, "0b") {
		return q, nil
	}
	var at []int // token starts to rewrite
	var ends []int
	for _, t := range sqlTokens(q, ansiQuotes) {
		if t.kind != 'n' || !isBitDigits(q[t.start:t.end]) {
			continue
		}
		at, ends = append(at, t.start), append(ends, t.end)
	}
	if at == nil {
		return q, nil
	}
	var b strings.Builder
	var added []int
	last := 0
	for k, s := range at {
		b.WriteString(q[last:s])
		b.WriteString("b'")
		b.WriteString(q[s+2 : ends[k]])
		added = append(added, b.Len())
		b.WriteByte('\'')
		last = ends[k]
	}
	b.WriteString(q[last:])
	return b.String(), added
}

// isBitDigits: s is 0b and binary digits.
func isBitDigits(s string) bool {
	if len(s) < 3 || s[0] != '0' || s[1] != 'b' {
		return false
	}
	for i := 2; i < len(s); i++ {
		if s[i] != '0' && s[i] != '1' {
			return false
		}
	}
	return true
}
