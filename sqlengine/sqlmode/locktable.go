package sqlmode

import "strings"

// lockTableSingular reads MySQL's `LOCK TABLE t ...` (TABLE or TABLES)
// as `LOCK TABLES t ...`, which is all vitess parses: an S inserted, so
// offsets map back.
func lockTableSingular(q string) (string, []int) {
	s := strings.TrimLeft(q, " \t\r\n")
	lead := len(q) - len(s)
	if len(s) < 11 || !strings.EqualFold(s[:10], "LOCK TABLE") {
		return q, nil
	}
	switch s[10] {
	case ' ', '\t', '\r', '\n', '`':
	default:
		return q, nil
	}
	at := lead + 10
	return q[:at] + "S" + q[at:], []int{at}
}

// quotedEngine reads `ENGINE = 'MyISAM'` (a quoted engine name, which
// MySQL takes) as `ENGINE =  MyISAM `: the quotes become spaces, in
// place. Only a name of letters, digits and underscores.
func quotedEngine(q string, ansiQuotes bool) string {
	if !containsFold(q, "ENGINE") {
		return q
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	var b []byte
	for i := range t.toks {
		if t.toks[i].kind != 's' || i == 0 {
			continue
		}
		j := i - 1
		if t.is(j, "=") {
			j--
		}
		if t.word(j) != "ENGINE" {
			continue
		}
		s := t.text(i)
		name := s[1 : len(s)-1]
		if name == "" || strings.IndexFunc(name, func(r rune) bool {
			return !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
		}) >= 0 {
			continue
		}
		if b == nil {
			b = []byte(q)
		}
		b[t.toks[i].start], b[t.toks[i].end-1] = ' ', ' '
	}
	if b == nil {
		return q
	}
	return string(b)
}

// alterSchema reads `ALTER SCHEMA` as `ALTER DATABASE`, its synonym,
// which vitess parses alone (CREATE and DROP SCHEMA it takes): the two
// bytes DATABASE has more count as inserted at its end, so offsets map
// back.
func alterSchema(q string) (string, []int) {
	s := strings.TrimLeft(q, " \t\r\n")
	lead := len(q) - len(s)
	if len(s) < 13 || !strings.EqualFold(s[:5], "ALTER") {
		return q, nil
	}
	rest := strings.TrimLeft(s[5:], " \t\r\n")
	at := lead + 5 + (len(s) - 5 - len(rest))
	if at == lead+5 || len(rest) < 7 || !strings.EqualFold(rest[:6], "SCHEMA") || IsIdentByte(rest[6]) {
		return q, nil
	}
	// SCHEMA (6 bytes) becomes DATABASE (8): two bytes inserted at its end.
	r := q[:at] + "DATABASE" + q[at+6:]
	return r, []int{at + 6, at + 7}
}

// dropTables reads `DROP [TEMPORARY] TABLES` (MySQL's synonym) as `DROP
// [TEMPORARY] TABLE`, which vitess parses: TABLES's S becomes a space,
// in place.
func dropTables(q string) string {
	if !containsFold(q, "TABLES") {
		return q
	}
	t := tokText{q: q, toks: sqlTokens(q, false)}
	i := 0
	if !t.is(i, "DROP") {
		return q
	}
	i++
	if t.is(i, "TEMPORARY") {
		i++
	}
	if !t.is(i, "TABLES") {
		return q
	}
	b := []byte(q)
	b[t.toks[i].end-1] = ' '
	return string(b)
}
