package iters

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"petrel/sqlengine/collate"
)

// GROUP BY with grouping keys, built by Petrel (execOverrides). GMS's
// iterator hashes each row's grouping values with fmt.Fprintf("%v") into
// an xxhash (strings through their collation's weights) and keeps the
// groups in a history cache by that 64-bit hash: the formatting was a
// sixth of TPC-H Q1's CPU, and two groups whose hashes collide were
// merged. Here each value is written as the text GMS's %v gives it
// (numbers by strconv, without fmt), strings by the same collation
// weights GMS writes, each length-prefixed,
// and the groups are a map by that key. Groups come out in the order
// they were first seen, and their aggregation buffers are GMS's, so the
// answers are GMS's less its collisions.

// groupIter is the grouping iterator.
type groupIter struct {
	selected []sql.Expression
	grouping []sql.Expression
	child    sql.RowIter
	groups   map[string]int
	buffers  [][]sql.AggregationBuffer
	pos      int
	computed bool
	key, one bytes.Buffer
	// weights caches short strings' collation keys, by grouping
	// position (groupCollKey).
	weights []map[string]string
	// stream: the input comes grouped (nextInOrder); cur and curKey are
	// the current group's buffers and key, eof the input's end.
	stream bool
	cur    []sql.AggregationBuffer
	curKey []byte
	eof    bool
}

// GroupBy builds n with groupIter when it groups; nil otherwise
// (GMS builds it). inOrder says the child's rows come grouped (each
// group's rows one after another: a scan in the order of a key the
// grouping columns begin): each group is then answered when the next
// begins, holding one group's buffers instead of all of them (TPC-H
// Q18's subquery groups 6 million lineitem rows by l_orderkey, the
// primary key's first column), in the same order.
func GroupBy(ctx *sql.Context, exec sql.NodeExecBuilder, n *plan.GroupBy, row sql.Row, inOrder bool) (sql.RowIter, error) {
	if len(n.GroupByExprs) == 0 {
		return nil, nil
	}
	child, err := exec.Build(ctx, n.Child, row)
	if err != nil {
		return nil, err
	}
	return &groupIter{selected: n.SelectedExprs, grouping: n.GroupByExprs, child: child, groups: map[string]int{}, stream: inOrder}, nil
}

// nextInOrder is Next over grouped input: the current group's buffers
// are answered when a row of another group (or the end) comes.
func (g *groupIter) nextInOrder(ctx *sql.Context) (sql.Row, error) {
	for !g.eof {
		row, err := g.child.Next(ctx)
		if err == io.EOF {
			g.eof = true
			break
		}
		if err != nil {
			return nil, err
		}
		if err := g.groupKey(ctx, row); err != nil {
			return nil, err
		}
		var out sql.Row
		if g.cur != nil && !bytes.Equal(g.curKey, g.key.Bytes()) {
			if out, err = g.answer(ctx, g.cur); err != nil {
				return nil, err
			}
			g.cur = nil
		}
		if g.cur == nil {
			g.curKey = append(g.curKey[:0], g.key.Bytes()...)
			if g.cur, err = g.newBuffers(); err != nil {
				return nil, err
			}
		}
		for _, b := range g.cur {
			if err := b.Update(ctx, row); err != nil {
				return nil, err
			}
		}
		if out != nil {
			return out, nil
		}
	}
	if g.cur == nil {
		return nil, io.EOF
	}
	out, err := g.answer(ctx, g.cur)
	g.cur = nil
	return out, err
}

// newBuffers is a new group's aggregation buffers.
func (g *groupIter) newBuffers() ([]sql.AggregationBuffer, error) {
	bs := make([]sql.AggregationBuffer, len(g.selected))
	for j, e := range g.selected {
		var err error
		if bs[j], err = newAggBuffer(e); err != nil {
			return nil, err
		}
	}
	return bs, nil
}

// answer is a group's row, its buffers disposed of.
func (g *groupIter) answer(ctx *sql.Context, bs []sql.AggregationBuffer) (sql.Row, error) {
	out, err := evalBuffers(ctx, bs)
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		b.Dispose()
	}
	return out, nil
}

func (g *groupIter) Next(ctx *sql.Context) (sql.Row, error) {
	if g.stream {
		return g.nextInOrder(ctx)
	}
	if !g.computed {
		g.computed = true
		if err := g.compute(ctx); err != nil {
			return nil, err
		}
	}
	if g.pos >= len(g.buffers) {
		return nil, io.EOF
	}
	bs := g.buffers[g.pos]
	g.pos++
	return evalBuffers(ctx, bs)
}

