package sqlmode

import (
	"strings"
	"unicode/utf8"
)

// QuantPrefix starts the name of the function call a quantified
// comparison's subquery is rewritten to: `x > ALL (SELECT ...)` is parsed
// as `x > petrel_q_ALL ((SELECT ...))`, which sqlengine's parse step
// turns back into the comparison (quantified.go there). vitess parses
// neither ALL, ANY nor SOME after a comparison operator (1064), though
// they are standard SQL and MySQL's.
const QuantPrefix = "petrel_q_"

// comparisonOps are the operators a quantified subquery may follow.
var comparisonOps = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}

// quantified rewrites each `op ALL|ANY|SOME (subquery)` so that vitess
// parses it, and quotes unquoted identifiers holding characters past
// ASCII (MySQL's unquoted identifiers take U+0080 to U+FFFF; vitess's
// lexer stops at them: 1064). Only insertions, whose offsets it returns.
func quantified(q string, ansiQuotes bool) (string, []int) {
	quant := containsFold(q, "ALL") || containsFold(q, "ANY") || containsFold(q, "SOME")
	wide := false
	for i := 0; i < len(q); i++ {
		if q[i] >= utf8.RuneSelf {
			wide = true
			break
		}
	}
	if !quant && !wide {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	type insert struct {
		at   int
		text string
	}
	var ins []insert
	for i, tok := range t.toks {
		if tok.kind == 'i' && wide && !isASCII(t.text(i)) {
			ins = append(ins, insert{tok.start, "`"}, insert{tok.end, "`"})
			continue
		}
		switch t.word(i) {
		case "ALL", "ANY", "SOME":
		default:
			continue
		}
		if i == 0 || t.toks[i-1].kind != 'p' || !comparisonOps[t.text(i-1)] || !t.is(i+1, "(") || !t.is(i+2, "SELECT") && !t.is(i+2, "WITH") && !t.is(i+2, "(") {
			continue
		}
		end := t.match(i+1, 1, "(", ")")
		if end < 0 {
			continue
		}
		ins = append(ins, insert{tok.start, QuantPrefix}, insert{t.toks[i+1].end, "("}, insert{t.toks[end].start, ")"})
	}
	if ins == nil {
		return q, nil
	}
	// Inserts are in token order but a quantifier's closing parenthesis
	// comes after the tokens inside it: order them by place, stably.
	for i := 1; i < len(ins); i++ {
		for j := i; j > 0 && ins[j].at < ins[j-1].at; j-- {
			ins[j], ins[j-1] = ins[j-1], ins[j]
		}
	}
	var b strings.Builder
	var added []int
	last := 0
	for _, in := range ins {
		b.WriteString(q[last:in.at])
		for k := 0; k < len(in.text); k++ {
			added = append(added, b.Len())
			b.WriteByte(in.text[k])
		}
		last = in.at
	}
	b.WriteString(q[last:])
	return b.String(), added
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
