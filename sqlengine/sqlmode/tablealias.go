package sqlmode

// tableAliasWords are MySQL 8 non-reserved keywords that vitess's
// grammar refuses as a table alias: `FROM t1 first, t1 second` was 1064
// (mtr's include/ps_query.inc, its join tests).
var tableAliasWords = map[string]bool{
	"FIRST": true, "NEXT": true, "COMMENT": true, "FORMAT": true, "VIEW": true,
}

// aliasFollowers are the tokens that may follow a table alias: what
// ends a table reference in a FROM, JOIN, UPDATE or DELETE list.
var aliasFollowers = map[string]bool{
	",": true, ")": true, ";": true, "WHERE": true, "ON": true, "USING": true, "JOIN": true,
	"INNER": true, "LEFT": true, "RIGHT": true, "CROSS": true, "NATURAL": true, "STRAIGHT_JOIN": true,
	"GROUP": true, "ORDER": true, "LIMIT": true, "HAVING": true, "WINDOW": true, "UNION": true,
	"EXCEPT": true, "INTERSECT": true, "SET": true, "FOR": true, "LOCK": true, "USE": true,
	"IGNORE": true, "FORCE": true,
}

// tableAliases quotes such a word where it is a table alias: after a
// table name or a derived table's parenthesis (a name preceded by FROM,
// JOIN, UPDATE, a comma or a qualifier's dot), or after AS following
// one, and followed by what ends a table reference. Elsewhere the word
// keeps its meaning (ALTER TABLE t ADD c INT FIRST, ALTER TABLE t
// COMMENT 'x', HANDLER t READ i FIRST). The word as a qualifier
// (next.b) is quoted too. Two backquotes inserted a word,
// their offsets returned.
func tableAliases(q string, ansiQuotes bool) (string, []int) {
	if !containsFold(q, "FIRST") && !containsFold(q, "NEXT") && !containsFold(q, "COMMENT") &&
		!containsFold(q, "FORMAT") && !containsFold(q, "VIEW") {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	if t.word(0) == "HANDLER" {
		return q, nil
	}
	var quote []int
	for i := 1; i < len(t.toks); i++ {
		if !tableAliasWords[t.word(i)] {
			continue
		}
		if t.is(i+1, ".") && !t.is(i-1, ".") { // a qualifier: next.b
			quote = append(quote, i)
			continue
		}
		if !t.endsTableRef(i + 1) {
			continue
		}
		p := i - 1
		if t.word(p) == "AS" {
			p--
		}
		if t.derivedTable(p) || t.tableName(p) {
			quote = append(quote, i)
		}
	}
	if quote == nil {
		return q, nil
	}
	return t.enclose(quote, '`')
}

// endsTableRef reports whether token i (or the end of the text) may
// follow a table alias.
func (t tokText) endsTableRef(i int) bool {
	if i >= len(t.toks) {
		return true
	}
	switch t.toks[i].kind {
	case 'i':
		return aliasFollowers[t.word(i)]
	case 'p':
		return aliasFollowers[t.text(i)]
	}
	return false
}

// derivedTable reports whether token i closes a derived table: a
// parenthesis opened on SELECT, WITH, VALUES or TABLE (not a type's
// length or an ENUM's list: ALTER TABLE t MODIFY c CHAR(2) FIRST).
func (t tokText) derivedTable(i int) bool {
	if !t.is(i, ")") {
		return false
	}
	o := t.match(i, -1, "(", ")")
	for o >= 0 && t.is(o+1, "(") {
		o++
	}
	switch t.word(o + 1) {
	case "SELECT", "WITH", "VALUES", "TABLE":
		return o >= 0
	}
	return false
}

// tableName reports whether token i ends a table name in a table list:
// a name (quoted or not) after FROM, JOIN, UPDATE or a comma, or after a
// database qualifier's dot.
func (t tokText) tableName(i int) bool {
	if i < 1 || (t.toks[i].kind != 'i' && t.toks[i].kind != 'q') {
		return false
	}
	if t.is(i-1, ".") {
		i -= 2
		if i < 1 || (t.toks[i].kind != 'i' && t.toks[i].kind != 'q') {
			return false
		}
	}
	switch {
	case t.is(i-1, ","):
		return true
	case t.toks[i-1].kind == 'i':
		switch t.word(i - 1) {
		case "FROM", "JOIN", "UPDATE", "STRAIGHT_JOIN":
			return true
		}
	}
	return false
}
