package sqlengine

import (
	"fmt"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
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
	in := &windowInput{child: n.Child}
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
	return &countedRows{it: it, n: &w.rows}, nil
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
