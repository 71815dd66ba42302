package sqlengine

import (
	"reflect"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/sqlengine/arith"
)

// A set operation's columns typed from its sides as analysed. GMS types
// a UNION's columns, and puts its conversions under each side
// (mergeSetOpSchemas), when it builds the plan, where SUM and AVG are
// still DOUBLE; the arithmetic rules then make them MySQL's DECIMAL
// (arith/exactagg.go) inside each side. So `SELECT AVG(c) ... UNION ALL
// SELECT AVG(c) ...` was sent as DOUBLE (7.5 for MySQL's 7.5000), a side
// beside a literal kept the conversion to DOUBLE GMS chose then, and
// sides whose analysed types differed (`SUM(e) UNION ALL AVG(e)`, `AVG(c)
// UNION SELECT 1e0`) failed GMS's check that both sides match (1105).
// This rule runs after the sides are analysed (finalizeUnions) and
// before that check: each column where a side is a DECIMAL is typed as
// MySQL types it (arith.SetOpNumericType) and both sides' projections
// convert to that type.

const setOpTypesRuleID analyzer.RuleId = 1750

func setOpTypesRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		so, ok := n.(*plan.SetOp)
		if !ok {
			return n, transform.SameTree, nil
		}
		left, right := so.Left(), so.Right()
		ls, rs := left.Schema(), right.Schema()
		if len(ls) != len(rs) {
			return n, transform.SameTree, nil
		}
		want := make([]sql.Type, len(ls))
		changed := false
		for i := range ls {
			t, ok := arith.SetOpNumericType(setOpSideType(left, i), setOpSideType(right, i))
			if !ok {
				continue
			}
			// As GMS compares the sides' types (validateUnionSchemasMatch):
			// equal decimals differ in a hidden field, so t is the type
			// the conversion gives.
			t = setOpConvert(expression.NewLiteral(nil, t), t).Type()
			if reflect.DeepEqual(ls[i].Type, t) && reflect.DeepEqual(rs[i].Type, t) {
				continue
			}
			want[i], changed = t, true
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		l, lok := convertSetOpSide(left, want)
		r, rok := convertSetOpSide(right, want)
		if !lok || !rok {
			return n, transform.SameTree, nil
		}
		out, err := so.WithChildren(l, r)
		return out, transform.NewTree, err
	})
}

// setOpConverted is the column GMS's conversion projection over a set
// operation's side converts in its column i (an alias over a
// conversion of the side's column i, or the column itself, read by a
// field of no table: the projections of a side's own select read
// their tables' columns), and the column's type as the side was
// analysed. The field's index is the column's id until exec indexes
// are assigned, so the column is found by its position.
func setOpConverted(p *plan.Project, i int) (*expression.GetField, sql.Type, bool) {
	sch := p.Child.Schema()
	if len(p.Projections) != len(sch) || i >= len(sch) {
		return nil, nil, false
	}
	e := p.Projections[i]
	if a, ok := e.(*expression.Alias); ok {
		// The conversion, or rules' wrappers of it (setOpText, castChar).
		e = a.Child
		for depth := 0; depth < 4; depth++ {
			if _, ok := e.(*expression.GetField); ok {
				break
			}
			c := e.Children()
			if len(c) != 1 {
				return nil, nil, false
			}
			e = c[0]
		}
	}
	gf, ok := e.(*expression.GetField)
	if !ok || gf.TableId() != 0 {
		return nil, nil, false
	}
	return gf, sch[i].Type, true
}

// setOpSideType is the type of side's column i before GMS's conversion
// for the set operation.
func setOpSideType(side sql.Node, i int) sql.Type {
	if p, ok := side.(*plan.Project); ok && i < len(p.Projections) {
		if _, t, ok := setOpConverted(p, i); ok {
			return t
		}
	}
	return side.Schema()[i].Type
}

// convertSetOpSide gives the columns of side, a projection, the types
// want names (nil: as they are), in place: a column GMS converted for
// the set operation is converted from its analysed type instead; any
// other keeps its name and id over the conversion. ok is false when the
// side is neither a projection nor a set operation of projections.
func convertSetOpSide(side sql.Node, want []sql.Type) (sql.Node, bool) {
	if so, ok := side.(*plan.SetOp); ok {
		// A set operation of its own (`a UNION b UNION c` is (a UNION b)
		// UNION c): both of its sides.
		l, lok := convertSetOpSide(so.Left(), want)
		r, rok := convertSetOpSide(so.Right(), want)
		if !lok || !rok {
			return side, false
		}
		out, err := so.WithChildren(l, r)
		return out, err == nil
	}
	p, ok := side.(*plan.Project)
	if !ok {
		return side, false
	}
	sch := p.Schema()
	exprs := append([]sql.Expression(nil), p.Projections...)
	for i, t := range want {
		if t == nil || reflect.DeepEqual(sch[i].Type, t) {
			continue
		}
		inner, id := exprs[i], sql.ColumnId(0)
		if a, ok := inner.(*expression.Alias); ok {
			inner, id = a.Child, a.Id()
		} else if ide, ok := inner.(sql.IdExpression); ok {
			id = ide.Id()
		}
		if gf, ct, ok := setOpConverted(p, i); ok {
			inner = retypedField(gf, ct)
		}
		var a sql.Expression = expression.NewAlias(sch[i].Name, setOpConvert(inner, t))
		if id != 0 {
			a = a.(*expression.Alias).WithId(id).(sql.Expression)
		}
		exprs[i] = a
	}
	np, err := p.WithExpressions(exprs...)
	if err != nil {
		return side, false
	}
	return np, true
}

// retypedField is gf typed t, the type its column was analysed to.
func retypedField(gf *expression.GetField, t sql.Type) sql.Expression {
	if gf.Type().Equals(t) {
		return gf
	}
	return expression.NewGetFieldWithTable(gf.Index(), int(gf.TableId()), t, gf.Database(), gf.Table(), gf.Name(), gf.IsNullable()).WithId(gf.Id()).(sql.Expression)
}

// setOpConvert converts e to t, a DECIMAL or DOUBLE.
func setOpConvert(e sql.Expression, t sql.Type) sql.Expression {
	if d, ok := t.(sql.DecimalType); ok {
		ct, err := types.CreateColumnDecimalType(d.Precision(), d.Scale())
		if err != nil {
			return e
		}
		return &setOpDecimal{Convert: expression.NewConvertWithLengthAndScale(e, expression.ConvertToDecimal, int(d.Precision()), int(d.Scale())), typ: ct}
	}
	if types.IsFloat(t) {
		return expression.NewConvert(e, expression.ConvertToDouble)
	}
	return e
}

// setOpDecimal is a conversion to DECIMAL typed as asked: GMS's
// conversion types a DECIMAL of scale 0 as its internal DECIMAL(65,30),
// whose 30 places a union of integer sums printed (15.000...0).
type setOpDecimal struct {
	*expression.Convert
	typ sql.DecimalType
}

func (d *setOpDecimal) Type() sql.Type { return d.typ }

func (d *setOpDecimal) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	c, err := d.Convert.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	cv, ok := c.(*expression.Convert)
	if !ok {
		return c, nil
	}
	return &setOpDecimal{Convert: cv, typ: d.typ}, nil
}
