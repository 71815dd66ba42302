package charset

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Results for a client whose character_set_results cannot hold every
// character (latin1, utf8mb3, ...): MySQL sends '?' for a character the
// set lacks; GMS fails the whole statement ("failed to encode"), and the
// connection is unusable for text the client cannot be sent. The rule
// reads the session's character_set_results when the statement is
// planned (a SET NAMES re-plans cached statements) and, unless it is
// utf8mb4 or binary, reads the result's strings through forClient.

// forClient is a string with the characters cs cannot encode replaced by
// '?'.
type forClient struct {
	child sql.Expression
	cs    sql.CharacterSetID
	// orig is the projection it replaced (ResultsRule), restored when a
	// later run of the rule takes it off; added marks a projection the
	// rule put over rows that had none, removed whole then.
	orig  sql.Expression
	added bool
}

var _ sql.Expression = (*forClient)(nil)
var _ sql.CollationCoercible = (*forClient)(nil)

func (f *forClient) Resolved() bool             { return f.child.Resolved() }
func (f *forClient) String() string             { return f.child.String() }
func (f *forClient) Type() sql.Type             { return f.child.Type() }
func (f *forClient) IsNullable() bool           { return f.child.IsNullable() }
func (f *forClient) Children() []sql.Expression { return []sql.Expression{f.child} }

func (f *forClient) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, f.child)
}

func (f *forClient) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 1)
	}
	return &forClient{child: children[0], cs: f.cs, orig: f.orig, added: f.added}, nil
}

func (f *forClient) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := f.child.Eval(ctx, row)
	if s, ok := v.(string); ok && err == nil {
		return replaceUnencodable(f.cs, s), nil
	}
	return v, err
}

// replaceUnencodable is s with each character cs cannot encode (or each
// invalid UTF-8 byte) replaced by '?'.
func replaceUnencodable(cs sql.CharacterSetID, s string) string {
	enc := cs.Encoder()
	if enc == nil {
		return s
	}
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return s // ASCII: every character set here holds it
	}
	if _, ok := enc.Encode([]byte(s[i:])); ok {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if _, ok := enc.EncodeRune([]byte(string(r))); ok && r != utf8.RuneError {
			b.WriteRune(r)
		} else {
			b.WriteByte('?')
		}
	}
	return b.String()
}

// resultCharsetNeedsReplacing reports the character set results are
// sent in when it cannot hold every character.
func resultCharsetNeedsReplacing(ctx *sql.Context) (sql.CharacterSetID, bool) {
	if ctx == nil || ctx.Session == nil {
		return 0, false
	}
	cs := ctx.GetCharacterSetResults()
	switch cs {
	case sql.CharacterSet_Unspecified, sql.CharacterSet_binary, sql.CharacterSet_utf8mb4:
		return 0, false
	}
	return cs, cs.Encoder() != nil
}

