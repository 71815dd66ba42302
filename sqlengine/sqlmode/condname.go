package sqlmode

// conditionNames quotes the names of a routine's declared conditions
// (DECLARE name CONDITION FOR ...) where the body names them: in the
// DECLARE, after SIGNAL or RESIGNAL, and in a handler's FOR list.
// MySQL 8 takes any non-reserved word as a condition's name, vitess's
// grammar none of its keywords: `DECLARE error CONDITION FOR SQLSTATE
// "12000"; SIGNAL error;` was 1064 (mtr's signal). A quoted name is the
// same name. Only a CREATE PROCEDURE, FUNCTION, TRIGGER or EVENT is
// read; two backquotes inserted a name, their offsets returned.
func conditionNames(q string, ansiQuotes bool) (string, []int) {
	if !containsFold(q, "CONDITION") || !containsFold(q, "CREATE") {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	if t.word(0) != "CREATE" {
		return q, nil
	}
	names := map[string]bool{}
	for i := 1; i+1 < len(t.toks); i++ {
		if t.word(i-1) == "DECLARE" && t.toks[i].kind == 'i' && t.word(i+1) == "CONDITION" {
			names[t.word(i)] = true
		}
	}
	if len(names) == 0 {
		return q, nil
	}
	var quote []int
	for i := 1; i < len(t.toks); i++ {
		switch t.word(i) {
		case "DECLARE":
			if names[t.word(i+1)] && t.word(i+2) == "CONDITION" {
				quote = append(quote, i+1)
			}
		case "SIGNAL", "RESIGNAL":
			if names[t.word(i+1)] && !t.is(i+2, ".") && !t.is(i+2, "(") {
				quote = append(quote, i+1)
			}
		case "HANDLER":
			if t.word(i+1) == "FOR" {
				quote = append(quote, t.handlerNames(i+2, names)...)
			}
		}
	}
	if quote == nil {
		return q, nil
	}
	return t.enclose(quote, '`')
}

// handlerNames returns the tokens of a handler's condition list, from
// token i, that are declared condition names.
func (t tokText) handlerNames(i int, names map[string]bool) []int {
	var out []int
	for i < len(t.toks) {
		switch w := t.word(i); {
		case w == "SQLSTATE":
			i++
			if t.word(i) == "VALUE" {
				i++
			}
		case w == "NOT": // NOT FOUND
			i++
		case w == "SQLWARNING" || w == "SQLEXCEPTION" || t.toks[i].kind == 'n' || t.toks[i].kind == 'q':
		case names[w]:
			out = append(out, i)
		default:
			return out
		}
		if !t.is(i+1, ",") {
			return out
		}
		i += 2
	}
	return out
}

// signalIntroducers blanks, in place, a character set introducer before
// a string a SIGNAL or RESIGNAL assigns to a condition item (SET
// MESSAGE_TEXT = _utf8 "text"): MySQL takes it, vitess's grammar only
// a bare string there (1064, mtr's signal). The item's text is the
// string's either way.
func signalIntroducers(q string, ansiQuotes bool) string {
	if !containsFold(q, "SIGNAL") || !containsFold(q, "=") {
		return q
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	var b []byte
	for i := 0; i < len(t.toks); i++ {
		if w := t.word(i); w != "SIGNAL" && w != "RESIGNAL" {
			continue
		}
		for j := i + 1; j+1 < len(t.toks) && !t.is(j, ";"); j++ {
			if tx := t.text(j); t.toks[j].kind == 'i' && len(tx) > 1 && tx[0] == '_' && t.is(j-1, "=") && t.toks[j+1].kind == 's' {
				if b == nil {
					b = []byte(q)
				}
				for k := t.toks[j].start; k < t.toks[j].end; k++ {
					b[k] = ' '
				}
			}
		}
	}
	if b == nil {
		return q
	}
	return string(b)
}

// signalNulls quotes a NULL a SIGNAL or RESIGNAL assigns to a condition
// item (SET MYSQL_ERRNO = NULL), which vitess's grammar takes as a
// literal it cannot hold there (1105, a recovered panic: mtr's signal):
// quoted it is a name, and the routine's SIGNAL reads the name NULL as
// the NULL it stands for (routinecond.go), MySQL's 1231 when the
// statement runs. Two backquotes inserted a NULL, their offsets
// returned.
func signalNulls(q string, ansiQuotes bool) (string, []int) {
	if !containsFold(q, "SIGNAL") || !containsFold(q, "NULL") {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	var quote []int
	for i := 0; i < len(t.toks); i++ {
		if w := t.word(i); w != "SIGNAL" && w != "RESIGNAL" {
			continue
		}
		for j := i + 1; j < len(t.toks) && !t.is(j, ";"); j++ {
			if t.word(j) == "NULL" && t.is(j-1, "=") {
				quote = append(quote, j)
			}
		}
	}
	if quote == nil {
		return q, nil
	}
	return t.enclose(quote, '`')
}
