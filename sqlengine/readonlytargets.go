package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// read_only refuses a statement that would write a table that is not
// temporary before it runs, as MySQL does ("if a statement, after
// parse stage, looks like it will update a non-temp table, it will be
// rejected, even if at execution it would have turned out that 0 rows
// would be updated"): an UPDATE or DELETE matching no row, an INSERT
// ... SELECT of no row, is 1290 too. Petrel refused each row as it was
// written (writeTxn), so those ran. A multiple-table UPDATE or DELETE is
// refused only for the tables it writes (MySQL's read_only test: a
// temporary table updated from a joined base table is allowed).

// refuseReadOnlyTargets is checkWritable's error when n, an INSERT,
// UPDATE or DELETE, writes a table that is not temporary.
func (e *Engine) refuseReadOnlyTargets(ctx *sql.Context, n sql.Node) error {
	if !e.readOnly.Load() && !e.superReadOnly.Load() {
		return nil
	}
	for _, t := range writeTargets(n) {
		if tb, ok := sql.GetUnderlyingTable(t).(*Table); ok && tb.temp == nil {
			return e.checkWritable(ctx)
		}
	}
	return nil
}

// writeTargets are the tables n writes, as far as they are known before
// it runs.
func writeTargets(n sql.Node) []sql.Table {
	var out []sql.Table
	switch n := n.(type) {
	case *plan.InsertInto:
		if t, err := plan.GetInsertable(n.Destination); err == nil {
			out = append(out, t)
		}
	case *plan.Update:
		var join *plan.UpdateJoin
		transform.Inspect(n.Child, func(c sql.Node) bool {
			if j, ok := c.(*plan.UpdateJoin); ok {
				join = j
			}
			return join == nil
		})
		if join == nil {
			if t, err := plan.GetUpdatable(n.Child); err == nil {
				out = append(out, t)
			}
			break
		}
		for _, u := range join.Updaters {
			if ed, ok := u.(*editor); ok {
				out = append(out, ed.t)
			}
		}
	case *plan.DeleteFrom:
		if !n.HasExplicitTargets() {
			if t, err := plan.GetDeletable(n.Child); err == nil {
				out = append(out, t)
			}
			break
		}
		for _, target := range n.GetDeleteTargets() {
			if t, err := plan.GetDeletable(target); err == nil {
				out = append(out, t)
			}
		}
	}
	return out
}
