package sqlengine

import (
	"reflect"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/procedures"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// A routine's variables in the expressions GMS's interpreter does not
// look into. GMS runs each statement of a procedure after replacing the
// names of its variables and parameters by their values, but only in
// some kinds of expression: in `IF v IS NULL`, `CASE WHEN v > 0 ...`,
// `v BETWEEN 1 AND 9` and `-v` the name stayed a column and the
// statement failed with 1054 (Unknown column 'v'): a common SELECT ...
// INTO v; IF v IS NULL THEN ... body could not run. Before a procedure
// runs, those expressions, where they read a variable, are written in
// the forms the interpreter does replace and that mean the same:
//   - v IS [NOT] NULL          -> [NOT] ISNULL(v)
//   - v IS [NOT] TRUE / FALSE  -> [NOT] IFNULL(v <> 0, FALSE) / IFNULL(v = 0, FALSE)
//   - CASE [x] WHEN a THEN r ... ELSE e END -> IF(x = a, r, IF(..., e))
//   - v [NOT] BETWEEN a AND b  -> v >= a AND v <= b (v < a OR v > b)
//   - -v                       -> 0 - v
// Expressions over table columns alone keep their form (an IS NULL on
// an indexed column stays a range).

// normalizeRoutine rewrites the expressions of p's statements that read
// one of its variables (p's parameters and DECLAREd names), and starts
// DECLAREd variables without a DEFAULT (or with DEFAULT NULL) at NULL.
func normalizeRoutine(p *plan.Procedure) {
	if p == nil || len(p.Ops) == 0 {
		return
	}
	p.Ops = nullDeclares(p.Ops)
	markCursors(p.Ops)
	vars := map[string]bool{}
	for _, prm := range p.Params {
		vars[strings.ToLower(prm.Name)] = true
	}
	for _, op := range p.Ops {
		if op.OpCode != procedures.OpCode_Declare {
			continue
		}
		if d, ok := op.PrimaryData.(*ast.Declare); ok && d.Variables != nil {
			for _, n := range d.Variables.Names {
				vars[n.Lowered()] = true
			}
		}
	}
	if len(vars) == 0 {
		return
	}
	n := routineNormalizer{vars: vars}
	for _, op := range p.Ops {
		if op.PrimaryData != nil {
			n.node(reflect.ValueOf(op.PrimaryData))
		}
	}
}

// nullDeclares follows each DECLARE of variables without a DEFAULT (or
// DEFAULT NULL) with a SET of each to NULL: GMS's interpreter started
// them at their type's zero value (an empty string or 0; "&{}" for DEFAULT NULL)
// where MySQL starts them at NULL, so `DECLARE v INT; ... IF v IS NULL`
// never saw NULL. The operations' jump targets after an inserted one
// move with it. Applied once: an inserted SET is recognised.
func nullDeclares(ops []*procedures.InterpreterOperation) []*procedures.InterpreterOperation {
	var out []*procedures.InterpreterOperation
	var at []int // positions in out of the inserted operations
	for i, op := range ops {
		out = append(out, op)
		d, ok := op.PrimaryData.(*ast.Declare)
		if op.OpCode != procedures.OpCode_Declare || !ok || d.Variables == nil {
			continue
		}
		if def := d.Variables.VarType.Default; def != nil {
			if _, isNull := def.(*ast.NullVal); !isNull {
				continue
			}
		}
		if i+1 < len(ops) && isNullSet(ops[i+1]) {
			continue // done already
		}
		d.Variables.VarType.Default = nil
		for _, n := range d.Variables.Names {
			at = append(at, len(out))
			out = append(out, &procedures.InterpreterOperation{
				OpCode:      procedures.OpCode_Set,
				PrimaryData: &ast.Select{SelectExprs: ast.SelectExprs{&ast.AliasedExpr{Expr: &ast.NullVal{}}}},
				Target:      n.Lowered(),
			})
		}
	}
	if len(at) == 0 {
		return ops
	}
	// An operation's Index is the position of the operation it jumps to
	// (or a negative mark); positions at or past an insertion move.
	shift := func(pos int) int {
		n := 0
		for _, a := range at {
			if a-n <= pos {
				n++
			}
		}
		return pos + n
	}
	for i, op := range out {
		if op.Index > 0 && !slices.Contains(at, i) {
			op.Index = shift(op.Index)
		}
	}
	return out
}

// cursorMark marks a cursor's SELECT, for the statement runner
// (callresults.go), which reads a cursor's rows whole when it opens.
// GMS kept the cursor's open iterator over its transaction, which a
// statement of the loop that commits (autocommit mode) ended: the next
// FETCH failed ("row iterator ... used after it was closed"). MySQL
// materialises a cursor's result at OPEN, and so does Petrel (in memory).
var cursorMark = []byte("/* petrel:cursor */")

// markCursors marks the SELECT of each DECLARE ... CURSOR among ops.
func markCursors(ops []*procedures.InterpreterOperation) {
	for _, op := range ops {
		if d, ok := op.PrimaryData.(*ast.Declare); ok && op.OpCode == procedures.OpCode_Declare && d.Cursor != nil {
			if sel := firstSelect(d.Cursor.SelectStmt); sel != nil && !isCursorSelect(sel) {
				sel.Comments = append(sel.Comments, cursorMark)
			}
		}
	}
}

// firstSelect is the leftmost SELECT of a query (a UNION's first).
func firstSelect(st ast.SelectStatement) *ast.Select {
	for {
		switch x := st.(type) {
		case *ast.Select:
			return x
		case *ast.SetOp:
			st = x.Left
		case *ast.ParenSelect:
			st = x.Select
		default:
			return nil
		}
	}
}

// isCursorSelect reports a statement markCursors marked.
func isCursorSelect(st ast.Statement) bool {
	ss, ok := st.(ast.SelectStatement)
	if !ok {
		return false
	}
	sel := firstSelect(ss)
	if sel == nil {
		return false
	}
	for _, c := range sel.Comments {
		if string(c) == string(cursorMark) {
			return true
		}
	}
	return false
}

// isNullSet reports an operation nullDeclares inserted.
func isNullSet(op *procedures.InterpreterOperation) bool {
	sel, ok := op.PrimaryData.(*ast.Select)
	if op.OpCode != procedures.OpCode_Set || !ok || len(sel.SelectExprs) != 1 {
		return false
	}
	ae, ok := sel.SelectExprs[0].(*ast.AliasedExpr)
	if !ok {
		return false
	}
	_, isNull := ae.Expr.(*ast.NullVal)
	return isNull
}

type routineNormalizer struct{ vars map[string]bool }

var exprType = reflect.TypeOf((*ast.Expr)(nil)).Elem()

// node rewrites the expressions below v (a pointer, struct, slice or
// interface of the AST) in place.
func (n routineNormalizer) node(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			n.node(v.Elem())
		}
	case reflect.Pointer:
		if !v.IsNil() {
			n.node(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if !f.CanSet() {
				continue
			}
			n.child(f)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			n.child(v.Index(i))
		}
	}
}

