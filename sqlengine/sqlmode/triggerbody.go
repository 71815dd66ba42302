package sqlmode

// A trigger whose body is one compound or SIGNAL statement without
// BEGIN ... END: CREATE TRIGGER t BEFORE INSERT ON x FOR EACH ROW IF
// NEW.a < 0 THEN SET NEW.a = 0; END IF. MySQL takes any routine
// statement as the body; vitess's grammar takes only a BEGIN ... END
// block, SET, CALL, INSERT, UPDATE and DELETE (1064 otherwise). The text
// is parsed with the body wrapped as `BEGIN <body>; END`, both parts
// insertions (the offsets map back); the client's text stays what GMS
// stores and shows, and TriggerBody's span tells the caller where the
// body is in it.

// wrappedBodies are the first words of a body the grammar refuses alone.
var wrappedBodies = map[string]bool{
	"IF": true, "CASE": true, "SIGNAL": true, "RESIGNAL": true,
	"WHILE": true, "REPEAT": true, "LOOP": true,
}

// BodySpan is a wrapped trigger body's place in the client's text:
// q[Start:End] is the body, q[Start:FirstEnd] its first word.
type BodySpan struct {
	Start, FirstEnd, End int
}

// TriggerBody returns q with its trigger body wrapped in BEGIN ... END,
// the inserted bytes' offsets and the body's span in q; q unchanged, no
// offsets and ok false when q is not a CREATE TRIGGER with such a body.
func TriggerBody(q string, ansiQuotes bool) (r string, added []int, span BodySpan, ok bool) {
	if !containsFold(q, "TRIGGER") || !containsFold(q, "EACH") { // cheap: every statement passes here
		return q, nil, BodySpan{}, false
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	first, last := t.triggerBody()
	if first < 0 {
		return q, nil, BodySpan{}, false
	}
	span = BodySpan{Start: t.toks[first].start, FirstEnd: t.toks[first].end, End: t.toks[last].end}
	r, added = applyInserts(q, nil, []insert{{span.Start, "BEGIN "}, {span.End, "; END"}})
	return r, added, span, true
}

// triggerBody is the first and last token of the body of a CREATE
// TRIGGER that starts with one of wrappedBodies, or -1, -1.
func (t tokText) triggerBody() (int, int) {
	if t.word(0) != "CREATE" {
		return -1, -1
	}
	k := 1
	for k < len(t.toks) && k < 8 && t.word(k) != "TRIGGER" { // DEFINER = user@host comes between
		k++
	}
	if t.word(k) != "TRIGGER" {
		return -1, -1
	}
	for k < len(t.toks) && !(t.word(k) == "FOR" && t.word(k+1) == "EACH" && t.word(k+2) == "ROW") {
		k++
	}
	i := k + 3
	if w := t.word(i); w == "FOLLOWS" || w == "PRECEDES" {
		i += 2
	}
	if i >= len(t.toks) || !wrappedBodies[t.word(i)] {
		return -1, -1
	}
	if w := t.word(i); w == "SIGNAL" || w == "RESIGNAL" {
		j := i
		for j+1 < len(t.toks) && !t.is(j+1, ";") {
			j++
		}
		return i, j
	}
	depth := 0
	for j := i; j < len(t.toks); j++ {
		switch w := t.word(j); {
		case w == "CASE" || (openers[w] && t.statementStart(j, i)):
			depth++
		case w == "END":
			depth--
			if openers[t.word(j+1)] {
				j++ // END IF, END CASE, END WHILE, ...
			}
			if depth == 0 {
				return i, j
			}
		}
	}
	return -1, -1
}

// openers are the words that open a compound statement at a statement's
// start (IF( and REPEAT( elsewhere are functions).
var openers = map[string]bool{"IF": true, "CASE": true, "WHILE": true, "REPEAT": true, "LOOP": true, "BEGIN": true}

// statementStart reports whether token j starts a statement of a body
// that starts at token body.
func (t tokText) statementStart(j, body int) bool {
	if j == body {
		return true
	}
	if t.is(j-1, ";") || t.is(j-1, ":") {
		return true
	}
	switch t.word(j - 1) {
	case "THEN", "ELSE", "DO", "BEGIN", "LOOP", "REPEAT":
		return true
	}
	return false
}
