package sqlengine

import (
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"petrel/storage"
)

// ALTER TABLE t COMMENT [=] 'text' sets the table's comment, as MySQL's
// (SHOW CREATE TABLE and information_schema.TABLES show it). vitess's
// parser drops an ALTER's table options, so GMS answered OK and kept
// the old comment. The comment is read from the statement's text:
// alterTableComment finds a table-level COMMENT among the ALTER's
// comma-separated clauses (a clause of table options; a column's
// COMMENT inside ADD, MODIFY or CHANGE is not the table's), and the
// exec override sets it once per statement.

var alterTableHead = regexp.MustCompile(`(?is)^\s*ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE\s+`)

// tableOptionWords start a clause of table options.
var tableOptionWords = map[string]bool{
	"COMMENT": true, "ENGINE": true, "DEFAULT": true, "CHARACTER": true, "CHARSET": true, "COLLATE": true,
	"AUTO_INCREMENT": true, "ROW_FORMAT": true, "KEY_BLOCK_SIZE": true, "STATS_PERSISTENT": true,
	"STATS_AUTO_RECALC": true, "STATS_SAMPLE_PAGES": true, "AVG_ROW_LENGTH": true, "CHECKSUM": true,
	"MAX_ROWS": true, "MIN_ROWS": true, "PACK_KEYS": true, "COMPRESSION": true, "ENCRYPTION": true,
	"DELAY_KEY_WRITE": true, "INSERT_METHOD": true,
}

// alterTableComment is the table named by ALTER TABLE statement q and
// the table-level comment it sets; ok false when it sets none.
func alterTableComment(q string) (db, table, comment string, ok bool) {
	loc := alterTableHead.FindStringIndex(q)
	if loc == nil {
		return "", "", "", false
	}
	toks := sqlTokens(q[loc[1]:])
	// The table name: ident or ident.ident.
	if len(toks) == 0 || toks[0].kind != tokIdent {
		return "", "", "", false
	}
	table, toks = toks[0].text, toks[1:]
	if len(toks) >= 2 && toks[0].text == "." && toks[1].kind == tokIdent {
		db, table, toks = table, toks[1].text, toks[2:]
	}
	clauseStart := true
	optionClause := false
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tokPunct && t.text == "," {
			clauseStart = true
			continue
		}
		if clauseStart {
			optionClause = t.kind == tokIdent && tableOptionWords[strings.ToUpper(t.text)]
			clauseStart = false
		}
		if !optionClause || t.kind != tokIdent || !strings.EqualFold(t.text, "COMMENT") {
			continue
		}
		j := i + 1
		if j < len(toks) && toks[j].text == "=" {
			j++
		}
		if j < len(toks) && toks[j].kind == tokString {
			comment, ok = toks[j].text, true
			i = j
		}
	}
	return db, table, comment, ok
}

type tokKind int

const (
	tokIdent tokKind = iota
	tokString
	tokPunct
)

type sqlToken struct {
	kind tokKind
	text string // an identifier unquoted, a string's value
}

// sqlTokens splits s into identifiers (bare or backquoted), string
// literals (quotes doubled or backslash-escaped) and punctuation; text
// inside parentheses is skipped (a column definition's, an index's).
func sqlTokens(s string) []sqlToken {
	var out []sqlToken
	depth := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(':
			depth++
			i++
		case c == ')':
			depth--
			i++
		case c == '\'' || c == '"' || c == '`':
			var b strings.Builder
			j := i + 1
			for j < len(s) {
				if s[j] == '\\' && c != '`' && j+1 < len(s) {
					b.WriteByte(commentUnescape(s[j+1]))
					j += 2
					continue
				}
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						b.WriteByte(c)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			if depth == 0 {
				k := tokString
				if c == '`' {
					k = tokIdent
				}
				out = append(out, sqlToken{kind: k, text: b.String()})
			}
			i = j + 1
		case c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '$' || s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 0x80) {
				j++
			}
			if depth == 0 {
				out = append(out, sqlToken{kind: tokIdent, text: s[i:j]})
			}
			i = j
		default:
			if depth == 0 {
				out = append(out, sqlToken{kind: tokPunct, text: string(c)})
			}
			i++
		}
	}
	return out
}

func commentUnescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case '0':
		return 0
	}
	return c
}

// alterTableNode: n is what GMS builds for an ALTER TABLE statement (a
// Block of its clauses, none for table options alone, or one clause).
func alterTableNode(n sql.Node) bool {
	switch n.(type) {
	case *plan.Block, *plan.AddColumn, *plan.DropColumn, *plan.ModifyColumn, *plan.RenameColumn, *plan.AlterIndex,
		*plan.AlterPK, *plan.AlterDefaultSet, *plan.AlterDefaultDrop, *plan.AlterAutoIncrement, *plan.AlterTableCollation:
		return true
	}
	return false
}

// applyAlterComment sets the table comment ALTER TABLE statement q
// names, once per statement (pid): true when it did.
func (e *Engine) applyAlterComment(ctx *sql.Context) error {
	s := ctxSession(ctx)
	if s == nil || s.alterCommentPid == ctx.Pid() {
		return nil
	}
	db, table, comment, ok := alterTableComment(ctx.Query())
	if !ok {
		return nil
	}
	s.alterCommentPid = ctx.Pid()
	if db == "" {
		db = ctx.GetCurrentDatabase()
	}
	st, _, err := e.gms.Analyzer.Catalog.Table(ctx, db, table)
	if err != nil {
		return err
	}
	t, ok := petrelTable(st)
	if !ok {
		return nil
	}
	return t.alter(ctx, func(def *storage.TableDef) error {
		def.Comment = comment
		return nil
	})
}
