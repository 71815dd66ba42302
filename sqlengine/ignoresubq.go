package sqlengine

import (
	"fmt"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"petrel/internal/mysqlerr"
)

// UPDATE IGNORE whose condition holds a scalar subquery returning more
// than one row: MySQL's IGNORE turns that error (1242) into a warning,
// the subquery read as NULL (the row not matched); GMS's IGNORE turns
// only the errors of writing a row, so the statement failed. The
// subqueries of an UPDATE IGNORE's plan are wrapped, last of the rules,
// in ignoredSubquery.

const ignoreSubqueryRuleID analyzer.RuleId = 1097

var ignoreSubqueryOnce sync.Once

// installIgnoreSubqueryRule appends ignoreSubqueries to the rules GMS
// runs last, once per process.
func installIgnoreSubqueryRule() {
	ignoreSubqueryOnce.Do(func() {
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: ignoreSubqueryRuleID, Apply: ignoreSubqueries})
	})
}

// ignoreSubqueries is the rule.
func ignoreSubqueries(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	ignore := false
	transform.Inspect(n, func(x sql.Node) bool {
		if u, ok := x.(*plan.Update); ok && u.Ignore {
			ignore = true
		}
		return !ignore
	})
	if !ignore {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(x sql.Node) (sql.Node, transform.TreeIdentity, error) {
		return transform.OneNodeExpressions(x, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			if sq, ok := e.(*plan.Subquery); ok {
				return &ignoredSubquery{sq}, transform.NewTree, nil
			}
			return e, transform.SameTree, nil
		})
	})
}

// ignoredSubquery is a scalar subquery of an UPDATE IGNORE: more than
// one row is warning 1242 and NULL.
type ignoredSubquery struct{ *plan.Subquery }

var _ sql.Expression = (*ignoredSubquery)(nil)

// Eval implements sql.Expression.
func (q *ignoredSubquery) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := q.Subquery.Eval(ctx, row)
	if err != nil && sql.ErrExpectedSingleRow.Is(err) {
		ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErSubqueryNo1Row, Message: subqueryNo1RowText})
		return nil, nil
	}
	return v, err
}

// WithChildren implements sql.Expression.
func (q *ignoredSubquery) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 0 {
		return nil, fmt.Errorf("sqlengine: subquery takes no children, got %d", len(children))
	}
	return q, nil
}

// subqueryNo1RowText is MySQL's text of error 1242.
const subqueryNo1RowText = "Subquery returns more than 1 row"
