package sqlengine

import (
	"bytes"
	"fmt"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

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
// over the result. INTERSECT ALL and EXCEPT ALL match rows by their
// collation keys too (`SELECT 'a' INTERSECT ALL SELECT 'A'` is one row):
// as MySQL's counters over a temporary table, each key's first left row
// is given as many times as the key's count on the left (less, for
// EXCEPT, its count on the right; at most it, for INTERSECT).

// buildCollSetOp builds n as above; false when GMS's build serves.
func (e *Engine) buildCollSetOp(ctx *sql.Context, n *plan.SetOp, row sql.Row) (sql.RowIter, bool, error) {
	if !collate.NeedsDistinctKeys(n.Schema()) {
		return nil, false, nil
	}
	if !n.Distinct && n.SetOpType == plan.UnionType {
		return nil, false, nil
	}
	inner := *n
	inner.Distinct, inner.SortFields, inner.Limit, inner.Offset = false, nil, nil, nil
	var top sql.Node
	switch n.SetOpType {
	case plan.UnionType:
		top = plan.NewDistinct(&inner)
	case plan.IntersectType, plan.ExceptType:
		top = &collSetOp{op: &inner, all: !n.Distinct}
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

// collSetOp is INTERSECT or EXCEPT (DISTINCT, or ALL when all) of op's
// two sides, rows matched and told apart by their collation keys
// (collate.WriteRowKey). Built only by buildCollSetOp, under the exec
// override.
type collSetOp struct {
	op  *plan.SetOp
	all bool
}

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
	return &collSetOp{op: op, all: c.all}, nil
}

// buildCollSetOpIter reads the right side's keys, then passes the left
// side's rows whose key is (INTERSECT) or is not (EXCEPT) among them,
// each key once (DISTINCT) or as counted (ALL: collSetOpAll).
func (e *Engine) buildCollSetOpIter(ctx *sql.Context, c *collSetOp, row sql.Row) (sql.RowIter, error) {
	sch := c.op.Schema()
	right, err := e.exec.Build(ctx, c.op.Right(), row)
	if err != nil {
		return nil, err
	}
	keys := map[string]int{}
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
		keys[buf.String()]++
	}
	if err := right.Close(ctx); err != nil {
		return nil, err
	}
	left, err := e.exec.Build(ctx, c.op.Left(), row)
	if err != nil {
		return nil, err
	}
	intersect := c.op.SetOpType == plan.IntersectType
	if c.all {
		return collSetOpAll(ctx, left, sch, keys, intersect)
	}
	return &collSetOpIter{left: left, sch: sch, right: keys, intersect: intersect, seen: map[string]bool{}}, nil
}

// collSetOpAll reads the left side whole: each key's first row and count,
// in the order the keys first come, then the rows ALL gives.
func collSetOpAll(ctx *sql.Context, left sql.RowIter, sch sql.Schema, right map[string]int, intersect bool) (sql.RowIter, error) {
	type group struct {
		row sql.Row
		n   int
	}
	var order []string
	groups := map[string]*group{}
	var buf bytes.Buffer
	for {
		r, err := left.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			left.Close(ctx)
			return nil, err
		}
		buf.Reset()
		if err := collate.WriteRowKey(&buf, sch, r); err != nil {
			left.Close(ctx)
			return nil, err
		}
		k := buf.String()
		if g := groups[k]; g != nil {
			g.n++
			continue
		}
		groups[k] = &group{row: r, n: 1}
		order = append(order, k)
	}
	if err := left.Close(ctx); err != nil {
		return nil, err
	}
	var rows []sql.Row
	for _, k := range order {
		g := groups[k]
		n := g.n - right[k]
		if intersect {
			n = min(g.n, right[k])
		}
		for ; n > 0; n-- {
			rows = append(rows, g.row)
		}
	}
	return sql.RowsToRowIter(rows...), nil
}

type collSetOpIter struct {
	left      sql.RowIter
	sch       sql.Schema
	right     map[string]int
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
		if it.seen[k] || (it.right[k] > 0) != it.intersect {
			continue
		}
		it.seen[k] = true
		return r, nil
	}
}

func (it *collSetOpIter) Close(ctx *sql.Context) error { return it.left.Close(ctx) }

// A column where the two sides of a set operation differ in type is
// converted to CHAR on both sides (GMS's mergeSetOpSchemas), typed
// LONGTEXT of GMS's default binary collation, so `SELECT a FROM t EXCEPT
// SELECT 'A'` over a utf8mb4_general_ci column a told 'a' and 'A' apart.
// MySQL aggregates the sides' collations as for any operation (the
// column's implicit collation over the literal's coercible one, over a
// number's); setOpCollationRule types such a conversion with the
// aggregate (setOpText), when the aggregation has a winner.

