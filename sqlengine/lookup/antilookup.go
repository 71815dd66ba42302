package lookup

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// NOT EXISTS by an index. GMS turns `NOT EXISTS (SELECT ... FROM t WHERE
// t.k = outer.k AND t.x <> outer.x)` into an anti join, and when its
// condition is not equalities alone it keeps a nested loop that reads
// all of t for every outer row (its join planning makes no anti join a
// lookup): TPC-H Q21 ran past 120 s at SF 0.1 where MariaDB, reading
// lineitem by its primary key per row, takes 1.2 s. Here, after GMS's
// join planning, such an anti join whose right side is one table (or a
// filter over one) with an index led by columns the condition equates to the left side's
// expressions reads that table by the index for each left row (GMS's
// anti lookup join, which keeps the whole condition for the rows it
// finds). A left row is kept exactly when no row of the table satisfies
// the condition, as before: the rows the lookup skips are those whose key
// differs from the left row's, for which the condition is not true.
// NOT IN's anti joins are the same join type but count a NULL condition
// as a match (below), which a lookup cannot: they are taken only when
// their condition cannot be NULL, where NOT IN and NOT EXISTS agree.

const AntiLookupRuleID analyzer.RuleId = 1014

func AntiJoinLookups(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		j, ok := n.(*plan.JoinNode)
		if !ok || j.Op != plan.JoinTypeAnti || j.Filter == nil {
			return n, transform.SameTree, nil
		}
		// The right side: a table, or a filter over one (the subquery's
		// conditions on the inner table alone, pushed down to it).
		table, filter := j.Right(), (*plan.Filter)(nil)
		if f, ok := table.(*plan.Filter); ok {
			table, filter = f.Child, f
		}
		name, tb := FilteredTable(table)
		if tb == nil {
			return n, transform.SameTree, nil
		}
		cond := j.Filter
		if t, ok := cond.(*expression.IsTrue); ok && strings.HasSuffix(t.String(), " IS TRUE") {
			cond = t.Child // NOT EXISTS's (below): its equalities still key
		} else if cond.IsNullable() {
			// NOT IN's: a NULL key must drop the left row (the lookup
			// would find nothing and keep it), as must a right row with
			// a NULL key (the lookup would not find it).
			return n, transform.SameTree, nil
		}
		eqs := TableEqualities(tb, name, expression.SplitConjunction(cond), false)
		ix, k := BestPrefix(tb, eqs)
		if k == 0 {
			return n, transform.SameTree, nil
		}
		right, ok := lookupAccess(ctx, table, ix, k, eqs)
		if !ok {
			return n, transform.SameTree, nil
		}
		if filter != nil {
			right = plan.NewFilter(filter.Expression, right)
		}
		nj, err := j.WithChildren(j.Left(), right)
		if err != nil {
			return n, transform.SameTree, nil
		}
		out := nj.(*plan.JoinNode)
		out.Op = plan.JoinTypeAntiLookup
		return out, transform.NewTree, nil
	})
}

// NOT EXISTS whose condition may be NULL. GMS's anti joins count a row
// of the right side whose condition is NULL as a match (rowexec's
// existsIter, IsExcludeNulls), which is what `x NOT IN (SELECT y ...)`
// needs (a NULL y makes the IN unknown, and the row is not returned) but
// not NOT EXISTS, where only a row whose condition is true exists: `NOT
// EXISTS (SELECT * FROM l b WHERE b.ok = a.ok AND b.sk <> a.sk)` lost
// every outer row with a NULL sk, silently. The anti joins GMS makes of
// NOT EXISTS (its unnestExistsSubqueries rule, after those of NOT IN) get
// their condition wrapped in IS TRUE when it can be NULL; a condition
// over NOT NULL columns is left as it is, for GMS's join planning.

// unnestExistsRule is GMS's unnestExistsSubqueries, which
// ExistsAntiJoins wraps.
var UnnestExistsRule analyzer.RuleFunc

func ExistsAntiJoins(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	before := map[string]int{}
	transform.Inspect(n, func(n sql.Node) bool {
		if j, ok := n.(*plan.JoinNode); ok && j.Op.IsAnti() && j.Filter != nil {
			before[j.Filter.String()]++
		}
		return true
	})
	out, same, err := UnnestExistsRule(ctx, a, n, scope, sel, qf)
	if err != nil || same == transform.SameTree {
		return out, same, err
	}
	fixed, _, err := transform.Node(out, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		j, ok := n.(*plan.JoinNode)
		if !ok || !j.Op.IsAnti() || j.Filter == nil {
			return n, transform.SameTree, nil
		}
		if k := j.Filter.String(); before[k] > 0 {
			before[k]-- // NOT IN's, made before
			return n, transform.SameTree, nil
		}
		if !j.Filter.IsNullable() {
			return n, transform.SameTree, nil
		}
		nj := *j
		nj.Filter = expression.NewIsTrue(j.Filter)
		return &nj, transform.NewTree, nil
	})
	if err != nil {
		return out, same, nil
	}
	return fixed, transform.NewTree, nil
}
