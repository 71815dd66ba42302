package arith

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// nullableCreateSelect lets CREATE TABLE ... AS SELECT's new columns
// hold the NULL that MAX, MIN, SUM and the other aggregates answer over
// no rows. GMS types those aggregates NOT NULL whenever their argument
// is, so `CREATE TABLE c AS SELECT MAX(d) FROM t` over an empty t made
// a NOT NULL column and failed on its own row with 1048. MySQL makes a
// column of any such aggregate (or of an expression over one) nullable;
// COUNT and BIT_AND/BIT_OR/BIT_XOR never answer NULL and keep NOT NULL.
func nullableCreateSelect(tc *plan.TableCopier) {
	ct, ok := tc.Destination.(*plan.CreateTable)
	if !ok {
		return
	}
	outs := selectOutputs(tc.Source)
	cols := ct.PkSchema().Schema
	if outs == nil || len(outs) != len(cols) {
		return
	}
	ids := map[sql.ColumnId]bool{}
	transform.InspectExpressions(tc.Source, func(x sql.Expression) bool {
		if a, ok := x.(*expression.Alias); ok && nullableAggregate(a.Child) {
			ids[a.Id()] = true
		}
		if ie, ok := x.(sql.IdExpression); ok && nullableAggregate(x) {
			ids[ie.Id()] = true
		}
		return true
	})
	grouped := projectedGroupBy(tc.Source)
	outer := outerSideTables(tc.Source)
	implicit := implicitlyGrouped(tc.Source)
	for i, c := range cols {
		if c.Nullable || c.PrimaryKey {
			continue
		}
		sql.Inspect(outs[i], func(x sql.Expression) bool {
			switch y := x.(type) {
			case *expression.GetField:
				if ids[y.Id()] || groupedNullable(grouped, y) || outer[y.TableId()] || (implicit && !ids[y.Id()] && y.TableId() != 0) {
					c.Nullable = true
				}
			default:
				if nullableAggregate(x) {
					c.Nullable = true
				}
				if _, agg := x.(sql.Aggregation); agg {
					return false // its columns are read inside it
				}
			}
			return !c.Nullable
		})
	}
}

// projectedGroupBy is the GROUP BY whose rows n's top projection reads
// (through nodes that pass rows unchanged), or nil.
func projectedGroupBy(n sql.Node) *plan.GroupBy {
	p, ok := n.(*plan.Project)
	if !ok {
		return nil
	}
	for n = p.Child; n != nil; {
		switch x := n.(type) {
		case *plan.GroupBy:
			return x
		case *plan.Having, *plan.Sort, *plan.Limit, *plan.TopN, *plan.Distinct, *plan.OrderedDistinct:
			n = x.Children()[0]
		default:
			return nil
		}
	}
	return nil
}

// groupedNullable: f reads a column of g (by its position in g's rows)
// that an aggregate answering NULL over no rows gives. Found by position
// since a wrapper rebuilt over GMS's aggregate (GROUP_CONCAT's) has
// neither its id nor its name.
func groupedNullable(g *plan.GroupBy, f *expression.GetField) bool {
	if g == nil || f.TableId() != 0 || f.Index() < 0 || f.Index() >= len(g.SelectedExprs) {
		return false
	}
	e := g.SelectedExprs[f.Index()]
	if a, ok := e.(*expression.Alias); ok {
		e = a.Child
	}
	return nullableAggregate(e)
}

// outerSideTables is the tables (and derived tables) on the side of an
// outer join below n that may have no row: a LEFT join's right, a RIGHT
// join's left, both sides of a FULL join.
func outerSideTables(n sql.Node) map[sql.TableId]bool {
	out := map[sql.TableId]bool{}
	add := func(side sql.Node) {
		transform.Inspect(side, func(m sql.Node) bool {
			if t, ok := m.(plan.TableIdNode); ok {
				out[t.Id()] = true
			}
			return true
		})
	}
	transform.Inspect(n, func(m sql.Node) bool {
		j, ok := m.(*plan.JoinNode)
		if !ok {
			return true
		}
		switch {
		case j.Op.IsLeftOuter():
			add(j.Right())
		case j.Op.IsRightOuter():
			add(j.Left())
		case j.Op.IsFullOuter():
			add(j.Left())
			add(j.Right())
		}
		return true
	})
	return out
}

// implicitlyGrouped: n's select aggregates without GROUP BY.
func implicitlyGrouped(n sql.Node) bool {
	for n != nil {
		if g, ok := n.(*plan.GroupBy); ok {
			return len(g.GroupByExprs) == 0
		}
		ch := n.Children()
		if len(ch) != 1 {
			return false
		}
		switch n.(type) {
		case *plan.Project, *plan.Limit, *plan.Sort, *plan.Distinct, *plan.OrderedDistinct, *plan.Having, *plan.TopN:
			n = ch[0]
		default:
			return false
		}
	}
	return false
}

// selectOutputs is the expressions a select's rows are made of, found
// below the nodes that pass rows through unchanged; nil when the
// statement's top is something else (a UNION).
func selectOutputs(n sql.Node) []sql.Expression {
	for n != nil {
		switch x := n.(type) {
		case *plan.Project:
			return x.Projections
		case *plan.GroupBy:
			return x.SelectedExprs
		case *plan.Window:
			return x.SelectExprs
		}
		ch := n.Children()
		if len(ch) != 1 {
			return nil
		}
		switch n.(type) {
		case *plan.Limit, *plan.Sort, *plan.Distinct, *plan.OrderedDistinct, *plan.Having, *plan.Filter, *plan.TopN, *plan.SubqueryAlias:
			n = ch[0]
		default:
			return nil
		}
	}
	return nil
}

// nullableAggregate reports whether e is an aggregate that answers NULL
// over no rows (GMS types them NOT NULL when their argument is): every
// aggregate but COUNT and the bit operations, GROUP_CONCAT and
// JSON_ARRAYAGG included, in GMS's forms and Petrel's wrappers.
func nullableAggregate(e sql.Expression) bool {
	if x, ok := e.(*exactAgg); ok {
		e = x.Aggregation
	}
	switch e.(type) {
	case *aggregation.Count, *aggregation.CountDistinct, *aggregation.BitAnd, *aggregation.BitOr, *aggregation.BitXor:
		return false
	}
	_, ok := e.(sql.Aggregation)
	return ok
}