const setOpCollationRuleID analyzer.RuleId = 1030

func setOpCollationRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		so, ok := n.(*plan.SetOp)
		if !ok {
			return n, transform.SameTree, nil
		}
		lp, lok := so.Left().(*plan.Project)
		rp, rok := so.Right().(*plan.Project)
		if !lok || !rok || len(lp.Projections) != len(rp.Projections) {
			return n, transform.SameTree, nil
		}
		lexprs, rexprs := lp.Projections, rp.Projections
		changed := false
		for i := range lexprs {
			lc, lconv, lok := charConvert(lexprs[i])
			rc, rconv, rok := charConvert(rexprs[i])
			if !lok || !rok || !(lconv || rconv) {
				continue
			}
			l, lco := setOpColumnCollation(ctx, lp.Child, i)
			r, rco := setOpColumnCollation(ctx, rp.Child, i)
			coll, co := sql.ResolveCoercibility(l, lco, r, rco)
			if co >= 6 || coll == sql.Collation_binary || coll == sql.Collation_Unspecified {
				continue
			}
			if !changed {
				lexprs, rexprs = append([]sql.Expression(nil), lexprs...), append([]sql.Expression(nil), rexprs...)
				changed = true
			}
			t := types.CreateLongText(coll)
			lexprs[i] = expression.NewAlias(lexprs[i].(*expression.Alias).Name(), &setOpText{Convert: lc, typ: t, coll: coll, coer: co})
			rexprs[i] = expression.NewAlias(rexprs[i].(*expression.Alias).Name(), &setOpText{Convert: rc, typ: t, coll: coll, coer: co})
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		l, err := lp.WithExpressions(lexprs...)
		if err != nil {
			return nil, transform.SameTree, err
		}
		r, err := rp.WithExpressions(rexprs...)
		if err != nil {
			return nil, transform.SameTree, err
		}
		out, err := so.WithChildren(l, r)
		return out, transform.NewTree, err
	})
}

// charConvert is e's conversion to CHAR as mergeSetOpSchemas writes it
// (an alias over the conversion, or over an expression already of the
// conversion's type, whose conversion it left out), not yet retyped;
// converted tells the two apart.
func charConvert(e sql.Expression) (c *expression.Convert, converted, ok bool) {
	a, ok := e.(*expression.Alias)
	if !ok || !a.Child.Type().Equals(types.LongText) {
		return nil, false, false
	}
	if c, ok := a.Child.(*expression.Convert); ok {
		return c, true, true
	}
	return expression.NewConvert(a.Child, expression.ConvertToChar), false, true
}

// setOpColumnCollation is the collation and coercibility of n's column i
// as MySQL sees them: the expression a projection computes it with, the
// aggregate of a set operation's sides.
func setOpColumnCollation(ctx *sql.Context, n sql.Node, i int) (sql.CollationID, byte) {
	switch n := n.(type) {
	case *plan.Project:
		if i < len(n.Projections) {
			e := n.Projections[i]
			if a, ok := e.(*expression.Alias); ok {
				e = a.Child
			}
			if t, ok := e.(*setOpText); ok {
				return t.coll, t.coer
			}
			return sql.GetCoercibility(ctx, e)
		}
	case *plan.SetOp:
		l, lco := setOpColumnCollation(ctx, n.Left(), i)
		r, rco := setOpColumnCollation(ctx, n.Right(), i)
		return sql.ResolveCoercibility(l, lco, r, rco)
	case *plan.Filter, *plan.Sort, *plan.Limit, *plan.Offset, *plan.Distinct, *plan.Having:
		return setOpColumnCollation(ctx, n.Children()[0], i)
	}
	if sch := n.Schema(); i < len(sch) {
		if types.IsText(sch[i].Type) {
			c, _ := sch[i].Type.CollationCoercibility(ctx)
			return c, 2
		}
	}
	return sql.Collation_binary, 5
}

// setOpText is a set operation side's conversion to CHAR typed with the
// sides' aggregate collation; a result column is implicit (coercibility
// 2) to what reads it, coer is the aggregate's own for an enclosing set
// operation.
type setOpText struct {
	*expression.Convert
	typ  sql.Type
	coll sql.CollationID
	coer byte
}

func (t *setOpText) Type() sql.Type { return t.typ }

func (t *setOpText) CollationCoercibility(*sql.Context) (sql.CollationID, byte) { return t.coll, 2 }

func (t *setOpText) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	c, err := t.Convert.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	cv, ok := c.(*expression.Convert)
	if !ok {
		return c, nil
	}
	return &setOpText{Convert: cv, typ: t.typ, coll: t.coll, coer: t.coer}, nil
}
