package sqlmode

import "strings"

// bodyDo rewrites each DO statement of a routine's, trigger's or
// event's body (`DO expr [, expr] ...`: evaluate, discard), which vitess
// does not parse there (1064; mtr's trigger_no_defaults-11698 has `ELSE
// DO 1;` in a trigger's CASE), into an IF that evaluates every
// expression, in order, and does nothing: `IF CONCAT(ISNULL(e1),
// ISNULL(e2)) = 'x' THEN SET @petrel_do = 0; END IF` (CONCAT reads all
// its arguments; its value is never 'x'). A DO starts a statement of
// the body: it follows BEGIN, ;, THEN, ELSE, a label's : or FOR EACH
// ROW. Only a text that begins CREATE ... PROCEDURE | FUNCTION | TRIGGER
// | EVENT is read; its whole rest counts as the body (a DO after the
// routine in the same multi-statement text is rewritten too).
// Only insertions and replacements outside literals; the offsets of
// the added bytes are returned.
func bodyDo(q string, ansiQuotes bool) (string, []int) {
	r, added := bodyDoOf(q, ansiQuotes, true)
	return withConditionNames(r, added, ansiQuotes)
}

// RoutineBodyDo is bodyDo for a routine's or trigger's stored text,
// parsed again to run it (GMS parses those with its global parser, not
// through the session's rewrites): the rewritten text and the offsets of
// the bytes added.
func RoutineBodyDo(q string, ansiQuotes bool) (string, []int) {
	r, added := bodyDoOf(q, ansiQuotes, true)
	return withConditionNames(r, added, ansiQuotes)
}

// withConditionNames applies signalIntroducers, signalNulls and
// conditionNames (condname.go) after the DO rewrite that gave r and
// added.
func withConditionNames(r string, added []int, ansiQuotes bool) (string, []int) {
	r = signalIntroducers(r, ansiQuotes) // in place
	if r2, more := signalNulls(r, ansiQuotes); more != nil {
		r, added = r2, composeAdded(added, more)
	}
	if r2, more := conditionNames(r, ansiQuotes); more != nil {
		return r2, composeAdded(added, more)
	}
	return r, added
}

func bodyDoOf(q string, ansiQuotes, triggers bool) (string, []int) {
	if !containsFold(q, "DO") || !containsFold(q, "CREATE") {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	if t.word(0) != "CREATE" {
		return q, nil
	}
	routine := false
	for i := 1; i < len(t.toks) && i < 12; i++ {
		switch t.word(i) {
		case "PROCEDURE", "FUNCTION", "EVENT":
			routine = true
		case "TRIGGER":
			routine = triggers
		}
	}
	if !routine {
		return q, nil
	}
	type span struct{ do, end int } // token indexes: DO, and the ; or end after it
	var spans []span
	for i := 2; i < len(t.toks); i++ {
		if t.word(i) != "DO" || !t.doStart(i) {
			continue
		}
		end, depth := i+1, 0
		for ; end < len(t.toks); end++ {
			if t.is(end, "(") {
				depth++
			} else if t.is(end, ")") {
				depth--
			} else if depth == 0 && t.is(end, ";") {
				break
			}
		}
		if end == i+1 {
			continue
		}
		spans = append(spans, span{i, end})
		i = end
	}
	if spans == nil {
		return q, nil
	}
	var b strings.Builder
	var added []int
	last := 0
	write := func(s string) {
		// Every byte written in place of the DO and its commas is an
		// added byte (offsets map back to the DO's start).
		for k := 0; k < len(s); k++ {
			added = append(added, b.Len())
			b.WriteByte(s[k])
		}
	}
	for _, sp := range spans {
		b.WriteString(q[last:t.toks[sp.do].start])
		write("IF CONCAT(ISNULL(")
		from, depth := sp.do+1, 0
		for j := sp.do + 1; j < sp.end; j++ {
			if t.is(j, "(") {
				depth++
			} else if t.is(j, ")") {
				depth--
			} else if depth == 0 && t.is(j, ",") {
				b.WriteString(q[t.toks[from].start:t.toks[j-1].end])
				write("), ISNULL(")
				from = j + 1
			}
		}
		b.WriteString(q[t.toks[from].start:t.toks[sp.end-1].end])
		write(")) = 'x' THEN SET @petrel_do = 0; END IF")
		last = t.toks[sp.end-1].end
	}
	b.WriteString(q[last:])
	return b.String(), added
}

// doStart reports whether token i starts a statement of a
// routine's body.
func (t tokText) doStart(i int) bool {
	switch {
	case t.is(i-1, ";"), t.is(i-1, ":"):
		return true
	}
	switch t.word(i - 1) {
	case "BEGIN", "THEN", "ELSE", "LOOP", "REPEAT":
		return true
	case "ROW":
		return t.word(i-2) == "EACH"
	}
	return false
}
