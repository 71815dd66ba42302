package arith

import (
	"strconv"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// A decimal literal compared with a column keeps its digits. GMS's plan
// builder converts `col op 0.065` to the column's type when the types
// are "congruent" (typeExpandComparisonLiteral), so against a
// DECIMAL(6,2) column 0.065 became 0.07 and `x = 0.055` matched 0.06:
// wrong rows, silently (MySQL compares decimals exactly). At parse time
// such a literal in a WHERE, HAVING or ON condition is written as
// CAST(0.065 AS DECIMAL(3,3)), which the plan builder leaves alone; the
// constant folding (constfold.go) makes it a literal of that type again
// and compares it with the column exactly.

func ProtectDecimalLiterals(stmt ast.Statement) {
	if stmt == nil {
		return
	}
	cond := func(x ast.Expr) {
		if x == nil {
			return
		}
		_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
			switch c := n.(type) {
			case *ast.Subquery:
				return false, nil // its own clauses are visited on their own
			case *ast.ComparisonExpr:
				_, lc := c.Left.(*ast.ColName)
				_, rc := c.Right.(*ast.ColName)
				if lc {
					c.Right = castDecimalLiteral(c.Right)
				}
				if rc {
					c.Left = castDecimalLiteral(c.Left)
				}
			}
			return true, nil
		}, x)
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *ast.Where:
			if x != nil {
				cond(x.Expr)
			}
		case *ast.JoinTableExpr:
			cond(x.Condition.On)
		case *ast.ConvertExpr:
			defaultDecimalPrecision(x)
		case *ast.GroupConcatExpr:
			groupConcatArgs(x) // groupconcat.go
		}
		return true, nil
	}, stmt)
}

// defaultDecimalPrecision writes CAST(x AS DECIMAL) as MySQL reads it,
// CAST(x AS DECIMAL(10)): GMS's plan builder gives a cast without a
// precision DECIMAL(65,30), the type of the conversions it adds itself
// (a UNION's columns, a recursive CTE's), which keep it. The cast then
// rounds to an integer and clips at 10 digits (deccast.go).
func defaultDecimalPrecision(c *ast.ConvertExpr) {
	if c.Type != nil && c.Type.Length == nil && strings.EqualFold(c.Type.Type, "decimal") {
		c.Type.Length = ast.NewIntVal([]byte("10"))
	}
}

// castDecimalLiteral wraps a plain decimal literal (1.5, not 1e5) in a
// CAST to its own DECIMAL type; anything else is returned as it is.
func castDecimalLiteral(x ast.Expr) ast.Expr {
	v, ok := x.(*ast.SQLVal)
	if !ok || v.Type != ast.FloatVal || strings.ContainsAny(string(v.Val), "eE") {
		return x
	}
	txt := strings.TrimLeft(string(v.Val), "+-")
	whole, frac, ok := strings.Cut(txt, ".")
	if !ok {
		return x
	}
	whole = strings.TrimLeft(whole, "0")
	s := len(frac)
	p := len(whole) + s
	if s == 0 || s > 30 || p > 65 {
		return x
	}
	p = max(p, 1)
	return &ast.ConvertExpr{Name: "CAST", Expr: v, Type: &ast.ConvertType{
		Type:   "decimal",
		Length: ast.NewIntVal([]byte(strconv.Itoa(p))),
		Scale:  ast.NewIntVal([]byte(strconv.Itoa(s))),
	}}
}
