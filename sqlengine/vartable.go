package sqlengine

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
)

// checkVarTableName is MySQL's 1064 for a user variable written where a
// table name goes (`SELECT a FROM @v WHERE ...`): MySQL's grammar has no
// variable there, a table name is never substituted from one. vitess's
// tokenizer reads an unquoted @v as an identifier, so it parsed as a
// table named "@v" and failed later with 1146 (mtr's ps_query.inc, in
// ps_2myisam, ps_3innodb, ps_4heap and ps_5merge). A table really named
// @v is written quoted (`@v`), which stays a table: the tokens tell the
// two apart, the parse tree does not.
func checkVarTableName(st ast.Statement, q string) error {
	if st == nil || !strings.Contains(q, "@") {
		return nil
	}
	var named []string
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if t, ok := n.(*ast.AliasedTableExpr); ok {
			if tn, ok := t.Expr.(ast.TableName); ok && strings.HasPrefix(tn.Name.String(), "@") {
				named = append(named, tn.Name.String())
			}
		}
		return true, nil
	}, st)
	if len(named) == 0 {
		return nil
	}
	at := unquotedVariables(q)
	for _, n := range named {
		if i, ok := at[n]; ok {
			near := q[i:]
			if len(near) > 80 {
				near = near[:80]
			}
			return mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s' at line 1", near)
		}
	}
	return nil
}

// unquotedVariables maps each identifier of q written as an unquoted @name
// (a user variable to MySQL) to its first offset in q.
func unquotedVariables(q string) map[string]int {
	out := map[string]int{}
	tkn := ast.NewStringTokenizer(q)
	for {
		typ, val := tkn.Scan()
		if typ == 0 || typ == ast.LEX_ERROR {
			return out
		}
		if typ != ast.ID || len(val) < 2 || val[0] != '@' {
			continue
		}
		// The tokenizer stands one character past the token's end.
		end := min(tkn.Position-1, len(q))
		start := end - len(val)
		if start >= 0 && q[start:end] == string(val) {
			if _, seen := out[string(val)]; !seen {
				out[string(val)] = start
			}
		}
	}
}
