package sqlengine

import (
	"bytes"
	"fmt"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"petrel/sqlengine/collate"
)

// UNION, INTERSECT and EXCEPT that keep distinct rows tell strings apart
// by their collation, as MySQL does: `SELECT 'a' UNION SELECT 'A'` is one
// row under utf8mb4_0900_ai_ci. GMS's set operations hash the values'
// bytes (its DISTINCT, and its INTERSECT's and EXCEPT's matching), so
// they kept 'a' and 'A' apart, and INTERSECT and EXCEPT missed rows their
// collation finds equal. Here such a set operation (DISTINCT, with a
// column that needs collation keys) is built as its ALL form under a
// DISTINCT (UNION: collate.NewDistinct, through buildCollDistinct) or as
// a collSetOp (INTERSECT, EXCEPT), with its ORDER BY, OFFSET and LIMIT
// over the result. The ALL forms of INTERSECT and EXCEPT stay GMS's.

// buildCollSetOp builds n as above; false when GMS's build serves.
func (e *Engine) buildCollSetOp(ctx *sql.Context, n *plan.SetOp, row sql.Row) (sql.RowIter, bool, error) {
	if !n.Distinct || !collate.NeedsDistinctKeys(n.Schema()) {
		return nil, false, nil
	}
	inner := *n
	inner.Distinct, inner.SortFields, inner.Limit, inner.Offset = false, nil, nil, nil
	var top sql.Node
	switch n.SetOpType {
	case plan.UnionType:
		top = plan.NewDistinct(&inner)
	case plan.IntersectType, plan.ExceptType:
		top = &collSetOp{op: &inner}
	default:
		return nil, false, nil
	}
	if len(n.SortFields) > 0 {
		top = plan.NewSort(n.SortFields, top)
	}
	if n.Offset != nil {
		top = plan.NewOffset(n.Offset, top)
	}
	if n.Limit != nil {
		top = plan.NewLimit(n.Limit, top)
	}
	it, err := e.exec.Build(ctx, top, row)
	return it, true, err
}

// collSetOp is INTERSECT or EXCEPT DISTINCT of op's two sides, rows
// matched and told apart by their collation keys (collate.WriteRowKey).
// Built only by buildCollSetOp, under the exec override.
type collSetOp struct{ op *plan.SetOp }

var _ sql.Node = (*collSetOp)(nil)

func (c *collSetOp) Resolved() bool       { return c.op.Resolved() }
func (c *collSetOp) String() string       { return c.op.String() }
func (c *collSetOp) Schema() sql.Schema   { return c.op.Schema() }
func (c *collSetOp) Children() []sql.Node { return []sql.Node{c.op} }
func (c *collSetOp) IsReadOnly() bool     { return c.op.IsReadOnly() }

func (c *collSetOp) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 1)
	}
	op, ok := children[0].(*plan.SetOp)
	if !ok {
		return nil, fmt.Errorf("collSetOp: child %T, want a set operation", children[0])
	}
	return &collSetOp{op: op}, nil
}

// buildCollSetOpIter reads the right side's keys, then passes the left
// side's rows whose key is (INTERSECT) or is not (EXCEPT) among them,
// each key once.
func (e *Engine) buildCollSetOpIter(ctx *sql.Context, c *collSetOp, row sql.Row) (sql.RowIter, error) {
	sch := c.op.Schema()
	right, err := e.exec.Build(ctx, c.op.Right(), row)
	if err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	var buf bytes.Buffer
	for {
		r, err := right.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			right.Close(ctx)
			return nil, err
		}
		buf.Reset()
		if err := collate.WriteRowKey(&buf, sch, r); err != nil {
			right.Close(ctx)
			return nil, err
		}
		keys[buf.String()] = true
	}
	if err := right.Close(ctx); err != nil {
		return nil, err
	}
	left, err := e.exec.Build(ctx, c.op.Left(), row)
	if err != nil {
		return nil, err
	}
	return &collSetOpIter{left: left, sch: sch, right: keys, intersect: c.op.SetOpType == plan.IntersectType, seen: map[string]bool{}}, nil
}

type collSetOpIter struct {
	left      sql.RowIter
	sch       sql.Schema
	right     map[string]bool
	intersect bool
	seen      map[string]bool
	buf       bytes.Buffer
}

func (it *collSetOpIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		r, err := it.left.Next(ctx)
		if err != nil {
			return nil, err
		}
		it.buf.Reset()
		if err := collate.WriteRowKey(&it.buf, it.sch, r); err != nil {
			return nil, err
		}
		k := it.buf.String()
		if it.seen[k] || it.right[k] != it.intersect {
			continue
		}
		it.seen[k] = true
		return r, nil
	}
}

func (it *collSetOpIter) Close(ctx *sql.Context) error { return it.left.Close(ctx) }
