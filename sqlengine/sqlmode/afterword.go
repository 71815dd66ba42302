package sqlmode

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
