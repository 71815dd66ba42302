package sqlmode

import "strings"

// RollupMarker is the function call `WITH ROLLUP` becomes in the text
// vitess parses: vitess's grammar has no ROLLUP, so `GROUP BY a, b WITH
// ROLLUP` is read as `GROUP BY a, b, ROLLUP()`, a call no statement can
// mean (there is no such function), which the rewrite/rollup.go AST
// rewrite then takes off the GROUP BY list.
const RollupMarker = "rollup"

// withRollup rewrites each `WITH ROLLUP` to `,    ROLLUP()`: WITH
// becomes a comma in place and "()" is inserted after ROLLUP, whose
// offsets it returns. A common table expression named rollup (`WITH
// rollup AS (...)`, `WITH rollup(c) AS`) is left alone.
func withRollup(q string, ansiQuotes bool) (string, []int) {
	if !containsFold(q, "ROLLUP") || !containsFold(q, "WITH") {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	var with, after []int // WITH's start, ROLLUP's end, per clause
	for i := 0; i+1 < len(t.toks); i++ {
		if t.word(i) != "WITH" || t.word(i+1) != "ROLLUP" || t.is(i+2, "AS") || t.is(i+2, "(") {
			continue
		}
		with = append(with, t.toks[i].start)
		after = append(after, t.toks[i+1].end)
	}
	if with == nil {
		return q, nil
	}
	var b strings.Builder
	var added []int
	last := 0
	for k := range with {
		b.WriteString(q[last:with[k]])
		b.WriteString(",   ") // WITH, in place
		b.WriteString(q[with[k]+4 : after[k]])
		for _, c := range "()" {
			added = append(added, b.Len())
			b.WriteRune(c)
		}
		last = after[k]
	}
	b.WriteString(q[last:])
	return b.String(), added
}

// PreparedText is a COM_STMT_PREPARE text with the rewrites that do not
// depend on the session's sql_mode and that vitess needs to parse it:
// vitess parses a prepare's text itself, before any handler, so `GROUP
// BY ... WITH ROLLUP`, `> ALL (subquery)`, `SUBSTRING(s FROM n)`, `INTERVAL
// ? SECOND_MICROSECOND` or a function name as an alias were 1064 when a
// driver prepared them. The parse that follows (SessionText) finds
// nothing more of these to rewrite. Identifiers are read as under
// ANSI_QUOTES off (a prepare packet carries no session state).
func PreparedText(q string) string {
	r := q
	for _, rw := range []func(string, bool) (string, []int){intervalUnits, quantified, substringFrom, withRollup, aliasKeywords} {
		if r2, more := rw(r, false); more != nil {
			r = r2
		}
	}
	return r
}
