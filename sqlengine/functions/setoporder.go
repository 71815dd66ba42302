package functions

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// The ORDER BY of a UNION, INTERSECT or EXCEPT orders the set
// operation's columns. GMS's sort fields are expressions of the first
// SELECT, and two of them ordered the wrong values:
//   - a column that is a constant there (SELECT 'k' UNION SELECT s ...
//     ORDER BY 1, or ORDER BY its alias) was that constant, so nothing
//     was sorted;
//   - an ENUM column set beside another type is a string column, but
//     the sort field kept the ENUM and ordered the strings by its index
//     (SELECT e ... UNION SELECT 'zz' ORDER BY 1 gave zz, b, a).
//
// setOpOrder reads such a sort field as the set operation's column, by
// its place, with the column's own type.
// SetOpOrderRuleID names SetOpOrderRule.
const SetOpOrderRuleID analyzer.RuleId = 1803

// SetOpOrderRule puts setOpOrder's sort fields in every set operation.
func SetOpOrderRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, setOpOrder)
}

func setOpOrder(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	op, ok := n.(*plan.SetOp)
	if !ok || len(op.SortFields) == 0 {
		return n, transform.SameTree, nil
	}
	sch := op.Schema()
	column := func(i int) sql.Expression {
		c := sch[i]
		return expression.NewGetFieldWithTable(i, 0, c.Type, c.DatabaseSource, c.Source, c.Name, c.Nullable)
	}
	var sf sql.SortFields
	set := func(i int, e sql.Expression) {
		if sf == nil {
			sf = append(sql.SortFields(nil), op.SortFields...)
		}
		sf[i].Column = e
	}
	for i, f := range op.SortFields {
		if gf, ok := f.Column.(*expression.GetField); ok {
			if enumOrSet(gf.Type()) && gf.Index() >= 0 && gf.Index() < len(sch) && !enumOrSet(sch[gf.Index()].Type) {
				set(i, column(gf.Index()))
			}
			continue
		}
		if !constantExpr(f.Column) {
			continue
		}
		if at := firstSelectColumn(op.Left(), f.Column); at >= 0 && at < len(sch) {
			set(i, column(at))
		}
	}
	if sf == nil {
		return n, transform.SameTree, nil
	}
	c := *op
	c.SortFields = sf
	return &c, transform.NewTree, nil
}

// constantExpr: e reads no column (a literal, or built of literals).
func constantExpr(e sql.Expression) bool {
	constant := true
	transform.InspectExpr(e, func(x sql.Expression) bool {
		switch x.(type) {
		case *expression.GetField, *plan.Subquery:
			constant = false
			return true
		}
		return false
	})
	return constant
}

// firstSelectColumn is the place of e among the columns of a set
// operation's first SELECT (its projections, through the conversions
// GMS puts over them), -1 when e is not one of them.
func firstSelectColumn(left sql.Node, e sql.Expression) int {
	want := e.String()
	for n, depth := left, 0; n != nil && depth < 4; depth++ {
		if p, ok := n.(*plan.Project); ok {
			for i, pe := range p.Projections {
				for x := pe; x != nil; {
					if x.String() == want {
						return i
					}
					switch y := x.(type) {
					case *expression.Alias:
						x = y.Child
					case *expression.Convert:
						x = y.Child
					default:
						x = nil
					}
				}
			}
		}
		ch := n.Children()
		if len(ch) != 1 {
			break
		}
		n = ch[0]
	}
	return -1
}
