package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// explainResult is an analyzer rule that keeps EXPLAIN's result from being
// sent as a single row. GMS analyses the statement EXPLAIN describes with
// EXPLAIN's query flags, so a lookup by a whole unique key marks EXPLAIN
// itself as returning at most one row, and GMS's handler then refuses the
// plan's second line: "1105 result max1Row iterator returned more than
// one row" (issue 29, seen on a freshly loaded database before statistics
// existed, and for every full-key lookup once they name every key
// column). Only a statement whose flags say so is looked at, by its first
// token through the SQL lexer, so comments cannot change the answer.
func explainResult(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if qFlags != nil && qFlags.IsSet(sql.QFlagMax1Row) && isExplain(ctx.Query()) {
		qFlags.Unset(sql.QFlagMax1Row)
	}
	return n, transform.SameTree, nil
}

// isExplain reports whether statement q is an EXPLAIN (or DESCRIBE/DESC,
// its synonyms), by q's first token other than a comment.
func isExplain(q string) bool {
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
