package functions

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Aggregates OVER a window, computed over each row's frame as the same
// aggregate computes a group: its own aggregation buffer fed the frame's
// rows. GMS's windowed SUM and AVG add DOUBLE prefix sums and subtract
// them (SUM of integers came back a DOUBLE, an AVG's last digit differed
// from MySQL's sum-then-divide: mtr's win_avg; an all-NULL frame summed
// to 0, not NULL; AVG of an empty frame was NaN), and its MIN and MAX
// sliced a frame like ROWS BETWEEN 1 PRECEDING AND 2 PRECEDING from -1
// (a caught panic: mtr's win_min_max). MySQL gives an empty frame's
// SUM, AVG, MIN, MAX, STD and the like NULL and its COUNT 0, as a group
// of no rows: the buffer's own answers. Frames that only grow (UNBOUNDED
// PRECEDING, the default) feed each row once; a frame whose start moves
// is fed again from its start.

// FrameAggRuleID names FrameAggRule.
const FrameAggRuleID analyzer.RuleId = 1070

// FrameAggRule computes the aggregates of window nodes over their frames
// (frameAggregate). It runs after all of GMS's rules, which read the
// aggregates' own types.
func FrameAggRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		w, ok := n.(*plan.Window)
		if !ok {
			return n, transform.SameTree, nil
		}
		exprs := make([]sql.Expression, len(w.SelectExprs))
		same := transform.SameTree
		for i, e := range w.SelectExprs {
			exprs[i] = e
			alias, _ := e.(*expression.Alias)
			if alias != nil {
				e = alias.Child
			}
			agg, ok := e.(sql.Aggregation)
			if !ok || agg.Window() == nil {
				continue
			}
			var ne sql.Expression = &frameAggregate{agg: agg}
			if alias != nil {
				var err error
				if ne, err = alias.WithChildren(ne); err != nil {
					return nil, transform.SameTree, err
				}
			}
			exprs[i], same = ne, transform.NewTree
		}
		if same {
			return n, transform.SameTree, nil
		}
		nw, err := w.WithExpressions(exprs...)
		return nw, transform.NewTree, err
	})
}

// frameAggregate is an aggregate over a window computed by frameAgg.
type frameAggregate struct {
	agg sql.Aggregation
}

var _ sql.WindowAggregation = (*frameAggregate)(nil)
var _ sql.CollationCoercible = (*frameAggregate)(nil)

func (f *frameAggregate) Resolved() bool             { return f.agg.Resolved() }
func (f *frameAggregate) String() string             { return f.agg.String() }
func (f *frameAggregate) Type() sql.Type             { return f.agg.Type() }
func (f *frameAggregate) IsNullable() bool           { return true }
func (f *frameAggregate) Children() []sql.Expression { return f.agg.Children() }
func (f *frameAggregate) Id() sql.ColumnId           { return f.agg.Id() }
func (f *frameAggregate) Window() *sql.WindowDefinition {
	return f.agg.Window()
}

func (f *frameAggregate) DebugString() string { return sql.DebugString(f.agg) }

func (f *frameAggregate) Eval(*sql.Context, sql.Row) (interface{}, error) {
	return nil, fmt.Errorf("functions: %s is computed by its window", f.agg)
}

func (f *frameAggregate) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	na, err := f.agg.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	a, ok := na.(sql.Aggregation)
	if !ok {
		return nil, fmt.Errorf("functions: %T is no aggregate", na)
	}
	return &frameAggregate{agg: a}, nil
}

func (f *frameAggregate) WithId(id sql.ColumnId) sql.IdExpression {
	return &frameAggregate{agg: f.agg.WithId(id).(sql.Aggregation)}
}

func (f *frameAggregate) WithWindow(w *sql.WindowDefinition) sql.WindowAdaptableExpression {
	return &frameAggregate{agg: f.agg.WithWindow(w).(sql.Aggregation)}
}

func (f *frameAggregate) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, f.agg)
}

func (f *frameAggregate) NewWindowFunction() (sql.WindowFunction, error) {
	agg, err := transform.Clone(f.agg)
	if err != nil {
		return nil, err
	}
	framer, err := windowFramer(f.agg.Window())
	if err != nil {
		return nil, err
	}
	return &frameAgg{agg: agg.(sql.Aggregation), framer: framer, orderFree: orderFree(f.agg)}, nil
}

