package sqlmode

// ALTER TABLE's table options as MySQL reads them. MySQL separates
// table options with commas or spaces and spells the character set
// CHARSET or CHARACTER SET; vitess parses an ALTER TABLE's options only
// comma-separated and without CHARSET, so the migrations frameworks and
// dumps write failed with 1064:
//
//	ALTER TABLE t DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
//	ALTER TABLE t ENGINE=InnoDB COMMENT='orders'
//	ALTER TABLE t AUTO_INCREMENT=5 COMMENT='a'
//
// alterTableOptions rewrites an ALTER TABLE whose every clause is a table
// option: a comma is inserted between two options written without one,
// and CHARSET becomes CHARACTER SET ("ACTER " inserted after its CHAR).
// Insertions only, so offsets map back. An ALTER TABLE with any other
// clause is left to vitess as written.

// tableOptionWords are the table options taking [=] value.
var tableOptionWords = map[string]bool{
	"ENGINE": true, "COMMENT": true, "AUTO_INCREMENT": true, "ROW_FORMAT": true,
	"KEY_BLOCK_SIZE": true, "STATS_PERSISTENT": true, "STATS_AUTO_RECALC": true,
	"STATS_SAMPLE_PAGES": true, "PACK_KEYS": true, "CHECKSUM": true,
	"DELAY_KEY_WRITE": true, "AVG_ROW_LENGTH": true, "MAX_ROWS": true,
	"MIN_ROWS": true, "COMPRESSION": true, "ENCRYPTION": true, "INSERT_METHOD": true,
	"COLLATE": true, "CHARSET": true,
}

func alterTableOptions(q string, ansiQuotes bool) (string, []int) {
	if !containsFold(q, "ALTER") || !containsFold(q, "TABLE") {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	if !t.is(0, "ALTER") || !t.is(1, "TABLE") {
		return q, nil
	}
	i := 2
	if !t.name(i) {
		return q, nil
	}
	i++
	if t.is(i, ".") {
		if !t.name(i + 1) {
			return q, nil
		}
		i += 2
	}
	var ins []insertion
	options := 0
	for i < len(t.toks) {
		if t.is(i, ";") && i == len(t.toks)-1 {
			break
		}
		if options > 0 {
			if t.is(i, ",") {
				i++
			} else {
				ins = append(ins, insertion{t.toks[i-1].end, ","})
			}
		}
		start := i
		if t.is(i, "DEFAULT") {
			i++
		}
		switch w := t.word(i); {
		case w == "CHARSET":
			ins = append(ins, insertion{t.toks[i].start + 4, "ACTER "})
			i++
		case w == "CHARACTER" && t.is(i+1, "SET"):
			i += 2
		case tableOptionWords[w]:
			if i > start && w != "COLLATE" {
				return q, nil // DEFAULT before another option
			}
			i++
		default:
			return q, nil
		}
		if t.is(i, "=") {
			i++
		}
		if i >= len(t.toks) || t.toks[i].kind == 'p' {
			return q, nil // no value
		}
		i++
		options++
	}
	if options == 0 || len(ins) == 0 {
		return q, nil
	}
	return insertTexts(q, ins)
}

// name reports whether token i is a name (an identifier or a quoted one).
func (t tokText) name(i int) bool {
	return i < len(t.toks) && (t.toks[i].kind == 'i' || t.toks[i].kind == 'q')
}
