package sqlmode

// aliasWords are names of functions that MySQL 8's grammar takes as an
// alias (non-reserved words, or no keyword at all) and vitess's lexer
// reads as keywords its alias rule refuses: `bit_or(b) OVER (...) AS
// bit_or` was 1064 (mtr's win_bit).
var aliasWords = map[string]bool{
	"BIT_AND": true, "BIT_OR": true, "BIT_XOR": true, "STD": true, "STDDEV": true,
	"STDDEV_POP": true, "STDDEV_SAMP": true, "VAR_POP": true, "VAR_SAMP": true, "VARIANCE": true,
	"JSON_ARRAYAGG": true, "JSON_OBJECTAGG": true, "GROUP_CONCAT": true, "SUBSTR": true,
	"SUBSTRING": true, "NOW": true,
}

// aliasKeywords quotes such a word written as an alias after AS (and
// not called: no parenthesis after it), which vitess then takes as the
// identifier it is. Two backquotes inserted, their offsets returned.
func aliasKeywords(q string, ansiQuotes bool) (string, []int) {
	if !containsFold(q, "AS") || !(containsFold(q, "BIT_") || containsFold(q, "STD") || containsFold(q, "VAR") ||
		containsFold(q, "AGG") || containsFold(q, "GROUP_CONCAT") || containsFold(q, "SUBSTR") || containsFold(q, "NOW")) {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	var quote []int
	for i := 1; i < len(t.toks); i++ {
		if aliasWords[t.word(i)] && t.word(i-1) == "AS" && !t.is(i+1, "(") {
			quote = append(quote, i)
		}
	}
	if quote == nil {
		return q, nil
	}
	return t.enclose(quote, '`')
}
