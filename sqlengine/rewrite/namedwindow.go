package rewrite

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Named windows, inlined at parse time. GMS v0.20.0 frames a window
// function before it merges the WINDOW clause's definition into the OVER
// that names it, so `SUM(v) OVER w ... WINDOW w AS (PARTITION BY g ORDER
// BY id)` summed the whole partition (the frame of a window without ORDER
// BY) where MySQL sums up to the current row (RANGE UNBOUNDED PRECEDING,
// the default with ORDER BY): wrong results, silently. Here each OVER
// naming a window gets the definition written into it, as MySQL reads it
// (a named window's PARTITION BY, ORDER BY unless the OVER adds its own,
// frame unless the OVER gives one; chains of windows naming windows
// resolved), and GMS plans it as if the query had been written so. A name
// no WINDOW clause defines is left for GMS's error.

// SelectClauses applies it, constGroupBy (groupconst.go) and
// groupedWindows (windowgroup.go) to every SELECT of stmt, and windowCall (windowcalls.go) to every call with
// OVER, in one walk.
func SelectClauses(stmt ast.Statement) {
	if stmt == nil {
		return
	}
	createSelectNames(stmt) // windowcalls.go
	nodes := []ast.SQLNode{stmt}
	if d, ok := stmt.(*ast.DDL); ok && d.OptSelect != nil {
		// Walk does not enter CREATE TABLE ... AS SELECT's select.
		nodes = append(nodes, d.OptSelect.Select)
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if f, ok := n.(*ast.FuncExpr); ok && f.Over != nil {
			windowCall(f)
		}
		if sel, ok := n.(*ast.Select); ok {
			if len(sel.Window) > 0 {
				inlineSelectWindows(sel)
			}
			groupedWindows(sel) // windowgroup.go
			if len(sel.GroupBy) > 0 {
				constGroupBy(sel)
			}
		}
		return true, nil
	}, nodes...)
}

func inlineSelectWindows(sel *ast.Select) {
	defs := map[string]*ast.WindowDef{}
	for _, w := range sel.Window {
		defs[strings.ToLower(w.Name.String())] = w
	}
	var resolve func(w *ast.WindowDef, depth int) (ast.WindowDef, bool)
	resolve = func(w *ast.WindowDef, depth int) (ast.WindowDef, bool) {
		out := *w
		if w.NameRef.IsEmpty() {
			return out, true
		}
		base, ok := defs[strings.ToLower(w.NameRef.String())]
		if !ok || depth > len(defs) {
			return out, false
		}
		b, ok := resolve(base, depth+1)
		if !ok {
			return out, false
		}
		out.PartitionBy = b.PartitionBy
		if len(out.OrderBy) == 0 {
			out.OrderBy = b.OrderBy
		}
		if out.Frame == nil {
			out.Frame = b.Frame
		}
		out.NameRef = ast.ColIdent{}
		return out, true
	}
	visit := func(n ast.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *ast.Subquery:
			return false, nil // its own SELECT, its own WINDOW clause
		case *ast.FuncExpr:
			o := x.Over
			if o == nil || o.NameRef.IsEmpty() || len(o.PartitionBy) > 0 {
				return true, nil
			}
			def, ok := defs[strings.ToLower(o.NameRef.String())]
			if !ok {
				return true, nil
			}
			r, ok := resolve(def, 0)
			if !ok || (len(o.OrderBy) > 0 && len(r.OrderBy) > 0) || (o.Frame != nil && r.Frame != nil) {
				return true, nil // MySQL refuses these (3583, 3584): GMS's error
			}
			o.PartitionBy = r.PartitionBy
			if len(o.OrderBy) == 0 {
				o.OrderBy = r.OrderBy
			}
			if o.Frame == nil {
				o.Frame = r.Frame
			}
			o.NameRef = ast.ColIdent{}
		}
		return true, nil
	}
	_ = ast.Walk(visit, sel.SelectExprs, sel.OrderBy, sel.Having)
}
