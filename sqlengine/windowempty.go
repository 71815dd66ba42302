package sqlengine

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// Window functions over no rows. GMS's window iterator makes one
// partition of an empty input and answers one row for it (SELECT
// ROW_NUMBER() OVER () FROM empty_table gave NULL; INSERT ... SELECT
// with a window inserted it: mtr's win_insert_select); MySQL answers no
// rows. The window's input is counted (windowInput) and the window's
// rows dropped when there was none.

// buildWindow builds window node n over a counted input; (nil, nil) for
// a node already built so (GMS builds it as it is).
func (e *Engine) buildWindow(ctx *sql.Context, n *plan.Window, row sql.Row) (sql.RowIter, error) {
	if _, done := n.Child.(*windowInput); done {
		return nil, nil
	}
	in := &windowInput{child: n.Child, sorts: windowSorts(n)}
	w, err := n.WithChildren(in)
	if err != nil {
		return nil, nil
	}
	it, err := e.exec.Build(ctx, w, row)
	if err != nil {
		return nil, err
	}
	return &windowRows{it: it, in: in}, nil
}

// windowInput is a window's input node, counting the rows it gives.
type windowInput struct {
	child sql.Node
	rows  int
	sorts []sql.SortFields // windowSorts
}

var _ sql.Node = (*windowInput)(nil)

func (w *windowInput) Resolved() bool       { return w.child.Resolved() }
func (w *windowInput) String() string       { return w.child.String() }
func (w *windowInput) Schema() sql.Schema   { return w.child.Schema() }
func (w *windowInput) Children() []sql.Node { return []sql.Node{w.child} }
func (w *windowInput) IsReadOnly() bool     { return w.child.IsReadOnly() }

func (w *windowInput) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("sqlengine: window input takes 1 child, got %d", len(children))
	}
	c := *w
	c.child = children[0]
	return &c, nil
}

// buildWindowInput builds the counted input.
func (e *Engine) buildWindowInput(ctx *sql.Context, w *windowInput, row sql.Row) (sql.RowIter, error) {
	it, err := e.exec.Build(ctx, w.child, row)
	if err != nil {
		return nil, err
	}
	if len(w.sorts) > 0 {
		if it, err = sortedWindowInput(ctx, it, w.sorts); err != nil {
			return nil, err
		}
	}
	return &countedRows{it: it, n: &w.rows}, nil
}

// The rows of windows leave in the order of the last window that sorts
// them, as MySQL (and MariaDB) compute windows one after the other, each
// sorting the rows the previous one gave (by its PARTITION BY, then its
// ORDER BY): a SELECT with windows and no ORDER BY lists its rows so
// (mtr's win_first_last_value). GMS gives a window's rows back in its
// input's order, so the input is sorted here, each window's sort stable
// over the one before.

// windowSorts are the sorts of n's windows in the order MySQL runs
// them: the select list's, a window sorting as an earlier one moved up
// to run right after it, sharing its sort (Window::
// reorder_and_eliminate_sorts), and then left out. MySQL puts a WINDOW
// clause's windows first; the named windows are inlined into the calls
// here (rewrite/namedwindow.go), so they count where they are used.
func windowSorts(n *plan.Window) []sql.SortFields {
	var sorts []sql.SortFields
	var keys []string
	for _, e := range n.SelectExprs {
		if a, ok := e.(*expression.Alias); ok {
			e = a.Child
		}
		wa, ok := e.(sql.WindowAdaptableExpression)
		if !ok || wa.Window() == nil {
			continue
		}
		def := wa.Window()
		var fields sql.SortFields
		for _, p := range def.PartitionBy {
			fields = append(fields, sql.SortField{Column: p, Order: sql.Ascending})
		}
		fields = append(fields, def.OrderBy...)
		if len(fields) == 0 {
			continue // sorts nothing
		}
		var key strings.Builder
		for _, f := range fields {
			fmt.Fprintf(&key, "%s %v,", strings.ToLower(f.Column.String()), f.Order)
		}
		sorts, keys = append(sorts, fields), append(keys, key.String())
	}
	redundant := make([]bool, len(sorts))
	for i := 0; i+1 < len(sorts); i++ {
		for j := i + 1; j < len(sorts); j++ {
			if keys[i] == keys[j] {
				sorts[i+1], sorts[j] = sorts[j], sorts[i+1]
				keys[i+1], keys[j] = keys[j], keys[i+1]
				redundant[i+1] = true
				break
			}
		}
	}
	out := sorts[:0]
	for i, sf := range sorts {
		if !redundant[i] {
			out = append(out, sf)
		}
	}
	return out
}

// sortedWindowInput is it's rows sorted by each of sorts in turn.
func sortedWindowInput(ctx *sql.Context, it sql.RowIter, sorts []sql.SortFields) (sql.RowIter, error) {
	rows, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		return nil, err
	}
	for _, sf := range sorts {
		sorter := &expression.Sorter{SortFields: sf, Rows: rows, Ctx: ctx}
		sort.Stable(sorter)
		if sorter.LastError != nil {
			return nil, sorter.LastError
		}
	}
	return sql.RowsToRowIter(rows...), nil
}

type countedRows struct {
	it sql.RowIter
	n  *int
}

func (c *countedRows) Next(ctx *sql.Context) (sql.Row, error) {
	r, err := c.it.Next(ctx)
	if err == nil {
		*c.n++
	}
	return r, err
}

func (c *countedRows) Close(ctx *sql.Context) error { return c.it.Close(ctx) }

// windowRows are a window's rows, none when its input had none. The
// window reads its whole input before its first row, so the count is
// known when that row comes.
type windowRows struct {
	it sql.RowIter
	in *windowInput
}

func (w *windowRows) Next(ctx *sql.Context) (sql.Row, error) {
	r, err := w.it.Next(ctx)
	if err == nil && w.in.rows == 0 {
		return nil, io.EOF
	}
	return r, err
}

func (w *windowRows) Close(ctx *sql.Context) error { return w.it.Close(ctx) }
