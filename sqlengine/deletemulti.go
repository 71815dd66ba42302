package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// A multiple-table DELETE (`DELETE t1, t2 FROM t1, t2 WHERE ...`)
// deletes the rows its join finds in the tables as they were when it
// started, as MySQL does. GMS deleted each joined row as the join
// produced it, so the join's later reads no longer saw rows already
// deleted: `DELETE t1, t2 FROM t1, t2` over t1 (10), (1) and t2 (10),
// (2) left t2's (2), its partners in t1 being gone when its turn came
// (mtr's read_only_innodb). The join is read to the end first
// (readJoinFirst), then its rows deleted.

// buildMultiDelete builds n over its join's rows read first, when n
// deletes from the tables of a join; ok=false leaves n to GMS.
func (e *Engine) buildMultiDelete(ctx *sql.Context, n *plan.DeleteFrom, row sql.Row) (sql.RowIter, bool, error) {
	if !n.HasExplicitTargets() {
		return nil, false, nil
	}
	if _, done := n.Child.(*readJoinFirst); done {
		return nil, false, nil
	}
	d := plan.NewDeleteFrom(&readJoinFirst{child: n.Child}, n.GetDeleteTargets())
	d.RefsSingleRel, d.IsProcNested = n.RefsSingleRel, n.IsProcNested
	it, err := e.exec.Build(ctx, d, row)
	return it, true, err
}

// readJoinFirst is a DELETE's join, whose rows are all read before the
// first is returned.
type readJoinFirst struct{ child sql.Node }

var _ sql.Node = (*readJoinFirst)(nil)

func (r *readJoinFirst) Resolved() bool       { return r.child.Resolved() }
func (r *readJoinFirst) String() string       { return r.child.String() }
func (r *readJoinFirst) Schema() sql.Schema   { return r.child.Schema() }
func (r *readJoinFirst) Children() []sql.Node { return []sql.Node{r.child} }
func (r *readJoinFirst) IsReadOnly() bool     { return true }
func (r *readJoinFirst) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(r, len(children), 1)
	}
	return &readJoinFirst{child: children[0]}, nil
}

// buildReadJoinFirst reads r's child to the end.
func (e *Engine) buildReadJoinFirst(ctx *sql.Context, r *readJoinFirst, row sql.Row) (sql.RowIter, error) {
	it, err := e.exec.Build(ctx, r.child, row)
	if err != nil {
		return nil, err
	}
	rows, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}
