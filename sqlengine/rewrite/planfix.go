package rewrite

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// distinctSortRule mends ORDER BY over SELECT DISTINCT of expressions:
// GMS keeps the sort key as the expression over the table's columns
// (ORDER BY 1 of SELECT DISTINCT LOWER(s) sorts by lower(t.s)), but the
// DISTINCT below the sort returns only the projected columns, so sorting
// two or more rows fails with "unable to find field with index N". A sort
// key that is one of the projected expressions reads that column instead.
// It runs after exec indexes are assigned (OnceAfterAll), so the column
// it reads is the projection's place.
func DistinctSortRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		s, ok := n.(*plan.Sort)
		if !ok {
			return n, transform.SameTree, nil
		}
		d, ok := s.Child.(*plan.Distinct)
		if !ok {
			return n, transform.SameTree, nil
		}
		p, ok := d.Child.(*plan.Project)
		if !ok {
			return n, transform.SameTree, nil
		}
		fields := make(sql.SortFields, len(s.SortFields))
		changed := false
		for i, f := range s.SortFields {
			fields[i] = f
			if _, plain := f.Column.(*expression.GetField); plain {
				continue
			}
			key := Unalias(f.Column).String()
			for j, pe := range p.Projections {
				if Unalias(pe).String() != key {
					continue
				}
				col := p.Schema()[j]
				fields[i].Column = expression.NewGetFieldWithTable(j, 0, col.Type, col.DatabaseSource, col.Source, col.Name, col.Nullable)
				changed = true
				break
			}
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		return plan.NewSort(fields, s.Child), transform.NewTree, nil
	})
}

func Unalias(e sql.Expression) sql.Expression {
	if a, ok := e.(*expression.Alias); ok {
		return a.Child
	}
	return e
}

// likeEscapeRule gives a LIKE whose pattern holds a backslash its escape
// character explicitly. GMS's simplifyFilters turns LIKE 'abc%' into a
// range and LIKE 'abc' into =, reading escapes wrongly ('Com\_stmt\_%'
// became a range from 'Com\_stmt\_', which nothing is in: SHOW STATUS
// LIKE 'Com\_stmt\_%' listed nothing); it leaves a LIKE with an ESCAPE
// clause alone. It runs before simplifyFilters.
func LikeEscapeRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		l, ok := e.(*expression.Like)
		if !ok || l.Escape != nil {
			return e, transform.SameTree, nil
		}
		r, ok := l.RightChild.(*expression.Literal)
		if !ok {
			return e, transform.SameTree, nil
		}
		if s, ok := r.Value().(string); !ok || !strings.Contains(s, `\`) {
			return e, transform.SameTree, nil
		}
		return expression.NewLike(l.LeftChild, l.RightChild, expression.NewLiteral(`\`, types.LongText)), transform.NewTree, nil
	})
}
