package charset

import (
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
	return &forClient{child: children[0], cs: f.cs}, nil
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
func ResultsRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	cs, ok := resultCharsetNeedsReplacing(ctx)
	if !ok {
		return n, transform.SameTree, nil
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
			if a, ok := e.(*expression.Alias); ok {
				ne, err := a.WithChildren(&forClient{child: a.Child, cs: cs})
				if err != nil {
					return nil, transform.SameTree, err
				}
				exprs[i] = ne
			} else {
				exprs[i] = expression.NewAlias(sch[i].Name, &forClient{child: e, cs: cs})
			}
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
				exprs[i] = expression.NewAlias(c.Name, &forClient{child: gf, cs: cs})
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
