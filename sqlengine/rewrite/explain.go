package rewrite

import (
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// ExplainResult is an analyzer rule that keeps EXPLAIN's result from being
// sent as a single row. GMS analyses the statement EXPLAIN describes with
// EXPLAIN's query flags, so a lookup by a whole unique key marks EXPLAIN
// itself as returning at most one row, and GMS's handler then refuses the
// plan's second line: "1105 result max1Row iterator returned more than
// one row" (issue 29, seen on a freshly loaded database before statistics
// existed, and for every full-key lookup once they name every key
// column). Only a statement whose flags say so is looked at, by its first
// token through the SQL lexer, so comments cannot change the answer.
func ExplainResult(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if qFlags != nil && qFlags.IsSet(sql.QFlagMax1Row) && IsExplain(ctx.Query()) {
		qFlags.Unset(sql.QFlagMax1Row)
	}
	return n, transform.SameTree, nil
}

// IsExplain reports whether statement q is an EXPLAIN (or DESCRIBE/DESC,
// its synonyms), by q's first token other than a comment.
func IsExplain(q string) bool {
	tok := ast.NewStringTokenizer(q)
	for {
		typ, _ := tok.Scan()
		switch typ {
		case ast.COMMENT:
			continue
		case ast.EXPLAIN, ast.DESCRIBE, ast.DESC:
			return true
		default:
			return false
		}
	}
}

// ExplainParser gives EXPLAIN's formats MySQL's answers: FORMAT=TRADITIONAL
// is the traditional table (vitess keeps the name and GMS refused it:
// 1105 "invalid format"), and FORMAT=JSON, which vitess cannot parse
// (1064, a syntax error in a valid statement): a statement that parses
// with TREE in JSON's place is parsed so, and its session noted
// (JSONNoter), for sqlengine's explainPlan to answer with the JSON
// document (explain/json.go).
type ExplainParser struct{ sql.Parser }

// JSONNoter is a session that keeps whether the last EXPLAIN it parsed
// asked for FORMAT=JSON (sqlengine's Session).
type JSONNoter interface {
	// NoteExplainJSON notes (true) or clears (false) the request.
	NoteExplainJSON(json bool)
	// TakeExplainJSON reports the request and clears it.
	TakeExplainJSON() bool
}

func (p ExplainParser) ParseSimple(q string) (ast.Statement, error) {
	st, err := p.Parser.ParseSimple(q)
	if r, ok := jsonAsTree(q, err); ok {
		if st2, err2 := p.Parser.ParseSimple(r); err2 == nil {
			return st2, nil // no session to note: planned, never run
		}
	}
	return traditionalFormat(st), err
}

func (p ExplainParser) Parse(ctx *sql.Context, q string, multi bool) (ast.Statement, string, string, error) {
	st, a, b, err := p.Parser.Parse(ctx, q, multi)
	if r, ok := jsonAsTree(q, err); ok {
		if st2, a2, b2, err2 := p.Parser.Parse(ctx, r, multi); err2 == nil {
			return noteFormat(ctx, st2, true), a2, b2, nil
		}
	}
	return noteFormat(ctx, st, false), a, b, err
}

func (p ExplainParser) ParseWithOptions(ctx context.Context, q string, delim rune, multi bool, o ast.ParserOptions) (ast.Statement, string, string, error) {
	st, a, b, err := p.Parser.ParseWithOptions(ctx, q, delim, multi, o)
	if r, ok := jsonAsTree(q, err); ok {
		if st2, a2, b2, err2 := p.Parser.ParseWithOptions(ctx, r, delim, multi, o); err2 == nil {
			return noteFormat(ctx, st2, true), a2, b2, nil
		}
	}
	return noteFormat(ctx, st, false), a, b, err
}

func (p ExplainParser) ParseOneWithOptions(ctx context.Context, q string, o ast.ParserOptions) (ast.Statement, int, error) {
	st, n, err := p.Parser.ParseOneWithOptions(ctx, q, o)
	if r, ok := jsonAsTree(q, err); ok {
		if st2, n2, err2 := p.Parser.ParseOneWithOptions(ctx, r, o); err2 == nil {
			return noteFormat(ctx, st2, true), n2, nil
		}
	}
	return noteFormat(ctx, st, false), n, err
}

// traditionalFormat makes EXPLAIN FORMAT=TRADITIONAL the default format.
func traditionalFormat(st ast.Statement) ast.Statement {
	if ex, ok := st.(*ast.Explain); ok && strings.EqualFold(ex.ExplainFormat, "traditional") {
		ex.ExplainFormat = ""
	}
	return st
}

// noteFormat notes for an EXPLAIN whether it asked for JSON, on ctx's
// session.
func noteFormat(ctx context.Context, st ast.Statement, json bool) ast.Statement {
	st = traditionalFormat(st)
	if _, ok := st.(*ast.Explain); !ok {
		return st
	}
	sc, ok := ctx.(*sql.Context)
	if !ok || sc.Session == nil {
		return st
	}
	if n, ok := sc.Session.(JSONNoter); ok {
		n.NoteExplainJSON(json)
	}
	return st
}

// ExplainJSON reports (once) whether the EXPLAIN being run asked for
// FORMAT=JSON.
func ExplainJSON(ctx *sql.Context) bool {
	if n, ok := ctx.Session.(JSONNoter); ok {
		return n.TakeExplainJSON()
	}
	return false
}

// jsonAsTree is q, an EXPLAIN FORMAT=JSON that failed to parse (err),
// with TREE in JSON's place.
func jsonAsTree(q string, err error) (string, bool) {
	if err == nil {
		return "", false
	}
	tok := ast.NewStringTokenizer(q)
	var words []string
	end := 0
	for len(words) < 4 {
		typ, val := tok.Scan()
		if typ == ast.COMMENT {
			continue
		}
		if typ == 0 || typ == ast.LEX_ERROR {
			break
		}
		if len(val) == 0 {
			val = []byte{byte(typ)}
		}
		words = append(words, strings.ToUpper(string(val)))
		end = tok.Position
	}
	if len(words) < 4 || !isExplainWord(words[0]) || words[1] != "FORMAT" || words[2] != "=" || words[3] != "JSON" {
		return "", false
	}
	at := strings.LastIndex(strings.ToUpper(q[:min(end, len(q))]), "JSON")
	if at < 0 {
		return "", false
	}
	return q[:at] + "TREE" + q[at+4:], true
}

func isExplainWord(w string) bool { return w == "EXPLAIN" || w == "DESCRIBE" || w == "DESC" }
