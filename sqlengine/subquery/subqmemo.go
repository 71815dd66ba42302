package subquery

import (
	"math"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/shopspring/decimal"

	"petrel/sqlengine/rewrite"
)

// A correlated scalar subquery remembers its results by the outer values
// it reads (issue 29, TPC-H Q17 and Q2), as MariaDB's subquery cache
// does. GMS v0.20.0 runs a correlated subquery again for every outer row
// it is evaluated on; Q17's `l_quantity < (SELECT 0.2 * avg(l_quantity)
// FROM lineitem WHERE l_partkey = p_partkey)` is evaluated on every
// lineitem row of its parts, about 30 per part, and each evaluation
// scans lineitem whole. Remembered by p_partkey, it scans once per part.
//
// The result of one evaluation is a function of the outer row's values
// the subquery reads, given the same data: every outer reference is a
// GetField whose index is below the outer row's length (GMS prepends the
// outer row to each of the subquery's rows), so the key is the values at
// those indexes. Only what is sure to be such a function is remembered:
//   - the statement is read-only (nothing it does changes the rows the
//     subquery reads between two evaluations);
//   - the subquery calls nothing non-deterministic (RAND(), UUID(),
//     user variables a statement can assign as it goes);
//   - every column GMS lists as correlated is found as a GetField (no
//     outer reference hidden where the walk cannot see it);
//   - every key value is of a kind keyed exactly (integers, strings,
//     bytes, decimals, floats, times, NULL); any other kind, and
//     evaluations past memoMaxEntries, run the subquery as before.
// The memory lasts one execution of the statement: it is keyed by the
// query's process id and start time, so a plan run again (a prepared
// statement's) starts empty. IN and EXISTS subqueries keep GMS's
// evaluation (they become joins where GMS can).

const MemoRuleID analyzer.RuleId = 1018

// memoMaxEntries bounds the results one subquery remembers per execution.
const memoMaxEntries = 1 << 16

// Counters are an engine's Subquery_cache_hit and _miss, and the
// exec builder a grouped run uses (subqgroup.go).
type Counters struct {
	Hits, Misses atomic.Uint64
	// groupedRuns counts grouped runs that filled a memory
	// (Petrel_subquery_grouped_runs).
	GroupedRuns atomic.Uint64
	Exec        sql.NodeExecBuilder
}

// Memo wraps the subqueries in n's expressions, at any depth.
func Memo(n sql.Node, counters *Counters) (sql.Node, transform.TreeIdentity, error) {
	return rewrite.MapNodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		return memoExpr(e, false, counters)
	})
}

// memoExpr wraps the subqueries in e; inSet is true for the subquery
// operand of IN or EXISTS, which is evaluated through other methods than
// Eval and is not wrapped (its own query is still walked).
func memoExpr(e sql.Expression, inSet bool, counters *Counters) (sql.Expression, transform.TreeIdentity, error) {
	switch x := e.(type) {
	case *memoSubquery:
		// A plan analysed again (a prepared statement's): a new memory.
		sq, _, err := memoExpr(x.sq, false, counters)
		return sq, transform.NewTree, err
	case *plan.Subquery:
		q, same, err := Memo(x.Query, counters)
		if err != nil {
			return nil, transform.SameTree, err
		}
		if same == transform.NewTree {
			x = x.WithQuery(q)
		}
		if inSet {
			return x, same, nil
		}
		if m := newMemoSubquery(x, counters); m != nil {
			return m, transform.NewTree, nil
		}
		return x, same, nil
	}
	_, isIn := e.(*plan.InSubquery)
	_, isExists := e.(*plan.ExistsSubquery)
	i := -1
	return rewrite.MapChildren(e, func(c sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		i++
		return memoExpr(c, (isIn && i == 1) || isExists, counters)
	})
}