// child rewrites f itself when it holds an expression to rewrite, then
// what is below it.
func (n routineNormalizer) child(f reflect.Value) {
	if f.Kind() == reflect.Interface && f.Type().Implements(exprType) && !f.IsNil() && f.CanSet() {
		if e, ok := f.Interface().(ast.Expr); ok {
			if r := n.rewrite(e); r != nil && reflect.TypeOf(r).AssignableTo(f.Type()) {
				f.Set(reflect.ValueOf(r))
			}
		}
	}
	switch f.Kind() {
	case reflect.Interface, reflect.Pointer, reflect.Struct, reflect.Slice:
		n.node(f)
	}
}

// readsVar reports whether e reads one of the routine's variables.
func (n routineNormalizer) readsVar(e ast.SQLNode) bool {
	found := false
	_ = ast.Walk(func(node ast.SQLNode) (bool, error) {
		if c, ok := node.(*ast.ColName); ok && c.Qualifier.IsEmpty() && c.StoredProcVal == nil && n.vars[c.Name.Lowered()] {
			found = true
		}
		return !found, nil
	}, e)
	return found
}

// rewrite is e in a form the interpreter replaces variables in, or nil
// to keep e.
func (n routineNormalizer) rewrite(e ast.Expr) ast.Expr {
	fn := func(name string, args ...ast.Expr) ast.Expr {
		se := make(ast.SelectExprs, len(args))
		for i, a := range args {
			se[i] = &ast.AliasedExpr{Expr: a}
		}
		return &ast.FuncExpr{Name: ast.NewColIdent(name), Exprs: se}
	}
	cmp := func(l ast.Expr, op string, r ast.Expr) ast.Expr {
		return &ast.ComparisonExpr{Left: l, Operator: op, Right: r}
	}
	zero := ast.NewIntVal([]byte("0"))
	switch x := e.(type) {
	case *ast.IsExpr:
		if !n.readsVar(x.Expr) {
			return nil
		}
		switch x.Operator {
		case ast.IsNullStr:
			return fn("isnull", x.Expr)
		case ast.IsNotNullStr:
			return &ast.NotExpr{Expr: fn("isnull", x.Expr)}
		case ast.IsTrueStr:
			return fn("ifnull", cmp(x.Expr, ast.NotEqualStr, zero), ast.BoolVal(false))
		case ast.IsNotTrueStr:
			return &ast.NotExpr{Expr: fn("ifnull", cmp(x.Expr, ast.NotEqualStr, zero), ast.BoolVal(false))}
		case ast.IsFalseStr:
			return fn("ifnull", cmp(x.Expr, ast.EqualStr, zero), ast.BoolVal(false))
		case ast.IsNotFalseStr:
			return &ast.NotExpr{Expr: fn("ifnull", cmp(x.Expr, ast.EqualStr, zero), ast.BoolVal(false))}
		}
	case *ast.CaseExpr:
		if !n.readsVar(x) {
			return nil
		}
		var out ast.Expr = &ast.NullVal{}
		if x.Else != nil {
			out = x.Else
		}
		for i := len(x.Whens) - 1; i >= 0; i-- {
			cond := x.Whens[i].Cond
			if x.Expr != nil {
				cond = cmp(x.Expr, ast.EqualStr, cond)
			}
			out = fn("if", cond, x.Whens[i].Val, out)
		}
		return out
	case *ast.RangeCond:
		if !n.readsVar(x) {
			return nil
		}
		if x.Operator == ast.NotBetweenStr {
			return &ast.OrExpr{Left: cmp(x.Left, ast.LessThanStr, x.From), Right: cmp(x.Left, ast.GreaterThanStr, x.To)}
		}
		return &ast.AndExpr{Left: cmp(x.Left, ast.GreaterEqualStr, x.From), Right: cmp(x.Left, ast.LessEqualStr, x.To)}
	case *ast.UnaryExpr:
		if x.Operator == ast.UMinusStr && n.readsVar(x.Expr) {
			return &ast.BinaryExpr{Left: zero, Operator: ast.MinusStr, Right: x.Expr}
		}
	}
	return nil
}
