package arith

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// A quotient written to a column is stored from its longer value, as
// MySQL stores it: the value of `/` over exact operands has the
// operands' digits plus div_precision_increment rounded up to whole
// 9-digit words (divinc.go), and only the client's text shows it at the
// quotient's own scale. So `INSERT INTO t (d) VALUES (1/3)` stores
// 0.333333333 in a DOUBLE and 0.3333333330 in a DECIMAL(20,10), and
// `UPDATE t SET rate = total / n` into a DECIMAL(10,6) keeps 6 places;
// GMS rounds a statement's outermost division to its scale first, so
// Petrel stored 0.3333 and 0.3333000000. The column's own type then
// rounds the value (with MySQL's note 1265 where places are lost). A
// string column takes the quotient's text at its scale, as before.
// Applied to the values an INSERT (its VALUES rows, or the select list
// of INSERT ... SELECT) and ON DUPLICATE KEY UPDATE write, and to an
// UPDATE's SET values, where the quotient is the whole value.

// StoredQuotientsRuleID names the rule.
const StoredQuotientsRuleID analyzer.RuleId = 1751

// StoredQuotients is the rule.
func StoredQuotients(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch x := n.(type) {
		case *plan.InsertInto:
			out := x
			if src, ok := storedSource(ctx, x.Source, insertTargets(x)); ok {
				out = out.WithSource(src)
			}
			if exprs, ok := storedSetFields(ctx, out.OnDupExprs); ok {
				nii := *out
				nii.OnDupExprs = exprs
				out = &nii
			}
			if out == x {
				return n, transform.SameTree, nil
			}
			return out, transform.NewTree, nil
		case *plan.UpdateSource:
			exprs, ok := storedSetFields(ctx, x.UpdateExprs)
			if !ok {
				return n, transform.SameTree, nil
			}
			out, err := x.WithExpressions(exprs...)
			return out, transform.NewTree, err
		}
		return n, transform.SameTree, nil
	})
}

// storedSource is an INSERT's source with its quotients kept: the rows
// of VALUES, or the select list of INSERT ... SELECT.
func storedSource(ctx *sql.Context, src sql.Node, dest []sql.Type) (sql.Node, bool) {
	if p, ok := src.(*plan.Project); ok && insertMapping(p) {
		// GMS's projection of the source's columns onto the table's.
		c, ok := storedSource(ctx, p.Child, mappedTargets(p, dest))
		if !ok {
			return src, false
		}
		out, err := p.WithChildren(c)
		return out, err == nil
	}
	switch s := src.(type) {
	case *plan.Values:
		var rows [][]sql.Expression
		for i, row := range s.ExpressionTuples {
			for j, e := range row {
				if !numericTarget(dest, j) {
					continue
				}
				ne, ok := storedQuotient(ctx, e)
				if !ok {
					continue
				}
				if rows == nil {
					rows = make([][]sql.Expression, len(s.ExpressionTuples))
					copy(rows, s.ExpressionTuples)
				}
				if &rows[i][0] == &s.ExpressionTuples[i][0] {
					rows[i] = append([]sql.Expression(nil), row...)
				}
				rows[i][j] = ne
			}
		}
		if rows == nil {
			return src, false
		}
		nv := *s
		nv.ExpressionTuples = rows
		return &nv, true
	case *plan.Project:
		var exprs []sql.Expression
		for i, e := range s.Projections {
			if !numericTarget(dest, i) {
				continue
			}
			ne, ok := storedQuotient(ctx, e)
			if !ok {
				continue
			}
			if exprs == nil {
				exprs = append([]sql.Expression(nil), s.Projections...)
			}
			exprs[i] = ne
		}
		if exprs == nil {
			return src, false
		}
		out, err := s.WithExpressions(exprs...)
		return out, err == nil
	}
	return src, false
}

