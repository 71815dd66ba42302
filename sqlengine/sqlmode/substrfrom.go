package sqlmode

import "strings"

// substringFrom completes `SUBSTRING(s FROM n)` (and SUBSTR's) with `FOR
// 4294967295`, the rest of the string: vitess parses SUBSTRING's FROM
// form only with FOR (1064), though SQL and MySQL take it without.
// Only an insertion, whose offsets it returns.
func substringFrom(q string, ansiQuotes bool) (string, []int) {
	if !containsFold(q, "SUBSTR") || !containsFold(q, "FROM") {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	var at []int // byte offsets of the closing parentheses to complete
	for i := range t.toks {
		if w := t.word(i); (w != "SUBSTRING" && w != "SUBSTR") || !t.is(i+1, "(") {
			continue
		}
		end := t.match(i+1, 1, "(", ")")
		if end < 0 {
			continue
		}
		from, hasFor, depth := false, false, 0
		for j := i + 2; j < end; j++ {
			switch {
			case t.is(j, "("):
				depth++
			case t.is(j, ")"):
				depth--
			case depth == 0 && t.is(j, "FROM"):
				from = true
			case depth == 0 && t.is(j, "FOR"):
				hasFor = true
			}
		}
		if from && !hasFor {
			at = append(at, t.toks[end].start)
		}
	}
	if at == nil {
		return q, nil
	}
	const rest = " FOR 4294967295"
	var b strings.Builder
	var added []int
	last := 0
	for _, a := range at {
		b.WriteString(q[last:a])
		for k := 0; k < len(rest); k++ {
			added = append(added, b.Len())
			b.WriteByte(rest[k])
		}
		last = a
	}
	b.WriteString(q[last:])
	return b.String(), added
}
