package sqlmode

// setBinaryValue quotes BINARY written as the value of a SET statement's
// assignment (`SET character_set_connection = binary`), which MySQL's
// grammar takes as a value (set_expr_or_default) and vitess's refuses as
// a keyword (1064; mtr ctype_recoding). BINARY as the operator
// (`SET @a = BINARY 'x'`) is followed by its operand and stays. Two
// quotes inserted, their offsets returned.
func setBinaryValue(q string, ansiQuotes bool) (string, []int) {
	if !containsFold(q, "BINARY") || !containsFold(q, "SET") {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	if len(t.toks) == 0 || t.word(0) != "SET" {
		return q, nil
	}
	var quote []int
	for i := 2; i < len(t.toks); i++ {
		if t.word(i) == "BINARY" && (t.is(i-1, "=") || t.is(i-1, ":=")) &&
			(i+1 == len(t.toks) || t.is(i+1, ",") || t.is(i+1, ";")) {
			quote = append(quote, i)
		}
	}
	if quote == nil {
		return q, nil
	}
	return t.enclose(quote, '\'')
}
