package explain

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/planstats"
)

// EXPLAIN ANALYZE runs the statement and shows, for every operator of its
// plan, the rows it returned, how many times it was started (loops) and
// the time spent in it, children included, to its first row and to its
// last (MySQL's "actual time=first..last rows=N loops=L", times per loop
// in milliseconds), after the operator's estimated rows (planstats/estimate.go:
// "(rows=N) (actual time=...)"). GMS v0.20.0 ran the statement but printed the plan
// alone. Each operator's iterator is built through the engine's exec
// override while the statement is being profiled (the session's
// profile), which builds it as usual and wraps it in a counting iterator
// keyed by the plan node; operators built anew for each evaluation of a
// correlated subquery (GMS copies the subquery's plan per outer row) are
// not matched to the plan as printed and show no figures. Only read-only
// statements are run, as MySQL: others are refused with error 1235.

// Profile is one EXPLAIN ANALYZE's figures by plan node.
type Profile struct {
	stats    map[sql.Node]*opStats
	building []sql.Node // nodes whose iterators are being built, innermost last
	est      *planstats.Estimator
}

type opStats struct {
	loops, rows  uint64
	first, total time.Duration // summed over loops
}

// Measure builds n's iterator with build (which comes back through the
// override for n itself, and is let through) and wraps it; ok is false
// when n is being built already or cannot key a map (a non-pointer node).
func (p *Profile) Measure(n sql.Node, build func() (sql.RowIter, error)) (sql.RowIter, bool, error) {
	if len(p.building) > 0 && p.building[len(p.building)-1] == n {
		return nil, false, nil
	}
	if reflect.TypeOf(n).Kind() != reflect.Ptr {
		return nil, false, nil
	}
	p.building = append(p.building, n)
	start := time.Now()
	it, err := build()
	p.building = p.building[:len(p.building)-1]
	if err != nil || it == nil {
		return it, true, err
	}
	st := p.stats[n]
	if st == nil {
		st = &opStats{}
		p.stats[n] = st
	}
	st.loops++
	built := time.Since(start)
	st.total += built
	return &countingIter{RowIter: it, st: st, spent: built}, true, nil
}

// countingIter counts an operator's rows and the time spent in it (added
// as it goes: some operators' iterators are never closed, GMS's hash
// lookups' children among them).
type countingIter struct {
	sql.RowIter
	st        *opStats
	spent     time.Duration // in this loop, from its build
	seenFirst bool
}

func (c *countingIter) Next(ctx *sql.Context) (sql.Row, error) {
	t := time.Now()
	r, err := c.RowIter.Next(ctx)
	d := time.Since(t)
	c.spent += d
	c.st.total += d
	if err == nil {
		c.st.rows++
	}
	if !c.seenFirst && (err == nil || err == io.EOF) {
		c.seenFirst = true
		c.st.first += c.spent
	}
	return r, err
}

func (c *countingIter) Close(ctx *sql.Context) error {
	t := time.Now()
	err := c.RowIter.Close(ctx)
	c.st.total += time.Since(t)
	return err
}

// Analyze runs d's statement to its end with every operator measured
// and returns the plan with the figures, a line per row. build makes an
// iterator as the engine does; profile is called with the statement's
// Profile before it runs and with nil after, so that the engine's
// override finds it (Measure) while the iterators are built.
func Analyze(ctx *sql.Context, d *plan.DescribeQuery, row sql.Row, build func(*sql.Context, sql.Node, sql.Row) (sql.RowIter, error), profile func(*Profile)) (sql.RowIter, error) {
	if !d.Child.IsReadOnly() {
		return nil, mysqlerr.New(mysqlerr.ErNotSupportedYet, "This version of MySQL doesn't yet support 'EXPLAIN ANALYZE of a statement that writes'")
	}
	p := &Profile{stats: map[sql.Node]*opStats{}}
	profile(p)
	defer profile(nil)
	it, err := build(ctx, d.Child, row)
	if err != nil {
		return nil, err
	}
	for {
		if _, err := it.Next(ctx); err == io.EOF {
			break
		} else if err != nil {
			_ = it.Close(ctx)
			return nil, err
		}
	}
	if err := it.Close(ctx); err != nil {
		return nil, err
	}
	var lines []string
	p.est = planstats.NewEstimator(ctx)
	p.print(d.Child, 0, &lines)
	rows := make([]sql.Row, len(lines))
	for i, l := range lines {
		rows[i] = sql.NewRow(l)
	}
	return sql.RowsToRowIter(rows...), nil
}

