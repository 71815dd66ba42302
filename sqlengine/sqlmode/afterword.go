package sqlmode

import "strings"

// ALTER TABLE ... ADD/MODIFY/CHANGE ... AFTER col, col a non-reserved
// keyword. MySQL takes any identifier there; vitess's grammar takes only
// plain ones, so `ADD COLUMN score INT AFTER name` (or after status,
// date, time, value, data, comment, user, level, position, text,
// timestamp, year, action: the column names applications use) was 1064.
// afterColumns backquotes the word after each AFTER of an ALTER TABLE
// (where AFTER only ever names a column's position); two backquotes
// inserted a word, their offsets returned.
func afterColumns(q string, ansiQuotes bool) (string, []int) {
	if !containsFold(q, "AFTER") || !containsFold(q, "ALTER") {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	var quote []int
	alter := false // in an ALTER TABLE statement (of a multi-statement text too)
	for i := 0; i+1 < len(t.toks); i++ {
		switch {
		case t.is(i, ";"):
			alter = false
		case (i == 0 || t.is(i-1, ";")) && t.is(i, "ALTER") && t.is(i+1, "TABLE"):
			alter = true
		case alter && t.word(i) == "AFTER" && t.toks[i+1].kind == 'i':
			quote = append(quote, i+1)
		}
	}
	if quote == nil {
		return q, nil
	}
	return t.enclose(quote, '`')
}

// HasWord reports whether q has the unquoted word w (any case) outside
// strings, quoted identifiers and comments.
func HasWord(q, w string, ansiQuotes bool) bool {
	if !containsFold(q, w) {
		return false
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	for i := range t.toks {
		if t.toks[i].kind == 'i' && t.is(i, w) {
			return true
		}
	}
	return false
}

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

// insertion is text to insert into a statement at offset at.
type insertion struct {
	at   int
	text string
}

// insertTexts is q with ins (in offset order) inserted, and the offsets
// of the characters inserted, which OriginalOffset maps back.
func insertTexts(q string, ins []insertion) (string, []int) {
	var b strings.Builder
	var added []int
	last := 0
	for _, in := range ins {
		b.WriteString(q[last:in.at])
		for k := range len(in.text) {
			added = append(added, b.Len()+k)
		}
		b.WriteString(in.text)
		last = in.at
	}
	b.WriteString(q[last:])
	return b.String(), added
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
