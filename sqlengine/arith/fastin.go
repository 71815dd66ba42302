package arith

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
)

// An integer column tested against a list of integer literals
// (`p_size IN (48, 19, 12, 4, 41, 7, 21, 39)`, TPC-H Q16 and Q19) is a
// set lookup of the column's value. GMS's HashInTuple hashes each
// value by converting it to the promoted type and printing it as text
// (fmt.Sprintf) per row: 7% of Q16's time went to its filter's IN. The
// literals are integers and none is NULL, so the answer is the set's:
// NULL for a NULL value, else whether the value is a member, the same
// as MySQL's comparison of integers. Any other value (an unsigned one
// past int64's range) falls back to GMS's evaluation.

// FastIn is an integer column's IN over integer literals.
type FastIn struct {
	sql.Expression // GMS's InTuple or HashInTuple: everything but Eval
	col            *expression.GetField
	small          []int64            // up to smallIn members, scanned
	set            map[int64]struct{} // larger lists
}

// smallIn is the longest list kept as a slice: a scan of a few int64s
// beats a map's hash.
const smallIn = 8

// NewFastIn returns e as a FastIn, or nil.
func NewFastIn(e sql.Expression) *FastIn {
	var l, r sql.Expression
	switch x := e.(type) {
	case *expression.InTuple:
		l, r = x.Left(), x.Right()
	case *expression.HashInTuple:
		l, r = x.Left(), x.Right()
	default:
		return nil
	}
	col, ok := l.(*expression.GetField)
	if !ok || !IsIntegerType(col.Type()) {
		return nil
	}
	tup, ok := r.(expression.Tuple)
	if !ok || len(tup) == 0 {
		return nil
	}
	vals := make([]int64, 0, len(tup))
	for _, it := range tup {
		lit, ok := it.(*expression.Literal)
		if !ok || lit.Value() == nil || !IsIntegerType(lit.Type()) {
			return nil
		}
		n, big, _, ok := IntOperand(lit.Value())
		if !ok || big {
			return nil
		}
		if _, isBool := lit.Value().(bool); isBool {
			return nil
		}
		vals = append(vals, n)
	}
	f := &FastIn{Expression: e, col: col}
	if len(vals) <= smallIn {
		f.small = vals
		return f
	}
	f.set = make(map[int64]struct{}, len(vals))
	for _, v := range vals {
		f.set[v] = struct{}{}
	}
	return f
}

// Children is the column alone: the list is literals, and GMS's operand
// check (validateOperands) takes any expression it does not know for
// one whose children are each one value, which a list is not.
func (f *FastIn) Children() []sql.Expression {
	return []sql.Expression{f.col}
}

func (f *FastIn) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 1)
	}
	e, err := f.Expression.WithChildren(children[0], f.Expression.Children()[1])
	if err != nil {
		return nil, err
	}
	if n := NewFastIn(e); n != nil {
		return n, nil
	}
	return e, nil
}

func (f *FastIn) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	v, err := f.col.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	if _, isBool := v.(bool); isBool {
		return f.Expression.Eval(ctx, row)
	}
	n, big, _, ok := IntOperand(v)
	if !ok || big {
		return f.Expression.Eval(ctx, row)
	}
	if f.set != nil {
		_, in := f.set[n]
		return in, nil
	}
	for _, m := range f.small {
		if m == n {
			return true, nil
		}
	}
	return false, nil
}
