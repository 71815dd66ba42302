package collate

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/storage/keys"
)

// Collations where values are told apart: DISTINCT, COUNT(DISTINCT) and
// GROUP BY treat strings their collation finds equal as one value, as
// MySQL does ('A' and 'a' under a case-insensitive collation; 'b' and
// 'b ' under a PAD SPACE collation, MySQL's pre-8.0 ones). GMS's DISTINCT
// and COUNT(DISTINCT) hash the bytes, and its GROUP BY hashes weights
// without padding. So COUNT(DISTINCT s) and GROUP BY s read s's collation
// key (collKey, put in place by an analyzer rule), and DISTINCT rows are
// told apart by their columns' keys (an exec-builder override). The rows
// returned keep the first value of each group, as MySQL's.

// padSpace reports whether MySQL 8 compares c with PAD SPACE: every
// collation but the UCA 9.0.0 (_0900_) ones and binary.
func padSpace(c sql.CollationID) bool { return keys.PadSpace(c) }

// keyedCollation reports whether strings of t need a collation key to be
// told apart as MySQL does (anything but byte-exact NO PAD).
func keyedCollation(t sql.Type) (sql.CollationID, bool) {
	st, ok := t.(sql.StringType)
	if !ok || !types.IsText(t) {
		return 0, false
	}
	c := st.Collation()
	if c == sql.Collation_binary || c == sql.Collation_utf8mb4_0900_bin {
		return 0, false
	}
	return c, true
}

// KeyedCollation is keyedCollation: t's collation when its strings need
// a collation key to be told apart (or met) as MySQL does.
func KeyedCollation(t sql.Type) (sql.CollationID, bool) { return keyedCollation(t) }

// writeCollationKey writes s's key under c: its weights, trailing spaces
// ignored under PAD SPACE.
func WriteKey(w io.Writer, c sql.CollationID, s string) error {
	if padSpace(c) {
		s = strings.TrimRight(s, " ")
	}
	return c.WriteWeightString(w, s)
}

// collKey is a string's collation key, as the hex of its weights.
type Key struct {
	child sql.Expression
	coll  sql.CollationID
}

var _ sql.Expression = (*Key)(nil)

// Unwrap is the expression k keys and the collation of its key.
func (k *Key) Unwrap() (sql.Expression, sql.CollationID) { return k.child, k.coll }

func (k *Key) Resolved() bool             { return k.child.Resolved() }
func (k *Key) String() string             { return k.child.String() }
func (k *Key) Type() sql.Type             { return types.LongBlob }
func (k *Key) IsNullable() bool           { return k.child.IsNullable() }
func (k *Key) Children() []sql.Expression { return []sql.Expression{k.child} }

func (k *Key) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	c := *k
	c.child = children[0]
	return &c, nil
}

func (k *Key) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := k.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	s, ok := v.(string)
	if !ok {
		s = fmt.Sprint(v)
	}
	var b bytes.Buffer
	if err := WriteKey(&b, k.coll, s); err != nil {
		return nil, err
	}
	// In hex: GMS checks the key as text on the way (an aggregate's
	// buffer), and weights are not valid UTF-8.
	return hex.EncodeToString(b.Bytes()), nil
}

// keyed wraps e in its collation key when its type, or the collation
// it takes from its operands (GROUP BY CONCAT(name, ”): GMS's LONGTEXT
// is utf8mb4_0900_bin, which told 'acme' and 'ACME' apart), needs one.
func keyed(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	if _, done := e.(*Key); done {
		return e, false
	}
	t := e.Type()
	if c := derivedCollation(ctx, e); c != 0 {
		if nt, err := stringTypeWith(t.(sql.StringType), c); err == nil {
			t = nt
		}
	}
	c, ok := keyedCollation(t)
	if !ok {
		return e, false
	}
	return &Key{child: e, coll: c}, true
}

