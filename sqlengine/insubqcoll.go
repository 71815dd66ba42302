package sqlengine

import (
	"bytes"
	"fmt"
	"sync"
	"unsafe"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/sqlengine/collate"
)

// `s IN (SELECT t ...)` and `NOT IN` under a collation that finds
// different bytes equal. GMS's InSubquery looks the left value up in a
// set of the subquery's values hashed by their bytes, so under the
// default utf8mb4_0900_ai_ci `'abd' IN (SELECT s ...)` with a row 'ABD'
// was 0 (and NOT IN 1) where MySQL answers 1: a wrong result, silently.
// (In WHERE GMS plans most of them as semi joins, whose hash lookups key
// strings by collation since iters/hashlookup.go; this is what stays an
// expression: a select list, a CASE, an OR.) Here the set is of the
// values' collation keys (collate.WriteKey), built once per subquery
// result GMS caches.

const collInSubqueryRuleID analyzer.RuleId = 1731

// collInSubqueryRule replaces each InSubquery of text under a keyed
// collation by collInSubquery.
func collInSubqueryRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return eachExpr(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		in, ok := e.(*plan.InSubquery)
		if !ok {
			return e, transform.SameTree, nil
		}
		coll, ok := inSubqueryCollation(ctx, in)
		if !ok {
			return e, transform.SameTree, nil
		}
		return &collInSubquery{InSubquery: in, coll: coll}, transform.NewTree, nil
	})
}

// inSubqueryCollation is the collation in's comparison takes when both
// sides are text and it needs keys: the side of stronger coercibility's
// (the left's on a tie), as MySQL aggregates them.
func inSubqueryCollation(ctx *sql.Context, in *plan.InSubquery) (sql.CollationID, bool) {
	sub, ok := in.RightChild.(*plan.Subquery)
	if !ok || sub.Query == nil {
		return 0, false
	}
	sch := sub.Query.Schema()
	lt := in.LeftChild.Type()
	if len(sch) != 1 || !types.IsText(lt) || !types.IsText(sch[0].Type) {
		return 0, false
	}
	st, ok := sch[0].Type.(sql.StringType)
	if !ok {
		return 0, false
	}
	coll := st.Collation()
	if cc, ok := in.LeftChild.(sql.CollationCoercible); ok {
		if lc, lco := cc.CollationCoercibility(ctx); lco <= 2 {
			coll = lc
		}
	}
	// Byte-exact NO PAD collations need no keys (collate.KeyedCollation).
	if coll == sql.Collation_binary || coll == sql.Collation_utf8mb4_0900_bin {
		return 0, false
	}
	return coll, true
}

// collInSubquery is GMS's InSubquery with its lookup by collation key.
type collInSubquery struct {
	*plan.InSubquery
	coll sql.CollationID

	mu      sync.Mutex
	memoFor *any // the cached result the memo was built of
	memoN   int
	memo    map[string]struct{}
	memoNul bool
}

var _ sql.Expression = (*collInSubquery)(nil)

// WithChildren implements sql.Expression.
func (c *collInSubquery) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	in, err := c.InSubquery.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	gin, ok := in.(*plan.InSubquery)
	if !ok {
		return in, nil
	}
	return &collInSubquery{InSubquery: gin, coll: c.coll}, nil
}

// Eval implements sql.Expression: MySQL's IN, NULLs included (NULL IN
// (empty) is 0, NULL IN (rows) NULL, a miss with a NULL row NULL).
func (c *collInSubquery) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	left, err := c.LeftChild.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	sub := c.RightChild.(*plan.Subquery)
	vals, err := sub.EvalMultiple(ctx, row)
	if err != nil {
		return nil, err
	}
	if left == nil {
		if len(vals) == 0 {
			return false, nil
		}
		return nil, nil
	}
	set, hasNull, err := c.keys(vals, sub.CanCacheResults())
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := collate.WriteKey(&buf, c.coll, textOf(left)); err != nil {
		return nil, err
	}
	if _, ok := set[buf.String()]; ok {
		return true, nil
	}
	if hasNull {
		return nil, nil
	}
	return false, nil
}

// keys returns the set of vals' collation keys and whether a value is
// NULL; for a result GMS caches (the same slice each time) the set is
// built once.
func (c *collInSubquery) keys(vals []any, cached bool) (map[string]struct{}, bool, error) {
	var id *any
	if len(vals) > 0 {
		id = unsafe.SliceData(vals)
	}
	if cached {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.memo != nil && c.memoFor == id && c.memoN == len(vals) {
			return c.memo, c.memoNul, nil
		}
	}
	set := make(map[string]struct{}, len(vals))
	hasNull := false
	var buf bytes.Buffer
	for _, v := range vals {
		if v == nil {
			hasNull = true
			continue
		}
		buf.Reset()
		if err := collate.WriteKey(&buf, c.coll, textOf(v)); err != nil {
			return nil, false, err
		}
		set[buf.String()] = struct{}{}
	}
	if cached {
		c.memo, c.memoFor, c.memoN, c.memoNul = set, id, len(vals), hasNull
	}
	return set, hasNull, nil
}

// textOf is a text value as a Go string.
func textOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return fmt.Sprint(v)
}

// eachExpr applies fn to every expression of n's nodes, bottom up
// (castchar.go's rule too).
func eachExpr(n sql.Node, fn func(sql.Expression) (sql.Expression, transform.TreeIdentity, error)) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		return transform.Expr(e, fn)
	})
}
