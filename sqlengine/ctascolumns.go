package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/sqlengine/sqlmode"
)

// CREATE TABLE with column definitions and a SELECT (`CREATE TABLE t3 (c
// INT) SELECT a AS c FROM t1`): MySQL creates the table from both, the
// columns the SELECT names that the definitions do not after them;
// vitess parses either part alone but not both (1064). GMS plans the
// statement once parsed (planbuilder's CREATE TABLE with a TableSpec and
// an OptSelect, its columns merged by name), so when vitess refuses the
// text and sqlmode.CreateColumnsSelect finds the two parts, each is
// parsed apart and the SELECT joined to the CREATE TABLE.

// parseFn parses one statement of its text: the statement, its text and
// the text after it (a multi-statement query's next statements).
type parseFn func(string) (ast.Statement, string, string, error)

// withColumnsSelect is parse(r), or r's CREATE TABLE and SELECT parsed
// apart and joined when vitess refuses r.
func withColumnsSelect(r string, ansiQuotes bool, parse parseFn) (ast.Statement, string, string, error) {
	st, a, b, err := parse(r)
	if err == nil {
		return st, a, b, err
	}
	createEnd, selectStart, ok := sqlmode.CreateColumnsSelect(r, ansiQuotes)
	if !ok {
		return st, a, b, err
	}
	create, _, _, cerr := parse(r[:createEnd])
	d, isDDL := create.(*ast.DDL)
	if cerr != nil || !isDDL || d.TableSpec == nil || d.OptSelect != nil || d.OptLike != nil {
		return st, a, b, err
	}
	q, a2, b2, serr := parse(r[selectStart:])
	sel, isSel := q.(ast.SelectStatement)
	if serr != nil || !isSel {
		return st, a, b, err
	}
	d.OptSelect = &ast.OptSelect{Select: sel}
	return d, r[:selectStart] + a2, b2, nil
}

// buildCopierByName builds n, a CREATE TABLE ... SELECT whose table's
// columns are not the SELECT's in order (definitions of columns the
// SELECT lacks, or in another order): GMS inserts the SELECT's rows by
// position, which failed (a caught panic) or stored values in the wrong
// columns. MySQL fills each column from the SELECT column of its name,
// else with its default. ok is false for any other node.
func (e *Engine) buildCopierByName(ctx *sql.Context, n *plan.TableCopier, row sql.Row) (sql.RowIter, bool, error) {
	ct, ok := n.Destination.(*plan.CreateTable)
	if !ok {
		return nil, false, nil
	}
	src, dst := n.Source.Schema(), ct.PkSchema().Schema
	if len(src) == len(dst) {
		// Every column the SELECT's: by position, unless each is found
		// by name elsewhere (the definitions reordered them).
		inOrder, byName := true, true
		for i, c := range dst {
			inOrder = inOrder && strings.EqualFold(src[i].Name, c.Name)
			byName = byName && src.IndexOfColName(c.Name) >= 0
		}
		if inOrder || !byName {
			return nil, false, nil
		}
	}
	exprs := make([]sql.Expression, len(dst))
	for i, c := range dst {
		var x sql.Expression = expression.NewLiteral(nil, c.Type)
		if j := src.IndexOfColName(c.Name); j >= 0 {
			x = expression.NewGetField(j, src[j].Type, src[j].Name, src[j].Nullable)
		} else if c.Default != nil {
			x = c.Default
		}
		exprs[i] = expression.NewAlias(c.Name, x)
	}
	it, err := e.exec.Build(ctx, plan.NewTableCopier(n.Database(), ct, plan.NewProject(exprs, n.Source), plan.CopierProps{}), row)
	return it, true, err
}
