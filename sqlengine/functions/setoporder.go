package functions

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
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
//
// A set operation's ENUM or SET column is a string column, as MySQL's
// (its UNION result type of an ENUM is CHAR): GMS kept the first
// SELECT's ENUM, so `SELECT e FROM t UNION ALL SELECT e FROM t ORDER BY
// e DESC` ordered the members by index, and a derived table of a UNION
// of two ENUMs failed with 1105 "value b is not valid for this Enum"
// for the second one's members. setOpEnumText gives every branch whose
// column is an ENUM or SET a projection of its member text
// (VARCHAR of the longest member, in the column's collation) first.
// SetOpOrderRuleID names SetOpOrderRule.
const SetOpOrderRuleID analyzer.RuleId = 1803

// SetOpOrderRule puts setOpOrder's sort fields in every set operation.
func SetOpOrderRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		n, same1, err := setOpEnumText(n)
		if err != nil {
			return n, transform.SameTree, err
		}
		n, same2, err := setOpOrder(n)
		return n, same1 && same2, err
	})
}

// setOpEnumText makes a set operation's ENUM and SET columns text in
// each branch (bottom-up: a nested set operation is text already).
// GMS converts a branch's ENUM or SET column to CHAR itself when the
// branches' types differ, which read a SET as its bit mask ('2' for
// 'p'): such a conversion is replaced too.
func setOpEnumText(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	op, ok := n.(*plan.SetOp)
	if !ok {
		return n, transform.SameTree, nil
	}
	lt, rt := branchTypes(op.Left()), branchTypes(op.Right())
	if len(lt) != len(rt) {
		return n, transform.SameTree, nil // GMS's 1222 stands
	}
	var texts []sql.Type // per column: the text type, nil if not ENUM/SET
	for i := range lt {
		t := enumTextType(lt[i], rt[i])
		if t != nil && texts == nil {
			texts = make([]sql.Type, len(lt))
		}
		if t != nil {
			texts[i] = t
		}
	}
	if texts == nil {
		return n, transform.SameTree, nil
	}
	left, err := textBranch(op.Left(), texts)
	if err != nil {
		return n, transform.SameTree, err
	}
	right, err := textBranch(op.Right(), texts)
	if err != nil {
		return n, transform.SameTree, err
	}
	nn, err := op.WithChildren(left, right)
	if err != nil {
		return n, transform.SameTree, err
	}
	return nn, transform.NewTree, nil
}

// branchTypes are a set operation branch's column types, an ENUM or SET
// that GMS's conversion to CHAR hides (convertedEnum) as itself.
func branchTypes(branch sql.Node) []sql.Type {
	sch := branch.Schema()
	out := make([]sql.Type, len(sch))
	p, _ := branch.(*plan.Project)
	for i, c := range sch {
		out[i] = c.Type
		if p != nil && i < len(p.Projections) {
			if x := convertedEnum(p.Projections[i]); x != nil {
				out[i] = x.Type()
			}
		}
	}
	return out
}

// convertedEnum is the ENUM or SET expression under e when e is GMS's
// conversion of one to CHAR (under its alias and other one-child
// wrappers, such as the client's character set's); nil otherwise.
func convertedEnum(e sql.Expression) sql.Expression {
	for x := e; x != nil; {
		if c := enumConversion(x); c != nil {
			return c
		}
		ch := x.Children()
		if len(ch) != 1 {
			return nil
		}
		x = ch[0]
	}
	return nil
}

// enumConversion is x's ENUM or SET operand when x converts one to a
// string (GMS's Convert, Petrel's retyped one); nil otherwise.
func enumConversion(x sql.Expression) sql.Expression {
	ch := x.Children()
	if len(ch) != 1 || !enumOrSet(ch[0].Type()) || !types.IsText(x.Type()) {
		return nil
	}
	if _, ok := x.(*enumText); ok {
		return nil
	}
	return ch[0]
}

// enumTextType is the string type a set operation's column of branch
// types a and b takes when either is an ENUM or SET: a VARCHAR as long
// as the longest member (a SET's all its members joined), in the
// collation of the ENUM or SET; nil when neither is one.
func enumTextType(a, b sql.Type) sql.Type {
	width := int64(0)
	coll := sql.CollationID(0)
	for _, t := range []sql.Type{a, b} {
		switch et := t.(type) {
		case sql.EnumType:
			for _, v := range et.Values() {
				width = max(width, int64(len([]rune(v))))
			}
			if coll == 0 {
				coll = et.Collation()
			}
		case sql.SetType:
			all := 0
			for _, v := range et.Values() {
				all += len([]rune(v)) + 1
			}
			width = max(width, int64(all))
			if coll == 0 {
				coll = et.Collation()
			}
		default:
			if st, ok := t.(sql.StringType); ok {
				width = max(width, st.MaxCharacterLength())
			} else if t != nil {
				width = max(width, 64) // a number's or time's text
			}
		}
	}
	if coll == 0 {
		return nil
	}
	if width > 16383 { // past a utf8mb4 VARCHAR: the other side is a TEXT
		return types.CreateLongText(coll)
	}
	st, err := types.CreateString(sqltypes.VarChar, max(width, 1), coll)
	if err != nil {
		return types.CreateLongText(coll)
	}
	return st
}

// textBranch gives branch's ENUM and SET columns (those texts names)
// as their member text: in place of GMS's conversion of one to CHAR in
// its top projection, or in a projection put over it.
func textBranch(branch sql.Node, texts []sql.Type) (sql.Node, error) {
	if p, ok := branch.(*plan.Project); ok {
		out := append([]sql.Expression(nil), p.Projections...)
		changed := false
		for i, e := range out {
			if i < len(texts) && texts[i] != nil {
				if convertedEnum(e) != nil {
					typ := texts[i]
					ne, _, err := transform.Expr(e, func(x sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
						if c := enumConversion(x); c != nil {
							return &enumText{child: c, typ: typ}, transform.NewTree, nil
						}
						return x, transform.SameTree, nil
					})
					if err != nil {
						return nil, err
					}
					out[i] = ne
					changed = true
				}
			}
		}
		if changed {
			np, err := p.WithExpressions(out...)
			if err != nil {
				return nil, err
			}
			branch = np
		}
	}
	sch := branch.Schema()
	var out []sql.Expression
	changed := false
	for i, c := range sch {
		gf := expression.NewGetFieldWithTable(i, 0, c.Type, c.DatabaseSource, c.Source, c.Name, c.Nullable)
		if i < len(texts) && texts[i] != nil && enumOrSet(c.Type) {
			out = append(out, expression.NewAlias(c.Name, &enumText{child: gf, typ: texts[i]}))
			changed = true
			continue
		}
		out = append(out, gf)
	}
	if !changed {
		return branch, nil
	}
	return plan.NewProject(out, branch), nil
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