// newMemoSubquery returns sq remembered by its outer references, or nil
// where the result may depend on more than them (see above).
func newMemoSubquery(sq *plan.Subquery, counters *Counters) *memoSubquery {
	corr := sq.Correlated()
	if corr.Empty() || sq.Volatile() || sq.Query == nil {
		return nil
	}
	ids := map[sql.ColumnId]bool{}
	idx := map[int]bool{}
	pure := true
	var walkNode func(n sql.Node)
	walkExpr := func(e sql.Expression) {
		sql.Inspect(e, func(e sql.Expression) bool {
			switch x := e.(type) {
			case *expression.GetField:
				ids[x.Id()] = true
				idx[x.Index()] = true
			case *expression.UserVar, *expression.SetField:
				pure = false
			case *plan.Subquery:
				walkNode(x.Query)
			}
			if rewrite.Volatile(e) {
				pure = false
			}
			return true
		})
	}
	walkNode = func(n sql.Node) {
		transform.Inspect(n, func(n sql.Node) bool {
			if ex, ok := n.(sql.Expressioner); ok {
				for _, e := range ex.Expressions() {
					walkExpr(e)
				}
			}
			return true
		})
	}
	walkNode(sq.Query)
	if !pure {
		return nil
	}
	found := true
	corr.ForEach(func(c sql.ColumnId) {
		if !ids[c] {
			found = false
		}
	})
	if !found {
		return nil
	}
	refs := make([]int, 0, len(idx))
	for i := range idx {
		refs = append(refs, i)
	}
	sort.Ints(refs)
	return &memoSubquery{sq: sq, memo: &subqueryMemo{refs: refs, counters: counters, group: newGroupPlan(sq)}}
}

// memoSubquery is a scalar subquery with its results remembered; it
// prints, types and collates as the subquery.
type memoSubquery struct {
	sq   *plan.Subquery
	memo *subqueryMemo
}

var (
	_ sql.Expression         = (*memoSubquery)(nil)
	_ sql.CollationCoercible = (*memoSubquery)(nil)
)

func (m *memoSubquery) Resolved() bool             { return m.sq.Resolved() }
func (m *memoSubquery) String() string             { return m.sq.String() }
func (m *memoSubquery) DebugString() string        { return "memo" + m.sq.DebugString() }
func (m *memoSubquery) Type() sql.Type             { return m.sq.Type() }
func (m *memoSubquery) IsNullable() bool           { return m.sq.IsNullable() }
func (m *memoSubquery) Children() []sql.Expression { return []sql.Expression{m.sq} }
func (m *memoSubquery) IsNonDeterministic() bool   { return m.sq.IsNonDeterministic() }
func (m *memoSubquery) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return m.sq.CollationCoercibility(ctx)
}

// WithChildren keeps the memory; a child that is no longer a subquery
// (a rewrite for display) is returned as it is.
func (m *memoSubquery) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(m, len(children), 1)
	}
	sq, ok := children[0].(*plan.Subquery)
	if !ok {
		return children[0], nil
	}
	return &memoSubquery{sq: sq, memo: m.memo}, nil
}

func (m *memoSubquery) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	key, ok := m.memo.key(row)
	if !ok {
		return m.sq.Eval(ctx, row)
	}
	v, hit, group := m.memo.get(ctx, key)
	if hit {
		return v, nil
	}
	if group {
		if v, hit, err := m.memo.runGrouped(ctx, key, row); err != nil || hit {
			return v, err
		}
	}
	v, err := m.sq.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	m.memo.put(ctx, key, v)
	return v, nil
}

// subqueryMemo is one subquery's remembered results in one execution.
type subqueryMemo struct {
	refs     []int      // GetField indexes in the subquery, ascending
	counters *Counters  // the engine's
	group    *groupPlan // nil: no grouped run (subqgroup.go)

	mu      sync.Mutex
	pid     uint64
	started time.Time
	results map[string]interface{}
	misses  int
	// grouped: the grouped run was tried; complete: it filled results
	// with every group, so a key not there gets empty.
	grouped, complete bool
	empty             interface{}
}

