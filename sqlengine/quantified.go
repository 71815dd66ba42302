package sqlengine

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/sqlengine/sqlmode"
)

// Quantified comparisons: `x op ALL (S)`, `x op ANY (S)`, `x op SOME
// (S)`. sqlmode's text step (quantified.go there) hands them to vitess
// as `x op petrel_q_ALL ((S))`; here each becomes what GMS plans:
//   - `= ANY` is `IN`, `<> ALL` is `NOT IN` (GMS's, NULLs included);
//   - any other is a comparison of a scalar subquery over S with 1:
//     `(SELECT CASE ... END FROM (S) AS petrel_q) = 1`, whose CASE gives
//     SQL's three-valued answer from COUNT(*), COUNT(c), MIN(c) and
//     MAX(c) of S's column c. x ANY: true if some row's comparison is
//     true (x > ANY: x > MIN(c); x < ANY: x < MAX(c)), false if S is empty
//     or every comparison is false, NULL otherwise (x NULL, or a NULL in
//     S and no true). x ALL is the negation of the opposite ANY (x > ALL
//     S is NOT x <= ANY S).
//
// x appears in the CASE up to three times: a non-deterministic x (RAND())
// is evaluated more than once, where MySQL evaluates it once.

// quantNames are the rewritten call names.
var quantNames = map[string]string{
	strings.ToLower(sqlmode.QuantPrefix) + "all":  "ALL",
	strings.ToLower(sqlmode.QuantPrefix) + "any":  "ANY",
	strings.ToLower(sqlmode.QuantPrefix) + "some": "ANY",
}

// oppositeOps are the complements of the comparison operators.
var oppositeOps = map[string]string{"=": "!=", "!=": "=", "<>": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}

// rewriteQuantified rewrites st's quantified comparisons in place.
func rewriteQuantified(st ast.Statement) {
	if st == nil {
		return
	}
	nodes := []ast.SQLNode{st}
	if d, ok := st.(*ast.DDL); ok && d.OptSelect != nil {
		nodes = append(nodes, d.OptSelect.Select)
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if c, ok := n.(*ast.ComparisonExpr); ok {
			quantifiedComparison(c)
		}
		return true, nil
	}, nodes...)
}

// quantifiedComparison rewrites c if its right side is a rewritten
// quantified subquery.
func quantifiedComparison(c *ast.ComparisonExpr) {
	f, ok := c.Right.(*ast.FuncExpr)
	if !ok || len(f.Exprs) != 1 {
		return
	}
	quant, ok := quantNames[f.Name.Lowered()]
	if !ok {
		return
	}
	ae, ok := f.Exprs[0].(*ast.AliasedExpr)
	if !ok {
		return
	}
	sub, ok := ae.Expr.(*ast.Subquery)
	if !ok {
		return
	}
	op := c.Operator
	if op == "<>" {
		op = "!="
	}
	if _, ok := oppositeOps[op]; !ok {
		return
	}
	switch {
	case quant == "ANY" && op == "=":
		c.Operator, c.Right = ast.InStr, sub
		return
	case quant == "ALL" && op == "!=":
		c.Operator, c.Right = ast.NotInStr, sub
		return
	}
	x := c.Left
	negate := quant == "ALL"
	if negate {
		op = oppositeOps[op]
	}
	col := &ast.ColName{Name: ast.NewColIdent("petrel_c"), Qualifier: ast.TableName{Name: ast.NewTableIdent("petrel_q")}}
	agg := func(name string, arg ast.SelectExpr) *ast.FuncExpr {
		return &ast.FuncExpr{Name: ast.NewColIdent(name), Exprs: ast.SelectExprs{arg}}
	}
	count := agg("COUNT", &ast.StarExpr{})
	countCol := agg("COUNT", &ast.AliasedExpr{Expr: col})
	minCol, maxCol := agg("MIN", &ast.AliasedExpr{Expr: col}), agg("MAX", &ast.AliasedExpr{Expr: col})
	// someTrue: the comparison holds for some row of S.
	var someTrue ast.Expr
	switch op {
	case ">", ">=":
		someTrue = &ast.ComparisonExpr{Operator: op, Left: x, Right: minCol}
	case "<", "<=":
		someTrue = &ast.ComparisonExpr{Operator: op, Left: x, Right: maxCol}
	case "=": // unreached: = ANY is IN, and != ALL, whose opposite it is, NOT IN
		someTrue = &ast.AndExpr{
			Left:  &ast.ComparisonExpr{Operator: ">=", Left: x, Right: minCol},
			Right: &ast.ComparisonExpr{Operator: "<=", Left: x, Right: maxCol},
		}
	case "!=":
		someTrue = &ast.OrExpr{
			Left:  &ast.ComparisonExpr{Operator: "!=", Left: x, Right: minCol},
			Right: &ast.ComparisonExpr{Operator: "!=", Left: x, Right: maxCol},
		}
	}
	yes, no := ast.NewIntVal([]byte("1")), ast.NewIntVal([]byte("0"))
	if negate {
		yes, no = no, yes
	}
	unknown := &ast.OrExpr{
		Left:  &ast.IsExpr{Operator: ast.IsNullStr, Expr: x},
		Right: &ast.ComparisonExpr{Operator: "<", Left: countCol, Right: count},
	}
	kase := &ast.CaseExpr{
		Whens: []*ast.When{
			{Cond: &ast.ComparisonExpr{Operator: "=", Left: count, Right: ast.NewIntVal([]byte("0"))}, Val: no},
			{Cond: someTrue, Val: yes},
			{Cond: unknown, Val: &ast.NullVal{}},
		},
		Else: no,
	}
	inner := sub.Select
	nameFirstColumn(inner)
	outer := &ast.Select{
		SelectExprs: ast.SelectExprs{&ast.AliasedExpr{Expr: kase}},
		From: ast.TableExprs{&ast.AliasedTableExpr{
			Expr: &ast.Subquery{Select: inner},
			As:   ast.NewTableIdent("petrel_q"),
			// A derived table: S's own tables carry their privilege checks.
			Auth: ast.AuthInformation{AuthType: ast.AuthType_IGNORE},
		}},
	}
	c.Operator, c.Left, c.Right = "=", &ast.Subquery{Select: outer}, ast.NewIntVal([]byte("1"))
}

// nameFirstColumn names the first column of s petrel_c (for a set
// operation, its first SELECT's, which names the result's columns).
func nameFirstColumn(s ast.SelectStatement) {
	switch s := s.(type) {
	case *ast.Select:
		if len(s.SelectExprs) > 0 {
			if ae, ok := s.SelectExprs[0].(*ast.AliasedExpr); ok {
				ae.As = ast.NewColIdent("petrel_c")
			}
		}
	case *ast.SetOp:
		nameFirstColumn(s.Left)
	case *ast.ParenSelect:
		nameFirstColumn(s.Select)
	}
}
