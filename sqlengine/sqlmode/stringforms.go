package sqlmode

import "strings"

// TRIM(LEADING FROM s), TRIM(TRAILING FROM s), TRIM(BOTH FROM s): MySQL
// trims spaces; vitess's grammar wants the string to remove (1064).
// trimSpaces inserts it, "' ' " before the FROM.
func trimSpaces(q string, ansiQuotes bool) (string, []int) {
	if !containsFold(q, "TRIM") || !containsFold(q, "FROM") {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	var at []int
	for i := 0; i+3 < len(t.toks); i++ {
		if t.word(i) != "TRIM" || !t.is(i+1, "(") {
			continue
		}
		switch t.word(i + 2) {
		case "LEADING", "TRAILING", "BOTH":
			if t.word(i+3) == "FROM" {
				at = append(at, t.toks[i+3].start)
			}
		}
	}
	if at == nil {
		return q, nil
	}
	ins := make([]insertion, len(at))
	for k, p := range at {
		ins[k] = insertion{at: p, text: "' ' "}
	}
	return insertTexts(q, ins)
}

// nationalStrings writes a national string literal, N'text', as the plain
// literal 'text' (the N a blank, in place: offsets stay). MySQL reads it
// as a utf8mb3 string; vitess's tokenizer read N as a column name and
// the statement failed (1054 or 1064). The connection's character set,
// which a plain literal takes, holds every utf8mb3 character.
func nationalStrings(q string, ansiQuotes bool) string {
	if !strings.Contains(q, "N'") && !strings.Contains(q, "n'") {
		return q
	}
	toks := sqlTokens(q, ansiQuotes)
	var b []byte
	for i := 0; i+1 < len(toks); i++ {
		t, next := toks[i], toks[i+1]
		if t.kind != 'i' || t.end-t.start != 1 || (q[t.start] != 'N' && q[t.start] != 'n') {
			continue
		}
		if next.kind != 's' || next.start != t.end || q[next.start] != '\'' {
			continue
		}
		if i > 0 && toks[i-1].end == t.start && toks[i-1].kind != 'p' {
			continue // part of a longer word
		}
		if b == nil {
			b = []byte(q)
		}
		b[t.start] = ' '
	}
	if b == nil {
		return q
	}
	return string(b)
}
