package arith

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// ResultScale is MySQL's scale of e's DECIMAL result under division
// increment inc: a quotient's is its dividend's plus inc (at most 30),
// a product's the sum of its operands', a sum's or difference's the
// larger. GMS types a quotient below another operator or a cast at 9
// digits (its 9-digit words), and a product over it so: its value holds
// those digits (divinc.go), its printed text must not.
func ResultScale(e sql.Expression, inc int) (int, bool) {
	var op string
	var l, r sql.Expression
	switch x := e.(type) {
	case *expression.Div:
		s, ok := ResultScale(x.LeftChild, inc)
		if !ok {
			return 0, false
		}
		return min(s+inc, maxDivScale), true
	case *divInc:
		return min(x.lscale+x.inc, maxDivScale), true
	case *expression.Arithmetic:
		op, l, r = x.Op, x.LeftChild, x.RightChild
	case *DecArith:
		op, l, r = x.gms.Op, x.left, x.right
	case *expression.UnaryMinus:
		return ResultScale(x.Child, inc)
	default:
		if _, s, ok := decimalDigits(e); ok {
			return s, true
		}
		_, s, ok := ExactDigits(e.Type())
		return s, ok
	}
	s1, ok1 := ResultScale(l, inc)
	s2, ok2 := ResultScale(r, inc)
	if !ok1 || !ok2 {
		return 0, false
	}
	switch op {
	case sqlparser.PlusStr, sqlparser.MinusStr:
		return max(s1, s2), true
	case sqlparser.MultStr:
		return min(s1+s2, maxDivScale), true
	}
	return 0, false
}
