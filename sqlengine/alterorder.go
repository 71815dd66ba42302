package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"petrel/internal/mysqlerr"
)

// The clauses of one ALTER TABLE after a MODIFY or CHANGE that moves a
// column (FIRST, AFTER c) or renames it. GMS works out each clause's
// starting schema from the one before it but leaves a moved column where
// it was and a CHANGEd one under its old name, so the clause after rewrote
// the table from the old order and name: `ALTER TABLE t MODIFY a BIGINT
// AFTER c, ADD COLUMN d INT` undid the move on an empty table and failed
// with 1105 on a table with rows ("invalid value ... for int"), and
// `CHANGE a b INT, ADD COLUMN d INT` kept the name a. alterOrderRule gives each clause its
// starting schema in the order the clauses before it leave: GMS's
// columns, ordered by the names as each MODIFY, CHANGE, ADD, DROP and
// RENAME of the statement moves them.

const alterOrderRuleID analyzer.RuleId = 1063

func alterOrderRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if qFlags == nil || !qFlags.IsSet(sql.QFlagAlterTable) {
		return n, transform.SameTree, nil
	}
	var names []string         // the column order the clauses so far leave
	moved := false             // a clause so far moved a column
	was := map[string]string{} // a renamed column's earlier name, by its new one (lower case)
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		st, ok := n.(sql.SchemaTarget)
		if !ok {
			return n, transform.SameTree, nil
		}
		target := st.TargetSchema()
		if names == nil {
			for _, c := range target {
				names = append(names, c.Name)
			}
		}
		out, same := n, transform.SameTree
		if moved {
			if re, ok := inOrder(target, names, was); ok {
				nn, err := st.WithTargetSchema(re)
				if err != nil {
					return nil, transform.SameTree, err
				}
				out, same = nn, transform.NewTree
			}
		}
		switch x := n.(type) {
		case *plan.ModifyColumn:
			if !strings.EqualFold(x.Column(), x.NewColumn().Name) {
				// GMS's later schemas keep the earlier name too.
				was[strings.ToLower(x.NewColumn().Name)] = x.Column()
				moved = true
			}
			names = renamed(names, x.Column(), x.NewColumn().Name)
			if o := x.Order(); o != nil {
				names, moved = place(names, x.NewColumn().Name, o), true
			}
		case *plan.AddColumn:
			names = append(names, x.Column().Name)
			if o := x.Order(); o != nil {
				names = place(names, x.Column().Name, o)
			}
		case *plan.DropColumn:
			names = without(names, x.Column)
		case *plan.RenameColumn:
			names = renamed(names, x.ColumnName, x.NewColumnName)
		}
		return out, same, nil
	})
}

// inOrder is sch's columns in the order of names, when they are the
// same columns (GMS's schema may still call a column CHANGEd by this
// statement by its earlier name, was); ok false otherwise (GMS's schema
// stands).
func inOrder(sch sql.Schema, names []string, was map[string]string) (sql.Schema, bool) {
	if len(sch) != len(names) {
		return nil, false
	}
	out := make(sql.Schema, 0, len(sch))
	for _, nm := range names {
		i := sch.IndexOfColName(nm)
		for old, seen := was[strings.ToLower(nm)], 0; i < 0 && old != "" && seen < len(was); seen++ {
			i = sch.IndexOfColName(old)
			old = was[strings.ToLower(old)]
		}
		if i < 0 {
			return nil, false
		}
		c := sch[i]
		if !strings.EqualFold(c.Name, nm) {
			cc := *c // the column as CHANGE named it
			cc.Name = nm
			c = &cc
		}
		out = append(out, c)
	}
	return out, true
}

// renamed is names with old (any case) called new.
func renamed(names []string, old, new string) []string {
	out := append([]string(nil), names...)
	for i, nm := range out {
		if strings.EqualFold(nm, old) {
			out[i] = new
		}
	}
	return out
}

// without is names without name.
func without(names []string, name string) []string {
	var out []string
	for _, nm := range names {
		if !strings.EqualFold(nm, name) {
			out = append(out, nm)
		}
	}
	return out
}

// place moves name to where o puts it: first, or after o.AfterColumn.
func place(names []string, name string, o *sql.ColumnOrder) []string {
	rest := without(names, name)
	if o.First {
		return append([]string{name}, rest...)
	}
	for i, nm := range rest {
		if strings.EqualFold(nm, o.AfterColumn) {
			out := append(append(append([]string(nil), rest[:i+1]...), name), rest[i+1:]...)
			return out
		}
	}
	return names
}

// renameIndexRuleID is renameIndexRule's.
const renameIndexRuleID analyzer.RuleId = 1064

// renameIndexRule answers RENAME INDEX of an index the table does not
// have as MySQL does, 1176 naming the old name and the table, before
// GMS's check (1091 "can't drop" naming the new name).
func renameIndexRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if qFlags == nil || !qFlags.IsSet(sql.QFlagAlterTable) {
		return n, transform.SameTree, nil
	}
	var err error
	renamed := map[string]bool{} // indexes this statement renamed to, lower case
	transform.Inspect(n, func(n sql.Node) bool {
		ai, ok := n.(*plan.AlterIndex)
		if !ok || ai.Action != plan.IndexAction_Rename || err != nil {
			return err == nil
		}
		rt, ok := ai.Table.(*plan.ResolvedTable)
		if !ok {
			return true
		}
		it, ok := rt.UnderlyingTable().(sql.IndexAddressable)
		if !ok {
			return true
		}
		ixs, ierr := it.GetIndexes(ctx)
		if ierr != nil {
			return true
		}
		found := renamed[strings.ToLower(ai.PreviousIndexName)]
		for _, ix := range ixs {
			found = found || strings.EqualFold(ix.ID(), ai.PreviousIndexName)
		}
		if !found {
			err = mysqlerr.New(mysqlerr.ErKeyDoesNotExist, "Key '%s' doesn't exist in table '%s'", ai.PreviousIndexName, rt.Name())
		}
		renamed[strings.ToLower(ai.IndexName)] = true
		return true
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	return n, transform.SameTree, nil
}
