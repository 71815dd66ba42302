package arith

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// CREATE TABLE ... AS SELECT over a UNION (INTERSECT, EXCEPT): a text
// column takes MySQL's type, VARCHAR of the most characters any branch
// gives, in the collation the branches aggregate to. GMS converts a
// column whose branches differ in type to its LONGTEXT of collation
// utf8mb4_0900_bin, so `CREATE TABLE u AS SELECT name FROM t UNION
// SELECT 'total'` made a LONGTEXT column compared case-sensitively
// (MySQL: VARCHAR(n) of name's collation), and an index on it failed
// with 1170. As for single selects (varcharCreateSelect), a column past
// 512 characters stays a TEXT type.

// setOpCreateSelect retypes tc's text columns where its select is a set
// operation.
func setOpCreateSelect(ctx *sql.Context, tc *plan.TableCopier) {
	ct, ok := tc.Destination.(*plan.CreateTable)
	if !ok || ctx == nil {
		return
	}
	branches := setOpBranches(tc.Source, 0)
	if len(branches) < 2 {
		return
	}
	cols := ct.PkSchema().Schema
	for _, b := range branches {
		if len(b) != len(cols) {
			return
		}
	}
	sel := tc.Source.Schema()
	for i, c := range cols {
		if i < len(sel) && types.IsText(c.Type) && (types.IsDecimal(sel[i].Type) || types.IsFloat(sel[i].Type)) {
			// A number the set operation's analysed sides agree on
			// (setoptypes.go), where GMS had converted them to text
			// (AVG, a DOUBLE when it built the plan, beside an integer).
			c.Type = sel[i].Type
			continue
		}
		st, ok := c.Type.(sql.StringType)
		if !ok || (st.Type() != sqltypes.Text && st.Type() != sqltypes.Blob) || st.Collation() == sql.Collation_binary {
			continue
		}
		coll, coer := sql.Collation_Unspecified, byte(7)
		n := 0
		for _, b := range branches {
			e := b[i]
			if a, ok := e.(*expression.Alias); ok {
				e = a.Child
			}
			bn, ok := charLength(e)
			if !ok {
				n = -1
				break
			}
			n = max(n, bn)
			if types.IsText(e.Type()) {
				bc, bco := sql.GetCoercibility(ctx, e)
				coll, coer = sql.ResolveCoercibility(coll, coer, bc, bco)
			}
		}
		if coll == sql.Collation_binary || coll == sql.Collation_Unspecified {
			coll = ctx.GetCollation()
		}
		typ := sqltypes.Text
		length := st.MaxCharacterLength()
		if n >= 0 && n <= 512 {
			typ, length = sqltypes.VarChar, int64(n)
		}
		if t, err := types.CreateString(typ, length, coll); err == nil {
			c.Type = t
		}
	}
}

// setOpBranches is the select lists of n's branches when n is a set
// operation (under a sort or limit), nil otherwise; GMS's conversion
// projection over a branch is looked through to the branch's own list.
func setOpBranches(n sql.Node, depth int) [][]sql.Expression {
	if depth > 64 {
		return nil
	}
	for {
		switch x := n.(type) {
		case *plan.Limit, *plan.Sort, *plan.TopN, *plan.Distinct, *plan.Offset:
			n = x.Children()[0]
			continue
		case *plan.Project:
			// The set operation's columns as they are (over its ORDER BY).
			if _, ok := x.Child.(*plan.SetOp); ok && passThrough(x) {
				n = x.Child
				continue
			}
		}
		break
	}
	so, ok := n.(*plan.SetOp)
	if !ok {
		return nil
	}
	var out [][]sql.Expression
	for _, side := range []sql.Node{so.Left(), so.Right()} {
		if b := setOpBranches(side, depth+1); b != nil {
			out = append(out, b...)
			continue
		}
		outs := selectOutputs(side)
		if p, ok := side.(*plan.Project); ok && conversionProjection(p) {
			if b := setOpBranches(p.Child, depth+1); b != nil {
				out = append(out, b...)
				continue
			}
			outs = selectOutputs(p.Child)
		}
		if outs == nil {
			return nil
		}
		out = append(out, outs)
	}
	return out
}

// conversionProjection reports whether p is GMS's projection converting
// a set operation's branch (mergeSetOpSchemas): each column read by a
// field of no table, converted or not, in the child's order.
func conversionProjection(p *plan.Project) bool {
	if len(p.Projections) != len(p.Child.Schema()) {
		return false
	}
	for _, e := range p.Projections {
		if a, ok := e.(*expression.Alias); ok {
			e = a.Child
			for depth := 0; depth < 4; depth++ {
				if _, ok := e.(*expression.GetField); ok {
					break
				}
				c := e.Children()
				if len(c) != 1 {
					return false
				}
				e = c[0]
			}
		}
		gf, ok := e.(*expression.GetField)
		if !ok || gf.TableId() != 0 {
			return false
		}
	}
	return true
}

// passThrough reports whether p gives its child's columns in order,
// unchanged.
func passThrough(p *plan.Project) bool {
	if len(p.Projections) != len(p.Child.Schema()) {
		return false
	}
	for _, e := range p.Projections {
		if a, ok := e.(*expression.Alias); ok {
			e = a.Child
		}
		if _, ok := e.(*expression.GetField); !ok {
			return false
		}
	}
	return true
}
