package sqlengine

import (
	"slices"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/procedures"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// normalizeRoutine prepares p's operations for Petrel's interpreter
// (routinerun.go): DECLAREd variables without a DEFAULT (or with DEFAULT
// NULL) start at NULL, cursors' SELECTs are marked, and multiple-table
// UPDATEs and DELETEs are rewritten as when parsed (keylessjoin.go,
// deletejoin.go). Its variables are
// read wherever a column name may stand (routinebind.go), so `IF v IS
// NULL`, CASE, BETWEEN and -v need no rewriting (GMS's interpreter read
// them in some kinds of expression only: 1054 elsewhere).
func normalizeRoutine(ctx *sql.Context, n *plan.Call) {
	p := n.Procedure
	if p == nil || len(p.Ops) == 0 {
		return
	}
	p.Ops = nullDeclares(p.Ops)
	markCursors(p.Ops)
	db := ctx.GetCurrentDatabase()
	if d := n.Database(); d != nil && d.Name() != "" {
		db = d.Name() // where the body's names are read (callInItsDatabase)
	}
	for _, op := range p.Ops {
		whereForJoinUpdates(ctx, db, op.PrimaryData) // keylessjoin.go
		semiJoinDeletes(ctx, db, op.PrimaryData)     // deletejoin.go
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
