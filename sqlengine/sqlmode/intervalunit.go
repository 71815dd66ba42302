package sqlmode

// compoundUnits are the INTERVAL units of two parts, which vitess reads
// as keywords: its expression rule `INTERVAL expr unit` takes an
// identifier for the unit, so `DATE_ADD(d, INTERVAL '1:30' HOUR_MINUTE)`
// and `d + INTERVAL '1 2' DAY_HOUR` were 1064, though GMS evaluates
// these units.
var compoundUnits = map[string]bool{
	"YEAR_MONTH": true, "DAY_HOUR": true, "DAY_MINUTE": true, "DAY_SECOND": true, "DAY_MICROSECOND": true,
	"HOUR_MINUTE": true, "HOUR_SECOND": true, "HOUR_MICROSECOND": true, "MINUTE_SECOND": true,
	"MINUTE_MICROSECOND": true, "SECOND_MICROSECOND": true,
}

// intervalUnits quotes such a unit after `INTERVAL expr` as an
// identifier (`HOUR_MINUTE`), which the rule takes, and the function
// INTERVAL(N, N1, ...), which vitess cannot parse either, as a function
// call `INTERVAL`(...): two backquotes inserted, their offsets returned
// so they map back. EXTRACT(unit FROM ...) and an event's schedule,
// whose rules take the keywords, are left alone.
func intervalUnits(q string, ansiQuotes bool) (string, []int) {
	if !containsFold(q, "INTERVAL") {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	var quote []int // tokens to quote
	for i := range t.toks {
		switch w := t.word(i); {
		case w == "EVENT" || w == "SCHEDULE":
			return q, nil
		case w == "INTERVAL" && t.is(i+1, "(") && t.topLevelComma(i+1):
			quote = append(quote, i) // the function INTERVAL(N, N1, ...)
		case compoundUnits[w] && i >= 2:
			if k := t.operandBackward(i - 1); k >= 1 && t.word(k-1) == "INTERVAL" {
				quote = append(quote, i)
			}
		}
	}
	if quote == nil {
		return q, nil
	}
	return t.enclose(quote, '`')
}

// topLevelComma reports whether the parenthesis at token open holds a
// comma outside any inner one.
func (t tokText) topLevelComma(open int) bool {
	depth := 0
	for j := open; j < len(t.toks); j++ {
		switch {
		case t.is(j, "("):
			depth++
		case t.is(j, ")"):
			if depth--; depth == 0 {
				return false
			}
		case depth == 1 && t.is(j, ","):
			return true
		}
	}
	return false
}