// print appends n's line and its children's, indented by depth.
func (p *Profile) print(n sql.Node, depth int, out *[]string) {
	line := strings.Repeat("    ", depth) + "-> " + opSummary(n)
	sep := "  "
	if r, ok := p.est.Rows(n); ok {
		line += "  " + planstats.EstimateText(r)
		sep = " "
	}
	if st := p.stats[n]; st != nil && st.loops > 0 {
		loops := float64(st.loops)
		line += sep + fmt.Sprintf("(actual time=%.3f..%.3f rows=%s loops=%d)",
			ms(st.first)/loops, ms(st.total)/loops, perLoop(st.rows, st.loops), st.loops)
	}
	*out = append(*out, line)
	// Subqueries in the operator's expressions, with their plans (run
	// from copies: no figures).
	if ex, ok := n.(sql.Expressioner); ok {
		for _, e := range ex.Expressions() {
			sql.Inspect(e, func(x sql.Expression) bool {
				if sq, ok := x.(*plan.Subquery); ok {
					*out = append(*out, strings.Repeat("    ", depth+1)+"-> Subquery: "+oneLine(sq.QueryString))
					p.print(sq.Query, depth+2, out)
					return false
				}
				return true
			})
		}
	}
	for _, c := range n.Children() {
		p.print(c, depth+1, out)
	}
}

// perLoop is rows per loop as MySQL shows it: whole, or to two places.
func perLoop(rows, loops uint64) string {
	if rows%loops == 0 {
		return fmt.Sprint(rows / loops)
	}
	return fmt.Sprintf("%.2f", float64(rows)/float64(loops))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// opSummary names an operator on one line, with what it is keyed or
// filtered by.
func opSummary(n sql.Node) string {
	switch x := n.(type) {
	case *plan.ResolvedTable:
		return "Table scan on " + x.Name()
	case *plan.TableAlias:
		return "Alias " + x.Name()
	case *plan.IndexedTableAccess:
		how := "Index range scan"
		if exprs := x.Expressions(); len(exprs) > 0 {
			how = "Index lookup"
			return fmt.Sprintf("%s on %s using %s (%s)", how, x.Name(), x.Index().ID(), joinExprs(exprs))
		}
		return fmt.Sprintf("%s on %s using %s", how, x.Name(), x.Index().ID())
	case *plan.Filter:
		return "Filter: " + joinExprs([]sql.Expression{x.Expression})
	case *plan.Having:
		return "Having: " + joinExprs([]sql.Expression{x.Cond})
	case *plan.Project:
		return "Project: " + joinExprs(x.Projections)
	case *plan.GroupBy:
		if len(x.GroupByExprs) == 0 {
			return "Aggregate: " + joinExprs(x.SelectedExprs)
		}
		return "Group by " + joinExprs(x.GroupByExprs) + ": " + joinExprs(x.SelectedExprs)
	case *plan.JoinNode:
		if x.Filter != nil {
			return x.Op.String() + ": " + joinExprs([]sql.Expression{x.Filter})
		}
		return x.Op.String()
	case *plan.HashLookup:
		return "Hash: " + x.RightEntryKey.String() + " probed by " + x.LeftProbeKey.String()
	case *plan.Sort:
		return "Sort: " + sortFields(x.SortFields)
	case *plan.TopN:
		return fmt.Sprintf("Top %s: %s", x.Limit, sortFields(x.Fields))
	case *plan.Limit:
		return "Limit: " + x.Limit.String()
	case *plan.SubqueryAlias:
		return "Derived table " + x.Name()
	}
	s := n.String()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func joinExprs(es []sql.Expression) string {
	parts := make([]string, len(es))
	for i, e := range es {
		// A subquery prints as its text (its plan is printed below).
		shown, _, err := transform.Expr(e, func(x sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			if sq, ok := x.(*plan.Subquery); ok {
				return expression.NewUnresolvedColumn("(" + oneLine(sq.QueryString) + ")"), transform.NewTree, nil
			}
			return x, transform.SameTree, nil
		})
		if err != nil {
			shown = e
		}
		parts[i] = oneLine(shown.String())
	}
	return strings.Join(parts, ", ")
}

func sortFields(fs sql.SortFields) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Column.String() + " " + f.Order.String()
	}
	return strings.Join(parts, ", ")
}
