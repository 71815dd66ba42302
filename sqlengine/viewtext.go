package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql/plan"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// preparedViewText gives a CREATE VIEW run by EXECUTE the statement text
// it stores. GMS stores the text of the query being run, for a prepared
// CREATE VIEW "EXECUTE s", which it then failed to read back as a view
// (1105 "expected create view statement, found: *plan.ExecuteQuery" on
// every later read). The text is rebuilt from the view's name, columns,
// options and SELECT (kept by engine.go's keepViewText).
func preparedViewText(n *plan.CreateView) {
	if n.Definition == nil || n.Definition.TextDefinition == "" || startsWithCreate(n.CreateViewString) {
		return
	}
	var b strings.Builder
	b.WriteString("CREATE ")
	if n.IsReplace {
		b.WriteString("OR REPLACE ")
	}
	if n.Algorithm != "" {
		b.WriteString("ALGORITHM = " + n.Algorithm + " ")
	}
	if n.Definer != "" {
		b.WriteString("DEFINER = " + n.Definer + " ")
	}
	if n.Security != "" {
		b.WriteString("SQL SECURITY " + n.Security + " ")
	}
	b.WriteString("VIEW " + quoteIdent(n.Name))
	if cols := n.Definition.ColumnNames; len(cols) > 0 {
		q := make([]string, len(cols))
		for i, c := range cols {
			q[i] = quoteIdent(c)
		}
		b.WriteString(" (" + strings.Join(q, ", ") + ")")
	}
	b.WriteString(" AS " + n.Definition.TextDefinition)
	n.CreateViewString = b.String()
}

// startsWithCreate reports whether statement text q's first token is
// CREATE.
func startsWithCreate(q string) bool {
	tok := ast.NewStringTokenizer(q)
	for {
		typ, _ := tok.Scan()
		if typ != ast.COMMENT {
			return typ == ast.CREATE
		}
	}
}
