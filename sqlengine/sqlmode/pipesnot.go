package sqlmode

import (
	"context"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// PIPES_AS_CONCAT and HIGH_NOT_PRECEDENCE, the two sql_mode flags that
// change how MySQL parses operators. vitess always reads || as OR and
// NOT at its low precedence, so under these modes the statement text is
// rewritten before it is parsed, in the same pass family as modeText:
//   - PIPES_AS_CONCAT: a || b || c becomes CONCAT(a , b , c). MySQL gives
//     || the precedence between ^ and the unary operators, so each
//     operand is one simple expression: an optional run of unary
//     operators, then a literal, a column, a variable, a function call, a
//     parenthesised expression or a CASE ... END, then an optional
//     COLLATE name ('x' || 1 + 2 is CONCAT('x', 1) + 2, as in MySQL).
//     The operator's two characters become ", " and "CONCAT(" and ")"
//     are insertions, so offsets map back (originalOffset).
//   - HIGH_NOT_PRECEDENCE: a prefix NOT takes the precedence of !
//     (NOT a BETWEEN b AND c is (NOT a) BETWEEN b AND c), written as
//     "!  " in NOT's three characters. NOT after an operand (a NOT IN,
//     a NOT LIKE, a NOT BETWEEN, INT NOT NULL) and IS NOT, IF NOT EXISTS
//     are left alone.

// sqlTok is one token of a statement's text.
type sqlTok struct {
	start, end int
	kind       byte // 'i' identifier or keyword, 'q' quoted identifier, 's' string, 'n' number, 'v' variable, 'p' punctuation
}

// sqlTokens splits q into tokens, skipping spaces and comments (whose
// text the rewrite copies as it is).
func sqlTokens(q string, ansiQuotes bool) []sqlTok {
	var out []sqlTok
	n := len(q)
	for i := 0; i < n; {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#' || (c == '-' && i+2 <= n && strings.HasPrefix(q[i:], "--") && (i+2 == n || q[i+2] <= ' ')):
			for i < n && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && q[i+1] == '*' && !(i+2 < n && q[i+2] == '!'):
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				i = n
			} else {
				i += 2 + end + 2
			}
		case c == '\'' || (c == '"' && !ansiQuotes):
			j := i + 1
			for j < n {
				if q[j] == '\\' {
					j += 2
					continue
				}
				if q[j] == c {
					if j+1 < n && q[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, n)
			out = append(out, sqlTok{i, j, 's'})
			i = j
		case c == '`' || (c == '"' && ansiQuotes):
			j := i + 1
			for j < n && q[j] != c {
				j++
			}
			j = min(j+1, n)
			out = append(out, sqlTok{i, j, 'q'})
			i = j
		case c == '@':
			j := i + 1
			for j < n && (IsIdentByte(q[j]) || q[j] == '@' || q[j] == '.') {
				j++
			}
			out = append(out, sqlTok{i, j, 'v'})
			i = j
		case c >= '0' && c <= '9' || (c == '.' && i+1 < n && q[i+1] >= '0' && q[i+1] <= '9'):
			j := i + 1
			for j < n && (IsIdentByte(q[j]) || q[j] == '.' || ((q[j] == '+' || q[j] == '-') && (q[j-1] == 'e' || q[j-1] == 'E'))) {
				j++
			}
			out = append(out, sqlTok{i, j, 'n'})
			i = j
		case IsIdentByte(c):
			j := i + 1
			for j < n && IsIdentByte(q[j]) {
				j++
			}
			out = append(out, sqlTok{i, j, 'i'})
			i = j
		default:
			j := i + 1
			if j < n {
				switch q[i : i+2] {
				case "||", "&&", "<=", ">=", "<>", "!=", "<<", ">>", ":=":
					j++
					if q[i:j] == "<=" && j < n && q[j] == '>' {
						j++
					}
				}
			}
			out = append(out, sqlTok{i, j, 'p'})
			i = j
		}
	}
	return out
}

// operatorWords are keywords after which a - + ~ ! NOT is a prefix
// operator, and which never end an operand.
var operatorWords = map[string]bool{
	"SELECT": true, "WHERE": true, "AND": true, "OR": true, "XOR": true, "NOT": true, "ON": true,
	"HAVING": true, "WHEN": true, "THEN": true, "ELSE": true, "BY": true, "AS": true, "SET": true,
	"RETURN": true, "DISTINCT": true, "IN": true, "LIKE": true, "IS": true, "BETWEEN": true,
	"CASE": true, "VALUES": true, "VALUE": true, "ALL": true, "ANY": true, "SOME": true,
	"INTERVAL": true, "DIV": true, "MOD": true, "REGEXP": true, "RLIKE": true, "CHECK": true,
	"DEFAULT": true, "LIMIT": true, "USING": true, "INTO": true, "FROM": true, "IF": true,
	"ESCAPE": true, "BINARY": true, "EXISTS": true, "DO": true, "WHILE": true, "UNTIL": true,
}

type tokText struct {
	q    string
	toks []sqlTok
}

func (t tokText) text(i int) string { return t.q[t.toks[i].start:t.toks[i].end] }

func (t tokText) is(i int, s string) bool {
	return i >= 0 && i < len(t.toks) && t.toks[i].kind != 's' && t.toks[i].kind != 'q' && strings.EqualFold(t.text(i), s)
}

func (t tokText) word(i int) string {
	if i < 0 || i >= len(t.toks) || t.toks[i].kind != 'i' {
		return ""
	}
	return strings.ToUpper(t.text(i))
}

// endsOperand reports whether token i ends an operand (so that a - or
// NOT after it is infix).
func (t tokText) endsOperand(i int) bool {
	if i < 0 {
		return false
	}
	switch t.toks[i].kind {
	case 's', 'q', 'n', 'v':
		return true
	case 'i':
		return !operatorWords[t.word(i)]
	}
	return t.is(i, ")") || t.is(i, "?")
}

// match finds the bracket matching token i (open at i going forward when
// dir is 1, close at i going backward when dir is -1); -1 if none.
func (t tokText) match(i, dir int, open, close string) int {
	depth := 0
	for j := i; j >= 0 && j < len(t.toks); j += dir {
		switch {
		case t.is(j, open):
			depth += dir
		case t.is(j, close):
			depth -= dir
		}
		if depth == 0 {
			return j
		}
	}
	return -1
}

// operandForward returns the last token of the simple expression that
// starts at token i, or -1.
func (t tokText) operandForward(i int) int {
	for i < len(t.toks) && (t.is(i, "-") || t.is(i, "+") || t.is(i, "~") || t.is(i, "!") || t.is(i, "BINARY")) {
		i++
	}
	if i >= len(t.toks) {
		return -1
	}
	end := -1
	switch k := t.toks[i].kind; {
	case t.is(i, "("):
		end = t.match(i, 1, "(", ")")
	case t.is(i, "CASE"):
		end = t.caseEnd(i)
	case k == 's' || k == 'n' || k == 'v' || t.is(i, "?"):
		end = i
		for end+1 < len(t.toks) && t.toks[end+1].kind == 's' && k == 's' {
			end++ // 'a' 'b' is one literal
		}
	case k == 'i' || k == 'q':
		end = i
		if k == 'i' && end+1 < len(t.toks) && t.toks[end+1].kind == 's' && t.toks[end+1].start == t.toks[end].end {
			end++ // _utf8mb4'x', X'41', N'x'
			break
		}
		for end+2 < len(t.toks) && t.is(end+1, ".") && (t.toks[end+2].kind == 'i' || t.toks[end+2].kind == 'q') {
			end += 2
		}
		if t.is(end+1, "(") {
			end = t.match(end+1, 1, "(", ")")
		}
	}
	if end < 0 {
		return -1
	}
	if t.is(end+1, "COLLATE") && end+2 < len(t.toks) {
		end += 2
	}
	return end
}

// caseEnd is the END token closing the CASE at token i.
func (t tokText) caseEnd(i int) int {
	depth := 0
	for j := i; j < len(t.toks); j++ {
		switch {
		case t.is(j, "CASE"):
			depth++
		case t.is(j, "END"):
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// operandBackward returns the first token of the simple expression that
// ends at token i, or -1.
func (t tokText) operandBackward(i int) int {
	if i >= 1 && t.is(i-1, "COLLATE") {
		i -= 2
	}
	if i < 0 {
		return -1
	}
	start := -1
	switch k := t.toks[i].kind; {
	case t.is(i, ")"):
		start = t.match(i, -1, ")", "(")
		if start > 0 && (t.toks[start-1].kind == 'i' || t.toks[start-1].kind == 'q') && !operatorWords[t.word(start-1)] {
			start-- // a function's name
			for start >= 2 && t.is(start-1, ".") && (t.toks[start-2].kind == 'i' || t.toks[start-2].kind == 'q') {
				start -= 2
			}
		}
	case t.is(i, "END"):
		depth := 0
		for j := i; j >= 0; j-- {
			if t.is(j, "END") {
				depth++
			} else if t.is(j, "CASE") {
				if depth--; depth == 0 {
					start = j
					break
				}
			}
		}
	case k == 's':
		start = i
		for start > 0 && t.toks[start-1].kind == 's' {
			start--
		}
		if start > 0 && t.toks[start-1].kind == 'i' && t.toks[start-1].end == t.toks[start].start {
			start-- // an introducer or X'..'
		}
	case k == 'n' || k == 'v' || k == 'i' || k == 'q' || t.is(i, "?"):
		if k == 'i' && operatorWords[t.word(i)] {
			return -1
		}
		start = i
		for start >= 2 && t.is(start-1, ".") && (t.toks[start-2].kind == 'i' || t.toks[start-2].kind == 'q') {
			start -= 2
		}
	}
	if start < 0 {
		return -1
	}
	// Unary operators before it belong to it (they bind tighter than ||).
	for start > 0 && (t.is(start-1, "-") || t.is(start-1, "+") || t.is(start-1, "~") || t.is(start-1, "!") || t.is(start-1, "BINARY")) &&
		!t.endsOperand(start-2) {
		start--
	}
	return start
}

// pipesConcat rewrites q's || operators as CONCAT calls. It returns q
// unchanged (and nil) when there are none, or when an operand cannot be
// found (vitess then reads the text as it is).
func pipesConcat(q string, ansiQuotes bool) (string, []int) {
	if !strings.Contains(q, "||") {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	var ins []insert
	var pipes []int // byte offsets of the || operators
	for i := 0; i < len(t.toks); i++ {
		if !t.is(i, "||") {
			continue
		}
		first := t.operandBackward(i - 1)
		if first < 0 {
			return q, nil
		}
		j := i
		last := -1
		for t.is(j, "||") {
			pipes = append(pipes, t.toks[j].start)
			last = t.operandForward(j + 1)
			if last < 0 {
				return q, nil
			}
			j = last + 1
		}
		ins = append(ins, insert{t.toks[first].start, "CONCAT("}, insert{t.toks[last].end, ")"})
		i = last
	}
	// The operators become ", " in place; the inserts go in offset
	// order (a chain's ")" before a next chain's "CONCAT(" at one offset).
	return applyInserts(q, pipes, ins)
}

// insert is text inserted before byte offset at.
type insert struct {
	at   int
	text string
}

// applyInserts writes ", " over the two bytes at each of ops, then the
// inserts in offset order (a ")" before another insert at one offset),
// and returns the text with the inserted bytes' offsets.
func applyInserts(q string, ops []int, ins []insert) (string, []int) {
	src := []byte(q)
	for _, p := range ops {
		src[p], src[p+1] = ',', ' '
	}
	sort.SliceStable(ins, func(a, b int) bool {
		if ins[a].at != ins[b].at {
			return ins[a].at < ins[b].at
		}
		return ins[a].text == ")" && ins[b].text != ")"
	})
	var b strings.Builder
	var added []int
	prev := 0
	for _, in := range ins {
		b.Write(src[prev:in.at])
		prev = in.at
		for k := 0; k < len(in.text); k++ {
			added = append(added, b.Len())
			b.WriteByte(in.text[k])
		}
	}
	b.Write(src[prev:])
	return b.String(), added
}

// highNot rewrites q's prefix NOT operators as ! (in NOT's three bytes).
func highNot(q string, ansiQuotes bool) string {
	if !ContainsNot(q) {
		return q
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	var b []byte
	for i := range t.toks {
		if t.word(i) != "NOT" || t.endsOperand(i-1) || t.is(i-1, "IS") || t.is(i-1, "IF") {
			continue
		}
		if b == nil {
			b = []byte(q)
		}
		copy(b[t.toks[i].start:], "!  ")
	}
	if b == nil {
		return q
	}
	return string(b)
}

// OperatorModes reads PIPES_AS_CONCAT and HIGH_NOT_PRECEDENCE from ctx's
// session.
func OperatorModes(ctx context.Context) (pipes, highNot bool) {
	c, ok := ctx.(*sql.Context)
	if !ok || c == nil || c.Session == nil {
		return false, false
	}
	m := Load(c)
	return On(m, "PIPES_AS_CONCAT"), m.ModeEnabled("HIGH_NOT_PRECEDENCE")
}

// ContainsNot reports whether q holds the letters NOT in any case.
func ContainsNot(q string) bool {
	for i := 0; i+3 <= len(q); i++ {
		if (q[i]|0x20) == 'n' && (q[i+1]|0x20) == 'o' && (q[i+2]|0x20) == 't' {
			return true
		}
	}
	return false
}

// composeAdded is the inserted-byte offsets of two rewrites in turn:
// first (offsets into the first rewrite's text) and then (offsets into
// the second's, made from the first's), as offsets into the second's.
func composeAdded(first, then []int) []int {
	if len(first) == 0 {
		return then
	}
	out := make([]int, 0, len(first)+len(then))
	for _, x := range first {
		// x moves by the second rewrite's bytes inserted at or before it.
		n := 0
		for _, y := range then {
			if OriginalOffset(y, then) <= x {
				n++
			}
		}
		out = append(out, x+n)
	}
	out = append(out, then...)
	sort.Ints(out)
	return out
}

// Token is one token of a statement's text: q[Start:End], of kind 'i'
// (identifier or keyword), 'q' (quoted identifier), 's' (string), 'n'
// (number), 'v' (variable) or 'p' (punctuation). Spaces and comments are
// not tokens.
type Token struct {
	Start, End int
	Kind       byte
}

// Tokens splits q into tokens as the sql_mode rewrites read it.
func Tokens(q string, ansiQuotes bool) []Token {
	toks := sqlTokens(q, ansiQuotes)
	out := make([]Token, len(toks))
	for i, t := range toks {
		out[i] = Token{Start: t.start, End: t.end, Kind: t.kind}
	}
	return out
}

// enclose is the text with the tokens at toks enclosed in quote
// characters, and the offsets of the characters it inserted.
func (t tokText) enclose(toks []int, quote byte) (string, []int) {
	var b strings.Builder
	var added []int
	last := 0
	for _, i := range toks {
		tok := t.toks[i]
		b.WriteString(t.q[last:tok.start])
		added = append(added, b.Len())
		b.WriteByte(quote)
		b.WriteString(t.q[tok.start:tok.end])
		added = append(added, b.Len())
		b.WriteByte(quote)
		last = tok.end
	}
	b.WriteString(t.q[last:])
	return b.String(), added
}

// HasWord reports whether q has the unquoted word w (any case) outside
// strings, quoted identifiers and comments.
func HasWord(q, w string, ansiQuotes bool) bool {
	if !containsFold(q, w) {
		return false
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	for i := range t.toks {
		if t.toks[i].kind == 'i' && t.is(i, w) {
			return true
		}
	}
	return false
}

// insertion is text to insert into a statement at offset at.
type insertion struct {
	at   int
	text string
}

// insertTexts is q with ins (in offset order) inserted, and the offsets
// of the characters inserted, which OriginalOffset maps back.
func insertTexts(q string, ins []insertion) (string, []int) {
	var b strings.Builder
	var added []int
	last := 0
	for _, in := range ins {
		b.WriteString(q[last:in.at])
		for k := range len(in.text) {
			added = append(added, b.Len()+k)
		}
		b.WriteString(in.text)
		last = in.at
	}
	b.WriteString(q[last:])
	return b.String(), added
}