// key encodes the row's values at the subquery's outer references; false
// when one is of a kind not keyed exactly.
func (s *subqueryMemo) key(row sql.Row) (string, bool) {
	b := make([]byte, 0, 32)
	for _, i := range s.refs {
		if i >= len(row) {
			break
		}
		var ok bool
		if b, ok = appendMemoKey(b, row[i]); !ok {
			return "", false
		}
	}
	return string(b), true
}

// appendMemoKey appends a kind byte, then the value in a form that is
// equal only for equal values of that kind, length-prefixed where its
// length varies.
func appendMemoKey(b []byte, v interface{}) ([]byte, bool) {
	str := func(kind byte, s string) []byte {
		b = append(b, kind)
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		return append(b, s...)
	}
	switch x := v.(type) {
	case nil:
		return append(b, 'n'), true
	case int8:
		return strconv.AppendInt(append(b, 'i'), int64(x), 10), true
	case int16:
		return strconv.AppendInt(append(b, 'i'), int64(x), 10), true
	case int32:
		return strconv.AppendInt(append(b, 'i'), int64(x), 10), true
	case int64:
		return strconv.AppendInt(append(b, 'i'), x, 10), true
	case int:
		return strconv.AppendInt(append(b, 'i'), int64(x), 10), true
	case uint8:
		return strconv.AppendUint(append(b, 'u'), uint64(x), 10), true
	case uint16:
		return strconv.AppendUint(append(b, 'u'), uint64(x), 10), true
	case uint32:
		return strconv.AppendUint(append(b, 'u'), uint64(x), 10), true
	case uint64:
		return strconv.AppendUint(append(b, 'u'), x, 10), true
	case float32:
		return strconv.AppendUint(append(b, 'g'), uint64(math.Float32bits(x)), 16), true
	case float64:
		return strconv.AppendUint(append(b, 'f'), math.Float64bits(x), 16), true
	case string:
		return str('s', x), true
	case []byte:
		return str('b', string(x)), true
	case decimal.Decimal:
		// String is exact (coefficient and exponent); 1.0 and 1.00 key
		// apart, which only costs a second evaluation.
		return str('d', x.String()), true
	case time.Time:
		return str('t', x.Format(time.RFC3339Nano)), true
	}
	return b, false
}

// reset empties the memory when ctx is another execution than the one
// it holds.
func (s *subqueryMemo) reset(ctx *sql.Context) {
	if s.results == nil || s.pid != ctx.Pid() || !s.started.Equal(ctx.QueryTime()) {
		s.pid, s.started = ctx.Pid(), ctx.QueryTime()
		s.results = map[string]interface{}{}
		s.misses, s.grouped, s.complete, s.empty = 0, false, false, nil
	}
}

// get returns the result remembered for key; group is true when the
// grouped run is due (the second miss of an execution).
func (s *subqueryMemo) get(ctx *sql.Context, key string) (v interface{}, hit, group bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reset(ctx)
	v, ok := s.results[key]
	if !ok && s.complete {
		v, ok = s.empty, true
	}
	if ok {
		s.counters.Hits.Add(1)
		return v, true, false
	}
	s.counters.Misses.Add(1)
	s.misses++
	return nil, false, s.group != nil && !s.grouped && s.misses >= 2 && s.counters.Exec != nil
}

// runGrouped runs the grouped plan once for this execution and answers
// key from it; hit is false when the run was not possible.
func (s *subqueryMemo) runGrouped(ctx *sql.Context, key string, row sql.Row) (interface{}, bool, error) {
	s.mu.Lock()
	if s.grouped {
		s.mu.Unlock()
		return nil, false, nil
	}
	s.grouped = true
	s.mu.Unlock()
	groups, empty, ok, err := s.group.run(ctx, s.counters.Exec, s.refs, row)
	if err != nil || !ok {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results, s.complete, s.empty = groups, true, empty
	s.counters.GroupedRuns.Add(1)
	if v, ok := groups[key]; ok {
		return v, true, nil
	}
	return empty, true, nil
}

func (s *subqueryMemo) put(ctx *sql.Context, key string, v interface{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reset(ctx)
	if len(s.results) < memoMaxEntries && !s.complete {
		s.results[key] = v
	}
}
