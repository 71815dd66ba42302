package functions

import (
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// RANK, DENSE_RANK and PERCENT_RANK tell peers (rows equal in the
// window's ORDER BY) by the values' types, as MySQL does. GMS's peer
// groups compared the values with Go's !=, so under the default
// utf8mb4_0900_ai_ci 'abc' and 'ABC' ranked 1 and 2 where MySQL ranks
// both 1 (and 1.0 and 1.00 would part too). A ranking function's frame
// is its peer group (MySQL ignores a frame given to one).

// rankFunctions are the functions framed by their peer group.
var rankFunctions = map[string]bool{"rank": true, "dense_rank": true, "percent_rank": true}

// withPeerGroups is e as peerRanked when e is a ranking function.
func withPeerGroups(e sql.Expression) (sql.Expression, bool) {
	if _, done := e.(*peerRanked); done {
		return nil, false
	}
	f, ok := e.(sql.FunctionExpression)
	if !ok || !rankFunctions[strings.ToLower(f.FunctionName())] {
		return nil, false
	}
	wa, ok := e.(sql.WindowAdaptableExpression)
	if !ok || wa.Window() == nil {
		return nil, false
	}
	return &peerRanked{WindowAdaptableExpression: wa}, true
}

// peerRanked is GMS's ranking function whose window function frames
// each row as its peer group, told by the ORDER BY values' types.
// (GMS's window iterator takes a window function's DefaultFramer, not
// its window's frame.)
type peerRanked struct {
	sql.WindowAdaptableExpression
}

var _ sql.WindowAdaptableExpression = (*peerRanked)(nil)

func (r *peerRanked) NewWindowFunction() (sql.WindowFunction, error) {
	fn, err := r.WindowAdaptableExpression.NewWindowFunction()
	if err != nil {
		return nil, err
	}
	return &peerRankedFn{WindowFunction: fn, orderBy: r.Window().OrderBy.ToExpressions()}, nil
}

func (r *peerRanked) WithWindow(w *sql.WindowDefinition) sql.WindowAdaptableExpression {
	return &peerRanked{WindowAdaptableExpression: r.WindowAdaptableExpression.WithWindow(w)}
}

func (r *peerRanked) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	ne, err := r.WindowAdaptableExpression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	wa, ok := ne.(sql.WindowAdaptableExpression)
	if !ok {
		return ne, nil
	}
	return &peerRanked{WindowAdaptableExpression: wa}, nil
}

// peerRankedFn is the ranking window function with peerGroupFramer.
type peerRankedFn struct {
	sql.WindowFunction
	orderBy []sql.Expression
}

func (f *peerRankedFn) DefaultFramer() sql.WindowFramer {
	return &peerGroupFramer{p: peerFramer{orderBy: f.orderBy}}
}

// peerGroupFramer frames each row of a partition as [the start, the end)
// of its peer group, with peerFramer's comparison.
type peerGroupFramer struct {
	p          peerFramer
	groupStart int
}

func (f *peerGroupFramer) NewFramer(in sql.WindowInterval) (sql.WindowFramer, error) {
	return &peerGroupFramer{p: peerFramer{orderBy: f.p.orderBy, start: in.Start, end: in.End, idx: in.Start, peersEnd: in.Start, set: true}, groupStart: in.Start}, nil
}

func (f *peerGroupFramer) Next(ctx *sql.Context, buf sql.WindowBuffer) (sql.WindowInterval, error) {
	p := &f.p
	if !p.set || p.idx >= p.end {
		return sql.WindowInterval{}, io.EOF
	}
	if p.idx >= p.peersEnd {
		f.groupStart = p.idx
		j := p.idx + 1
		for ; j < p.end && j < len(buf); j++ {
			peer, err := p.peers(ctx, buf[p.idx], buf[j])
			if err != nil {
				return sql.WindowInterval{}, err
			}
			if !peer {
				break
			}
		}
		p.peersEnd = j
	}
	p.idx++
	return f.Interval()
}

func (f *peerGroupFramer) FirstIdx() int { return f.groupStart }
func (f *peerGroupFramer) LastIdx() int  { return f.p.peersEnd }

func (f *peerGroupFramer) Interval() (sql.WindowInterval, error) {
	return sql.WindowInterval{Start: f.groupStart, End: f.p.peersEnd}, nil
}
