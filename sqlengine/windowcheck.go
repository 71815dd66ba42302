package sqlengine

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/functions"
)

// Window functions where MySQL allows none, refused as MySQL refuses
// them when it resolves a query: in WHERE, GROUP BY, HAVING, an argument
// of an aggregate or of another window function (3593,
// ER_WINDOW_INVALID_WINDOW_FUNC_USE), and in a window's PARTITION BY or
// ORDER BY (3595). GMS answered `MIN(SUM(i) OVER (ORDER BY i))` with its
// ONLY_FULL_GROUP_BY error, its text unformatted (1140, "expression
// #%!d(MISSING)"), and a window in WHERE with 1105. MariaDB has its own
// numbers (4074 for a window in an aggregate, 4015 elsewhere).

// Window errors of MySQL 8.
const (
	erWindowInvalidUse = 3593 // ER_WINDOW_INVALID_WINDOW_FUNC_USE
	erWindowNestedSpec = 3595 // ER_WINDOW_NESTED_WINDOW_FUNC_USE_IN_WINDOW_SPEC
)

// groupFuncs are the aggregates a window function may not be an
// argument of.
var groupFuncs = map[string]bool{
	"avg": true, "bit_and": true, "bit_or": true, "bit_xor": true, "count": true,
	"json_arrayagg": true, "json_objectagg": true, "max": true, "min": true,
	"std": true, "stddev": true, "stddev_pop": true, "stddev_samp": true, "sum": true,
	"var_pop": true, "var_samp": true, "variance": true, "any_value": true,
}

// checkWindowUse is MySQL's error for the first window function of st
// where none may be.
func checkWindowUse(st ast.Statement) error {
	var found error
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if found != nil {
			return false, nil
		}
		switch x := n.(type) {
		case *ast.Select:
			found = selectWindowUse(x)
		case *ast.FuncExpr:
			found = callWindowUse(x)
		case *ast.GroupConcatExpr:
			if w := firstWindowCall(x.Exprs); w != nil {
				found = windowUseError(w)
			}
		}
		return found == nil, nil
	}, st)
	return found
}

// selectWindowUse: a window function in sel's WHERE, GROUP BY or HAVING,
// or in its WINDOW clause's definitions.
func selectWindowUse(sel *ast.Select) error {
	var clauses []ast.SQLNode
	if sel.Where != nil {
		clauses = append(clauses, sel.Where.Expr)
	}
	for _, e := range sel.GroupBy {
		clauses = append(clauses, e)
	}
	if sel.Having != nil {
		clauses = append(clauses, sel.Having.Expr)
	}
	if w := firstWindowCall(clauses...); w != nil {
		return windowUseError(w)
	}
	for _, d := range sel.Window {
		if w := firstWindowCall(d.PartitionBy, d.OrderBy); w != nil {
			return mysqlerr.New(erWindowNestedSpec, "You cannot nest a window function in the specification of window '%s'.", d.Name.String())
		}
	}
	return nil
}

// callWindowUse: a window function in f's arguments when f is an
// aggregate or a window function, or in f's window.
func callWindowUse(f *ast.FuncExpr) error {
	if f.Over != nil {
		if w := firstWindowCall(f.Over.PartitionBy, f.Over.OrderBy); w != nil {
			return mysqlerr.New(erWindowNestedSpec, "You cannot nest a window function in the specification of window '%s'.", "<unnamed window>")
		}
	} else if !groupFuncs[f.Name.Lowered()] {
		return nil
	}
	if w := firstWindowCall(f.Exprs); w != nil {
		return windowUseError(w)
	}
	return nil
}

func windowUseError(w *ast.FuncExpr) error {
	return mysqlerr.New(erWindowInvalidUse, "You cannot use the window function '%s' in this context.'", windowCallName(w))
}

// firstWindowCall is the first call with OVER in nodes, subqueries
// left out (their select lists may have them).
func firstWindowCall(nodes ...ast.SQLNode) *ast.FuncExpr {
	var w *ast.FuncExpr
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *ast.Subquery:
			return false, nil
		case *ast.FuncExpr:
			if x.Over != nil {
				w = x
			}
		}
		return w == nil, nil
	}, nodes...)
	return w
}

// windowCallName is w's name as the query wrote it: the parser rewrite
// (rewrite/windowcalls.go) writes NTH_VALUE and the like as ROW_NUMBER
// calls naming them.
func windowCallName(w *ast.FuncExpr) string {
	name := w.Name.Lowered()
	if name == "row_number" && len(w.Exprs) > 0 {
		if a, ok := w.Exprs[0].(*ast.AliasedExpr); ok {
			if v, ok := a.Expr.(*ast.SQLVal); ok && strings.HasPrefix(string(v.Val), functions.WindowCallPrefix) {
				return strings.TrimPrefix(string(v.Val), functions.WindowCallPrefix)
			}
		}
	}
	return name
}
