package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// groupsInOrder reports whether a GROUP BY's input comes grouped, so that
// iters.GroupBy answers each group as the next begins: the input is a
// full scan of a Petrel table (one partition, in primary-key order),
// under filters only, and the grouping columns are the primary key's
// first k columns, in any order, none of them text (a collation can make
// keys that differ in the index equal as groups). TPC-H Q18's subquery
// (lineitem grouped by l_orderkey, its key's first column) held 1.5
// million groups in a hash table.
func groupsInOrder(n *plan.GroupBy) bool {
	child := n.Child
	for {
		switch c := child.(type) {
		case *plan.Filter:
			child = c.Child
			continue
		case *plan.TableAlias:
			child = c.Child
			continue
		}
		break
	}
	tb, ok := resolvedPetrelTable(child)
	if !ok || tb.t == nil || len(tb.t.Def.PK) == 0 {
		return false
	}
	schema := tb.t.Schema
	cols := map[int]bool{}
	for _, e := range n.GroupByExprs {
		gf, ok := e.(*expression.GetField)
		if !ok {
			return false
		}
		t := gf.Type()
		if !(types.IsInteger(t) || types.IsDecimal(t) || types.IsTime(t)) {
			return false
		}
		ord := -1
		for i, c := range schema {
			if strings.EqualFold(c.Name, gf.Name()) {
				ord = i
				break
			}
		}
		if ord < 0 || !sameType(schema[ord].Type, t) {
			return false
		}
		cols[ord] = true
	}
	pk := tb.t.Def.PK
	if len(cols) == 0 || len(cols) > len(pk) {
		return false
	}
	for _, o := range pk[:len(cols)] {
		if !cols[o] {
			return false
		}
	}
	return true
}

// sameType reports whether a column read as t is the schema's column.
func sameType(col, t sql.Type) bool { return col.Equals(t) }

// resolvedPetrelTable is n's Petrel table when n is a ResolvedTable of
// one (under GMS's wrappers: ProcessTable's progress notifications).
func resolvedPetrelTable(n sql.Node) (*Table, bool) {
	rt, ok := n.(*plan.ResolvedTable)
	if !ok {
		return nil, false
	}
	st := rt.Table
	for {
		w, ok := st.(sql.TableWrapper)
		if !ok {
			break
		}
		st = w.Underlying()
	}
	tb, ok := st.(*Table)
	return tb, ok
}
