package explain

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"petrel/sqlengine/planstats"
	"petrel/sqlengine/rewrite"
)

// treeWithEstimates prints GMS's plan tree (EXPLAIN FORMAT=TREE's text)
// with each operator's line followed by its estimate. An operator's line
// is the first line of its own text; operators are matched to the
// tree's lines in the order they are printed (each operator before its
// expressions' subqueries, then its children), skipping lines that are
// properties.
func treeWithEstimates(ctx *sql.Context, n sql.Node, opts sql.DescribeOptions) []string {
	pe := planstats.NewEstimator(ctx)
	type op struct {
		head string
		node sql.Node
	}
	var ops []op
	var walk func(n sql.Node)
	walk = func(n sql.Node) {
		head := sql.Describe(n, opts)
		if i := strings.IndexByte(head, '\n'); i >= 0 {
			head = head[:i]
		}
		ops = append(ops, op{strings.TrimSpace(head), n})
		if ex, ok := n.(sql.Expressioner); ok {
			for _, e := range ex.Expressions() {
				sql.Inspect(e, func(x sql.Expression) bool {
					if sq, ok := x.(*plan.Subquery); ok {
						walk(sq.Query)
						return false
					}
					return true
				})
			}
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	var out []string
	next := 0
	for _, l := range strings.Split(sql.Describe(n, opts), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		body := strings.TrimLeft(l, " │├└─")
		for i := next; i < len(ops); i++ {
			if ops[i].head != body {
				continue
			}
			if r, ok := pe.Rows(ops[i].node); ok {
				l += "  " + planstats.EstimateText(r)
			}
			next = i + 1
			break
		}
		out = append(out, l)
	}
	return out
}

// Plan answers EXPLAIN without ANALYZE: traditional EXPLAIN's
// rows, FORMAT=JSON's document, or FORMAT=TREE's plan with estimates; nil (GMS's) for the debug
// and estimates formats.
func Plan(ctx *sql.Context, d *plan.DescribeQuery) (sql.RowIter, error) {
	if rewrite.ExplainJSON(ctx) { // rewrite/explain.go
		doc, err := explainJSON(ctx, d.Child) // json.go
		if err != nil {
			return nil, err
		}
		return sql.RowsToRowIter(sql.NewRow(doc)), nil
	}
	if !d.Format.Plan {
		return traditionalExplain(ctx, d.Child), nil
	}
	if d.Format.Debug || d.Format.Estimates {
		return nil, nil
	}
	lines := treeWithEstimates(ctx, d.Child, d.Format)
	rows := make([]sql.Row, len(lines))
	for i, l := range lines {
		rows[i] = sql.NewRow(l)
	}
	return sql.RowsToRowIter(rows...), nil
}
