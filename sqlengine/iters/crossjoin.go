package iters

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// A cross join reads its right side once. GMS's cross join builds its
// right side again for every row of its left: in the 6-way cross join of
// a 10-row table that generates issue 29's 1M-row INSERT ... SELECT, the
// innermost table was opened (a storage iterator, its First) 100,000
// times per 300,000 rows, and each level's rows were built anew; MySQL
// reads such a table once into its join buffer. CrossJoin keeps the
// right side's rows from their first reading and gives them again for
// each later left row, when the right side cannot depend on the left
// row (tables, static index lookups, deterministic filters and other
// such cross joins: cacheableRight) and its rows fit maxCachedValues
// values; past that it reads the right side once per left row, as GMS
// does. Its rows are built from slabs, one allocation per many rows.

// maxCachedValues bounds the values a cross join keeps of its right side
// (about 16 MiB of interfaces before the values themselves); a variable
// for the tests.
var maxCachedValues = 1 << 20

// slabRows is how many output rows share one allocation.
const slabRows = 64

// CrossJoin builds n when it is a cross join whose right side can be
// kept; ok=false leaves it to GMS.
func CrossJoin(ctx *sql.Context, exec sql.NodeExecBuilder, n *plan.JoinNode, row sql.Row) (sql.RowIter, bool, error) {
	if n.Op != plan.JoinTypeCross || !cacheableRight(n.Right()) {
		return nil, false, nil
	}
	l, err := exec.Build(ctx, n.Left(), row)
	if err != nil {
		return nil, true, err
	}
	return &crossIter{exec: exec, rp: n.Right(), parent: row, scopeLen: n.ScopeLen, l: l}, true, nil
}

// cacheableRight reports whether every row the right side n gives is the
// same whatever the left row: plain tables, static index lookups,
// filters and projections of deterministic expressions without
// subqueries, and cross joins of such.
func cacheableRight(n sql.Node) bool {
	switch n := n.(type) {
	case *plan.ResolvedTable:
		return true
	case *plan.TableAlias:
		return cacheableRight(n.Child)
	case *plan.IndexedTableAccess:
		return n.IsStatic()
	case *plan.Filter:
		return plainExprs(n.Expression) && cacheableRight(n.Child)
	case *plan.JoinNode:
		return n.Op == plan.JoinTypeCross && cacheableRight(n.Left()) && cacheableRight(n.Right())
	}
	return false
}

// plainExprs reports whether es are deterministic and hold no subquery.
func plainExprs(es ...sql.Expression) bool {
	for _, e := range es {
		plain := true
		transform.InspectExpr(e, func(x sql.Expression) bool {
			if _, ok := x.(*plan.Subquery); ok {
				plain = false
			} else if nd, ok := x.(sql.NonDeterministicExpression); ok && nd.IsNonDeterministic() {
				plain = false
			}
			return !plain
		})
		if !plain {
			return false
		}
	}
	return true
}

type crossIter struct {
	exec     sql.NodeExecBuilder
	rp       sql.Node
	parent   sql.Row
	scopeLen int
	l        sql.RowIter

	left sql.Row // the current left row, after the parent row
	// r is the right side's open iterator: filling the cache during the
	// first left row, or (streaming) read again for each left row.
	r sql.RowIter
	// cached are the right side's rows once complete; pos the next one
	// for the current left row.
	cached    []sql.Row
	nvalues   int
	complete  bool
	streaming bool
	pos       int
	slab      []any
}

func (c *crossIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		if c.left == nil {
			if c.complete && len(c.cached) == 0 {
				return nil, io.EOF // the right side has no rows
			}
			lr, err := c.l.Next(ctx)
			if err != nil {
				return nil, err
			}
			c.left = c.parent.Append(lr)
			c.pos = 0
			if !c.complete {
				// The first left row, or every left row once streaming.
				if c.r, err = c.exec.Build(ctx, c.rp, c.left); err != nil {
					return nil, err
				}
			}
		}
		if c.complete {
			if c.pos < len(c.cached) {
				c.pos++
				return c.join(c.cached[c.pos-1]), nil
			}
			c.left = nil
			continue
		}
		rr, err := c.r.Next(ctx)
		if err == io.EOF {
			cerr := c.r.Close(ctx)
			c.r = nil
			if cerr != nil {
				return nil, cerr
			}
			if !c.streaming {
				c.complete = true
			}
			c.left = nil
			continue
		}
		if err != nil {
			return nil, err
		}
		if !c.streaming {
			if c.nvalues += len(rr); c.nvalues > maxCachedValues {
				c.streaming, c.cached = true, nil
			} else {
				c.cached = append(c.cached, rr)
			}
		}
		return c.join(rr), nil
	}
}

// join is the output row for the current left row and right row rr: the
// parent row's scope columns, the left row's own, then rr (GMS's
// crossJoinIterator's row, without its parent row).
func (c *crossIter) join(rr sql.Row) sql.Row {
	own := c.left[len(c.parent):]
	w := c.scopeLen + len(own) + len(rr)
	if len(c.slab) < w {
		c.slab = make([]any, w*slabRows)
	}
	out := sql.Row(c.slab[:w:w])
	c.slab = c.slab[w:]
	n := copy(out, c.parent[:c.scopeLen])
	n += copy(out[n:], own)
	copy(out[n:], rr)
	return out
}

func (c *crossIter) Close(ctx *sql.Context) error {
	err := c.l.Close(ctx)
	if c.r != nil {
		if rerr := c.r.Close(ctx); err == nil {
			err = rerr
		}
		c.r = nil
	}
	return err
}
