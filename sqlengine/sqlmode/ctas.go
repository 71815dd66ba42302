package sqlmode

// createSelect reads two spellings of CREATE TABLE ... SELECT that MySQL
// takes and vitess does not parse, in place (offsets stay):
//
//   - an ENGINE option before the SELECT: CREATE [TEMPORARY] TABLE t
//     ENGINE=MEMORY [AS] SELECT ... (mysql-test's `engine=heap select`):
//     the option is blanked (every table is the one engine);
//   - the SELECT in parentheses with no column list: CREATE TABLE t
//     (SELECT ...): the parentheses are blanked.
//
// Any other option (a character set, a comment) is left for the parser
// to refuse, since dropping it would change the table.
func createSelect(q string, ansiQuotes bool) string {
	if !containsFold(q, "CREATE") || !containsFold(q, "SELECT") {
		return q
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	i := 0
	if !t.is(i, "CREATE") {
		return q
	}
	i++
	if t.is(i, "TEMPORARY") {
		i++
	}
	if !t.is(i, "TABLE") {
		return q
	}
	i++
	if t.is(i, "IF") && t.is(i+1, "NOT") && t.is(i+2, "EXISTS") {
		i += 3
	}
	if i >= len(t.toks) || (t.toks[i].kind != 'i' && t.toks[i].kind != 'q') {
		return q
	}
	i++ // the name
	if t.is(i, ".") {
		i += 2
	}
	var blank [][2]int // token ranges to blank, inclusive
	for t.is(i, "ENGINE") {
		j := i + 1
		if t.is(j, "=") {
			j++
		}
		if j >= len(t.toks) || t.toks[j].kind == 'p' {
			return q
		}
		blank = append(blank, [2]int{i, j})
		i = j + 1
		if t.is(i, ",") {
			blank = append(blank, [2]int{i, i})
			i++
		}
	}
	if t.is(i, "AS") {
		i++
	}
	if t.is(i, "(") && t.is(i+1, "SELECT") {
		end := t.match(i, 1, "(", ")")
		if end != len(t.toks)-1 && !(end == len(t.toks)-2 && t.is(end+1, ";")) {
			return q
		}
		blank = append(blank, [2]int{i, i}, [2]int{end, end})
	} else if !t.is(i, "SELECT") || len(blank) == 0 {
		return q
	}
	b := []byte(q)
	for _, r := range blank {
		for k := t.toks[r[0]].start; k < t.toks[r[1]].end; k++ {
			b[k] = ' '
		}
	}
	return string(b)
}

// CreateColumnsSelect finds, in q, a CREATE TABLE with column
// definitions and a SELECT (`CREATE TABLE t (c INT) [options] [AS]
// SELECT ...`), which MySQL takes and vitess does not parse: createEnd is
// where the CREATE TABLE's own text ends (before AS) and selectStart
// where the SELECT (or its opening parenthesis) starts. IGNORE or REPLACE
// before the SELECT, which GMS would not honour, is not matched.
func CreateColumnsSelect(q string, ansiQuotes bool) (createEnd, selectStart int, ok bool) {
	if !containsFold(q, "CREATE") || !containsFold(q, "SELECT") {
		return 0, 0, false
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	i := 0
	if !t.is(i, "CREATE") {
		return 0, 0, false
	}
	i++
	if t.is(i, "TEMPORARY") {
		i++
	}
	if !t.is(i, "TABLE") {
		return 0, 0, false
	}
	i++
	if t.is(i, "IF") && t.is(i+1, "NOT") && t.is(i+2, "EXISTS") {
		i += 3
	}
	if i >= len(t.toks) || (t.toks[i].kind != 'i' && t.toks[i].kind != 'q') {
		return 0, 0, false
	}
	i++ // the name
	if t.is(i, ".") {
		i += 2
	}
	if !t.is(i, "(") || t.is(i+1, "SELECT") || t.is(i+1, "(") {
		return 0, 0, false
	}
	i = t.match(i, 1, "(", ")")
	if i < 0 {
		return 0, 0, false
	}
	for i++; i < len(t.toks); i++ {
		switch {
		case t.is(i, ";"), t.is(i, "IGNORE"), t.is(i, "REPLACE"), t.is(i, "LIKE"):
			return 0, 0, false
		case t.is(i, "SELECT"), t.is(i, "WITH"), t.is(i, "(") && t.is(i+1, "SELECT"):
			createEnd = t.toks[i].start
			if t.is(i-1, "AS") {
				createEnd = t.toks[i-1].start
			}
			return createEnd, t.toks[i].start, true
		case t.is(i, "("):
			if i = t.match(i, 1, "(", ")"); i < 0 {
				return 0, 0, false
			}
		}
	}
	return 0, 0, false
}
