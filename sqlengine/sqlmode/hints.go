package sqlmode

// Optimizer hints MySQL parses and vitess does not, read in place
// (offsets stay). Neither changes a result: GMS ignores index hints and
// has no such SELECT options.
//
//   - SELECT options HIGH_PRIORITY, SQL_SMALL_RESULT, SQL_BIG_RESULT and
//     SQL_BUFFER_RESULT, in the options after SELECT (mtr's
//     sum_distinct), are blanked; DISTINCTROW, a synonym, is read as
//     DISTINCT;
//   - index hints: vitess takes one `{USE|IGNORE|FORCE} INDEX (list)`
//     after a table; MySQL also KEY for INDEX, a FOR JOIN / ORDER BY /
//     GROUP BY scope, an empty list after USE, and several hints
//     separated by commas (`IGNORE KEY (b)`: mtr's type_varbinary).
//     Every hint is blanked.

// selectOptions are the options after SELECT, in any order.
var selectOptions = map[string]bool{
	"ALL": true, "DISTINCT": true, "DISTINCTROW": true, "HIGH_PRIORITY": true, "STRAIGHT_JOIN": true,
	"SQL_SMALL_RESULT": true, "SQL_BIG_RESULT": true, "SQL_BUFFER_RESULT": true, "SQL_CACHE": true,
	"SQL_NO_CACHE": true, "SQL_CALC_FOUND_ROWS": true,
}

// blankedOptions are the options vitess does not parse.
var blankedOptions = map[string]bool{
	"HIGH_PRIORITY": true, "SQL_SMALL_RESULT": true, "SQL_BIG_RESULT": true, "SQL_BUFFER_RESULT": true,
}

// optimizerHints applies both readings to q.
func optimizerHints(q string, ansiQuotes bool) string {
	opts := containsFold(q, "_RESULT") || containsFold(q, "HIGH_PRIORITY") || containsFold(q, "DISTINCTROW")
	hints := containsFold(q, "INDEX") || containsFold(q, "KEY")
	if !opts && !hints {
		return q
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	var b []byte
	blank := func(from, to int) { // tokens from..to inclusive
		if b == nil {
			b = []byte(q)
		}
		for k := t.toks[from].start; k < t.toks[to].end; k++ {
			b[k] = ' '
		}
	}
	for i := 0; i < len(t.toks); i++ {
		switch w := t.word(i); {
		case opts && w == "SELECT":
			for j := i + 1; selectOptions[t.word(j)]; j++ {
				switch o := t.word(j); {
				case blankedOptions[o]:
					blank(j, j)
				case o == "DISTINCTROW":
					if b == nil {
						b = []byte(q)
					}
					copy(b[t.toks[j].start:t.toks[j].end], "DISTINCT   ")
				}
			}
		case hints && (w == "USE" || w == "IGNORE" || w == "FORCE"):
			end := t.indexHint(i)
			if end < 0 {
				continue
			}
			blank(i, end)
			for t.is(end+1, ",") {
				next := t.indexHint(end + 2)
				if next < 0 {
					break
				}
				blank(end+1, next)
				end = next
			}
			i = end
		}
	}
	if b == nil {
		return q
	}
	return string(b)
}

// indexHint is the index of the closing parenthesis of the index hint
// starting at token i, or -1 when none starts there.
func (t tokText) indexHint(i int) int {
	switch t.word(i) {
	case "USE", "IGNORE", "FORCE":
	default:
		return -1
	}
	j := i + 1
	if w := t.word(j); w != "INDEX" && w != "KEY" {
		return -1
	}
	j++
	if t.word(j) == "FOR" {
		switch t.word(j + 1) {
		case "JOIN":
			j += 2
		case "ORDER", "GROUP":
			if t.word(j+2) != "BY" {
				return -1
			}
			j += 3
		default:
			return -1
		}
	}
	if !t.is(j, "(") {
		return -1
	}
	end := t.match(j, 1, "(", ")")
	if end < 0 || end >= len(t.toks) {
		return -1
	}
	return end
}