// ResultsRule puts forClient over the text columns of the
// statement's result.
//
// Only the rows sent to the client: a subquery's or a derived table's
// rows (analyzed with their outer scope), and the SELECT of a statement
// that writes (INSERT ... SELECT, CREATE TABLE ... SELECT, UPDATE from a
// subquery: GMS analyzes such a SELECT on its own, as if it were the
// statement) keep their text whole. The rule once replaced the
// characters latin1 lacks with '?' there too, and such statements stored
// the '?'.
func ResultsRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	cs, ok := resultCharsetNeedsReplacing(ctx)
	if !ok || !scope.IsEmpty() || writes(qFlags) {
		return n, transform.SameTree, nil
	}
	// A derived table's SELECT is analyzed on its own, with no scope,
	// before its statement, and was given the replacement as if it were
	// the result; the statement's own run comes last and takes it off
	// everything below its result, so `FROM (SELECT s FROM t) x WHERE
	// x.s = ...` compares the stored text.
	n, err := stripForClient(n)
	if err != nil {
		return nil, transform.SameTree, err
	}
	// The node whose rows are the result: below the nodes that pass
	// rows through unchanged.
	target, depth := n, 0
	for {
		switch x := target.(type) {
		case *plan.Limit, *plan.Offset, *plan.Sort, *plan.TopN, *plan.Distinct, *plan.Having, *plan.Filter:
			target, depth = x.Children()[0], depth+1
			continue
		}
		break
	}
	var replacement sql.Node
	switch p := target.(type) {
	case *plan.Project:
		exprs := make([]sql.Expression, len(p.Projections))
		sch := p.Schema()
		changed := false
		for i, e := range p.Projections {
			exprs[i] = e
			if !types.IsText(e.Type()) {
				continue
			}
			// The alias keeps the column id of the projection it stands
			// for: GMS finds a derived table's columns by id, and an
			// alias without one sent the derived table's first column
			// in its place.
			name, child := sch[i].Name, e
			if a, ok := e.(*expression.Alias); ok {
				name, child = a.Name(), a.Child
			}
			na := sql.Expression(expression.NewAlias(name, &forClient{child: child, cs: cs, orig: e}))
			if ie, ok := e.(sql.IdExpression); ok {
				na = na.(*expression.Alias).WithId(ie.Id())
			}
			exprs[i] = na
			changed = true
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		np := *p
		np.Projections = exprs
		replacement = &np
	case *plan.ResolvedTable, *plan.TableAlias, *plan.IndexedTableAccess, *plan.JoinNode, *plan.SubqueryAlias, *plan.GroupBy, *plan.SetOp:
		// Rows straight from a table, a join or a grouping: a projection
		// of their columns goes on top.
		sch := target.Schema()
		exprs := make([]sql.Expression, len(sch))
		changed := false
		for i, c := range sch {
			gf := expression.NewGetFieldWithTable(i, 0, c.Type, c.DatabaseSource, c.Source, c.Name, c.Nullable)
			exprs[i] = gf
			if types.IsText(c.Type) {
				exprs[i] = expression.NewAlias(c.Name, &forClient{child: gf, cs: cs, orig: gf, added: true})
				changed = true
			}
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		replacement = plan.NewProject(exprs, target)
	default:
		return n, transform.SameTree, nil // statements that answer otherwise
	}
	out, err := replaceDown(n, depth, replacement)
	if err != nil {
		return nil, transform.SameTree, err
	}
	return out, transform.NewTree, nil
}

// replaceDown replaces the node depth first-children below n.
func replaceDown(n sql.Node, depth int, with sql.Node) (sql.Node, error) {
	if depth == 0 {
		return with, nil
	}
	kids := n.Children()
	c, err := replaceDown(kids[0], depth-1, with)
	if err != nil {
		return nil, err
	}
	return n.WithChildren(append([]sql.Node{c}, kids[1:]...)...)
}

// stripForClient takes the projections ResultsRule made off n's tree:
// each projection it wrapped is its original again, and a projection it
// added is removed.
func stripForClient(n sql.Node) (sql.Node, error) {
	out, _, err := transform.NodeWithOpaque(n, func(x sql.Node) (sql.Node, transform.TreeIdentity, error) {
		p, ok := x.(*plan.Project)
		if !ok {
			return x, transform.SameTree, nil
		}
		var exprs []sql.Expression
		for i, e := range p.Projections {
			a, ok := e.(*expression.Alias)
			if !ok {
				continue
			}
			f, ok := a.Child.(*forClient)
			if !ok || f.orig == nil {
				continue
			}
			if f.added {
				return p.Child, transform.NewTree, nil
			}
			if exprs == nil {
				exprs = slices.Clone(p.Projections)
			}
			// The original, with the child as later rules left it (the
			// executor's column indexes are assigned after this rule).
			exprs[i] = f.child
			if oa, ok := f.orig.(*expression.Alias); ok {
				exprs[i] = expression.NewAlias(oa.Name(), f.child).WithId(oa.Id())
			}
		}
		if exprs == nil {
			return x, transform.SameTree, nil
		}
		np := *p
		np.Projections = exprs
		return &np, transform.NewTree, nil
	})
	return out, err
}

// writes reports whether the statement being planned writes rows or
// definitions: its SELECTs are no results.
func writes(qFlags *sql.QueryFlags) bool {
	if qFlags == nil {
		return false
	}
	for _, f := range []int{sql.QFlagInsert, sql.QFlagUpdate, sql.QFlagDelete, sql.QFlagDDL, sql.QFlagDBDDL,
		sql.QFlagAlterTable, sql.QFlagTrigger, sql.QFlagCreateTrigger, sql.QFlagCreateProcedure, sql.QFlagCreateEvent} {
		if qFlags.IsSet(f) {
			return true
		}
	}
	return false
}

// ClientRows is it with the characters the client's
// character_set_results lacks replaced by '?' in each string, for
// answers made of rows no projection carries (EXPLAIN's plan text,
// whose tree is drawn with box characters latin1 does not have: the
// statement failed with "failed to encode").
func ClientRows(ctx *sql.Context, it sql.RowIter, err error) (sql.RowIter, error) {
	cs, ok := resultCharsetNeedsReplacing(ctx)
	if err != nil || !ok || it == nil {
		return it, err
	}
	return &clientRows{it: it, cs: cs}, nil
}

type clientRows struct {
	it sql.RowIter
	cs sql.CharacterSetID
}

func (c *clientRows) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := c.it.Next(ctx)
	if err != nil {
		return row, err
	}
	for i, v := range row {
		if s, ok := v.(string); ok {
			row[i] = replaceUnencodable(c.cs, s)
		}
	}
	return row, nil
}

func (c *clientRows) Close(ctx *sql.Context) error { return c.it.Close(ctx) }