// orderFree: agg's value over rows does not depend on their order, to
// the last digit (COUNT, MIN, MAX, the bit aggregates, SUM and AVG of
// exact numbers): frameAgg may feed it a frame's rows from the last.
func orderFree(agg sql.Aggregation) bool {
	if _, exact := agg.Type().(sql.DecimalType); exact {
		// arith's exact SUM and AVG (exactagg.go) wrap GMS's, whose
		// text they keep but not their FunctionName.
		if s := strings.ToLower(agg.String()); strings.HasPrefix(s, "sum") || strings.HasPrefix(s, "avg") {
			return true
		}
	}
	f, ok := agg.(sql.FunctionExpression)
	if !ok {
		return false
	}
	switch strings.ToLower(f.FunctionName()) {
	case "count", "countdistinct", "min", "max", "bitand", "bitor", "bitxor": // GMS's names
		return true
	}
	return false
}

// windowFramer is w's frame's framer: GMS gives a window with neither
// ORDER BY nor frame the whole partition, and PeerFrameRule gives one
// with ORDER BY alone MySQL's default frame.
func windowFramer(w *sql.WindowDefinition) (sql.WindowFramer, error) {
	if w != nil && w.Frame != nil {
		return w.Frame.NewFramer(w)
	}
	return aggregation.NewPartitionFramer(), nil
}

// frameAgg feeds an aggregation buffer a frame's rows: buf holds the
// rows [start, end) of the partition part. Frames that end with the
// partition and start ever later (ROWS BETWEEN CURRENT ROW AND UNBOUNDED
// FOLLOWING) would feed the partition's rows again for each row; an
// order-free aggregate has their values computed once, from the
// partition's last row back (suffix).
type frameAgg struct {
	agg        sql.Aggregation
	framer     sql.WindowFramer
	part       sql.WindowInterval
	buf        sql.AggregationBuffer
	start, end int
	orderFree  bool
	suffix     []interface{} // suffix[i]: over [part.Start+i, part.End)
}

var _ sql.WindowFunction = (*frameAgg)(nil)

func (a *frameAgg) DefaultFramer() sql.WindowFramer { return a.framer }

func (a *frameAgg) StartPartition(_ *sql.Context, part sql.WindowInterval, _ sql.WindowBuffer) error {
	a.part = part
	a.reset()
	a.suffix = nil
	return nil
}

func (a *frameAgg) reset() {
	if a.buf != nil {
		a.buf.Dispose()
	}
	a.buf = nil
}

func (a *frameAgg) Dispose() { a.reset() }

// Compute answers the aggregate over frame; an error answers NULL (the
// window iterator takes values alone), with the error as a warning.
func (a *frameAgg) Compute(ctx *sql.Context, frame sql.WindowInterval, rows sql.WindowBuffer) interface{} {
	frame = clampFrame(frame, a.part)
	if a.orderFree && frame.End == a.part.End && frame.Start < frame.End && a.buf != nil && frame.Start > a.start {
		if a.suffix == nil {
			if err := a.loadSuffix(ctx, rows); err != nil {
				ctx.Warn(1105, "%s", err.Error())
				return nil
			}
		}
		return a.suffix[frame.Start-a.part.Start]
	}
	if a.buf == nil || frame.Start != a.start || frame.End < a.end {
		a.reset()
		b, err := a.agg.NewBuffer()
		if err != nil {
			ctx.Warn(1105, "%s", err.Error())
			return nil
		}
		a.buf, a.start, a.end = b, frame.Start, frame.Start
	}
	for ; a.end < frame.End; a.end++ {
		if err := a.buf.Update(ctx, rows[a.end]); err != nil {
			a.reset()
			ctx.Warn(1105, "%s", err.Error())
			return nil
		}
	}
	v, err := a.buf.Eval(ctx)
	if err != nil {
		ctx.Warn(1105, "%s", err.Error())
		return nil
	}
	return v
}

// loadSuffix computes suffix.
func (a *frameAgg) loadSuffix(ctx *sql.Context, rows sql.WindowBuffer) error {
	b, err := a.agg.NewBuffer()
	if err != nil {
		return err
	}
	defer b.Dispose()
	n := a.part.End - a.part.Start
	a.suffix = make([]interface{}, n+1)
	if a.suffix[n], err = b.Eval(ctx); err != nil {
		return err
	}
	for i := n - 1; i >= 0; i-- {
		if err := b.Update(ctx, rows[a.part.Start+i]); err != nil {
			return err
		}
		if a.suffix[i], err = b.Eval(ctx); err != nil {
			return err
		}
	}
	return nil
}

// clampFrame is frame within partition part, empty (at its start) when
// its end comes before its start: GMS's row framer gives the frame of
// ROWS BETWEEN 1 PRECEDING AND 2 PRECEDING at the first row as [-1, -1).
func clampFrame(frame, part sql.WindowInterval) sql.WindowInterval {
	frame.Start = max(part.Start, min(frame.Start, part.End))
	frame.End = max(frame.Start, min(frame.End, part.End))
	return frame
}
