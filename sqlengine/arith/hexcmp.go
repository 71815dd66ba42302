package arith

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// A hexadecimal or bit-value literal (X'05', 0x05, b'101') compared with
// a number is the number its bytes spell, as MySQL's Item_hex_string in
// numeric context: X'05' = 5 is 1. GMS compared the bytes with the
// number's text (0). Other binary strings (_binary'A', a VARBINARY
// column) stay strings.

// hexComparison is e with its hexadecimal literals compared with a
// number replaced by their value; ok=false when there are none.
func hexComparison(e sql.Expression) (sql.Expression, bool) {
	switch x := e.(type) {
	case *expression.InTuple:
		tup, ok := x.Right().(expression.Tuple)
		if !ok {
			return nil, false
		}
		left, changed := x.Left(), false
		elems := make([]sql.Expression, len(tup))
		for i, el := range tup {
			elems[i] = el
			if n, ok := hexNumber(el, left); ok {
				elems[i], changed = n, true
			}
		}
		if n, ok := hexNumberOfTuple(left, tup); ok {
			left, changed = n, true
		}
		if !changed {
			return nil, false
		}
		return expression.NewInTuple(left, expression.NewTuple(elems...)), true
	case expression.Comparer:
		l, r := x.Left(), x.Right()
		nl, okl := hexNumber(l, r)
		nr, okr := hexNumber(r, l)
		if !okl && !okr {
			return nil, false
		}
		if okl {
			l = nl
		}
		if okr {
			r = nr
		}
		ne, err := x.WithChildren(l, r)
		if err != nil {
			return nil, false
		}
		return ne, true
	}
	return nil, false
}

// hexNumber is lit's value as a BIGINT UNSIGNED when lit is a
// hexadecimal literal of at most 8 bytes and other is a number.
func hexNumber(lit, other sql.Expression) (sql.Expression, bool) {
	if !numeric(other.Type()) {
		return nil, false
	}
	return hexValue(lit)
}

// hexNumberOfTuple is hexNumber for an IN's left operand: a number when
// every element of the list is.
func hexNumberOfTuple(lit sql.Expression, tup expression.Tuple) (sql.Expression, bool) {
	for _, el := range tup {
		if !numeric(el.Type()) {
			return nil, false
		}
	}
	return hexValue(lit)
}

func hexValue(lit sql.Expression) (sql.Expression, bool) {
	l, ok := lit.(*expression.Literal)
	if !ok || l.Type() != types.LongBlob {
		return nil, false
	}
	b, ok := l.Value().([]byte)
	if !ok || len(b) > 8 {
		return nil, false
	}
	var n uint64
	for _, c := range b {
		n = n<<8 | uint64(c)
	}
	return expression.NewLiteral(n, types.Uint64), true
}

// numeric: an integer, DECIMAL, DOUBLE, FLOAT or BIT type.
func numeric(t sql.Type) bool {
	return IsIntegerType(t) || types.IsDecimal(t) || types.IsFloat(t) || types.IsBit(t)
}
