package iters

import (
	"bytes"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/sqlengine/collate"
)

// A hash join's lookup on several columns, keyed exactly. GMS keys a
// HashLookup on a tuple by a 64-bit xxhash of fmt's "%v," text of each
// value (sql.HashOf): TPC-H Q9 joins 600,000 lineitem rows to partsupp
// and supplier on (l_suppkey, l_partkey), and the formatting was a sixth
// of its time (colliding keys share a bucket, which the join's condition
// sorts out). Here the key is the same texts, written without fmt
// (groupiter.go's encodeGroupValue), length-prefixed: the same values
// meet as before, and no two different keys do. A key of up to four
// BIGINTs is those integers (intKey). The values are
// converted to the probe key's type first, as GMS does; a key that is
// neither a tuple nor a string of a collation that needs keys (below) is
// GMS's lookup.

// Strings are keyed by their collation's weights (collate.WriteKey):
// GMS keyed a single column's lookup by its value, so a hash join on
// strings its collation finds equal ('A' and 'a' under a case-insensitive
// collation, 'b' and 'b ' under PAD SPACE) did not meet them, where the
// join's condition and MySQL do: a self-join of a CHAR column in
// utf8mb4_0900_ai_ci returned 9 of its 14 pairs (mtr's ctype_ascii).

// HashLookup builds n when its key is a tuple or a string that needs
// its collation's key; nil otherwise (GMS builds it).
func HashLookup(ctx *sql.Context, exec sql.NodeExecBuilder, n *plan.HashLookup, row sql.Row) (sql.RowIter, error) {
	if _, ok := n.LeftProbeKey.(expression.Tuple); !ok {
		if _, keyed := collate.KeyedCollation(n.LeftProbeKey.Type()); !keyed {
			return nil, nil
		}
	}
	n.Mutex.Lock()
	defer n.Mutex.Unlock()
	if n.Lookup == nil {
		child, err := exec.Build(ctx, n.Child, row)
		if err != nil {
			return nil, err
		}
		return &tupleLookupBuilder{n: n, child: child, lookup: map[any][]sql.Row{}}, nil
	}
	var k tupleKeyer
	key, err := k.key(ctx, n, n.LeftProbeKey, row)
	if err != nil {
		return nil, err
	}
	lookup := *n.Lookup
	if n.JoinType.IsExcludeNulls() && len(lookup[key]) == 0 {
		// As GMS: a join that tells a NULL comparison from no match
		// needs to know the other side has rows at all.
		for _, rows := range lookup {
			if len(rows) > 0 {
				return sql.RowsToRowIter(rows...), nil
			}
		}
	}
	return sql.RowsToRowIter(lookup[key]...), nil
}

// tupleKeyer writes keys (its buffers reused).
type tupleKeyer struct{ buf, one bytes.Buffer }

// key is row's key for e (the probe or entry key of n).
func (k *tupleKeyer) key(ctx *sql.Context, n *plan.HashLookup, e sql.Expression, row sql.Row) (any, error) {
	v, err := e.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	v, _, err = n.LeftProbeKey.Type().Convert(ctx, v)
	if types.ErrValueNotNil.Is(err) {
		return nil, nil // a NULL-typed probe, as GMS allows
	}
	if err != nil {
		return nil, err
	}
	vals, ok := v.([]any)
	if !ok {
		if c, keyed := collate.KeyedCollation(n.LeftProbeKey.Type()); keyed {
			if s, isStr := v.(string); isStr {
				return k.weights(c, s)
			}
		}
		if b, isBytes := v.([]byte); isBytes {
			return string(b), nil
		}
		return v, nil
	}
	if ik, ok := IntTupleKey(vals); ok {
		return ik, nil
	}
	probe, _ := n.LeftProbeKey.(expression.Tuple)
	k.buf.Reset()
	for i, x := range vals {
		if x, err = sql.UnwrapAny(ctx, x); err != nil {
			return nil, err
		}
		k.one.Reset()
		var tag byte
		if s, isStr := x.(string); isStr && i < len(probe) {
			if c, keyed := collate.KeyedCollation(probe[i].Type()); keyed {
				if err := collate.WriteKey(&k.one, c, s); err != nil {
					return nil, err
				}
				tag = 'w'
			}
		}
		if tag == 0 {
			tag = encodeGroupValue(&k.one, x)
		}
		writeKeyPart(&k.buf, tag, k.one.Bytes())
	}
	return k.buf.String(), nil
}

// weightKey is a string's key under its collation: a type of its own, so
// it never equals a key of another kind (a value of another type is
// itself).
type weightKey string

// weights is s's key under collation c.
func (k *tupleKeyer) weights(c sql.CollationID, s string) (any, error) {
	k.one.Reset()
	if err := collate.WriteKey(&k.one, c, s); err != nil {
		return nil, err
	}
	return weightKey(k.one.String()), nil
}

// tupleLookupBuilder passes its child's rows on and files each under its
// key; the lookup is the node's once the child is exhausted.
type tupleLookupBuilder struct {
	n      *plan.HashLookup
	child  sql.RowIter
	lookup map[any][]sql.Row
	keyer  tupleKeyer
}

func (b *tupleLookupBuilder) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := b.child.Next(ctx)
	if err == io.EOF {
		// Kept only when the child was read whole.
		b.n.Lookup = &b.lookup
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	key, err := b.keyer.key(ctx, b.n, b.n.RightEntryKey, row)
	if err != nil {
		return nil, err
	}
	b.lookup[key] = append(b.lookup[key], row)
	return row, nil
}

func (b *tupleLookupBuilder) Close(ctx *sql.Context) error { return b.child.Close(ctx) }

// intKey is a key of up to four integers (join keys mostly are): one
// comparable value, no text. A tuple of other values is keyed by text,
// which never equals an intKey.
type intKey struct {
	n int8
	v [4]int64
}

// IntTupleKey is vals as an intKey when they are up to four int64s.
func IntTupleKey(vals []any) (intKey, bool) {
	var k intKey
	if len(vals) > len(k.v) {
		return k, false
	}
	for i, x := range vals {
		n, ok := x.(int64)
		if !ok {
			return k, false
		}
		k.v[i] = n
	}
	k.n = int8(len(vals))
	return k, true
}