// evalBuffers is a group's row.
func evalBuffers(ctx *sql.Context, bs []sql.AggregationBuffer) (sql.Row, error) {
	out := make(sql.Row, len(bs))
	for i, b := range bs {
		v, err := b.Eval(ctx)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (g *groupIter) compute(ctx *sql.Context) error {
	for {
		row, err := g.child.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := g.groupKey(ctx, row); err != nil {
			return err
		}
		i, ok := g.groups[string(g.key.Bytes())]
		if !ok {
			bs, err := g.newBuffers()
			if err != nil {
				return err
			}
			i = len(g.buffers)
			g.buffers = append(g.buffers, bs)
			g.groups[string(g.key.Bytes())] = i
		}
		for _, b := range g.buffers[i] {
			if err := b.Update(ctx, row); err != nil {
				return err
			}
		}
	}
}

// newAggBuffer is GMS's: an aggregate's buffer, or FIRST of any other
// selected expression.
func newAggBuffer(e sql.Expression) (sql.AggregationBuffer, error) {
	if a, ok := e.(sql.Aggregation); ok {
		return a.NewBuffer()
	}
	return aggregation.NewFirst(e).NewBuffer()
}

// groupKey encodes row's grouping values into g.key.
func (g *groupIter) groupKey(ctx *sql.Context, row sql.Row) error {
	g.key.Reset()
	if g.weights == nil {
		g.weights = make([]map[string]string, len(g.grouping))
	}
	for i, e := range g.grouping {
		g.one.Reset()
		var tag byte
		var err error
		if ck, isKey := e.(*collate.Key); isKey {
			// A string's collation key: its weights written here, not
			// hex-encoded into a new string as collKey.Eval returns it.
			tag, err = g.groupCollKey(ctx, i, ck, row)
		} else {
			tag, err = groupValue(ctx, &g.one, e, row)
		}
		if err != nil {
			return err
		}
		writeKeyPart(&g.key, tag, g.one.Bytes())
	}
	return nil
}

// writeKeyPart appends one value's tag and length-prefixed bytes to a
// key (grouping keys, hashlookup.go's tuple keys).
func writeKeyPart(key *bytes.Buffer, tag byte, part []byte) {
	var num [binary.MaxVarintLen64]byte
	key.WriteByte(tag)
	key.Write(num[:binary.PutUvarint(num[:], uint64(len(part)))])
	key.Write(part)
}

// groupValue writes e's value for row into w and returns its tag.
func groupValue(ctx *sql.Context, w *bytes.Buffer, e sql.Expression, row sql.Row) (byte, error) {
	v, err := e.Eval(ctx, row)
	if err != nil {
		return 0, err
	}
	if st, isString := e.Type().(sql.StringType); isString && v != nil {
		sv, err := types.ConvertToString(ctx, v, st, nil)
		if err != nil {
			return 0, err
		}
		return 's', st.Collation().WriteWeightString(w, sv)
	}
	return encodeGroupValue(w, v), nil
}

// Short strings' collation keys are kept (groupCollKey): TPC-H Q1
// groups 590,000 rows by two one-letter columns, and computing their
// weights was a tenth of its time.
const (
	maxCachedWeightText = 64
	maxCachedWeights    = 4096
)

// groupCollKey writes the collation key of ck's string, grouping
// column i, into g.one: the weights collate.Key's Eval would hex-encode, which
// tell the same strings apart. NULL has a tag of its own.
func (g *groupIter) groupCollKey(ctx *sql.Context, i int, ck *collate.Key, row sql.Row) (byte, error) {
	child, coll := ck.Unwrap()
	v, err := child.Eval(ctx, row)
	if err != nil || v == nil {
		return 'n', err
	}
	s, ok := v.(string)
	if !ok {
		s = fmt.Sprint(v)
	}
	if len(s) > maxCachedWeightText {
		return 'k', collate.WriteKey(&g.one, coll, s)
	}
	if w, ok := g.weights[i][s]; ok {
		g.one.WriteString(w)
		return 'k', nil
	}
	if err := collate.WriteKey(&g.one, coll, s); err != nil {
		return 0, err
	}
	if g.weights[i] == nil {
		g.weights[i] = map[string]string{}
	}
	if len(g.weights[i]) < maxCachedWeights {
		// s may alias the row's stored bytes: the key is a copy.
		g.weights[i][strings.Clone(s)] = g.one.String()
	}
	return 'k', nil
}

// encodeGroupValue writes the text GMS's fmt "%v" gives v, without fmt
// for the common kinds: values GMS groups together (an int64 5 and a
// float64 5) are written alike, and values it tells apart unlike. NULL
// has a tag of its own.
func encodeGroupValue(w *bytes.Buffer, v any) byte {
	b := w.AvailableBuffer()
	switch x := v.(type) {
	case nil:
		return 'n'
	case int64:
		b = strconv.AppendInt(b, x, 10)
	case int32:
		b = strconv.AppendInt(b, int64(x), 10)
	case int16:
		b = strconv.AppendInt(b, int64(x), 10)
	case int8:
		b = strconv.AppendInt(b, int64(x), 10)
	case int:
		b = strconv.AppendInt(b, int64(x), 10)
	case uint64:
		b = strconv.AppendUint(b, x, 10)
	case uint32:
		b = strconv.AppendUint(b, uint64(x), 10)
	case uint16:
		b = strconv.AppendUint(b, uint64(x), 10)
	case uint8:
		b = strconv.AppendUint(b, uint64(x), 10)
	case float64:
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
	case float32:
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	case decimal.Decimal:
		b = append(b, x.String()...)
	case time.Time:
		b = append(b, x.String()...)
	case string:
		b = append(b, x...)
	default:
		fmt.Fprintf(w, "%v", v)
		return 'v'
	}
	w.Write(b)
	return 'v'
}

func (g *groupIter) Close(ctx *sql.Context) error {
	for _, bs := range g.buffers {
		for _, b := range bs {
			b.Dispose()
		}
	}
	for _, b := range g.cur {
		b.Dispose()
	}
	g.buffers, g.groups, g.cur = nil, nil, nil
	return g.child.Close(ctx)
}
