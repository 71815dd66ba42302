package rewrite

import (
	"fmt"
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Semi joins onto a grouped subquery (issue 29, TPC-H Q18: `o_orderkey IN
// (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING ...)`).
// GMS v0.20.0 turns the IN into a semi join whose right side is a GROUP
// BY, which its join-order builder does not accept
// (ErrUnsupportedReorderNode); it then keeps the whole join tree as
// written: nested loops with no hash or lookup join anywhere, the grouped
// subquery evaluated again for every left row. StuckSemiJoins (just
// before GMS's join planning) plans such a semi join's left side alone
// with GMS's own rule and makes the semi join a hash semi join on its
// equalities, the grouped side built once (MySQL materialises it so).

// OptimizeJoinsRule is GMS's join planning rule, found by name when the
// rules are installed.
var OptimizeJoinsRule func(*sql.Context, *analyzer.Analyzer, sql.Node, *plan.Scope, analyzer.RuleSelector, *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error)

func StuckSemiJoins(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if OptimizeJoinsRule == nil || !scope.IsEmpty() {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		j, ok := n.(*plan.JoinNode)
		if !ok || j.Op != plan.JoinTypeSemi || j.Filter == nil || reorderable(j.Right()) {
			return n, transform.SameTree, nil
		}
		left, right := sideTables(j.Left()), sideTables(j.Right())
		for tb := range left {
			if right[tb] {
				return n, transform.SameTree, nil
			}
		}
		var lk, rk []sql.Expression
		for _, e := range expression.SplitConjunction(j.Filter) {
			eq, ok := e.(*expression.Equals)
			if !ok {
				return n, transform.SameTree, nil
			}
			l, r := eq.Left(), eq.Right()
			if onlyTables(r, left) && onlyTables(l, right) {
				l, r = r, l
			}
			if !onlyTables(l, left) || !onlyTables(r, right) {
				return n, transform.SameTree, nil
			}
			lk, rk = append(lk, l), append(rk, r)
		}
		newLeft := j.Left()
		if reorderable(newLeft) {
			planned, _, err := OptimizeJoinsRule(ctx, a, newLeft, scope, sel, qFlags)
			if err != nil {
				return nil, transform.SameTree, err
			}
			newLeft = planned
		}
		// The grouped side is read whole and closed at once (see
		// Materialized), and must not depend on any row but its own.
		// (At the top level a column from elsewhere is one of the left
		// side's, known by its column id.)
		var leftCols sql.ColSet
		transform.Inspect(j.Left(), func(c sql.Node) bool {
			if t, ok := c.(plan.TableIdNode); ok {
				leftCols = leftCols.Union(t.Columns())
			}
			return true
		})
		uncorrelated := true
		transform.InspectExpressions(j.Right(), func(e sql.Expression) bool {
			if gf, ok := e.(*expression.GetField); ok && leftCols.Contains(sql.ColumnId(gf.Id())) {
				uncorrelated = false
			}
			return uncorrelated
		})
		if !uncorrelated {
			return n, transform.SameTree, nil
		}
		lookup := plan.NewHashLookup(&Materialized{child: j.Right()}, expression.Tuple(rk), expression.Tuple(lk), plan.JoinTypeSemiHash)
		semi := func(left sql.Node) sql.Node {
			return plan.NewJoin(left, lookup, plan.JoinTypeSemiHash, j.Filter).WithScopeLen(j.ScopeLen)
		}
		keyTables := map[string]bool{}
		for _, e := range lk {
			sql.Inspect(e, func(x sql.Expression) bool {
				if gf, ok := x.(*expression.GetField); ok {
					keyTables[strings.ToLower(gf.Table())] = true
				}
				return true
			})
		}
		if pushed, ok := semiOntoProbe(newLeft, keyTables, semi); ok {
			return pushed, transform.NewTree, nil
		}
		return semi(newLeft), transform.NewTree, nil
	})
}

