package sqlmode

import (
	"strings"
)

// User variables assigned inside an expression: SELECT @n := @n + 1 AS
// rn, ... (MySQL 8 still takes it, with a deprecation warning; vitess
// does not parse it). The text is rewritten before it is parsed:
// `@v := expr` becomes `AssignFunc(@v, expr)`, the function Petrel
// registers (it sets the variable and returns the value). := becomes
// ", " in place and the call's name and closing parenthesis are
// insertions, so offsets map back. The assigned expression runs to the
// right as far as := binds (the lowest precedence): up to a comma, a
// closing parenthesis, a clause keyword, or an alias after an operand.
// SET statements and clauses are left alone (vitess parses SET @v :=
// expr, also in trigger and routine bodies).

// AssignFunc is the function the rewrite calls.
const AssignFunc = "petrel_assign_user_var"

// stopWords end an assigned expression.
var stopWords = map[string]bool{
	"FROM": true, "WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true, "LIMIT": true,
	"INTO": true, "FOR": true, "LOCK": true, "UNION": true, "WINDOW": true, "AS": true,
	"INTERSECT": true, "EXCEPT": true, "THEN": true, "ELSE": true, "END": true, "WHEN": true,
	"ON": true, "USING": true, "JOIN": true, "SEPARATOR": true, "DESC": true, "ASC": true,
}

// continueWords may follow an operand inside one expression.
var continueWords = map[string]bool{
	"OVER": true, "COLLATE": true, "SOUNDS": true, "MEMBER": true, "OF": true,
	"MICROSECOND": true, "SECOND": true, "MINUTE": true, "HOUR": true, "DAY": true, "WEEK": true,
	"MONTH": true, "QUARTER": true, "YEAR": true, "SECOND_MICROSECOND": true, "MINUTE_MICROSECOND": true,
	"MINUTE_SECOND": true, "HOUR_MICROSECOND": true, "HOUR_SECOND": true, "HOUR_MINUTE": true,
	"DAY_MICROSECOND": true, "DAY_SECOND": true, "DAY_MINUTE": true, "DAY_HOUR": true, "YEAR_MONTH": true,
}

// userAssign rewrites q's expression assignments; q unchanged and nil
// when there are none (or one whose expression cannot be delimited).
func userAssign(q string, ansiQuotes bool) (string, []int) {
	if !strings.Contains(q, ":=") {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	if len(t.toks) == 0 || t.word(0) == "SET" {
		return q, nil
	}
	var ins []insert
	var ops []int
	for i := 1; i+1 < len(t.toks); i++ {
		if !t.is(i, ":=") || t.toks[i-1].kind != 'v' || strings.HasPrefix(t.text(i-1), "@@") || t.inSetList(i-1) {
			continue
		}
		end := t.assignedEnd(i + 1)
		if end < i+1 {
			return q, nil
		}
		ops = append(ops, t.toks[i].start)
		ins = append(ins, insert{t.toks[i-1].start, AssignFunc + "("}, insert{t.toks[end].end, ")"})
	}
	if len(ops) == 0 {
		return q, nil
	}
	return applyInserts(q, ops, ins)
}

// inSetList reports whether the variable at token v is assigned by a
// SET statement or clause (SET @a := 1, @b := 2, also in a trigger or
// routine body), which vitess parses: the nearest clause word before it,
// outside parentheses, is SET.
func (t tokText) inSetList(v int) bool {
	depth := 0
	for j := v - 1; j >= 0; j-- {
		switch {
		case t.is(j, ")"):
			depth++
		case t.is(j, "("):
			if depth == 0 {
				return false
			}
			depth--
		case depth == 0 && t.is(j, ";"):
			return false
		case depth == 0 && t.toks[j].kind == 'i':
			switch t.word(j) {
			case "SET":
				return true
			case "SELECT", "WHERE", "FROM", "HAVING", "VALUES", "VALUE", "ON", "THEN", "ELSE", "DO", "RETURN", "WHEN", "BY", "LIMIT":
				return false
			}
		}
	}
	return false
}

// assignedEnd is the last token of the expression starting at token i,
// or -1.
func (t tokText) assignedEnd(i int) int {
	last := -1
	for j := i; j < len(t.toks); j++ {
		switch {
		case t.is(j, "("):
			m := t.match(j, 1, "(", ")")
			if m < 0 {
				return -1
			}
			last, j = m, m
			continue
		case t.is(j, "CASE"):
			m := t.caseEnd(j)
			if m < 0 {
				return -1
			}
			last, j = m, m
			continue
		case t.is(j, ",") || t.is(j, ")") || t.is(j, ";"):
			return last
		case t.toks[j].kind == 'i' && stopWords[t.word(j)]:
			return last
		case (t.toks[j].kind == 'i' || t.toks[j].kind == 'q') && last >= 0 && t.endsOperand(last) &&
			!operatorWords[t.word(j)] && !continueWords[t.word(j)] && !t.is(j+1, "("):
			// An alias after a complete operand: @n := @n + 1 rn.
			return last
		}
		last = j
	}
	return last
}
