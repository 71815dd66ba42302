package sqlengine

import (
	"context"
	"fmt"

	"petrel/sqlengine/storeval"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// An UPDATE writes a row only if it changed, and counts it in "Changed:"
// and the affected rows only then. GMS decides "changed" with the column
// types' Compare, which follows the collation: under a case-insensitive
// collation UPDATE t SET name = 'Bob' WHERE name = 'bob' would find the
// row unchanged and silently keep 'bob'. MySQL compares the stored bytes.
// So the UPDATE's target is given (at execution, to GMS's update iterator
// only) a schema whose string types compare byte-exactly after their
// collation says equal; every other use of the schema (filters, index
// ranges, sorting) keeps the collation.

// exactString is a string type whose Compare also tells apart values its
// collation finds equal but whose bytes differ.
type exactString struct{ sql.StringType }

func (t exactString) Compare(ctx context.Context, a, b any) (int, error) {
	as, aok := a.(string)
	bs, bok := b.(string)
	if aok && bok && as == bs {
		return 0, nil // the common case, an unchanged column: no weights
	}
	c, err := t.StringType.Compare(ctx, a, b)
	if err != nil || c != 0 {
		return c, err
	}
	if aok && bok {
		if as < bs {
			return -1, nil
		}
		return 1, nil
	}
	return 0, nil
}

// exactSchema returns sch with its collated string columns comparing
// byte-exactly, and whether there were any.
func exactSchema(sch sql.Schema) (sql.Schema, bool) {
	var out sql.Schema
	for i, col := range sch {
		st, ok := col.Type.(sql.StringType)
		if !ok || st.CharacterSet() == sql.CharacterSet_binary {
			continue
		}
		if out == nil {
			out = sch.Copy()
		}
		out[i].Type = exactString{st}
	}
	return out, out != nil
}

// rowsIdentical reports whether two rows of sch hold the same values, byte
// for byte in string columns (the fast write path's "changed" test).
func rowsIdentical(ctx *sql.Context, a, b sql.Row, sch sql.Schema) (bool, error) {
	if len(a) != len(b) || len(a) != len(sch) {
		return false, nil
	}
	for i, col := range sch {
		if as, ok := a[i].(string); ok {
			if bs, ok := b[i].(string); ok {
				// Byte-equal strings are equal under any collation.
				if as != bs {
					return false, nil
				}
				continue
			}
		}
		c, err := col.Type.Compare(ctx, a[i], b[i])
		if err != nil || c != 0 {
			return false, err
		}
	}
	return true, nil
}

// exactTarget stands between an UPDATE and its source: GMS's update
// iterator takes its schema (plan.GetUpdatable returns a node that is an
// sql.UpdatableTable itself) while the rows and the updater are the
// table's.
type exactTarget struct {
	child  sql.Node
	table  sql.UpdatableTable
	schema sql.Schema
}

var (
	_ sql.Node           = (*exactTarget)(nil)
	_ sql.UpdatableTable = (*exactTarget)(nil)
)

func (x *exactTarget) Resolved() bool       { return x.child.Resolved() }
func (x *exactTarget) String() string       { return x.child.String() }
func (x *exactTarget) Schema() sql.Schema   { return x.schema }
func (x *exactTarget) Children() []sql.Node { return []sql.Node{x.child} }
func (x *exactTarget) IsReadOnly() bool     { return x.child.IsReadOnly() }
func (x *exactTarget) Name() string         { return x.table.Name() }

func (x *exactTarget) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("sqlengine: update target takes 1 child, got %d", len(children))
	}
	c := *x
	c.child = children[0]
	return &c, nil
}

func (x *exactTarget) Collation() sql.CollationID { return x.table.Collation() }

func (x *exactTarget) Partitions(ctx *sql.Context) (sql.PartitionIter, error) {
	return x.table.Partitions(ctx)
}

func (x *exactTarget) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	return x.table.PartitionRows(ctx, p)
}

func (x *exactTarget) Updater(ctx *sql.Context) sql.RowUpdater { return x.table.Updater(ctx) }

// buildExactUpdate builds a single-table UPDATE of a table with collated
// string columns with its target behind exactTarget; (nil, nil) lets GMS
// build the node as it is.
func (e *Engine) buildExactUpdate(ctx *sql.Context, n *plan.Update, row sql.Row) (sql.RowIter, error) {
	if _, done := n.Child.(*exactTarget); done || n.IsJoin {
		return nil, nil
	}
	t, err := plan.GetUpdatable(n.Child)
	if err != nil {
		return nil, nil
	}
	// The SET values take MySQL's rules for storing (storeval/storevalue.go).
	n = storeval.Update(n, t.Schema()).(*plan.Update)
	sch, ok := exactSchema(t.Schema())
	if !ok {
		sch = t.Schema()
	}
	nn, err := n.WithChildren(&exactTarget{child: n.Child, table: t, schema: sch})
	if err != nil {
		return nil, nil
	}
	return e.exec.Build(ctx, nn, row)
}

const updateJoinRuleID analyzer.RuleId = 1022

// markUpdateJoin marks a session whose statement is a multiple-table
// UPDATE, before GMS's modifyUpdateExprsForJoin asks the tables for the
// editors it keeps: those editors write each row once (editor.joinDone).
func markUpdateJoin(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	s, ok := ctx.Session.(*Session)
	if !ok {
		return n, transform.SameTree, nil
	}
	transform.Inspect(n, func(x sql.Node) bool {
		if u, ok := x.(*plan.Update); ok && u.IsJoin {
			s.updateJoin = true
		}
		return !s.updateJoin
	})
	return n, transform.SameTree, nil
}