// semiOntoProbe puts the semi join on the table its keys name when that
// table is reached from n through the probe (left) sides of inner joins,
// hash joins' build sides, filters and projections (not the inner side
// of a lookup join, which is read per outer row): a semi join on one
// table's key commutes with
// inner joins, and filtering orders by Q18's few grouped keys before the
// joins reads customer and lineitem for those orders only, where the
// semi join over the whole join looked lineitem up for every order
// (MySQL drives from the materialised subquery for the same reason).
// false when the keys name more than one table or none is reachable.
func semiOntoProbe(n sql.Node, keys map[string]bool, semi func(sql.Node) sql.Node) (sql.Node, bool) {
	if len(keys) != 1 {
		return n, false
	}
	var push func(n sql.Node, top bool) (sql.Node, bool)
	push = func(n sql.Node, top bool) (sql.Node, bool) {
		if !top {
			if t := sideTables(n); len(t) == 1 {
				for name := range t {
					if keys[name] {
						return semi(n), true
					}
				}
				return n, false
			}
		}
		children := append([]sql.Node(nil), n.Children()...)
		var tries []int // which children may take it, in order
		switch x := n.(type) {
		case *plan.JoinNode:
			if !InnerJoinOp(x.Op) {
				return n, false
			}
			tries = []int{0}
			if _, ok := x.Right().(*plan.HashLookup); ok {
				tries = append(tries, 1) // a hash join's build side
			}
		case *plan.Filter, *plan.Project, *plan.HashLookup:
			tries = []int{0}
		default:
			return n, false
		}
		for _, i := range tries {
			c, ok := push(children[i], false)
			if !ok {
				continue
			}
			children[i] = c
			out, err := n.WithChildren(children...)
			if err != nil {
				return n, false
			}
			return out, true
		}
		return n, false
	}
	return push(n, true)
}

// reorderable reports whether GMS's join-order builder accepts every node
// of n (its populateSubgraph's cases).
func reorderable(n sql.Node) bool {
	switch c := n.(type) {
	case *plan.Filter, *plan.Having, *plan.Limit, *plan.Project, *plan.Sort, *plan.Distinct, *plan.Max1Row, *plan.StripRowNode, *plan.CachedResults:
		return reorderable(n.Children()[0])
	case *plan.JoinNode:
		return reorderable(c.Left()) && reorderable(c.Right())
	case *plan.SetOp, sql.NameableNode:
		return true
	}
	return false
}

// sideTables are the lower-cased names of the tables and aliases under n.
func sideTables(n sql.Node) map[string]bool {
	out := map[string]bool{}
	transform.Inspect(n, func(c sql.Node) bool {
		switch c := c.(type) {
		case *plan.TableAlias, *plan.SubqueryAlias:
			// Columns name the alias, not the table under it.
			out[strings.ToLower(c.(sql.Nameable).Name())] = true
			return false
		case *plan.ResolvedTable:
			out[strings.ToLower(c.Name())] = true
		}
		return true
	})
	return out
}

// onlyTables reports whether e names columns, all of tables in set, and
// no subquery.
func onlyTables(e sql.Expression, set map[string]bool) bool {
	cols, ok := 0, true
	sql.Inspect(e, func(x sql.Expression) bool {
		switch x := x.(type) {
		case *expression.GetField:
			cols++
			ok = ok && set[strings.ToLower(x.Table())]
		case *plan.Subquery:
			ok = false
		}
		return ok
	})
	return ok && cols > 0
}

// Materialized is the grouped side of such a semi join, read whole and
// closed before its first row is returned. GMS's hash lookup stops
// reading its child at the first match (a semi join needs no more) and
// never closes it, which would leave the GROUP BY's memory cache
// registered in the query's context; GMS's own plans never put a GROUP
// BY there. It prints as its child.
type Materialized struct{ child sql.Node }

var _ sql.Node = (*Materialized)(nil)

func (m *Materialized) Resolved() bool       { return m.child.Resolved() }
func (m *Materialized) String() string       { return m.child.String() }
func (m *Materialized) Schema() sql.Schema   { return m.child.Schema() }
func (m *Materialized) Children() []sql.Node { return []sql.Node{m.child} }
func (m *Materialized) IsReadOnly() bool     { return m.child.IsReadOnly() }

// WithChildren implements sql.Node.
func (m *Materialized) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("sqlengine: materialized takes 1 child, got %d", len(children))
	}
	return &Materialized{child: children[0]}, nil
}

// BuildMaterialized reads m's child to the end, closes it, and returns its
// rows (execOverrides).
func BuildMaterialized(ctx *sql.Context, exec sql.NodeExecBuilder, m *Materialized, row sql.Row) (sql.RowIter, error) {
	it, err := exec.Build(ctx, m.child, row)
	if err != nil {
		return nil, err
	}
	var rows []sql.Row
	for {
		r, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			_ = it.Close(ctx)
			return nil, err
		}
		rows = append(rows, r)
	}
	if err := it.Close(ctx); err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

// InnerJoinOp reports whether op is an inner join (any physical form).
func InnerJoinOp(op plan.JoinType) bool {
	switch op {
	case plan.JoinTypeInner, plan.JoinTypeCross, plan.JoinTypeLookup, plan.JoinTypeHash,
		plan.JoinTypeMerge, plan.JoinTypeCrossHash, plan.JoinTypeRangeHeap:
		return true
	}
	return false
}
