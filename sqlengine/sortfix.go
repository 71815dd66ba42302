package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// distinctSortRule mends ORDER BY over SELECT DISTINCT of expressions:
// GMS keeps the sort key as the expression over the table's columns
// (ORDER BY 1 of SELECT DISTINCT LOWER(s) sorts by lower(t.s)), but the
// DISTINCT below the sort returns only the projected columns, so sorting
// two or more rows fails with "unable to find field with index N". A sort
// key that is one of the projected expressions reads that column instead.
// It runs after exec indexes are assigned (OnceAfterAll), so the column
// it reads is the projection's place.
func distinctSortRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
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
			key := unalias(f.Column).String()
			for j, pe := range p.Projections {
				if unalias(pe).String() != key {
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

func unalias(e sql.Expression) sql.Expression {
	if a, ok := e.(*expression.Alias); ok {
		return a.Child
	}
	return e
}
