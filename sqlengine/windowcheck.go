package sqlengine

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/functions"
)

// Window functions where MySQL allows none, refused as MySQL refuses
// them when it resolves a query: in WHERE, GROUP BY, HAVING, UPDATE's
// SET, DELETE's WHERE, an argument of an aggregate or of another window
// function (3593, ER_WINDOW_INVALID_WINDOW_FUNC_USE), and in a window's
// PARTITION BY or ORDER BY (3595); and DISTINCT in a window function's
// call (1235).
// GMS answered `MIN(SUM(i) OVER (ORDER BY i))` with its
// ONLY_FULL_GROUP_BY error, its text unformatted (1140, "expression
// #%!d(MISSING)"), and a window in WHERE with 1105. MariaDB has its own
// numbers (4074 for a window in an aggregate, 4015 elsewhere).

// Window errors of MySQL 8.
const (
	erWindowNoSuch     = 3579 // ER_WINDOW_NO_SUCH_WINDOW
	erWindowCircular   = 3580 // ER_WINDOW_CIRCULARITY_IN_WINDOW_GRAPH
	erWindowChildPart  = 3581 // ER_WINDOW_NO_CHILD_PARTITIONING
	erWindowInhFrame   = 3582 // ER_WINDOW_NO_INHERIT_FRAME
	erWindowRedefOrder = 3583 // ER_WINDOW_NO_REDEFINE_ORDER_BY
	erWindowFrameStart = 3584 // ER_WINDOW_FRAME_START_ILLEGAL
	erWindowFrameEnd   = 3585 // ER_WINDOW_FRAME_END_ILLEGAL
	erWindowFrame      = 3586 // ER_WINDOW_FRAME_ILLEGAL
	erWindowDupName    = 3591 // ER_WINDOW_DUPLICATE_NAME
	erWindowInvalidUse = 3593 // ER_WINDOW_INVALID_WINDOW_FUNC_USE
	erWindowNestedSpec = 3595 // ER_WINDOW_NESTED_WINDOW_FUNC_USE_IN_WINDOW_SPEC
)

// windowFrameError is MySQL's error for a frame vitess's grammar refuses
// (its own message, 1105): a frame starting UNBOUNDED FOLLOWING (3584),
// ending UNBOUNDED PRECEDING (3585), or ending before it starts (3586:
// ROWS BETWEEN 1 FOLLOWING AND 0 PRECEDING, mtr's win_std; MariaDB
// answers such frames, empty). err otherwise. The window's name is not
// known here; MySQL names an OVER's own window <unnamed window>.
func windowFrameError(err error) error {
	const w = "<unnamed window>"
	switch msg := err.Error(); {
	case strings.Contains(msg, "frame start cannot be UNBOUNDED FOLLOWING"):
		return mysqlerr.New(erWindowFrameStart, "Window '%s': frame start cannot be UNBOUNDED FOLLOWING.", w)
	case strings.Contains(msg, "frame end cannot be UNBOUNDED PRECEDING"):
		return mysqlerr.New(erWindowFrameEnd, "Window '%s': frame end cannot be UNBOUNDED PRECEDING.", w)
	case strings.Contains(msg, "frame starting from current row cannot have preceding rows"),
		strings.Contains(msg, "frame starting from following row cannot have preceding rows"),
		strings.Contains(msg, "frame starting from following row cannot end with current row"):
		return mysqlerr.New(erWindowFrame, "Window '%s': frame start or end is negative, NULL or of non-integral type", w)
	}
	return err
}

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
	nodes := []ast.SQLNode{st}
	if d, ok := st.(*ast.DDL); ok && d.OptSelect != nil {
		// Walk does not enter CREATE TABLE ... AS SELECT's select.
		nodes = append(nodes, d.OptSelect.Select)
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if found != nil {
			return false, nil
		}
		switch x := n.(type) {
		case *ast.Select:
			found = selectWindowUse(x)
		case *ast.Update:
			// GMS: 1105 "in a context where it cannot be evaluated".
			if w := firstWindowCall(x.Exprs, whereExpr(x.Where)); w != nil {
				found = windowUseError(w)
			}
		case *ast.Delete:
			// GMS: 1105 "unable to find field with index".
			if w := firstWindowCall(whereExpr(x.Where)); w != nil {
				found = windowUseError(w)
			}
		case *ast.FuncExpr:
			found = callWindowUse(x)
		case *ast.GroupConcatExpr:
			if w := firstWindowCall(x.Exprs); w != nil {
				found = windowUseError(w)
			}
		}
		return found == nil, nil
	}, nodes...)
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
	if f.Over != nil && f.Distinct {
		// GMS counted every row for COUNT(DISTINCT v) OVER (...).
		return mysqlerr.New(mysqlerr.ErNotSupportedYet, "This version of MySQL doesn't yet support '<window function>(DISTINCT ..)'")
	}
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

