package functions

import (
	"bytes"
	"fmt"
	"reflect"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// GROUP_CONCAT past group_concat_max_len: MySQL cuts the result to at
// most that many bytes, at a character's start, with warning 1260 ("Row
// N was cut by GROUP_CONCAT()"). GMS cut it at the byte, so a
// multi-byte character could be split (invalid UTF-8 sent to the
// client), without a warning. Here GMS's aggregation is rebuilt one
// byte longer, which tells a cut result from one exactly as long, and
// the result is cut here. GMS keeps the aggregation's distinct flag,
// separator, ORDER BY directions and length unexported: they are read
// by reflection (the version is pinned; a field not found leaves GMS's
// aggregation as it is).
//
// GROUP_CONCAT(DISTINCT x) drops a value equal to one before under x's
// collation, as MySQL's (GMS compared bytes: 'Paris' and 'paris' were
// two values under utf8mb4_0900_ai_ci). The rebuilt aggregation keeps
// every row, and the buffer drops the duplicates, keyed by the values'
// collation weights.

// erCutByGroupConcat is ER_CUT_VALUE_GROUP_CONCAT.
const erCutByGroupConcat = 1260

// groupConcatCut is a GROUP_CONCAT cut as MySQL cuts it.
type groupConcatCut struct {
	*aggregation.GroupConcat // one byte longer than maxLen, without DISTINCT
	maxLen                   int
	distinct                 []sql.Expression // the values DISTINCT compares; nil without it
}

// cutGroupConcat is g cut as MySQL cuts it; nil when g cannot be
// rebuilt (a window function: MySQL has no GROUP_CONCAT window).
func cutGroupConcat(g *aggregation.GroupConcat) sql.Expression {
	if g.Window() != nil {
		return nil
	}
	v := reflect.ValueOf(g).Elem()
	distinct, separator, maxLen, sf := v.FieldByName("distinct"), v.FieldByName("separator"), v.FieldByName("maxLen"), v.FieldByName("sf")
	if !distinct.IsValid() || !separator.IsValid() || !maxLen.IsValid() || !sf.IsValid() ||
		distinct.Kind() != reflect.String || separator.Kind() != reflect.String || maxLen.Kind() != reflect.Int || sf.Kind() != reflect.Slice {
		return nil
	}
	children := g.Children()
	n := sf.Len()
	if n > len(children) {
		return nil
	}
	fields := make(sql.SortFields, n)
	for i := range fields {
		order, nulls := sf.Index(i).FieldByName("Order"), sf.Index(i).FieldByName("NullOrdering")
		if order.Kind() != reflect.Uint8 || nulls.Kind() != reflect.Uint8 {
			return nil
		}
		e2, _ := children[i].(sql.Expression2)
		fields[i] = sql.SortField{Column: children[i], Column2: e2, Order: sql.SortOrder(order.Uint()), NullOrdering: sql.NullOrdering(nulls.Uint())}
	}
	limit := int(maxLen.Int())
	if limit <= 0 || limit == int(^uint(0)>>1) {
		return nil
	}
	wide := aggregation.NewGroupConcat("", fields, separator.String(), children[n:], limit+1)
	wide = wide.WithId(g.Id()).(*aggregation.GroupConcat)
	c := &groupConcatCut{GroupConcat: wide, maxLen: limit}
	if distinct.String() != "" {
		c.distinct = children[n:]
	}
	return c
}

// Type is GMS's for the declared length (VARCHAR(512) up to 512).
func (c *groupConcatCut) Type() sql.Type {
	t := c.GroupConcat.Type()
	if c.maxLen <= 512 {
		if types.IsBlobType(t) {
			return types.MustCreateString(sqltypes.VarBinary, 512, sql.Collation_binary)
		}
		if types.IsText(t) {
			return types.MustCreateString(sqltypes.VarChar, 512, sql.Collation_Default)
		}
	}
	return t
}

func (c *groupConcatCut) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	n, err := c.GroupConcat.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	g, ok := n.(*aggregation.GroupConcat)
	if !ok {
		return n, nil
	}
	out := &groupConcatCut{GroupConcat: g.WithId(c.Id()).(*aggregation.GroupConcat), maxLen: c.maxLen}
	if c.distinct != nil {
		out.distinct = children[len(children)-len(c.distinct):]
	}
	return out, nil
}

func (c *groupConcatCut) WithId(id sql.ColumnId) sql.IdExpression {
	return &groupConcatCut{GroupConcat: c.GroupConcat.WithId(id).(*aggregation.GroupConcat), maxLen: c.maxLen, distinct: c.distinct}
}

func (c *groupConcatCut) NewBuffer() (sql.AggregationBuffer, error) {
	b, err := c.GroupConcat.NewBuffer()
	if err != nil {
		return nil, err
	}
	out := &groupConcatCutBuffer{AggregationBuffer: b, maxLen: c.maxLen, distinct: c.distinct}
	if c.distinct != nil {
		out.seen = map[string]struct{}{}
	}
	return out, nil
}

// groupConcatCutBuffer cuts GMS's result, and drops DISTINCT's
// duplicates.
type groupConcatCutBuffer struct {
	sql.AggregationBuffer
	maxLen   int
	rows     int
	distinct []sql.Expression
	seen     map[string]struct{} // the weights of the values kept
}

func (b *groupConcatCutBuffer) Update(ctx *sql.Context, row sql.Row) error {
	if b.distinct != nil {
		key, skip, err := distinctKey(ctx, b.distinct, row)
		if err != nil || skip {
			return err
		}
		if _, dup := b.seen[key]; dup {
			return nil
		}
		b.seen[key] = struct{}{}
	}
	b.rows++
	return b.AggregationBuffer.Update(ctx, row)
}

// distinctKey is the values of exprs for row as DISTINCT compares them:
// text by its collation's weights, other values by their text; skip
// when one is NULL (GROUP_CONCAT skips the row).
func distinctKey(ctx *sql.Context, exprs []sql.Expression, row sql.Row) (string, bool, error) {
	var key bytes.Buffer
	for _, e := range exprs {
		v, err := e.Eval(ctx, row)
		if err != nil || v == nil {
			return "", true, err
		}
		s, _, err := types.LongText.Convert(ctx, v)
		if err != nil {
			return "", true, err
		}
		text, ok := s.(string)
		if !ok {
			return "", true, nil
		}
		var part bytes.Buffer
		coll := sql.Collation_binary
		if st, ok := e.Type().(sql.StringType); ok && types.IsText(e.Type()) {
			coll = st.Collation()
		}
		if coll == sql.Collation_binary || coll.WriteWeightString(&part, text) != nil {
			part.Reset()
			part.WriteString(text)
		}
		fmt.Fprintf(&key, "%d:", part.Len())
		key.Write(part.Bytes())
	}
	return key.String(), false, nil
}

func (b *groupConcatCutBuffer) Eval(ctx *sql.Context) (any, error) {
	v, err := b.AggregationBuffer.Eval(ctx)
	if err != nil {
		return v, err
	}
	s, ok := v.(string)
	if !ok || len(s) <= b.maxLen {
		return v, nil
	}
	cut := b.maxLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	ctx.Warn(erCutByGroupConcat, "Row %d was cut by GROUP_CONCAT()", b.rows)
	return s[:cut], nil
}
