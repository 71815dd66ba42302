package functions

import (
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"petrel/internal/mysqlerr"
)

// An aggregate OVER a window with ORDER BY and no frame has MySQL's
// default frame, RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW: the
// rows up to the current one and all its peers (rows equal to it in the
// ORDER BY). GMS framed SUM, AVG, MIN, MAX, FIRST_VALUE and LAST_VALUE as
// ROWS (to the current row alone), so a running SUM over a tie gave the
// first of the tied rows a partial sum; and GMS's own RANGE framer, which
// an explicit RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW gets,
// takes the whole partition when the ORDER BY column holds a NULL.
// PeerFrameRule gives both the frame peerFrame, whose framer compares the
// ORDER BY values by their types.

// PeerFrameRuleID names PeerFrameRule.
const PeerFrameRuleID analyzer.RuleId = 1044

// PeerFrameRule sets peerFrame on the windows of aggregates (and
// FIRST_VALUE, LAST_VALUE, NTH_VALUE) ordered with no frame or MySQL's default one.
func PeerFrameRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
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
			if err := rowsIntervalError(e); err != nil {
				return nil, transform.SameTree, err
			}
			ne, ok := withPeerFrame(e)
			if !ok {
				if ne, ok = withPeerGroups(e); !ok { // windowpeers.go
					continue
				}
			}
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

// withPeerFrame is e with peerFrame when e is a framed window function
// ordered with no frame or RANGE UNBOUNDED PRECEDING to CURRENT ROW, and
// with rangeFrame (windowrange.go) for its other RANGE frames.
func withPeerFrame(e sql.Expression) (sql.Expression, bool) {
	wa, ok := e.(sql.WindowAdaptableExpression)
	if !ok {
		return nil, false
	}
	if _, agg := e.(sql.Aggregation); !agg {
		f, ok := e.(sql.FunctionExpression)
		if !ok {
			return nil, false
		}
		if name := strings.ToLower(f.FunctionName()); name != "first_value" && name != "last_value" && name != "nth_value" {
			return nil, false
		}
	}
	def := wa.Window()
	if def == nil {
		return nil, false
	}
	nd := *def
	switch fr := def.Frame.(type) {
	case nil, *plan.RangeUnboundedPrecedingToCurrentRowFrame:
		if len(def.OrderBy) == 0 {
			return nil, false
		}
		nd.Frame = peerFrame{}
	case rangeFrame, peerFrame:
		return nil, false
	default:
		if !isRangeFrame(fr) {
			return nil, false
		}
		nd.Frame = rangeFrame{fr} // windowrange.go
	}
	return wa.WithWindow(&nd), true
}

// peerFrame is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
type peerFrame struct{}

var _ sql.WindowFrame = peerFrame{}

func (peerFrame) String() string {
	return "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
}

func (peerFrame) NewFramer(w *sql.WindowDefinition) (sql.WindowFramer, error) {
	return &peerFramer{orderBy: w.OrderBy.ToExpressions()}, nil
}

func (peerFrame) UnboundedFollowing() bool        { return false }
func (peerFrame) UnboundedPreceding() bool        { return true }
func (peerFrame) StartCurrentRow() bool           { return false }
func (peerFrame) EndCurrentRow() bool             { return true }
func (peerFrame) StartNPreceding() sql.Expression { return nil }
func (peerFrame) StartNFollowing() sql.Expression { return nil }
func (peerFrame) EndNPreceding() sql.Expression   { return nil }
func (peerFrame) EndNFollowing() sql.Expression   { return nil }

// peerFramer frames each row of a partition [start, end) as [start, the
// end of its peer group).
type peerFramer struct {
	orderBy    []sql.Expression
	start, end int
	idx        int // the next row
	peersEnd   int // the end of the current row's peer group
	set        bool
}

func (f *peerFramer) NewFramer(in sql.WindowInterval) (sql.WindowFramer, error) {
	return &peerFramer{orderBy: f.orderBy, start: in.Start, end: in.End, idx: in.Start, peersEnd: in.Start, set: true}, nil
}

func (f *peerFramer) Next(ctx *sql.Context, buf sql.WindowBuffer) (sql.WindowInterval, error) {
	if !f.set || f.idx >= f.end {
		return sql.WindowInterval{}, io.EOF
	}
	if f.idx >= f.peersEnd {
		j := f.idx + 1
		for ; j < f.end && j < len(buf); j++ {
			peer, err := f.peers(ctx, buf[f.idx], buf[j])
			if err != nil {
				return sql.WindowInterval{}, err
			}
			if !peer {
				break
			}
		}
		f.peersEnd = j
	}
	f.idx++
	return f.Interval()
}

// peers: rows a and b are equal in every ORDER BY value (NULLs equal).
func (f *peerFramer) peers(ctx *sql.Context, a, b sql.Row) (bool, error) {
	for _, e := range f.orderBy {
		av, err := e.Eval(ctx, a)
		if err != nil {
			return false, err
		}
		bv, err := e.Eval(ctx, b)
		if err != nil {
			return false, err
		}
		if av == nil || bv == nil {
			if av != bv {
				return false, nil
			}
			continue
		}
		c, err := e.Type().Compare(ctx, av, bv)
		if err != nil {
			return false, err
		}
		if c != 0 {
			return false, nil
		}
	}
	return true, nil
}

func (f *peerFramer) FirstIdx() int { return f.start }
func (f *peerFramer) LastIdx() int  { return f.peersEnd }

func (f *peerFramer) Interval() (sql.WindowInterval, error) {
	return sql.WindowInterval{Start: f.start, End: f.peersEnd}, nil
}

// rowsIntervalError is MySQL's 3596 for a ROWS frame bounded by an
// INTERVAL (GMS: 1105, "offset must be a non-negative integer").
func rowsIntervalError(e sql.Expression) error {
	wa, ok := e.(sql.WindowAdaptableExpression)
	if !ok || wa.Window() == nil || wa.Window().Frame == nil || isRangeFrame(wa.Window().Frame) {
		return nil
	}
	f := wa.Window().Frame
	for _, b := range []sql.Expression{f.StartNPreceding(), f.StartNFollowing(), f.EndNPreceding(), f.EndNFollowing()} {
		if _, ok := b.(*expression.Interval); ok {
			return mysqlerr.New(erWindowRowsInterval, "Window '<unnamed window>': INTERVAL can only be used with RANGE frames.")
		}
	}
	return nil
}