// collationRule gives COUNT(DISTINCT ...) and GROUP BY their strings'
// collation keys.
func Rule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	n, same1, err := transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		gb, ok := n.(*plan.GroupBy)
		if !ok {
			return n, transform.SameTree, nil
		}
		exprs := make([]sql.Expression, len(gb.GroupByExprs))
		changed := false
		for i, e := range gb.GroupByExprs {
			var c bool
			exprs[i], c = keyed(ctx, e)
			changed = changed || c
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		ngb := *gb
		ngb.GroupByExprs = exprs
		return &ngb, transform.NewTree, nil
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	n, same2, err := transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		cd, ok := e.(*aggregation.CountDistinct)
		if !ok {
			return e, transform.SameTree, nil
		}
		kids := cd.Children()
		nk := make([]sql.Expression, len(kids))
		changed := false
		for i, k := range kids {
			var c bool
			nk[i], c = keyed(ctx, k)
			changed = changed || c
		}
		if !changed {
			return e, transform.SameTree, nil
		}
		ne, err := cd.WithChildren(nk...)
		if err != nil {
			return nil, transform.SameTree, err
		}
		ncd := ne.(*aggregation.CountDistinct)
		ne = ncd.WithId(cd.Id()).(sql.Expression)
		if w := cd.Window(); w != nil {
			ne = ne.(*aggregation.CountDistinct).WithWindow(w).(sql.Expression)
		}
		return ne, transform.NewTree, nil
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	// Comparisons and sort keys (collcompare.go).
	n, same3, err := transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		return PadComparison(ctx, e)
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	n, same4, err := collateSorts(ctx, n)
	if err != nil {
		return nil, transform.SameTree, err
	}
	// DISTINCT over string expressions: the projection typed with its
	// derived collation, which the DISTINCT keys by (NeedsDistinctKeys).
	n, same5, err := transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		d, ok := n.(*plan.Distinct)
		if !ok {
			return n, transform.SameTree, nil
		}
		p, ok := d.Child.(*plan.Project)
		if !ok {
			return n, transform.SameTree, nil
		}
		out := append([]sql.Expression(nil), p.Projections...)
		changed := false
		for i, e := range out {
			inner, name := e, ""
			if a, ok := e.(*expression.Alias); ok {
				inner, name = a.Child, a.Name()
			}
			if w, ok := sortCollation(ctx, inner); ok {
				if name == "" {
					name = e.String()
				}
				out[i], changed = expression.NewAlias(name, w), true
			}
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		np, err := p.WithExpressions(out...)
		if err != nil {
			return n, transform.SameTree, nil
		}
		nd, err := d.WithChildren(np)
		if err != nil {
			return n, transform.SameTree, nil
		}
		return nd, transform.NewTree, nil
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	return n, same1 && same2 && same3 && same4 && same5, nil
}

// collDistinctIter is DISTINCT over rows told apart by their columns'
// collation keys (and the other columns' values).
type collDistinctIter struct {
	child sql.RowIter
	sch   sql.Schema
	seen  map[string]struct{}
	buf   bytes.Buffer
}

// NeedsDistinctKeys reports whether a DISTINCT over rows of sch must tell
// strings apart by their collation keys (NewDistinct); GMS's own
// DISTINCT serves the others.
func NeedsDistinctKeys(sch sql.Schema) bool {
	for _, c := range sch {
		if _, k := keyedCollation(c.Type); k {
			return true
		}
	}
	return false
}

// NewDistinct is DISTINCT over it's rows, strings told apart by their
// columns' collation keys.
func NewDistinct(it sql.RowIter, sch sql.Schema) sql.RowIter {
	return &collDistinctIter{child: it, sch: sch, seen: map[string]struct{}{}}
}

func (d *collDistinctIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		row, err := d.child.Next(ctx)
		if err != nil {
			return nil, err
		}
		d.buf.Reset()
		if err := WriteRowKey(&d.buf, d.sch, row); err != nil {
			return nil, err
		}
		k := d.buf.String()
		if _, dup := d.seen[k]; dup {
			continue
		}
		d.seen[k] = struct{}{}
		return row, nil
	}
}

func (d *collDistinctIter) Close(ctx *sql.Context) error { return d.child.Close(ctx) }

// WriteRowKey writes row's key to w: rows with equal keys are the same
// row to DISTINCT, their strings compared by their columns' (sch's)
// collation keys and every other value by its type and value.
func WriteRowKey(w *bytes.Buffer, sch sql.Schema, row sql.Row) error {
	for i, v := range row {
		w.WriteByte(0)
		if v == nil {
			w.WriteByte('N')
			continue
		}
		if i < len(sch) {
			if c, ok := keyedCollation(sch[i].Type); ok {
				if s, isStr := v.(string); isStr {
					if err := WriteKey(w, c, s); err != nil {
						return err
					}
					continue
				}
			}
		}
		fmt.Fprintf(w, "%T:%v", v, v)
	}
	return nil
}