// storedSetFields is exprs, assignments, with the quotients they assign
// kept.
func storedSetFields(ctx *sql.Context, exprs []sql.Expression) ([]sql.Expression, bool) {
	var out []sql.Expression
	for i, e := range exprs {
		sf, ok := e.(*expression.SetField)
		if !ok || !types.IsNumber(sf.LeftChild.Type()) {
			continue
		}
		right, ok := storedQuotient(ctx, sf.RightChild)
		if !ok {
			continue
		}
		ne, err := sf.WithChildren(sf.LeftChild, right)
		if err != nil {
			continue
		}
		if out == nil {
			out = append([]sql.Expression(nil), exprs...)
		}
		out[i] = ne
	}
	return out, out != nil
}

// storedQuotient is e, a value written whole to a column, computing its
// longer value when it is a quotient of exact operands.
func storedQuotient(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	if a, ok := e.(*expression.Alias); ok {
		c, ok := storedQuotient(ctx, a.Child)
		if !ok {
			return e, false
		}
		na := expression.NewAlias(a.Name(), c)
		if a.Id() != 0 {
			return na.WithId(a.Id()).(sql.Expression), true
		}
		return na, true
	}
	switch d := e.(type) {
	case divStrict:
		// A strict write's division (mysqlops.go): the quotient inside.
		inner, ok := storedQuotient(ctx, d.Expression)
		if !ok {
			return e, false
		}
		return divStrict{Expression: inner, divisor: d.divisor}, true
	case *intQuot:
		// An integer quotient's fast form (intquot.go).
		return &divInc{left: d.div.LeftChild, right: d.div.RightChild, inc: DivIncrement(ctx), typ: d.typ, keep: true}, true
	case *divInc:
		if d.keep {
			return e, false
		}
		k := *d
		k.keep = true
		return &k, true
	case *expression.Div:
		if !types.IsDecimal(d.Type()) {
			return e, false
		}
		l, r := d.LeftChild, d.RightChild
		_, ls, lok := ExactDigits(l.Type())
		_, rs, rok := ExactDigits(r.Type())
		if !lok || !rok {
			return e, false
		}
		return &divInc{left: l, right: r, inc: DivIncrement(ctx), lscale: ls, rscale: rs, typ: d.Type(), keep: true}, true
	}
	return e, false
}

// numericTarget reports whether the source's column i is written to a
// numeric column. A string column takes the quotient's text at its own
// scale (MySQL's val_str of a DECIMAL result rounds to its decimals).
func numericTarget(dest []sql.Type, i int) bool {
	return i < len(dest) && dest[i] != nil && types.IsNumber(dest[i])
}

// insertTargets is the type of the column each of ii's source columns
// is written to.
func insertTargets(ii *plan.InsertInto) []sql.Type {
	sch := ii.Destination.Schema()
	n := len(ii.Source.Schema())
	out := make([]sql.Type, n)
	if len(ii.ColumnNames) == n {
		for i, name := range ii.ColumnNames {
			if j := sch.IndexOfColName(name); j >= 0 {
				out[i] = sch[j].Type
			}
		}
		return out
	}
	if len(sch) == n {
		for i, c := range sch {
			out[i] = c.Type
		}
	}
	return out
}

// mappedTargets is dest, the targets of p's columns, as the targets of
// the columns of p's child that p places.
func mappedTargets(p *plan.Project, dest []sql.Type) []sql.Type {
	out := make([]sql.Type, len(p.Child.Schema()))
	for i, e := range p.Projections {
		for {
			switch x := e.(type) {
			case *expression.Alias:
				e = x.Child
				continue
			case *expression.AutoIncrement:
				e = x.Child
				continue
			}
			break
		}
		if gf, ok := e.(*expression.GetField); ok && i < len(dest) && gf.Index() >= 0 && gf.Index() < len(out) {
			out[gf.Index()] = dest[i]
		}
	}
	return out
}

// insertMapping reports whether p only places its child's columns in
// the table's order: columns as they are, an AUTO_INCREMENT column's
// value, defaults and literals.
func insertMapping(p *plan.Project) bool {
	for _, e := range p.Projections {
		if !mappedValue(e) {
			return false
		}
	}
	return true
}

func mappedValue(e sql.Expression) bool {
	switch x := e.(type) {
	case *expression.GetField, *sql.ColumnDefaultValue, *expression.Literal:
		return true
	case *expression.Alias:
		return mappedValue(x.Child)
	case *expression.AutoIncrement:
		return mappedValue(x.Child)
	}
	return false
}