func whereExpr(w *ast.Where) ast.SQLNode {
	if w == nil {
		return nil
	}
	return w.Expr
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

// windowDefsError is (st, err), or when err is nil and st has one (no
// statement, as for vitess's errors) MySQL's error for the
// first window definition of st it refuses: a WINDOW clause naming a
// window twice (3591), a window naming one no WINDOW clause defines
// (3579) or, through others, itself (3580), one that names another and
// has its own PARTITION BY (3581), names one with a frame (3582) or both
// have ORDER BY (3583). GMS took an undefined name for an empty window
// (SUM(a) OVER w summed the partition), ignored the second of two
// definitions, a named window's frame and an OVER's PARTITION BY, and
// answered the rest with 1105. It reads st before the parser rewrite
// inlines named windows into the calls naming them.
func windowDefsError(st ast.Statement, err error) (ast.Statement, error) {
	if err != nil || st == nil {
		return st, err
	}
	nodes := []ast.SQLNode{st}
	if d, ok := st.(*ast.DDL); ok && d.OptSelect != nil {
		nodes = append(nodes, d.OptSelect.Select)
	}
	var found error
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if sel, ok := n.(*ast.Select); ok && found == nil {
			found = selectWindowDefsError(sel)
		}
		return found == nil, nil
	}, nodes...)
	if found != nil {
		return nil, found
	}
	return st, nil
}

func selectWindowDefsError(sel *ast.Select) error {
	defs := map[string]*ast.WindowDef{}
	for _, w := range sel.Window {
		name := w.Name.Lowered()
		if defs[name] != nil {
			return mysqlerr.New(erWindowDupName, "Window '%s' is defined twice.", w.Name.String())
		}
		defs[name] = w
	}
	for _, w := range sel.Window {
		if err := windowDefError(w, w.Name.String(), defs, false); err != nil {
			return err
		}
	}
	var found error
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *ast.Subquery:
			return false, nil // its own SELECT, its own WINDOW clause
		case *ast.FuncExpr:
			if x.Over != nil && found == nil {
				o := (*ast.WindowDef)(x.Over)
				simple := len(o.PartitionBy) == 0 && len(o.OrderBy) == 0 && o.Frame == nil
				found = windowDefError(o, "<unnamed window>", defs, simple)
			}
		}
		return found == nil, nil
	}, sel.SelectExprs, sel.OrderBy)
	return found
}

// windowDefError checks w (named name) against the windows it names;
// simple: w is OVER name alone, that window itself.
func windowDefError(w *ast.WindowDef, name string, defs map[string]*ast.WindowDef, simple bool) error {
	if w.NameRef.IsEmpty() {
		return nil
	}
	ref := defs[w.NameRef.Lowered()]
	if ref == nil {
		return mysqlerr.New(erWindowNoSuch, "Window name '%s' is not defined.", w.NameRef.String())
	}
	if simple {
		return nil
	}
	if len(w.PartitionBy) > 0 {
		return mysqlerr.New(erWindowChildPart, "A window which depends on another cannot define partitioning.")
	}
	seen := map[*ast.WindowDef]bool{w: true}
	orderer := ""
	if len(w.OrderBy) > 0 {
		orderer = name
	}
	for a := ref; a != nil; {
		if seen[a] {
			return mysqlerr.New(erWindowCircular, "There is a circularity in the window dependency graph.")
		}
		seen[a] = true
		if a.Frame != nil && a == ref {
			return mysqlerr.New(erWindowInhFrame, "Window '%s' has a frame definition, so cannot be referenced by another window.", a.Name.String())
		}
		if len(a.OrderBy) > 0 {
			if orderer != "" {
				return mysqlerr.New(erWindowRedefOrder, "Window '%s' cannot inherit '%s' since both contain an ORDER BY clause.", orderer, a.Name.String())
			}
			orderer = a.Name.String()
		}
		if a.NameRef.IsEmpty() {
			break
		}
		next := defs[a.NameRef.Lowered()]
		if next == nil {
			return mysqlerr.New(erWindowNoSuch, "Window name '%s' is not defined.", a.NameRef.String())
		}
		a = next
	}
	return nil
}
