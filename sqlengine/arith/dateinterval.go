package arith

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// dateInterval is `x + INTERVAL n unit` (or INTERVAL n unit + x, or
// x - INTERVAL n unit) as DATE_ADD(x, INTERVAL n unit) (DATE_SUB),
// which MySQL defines them to be; nil for other arithmetic. GMS typed
// the operator DATETIME whatever x was, so CURDATE() - INTERVAL 1 DAY
// and date_col + INTERVAL 1 YEAR printed '2024-01-01 00:00:00' where
// MySQL prints the DATE '2024-01-01'.
func dateInterval(a *expression.Arithmetic) sql.Expression {
	var x sql.Expression
	var iv *expression.Interval
	switch a.Op {
	case sqlparser.PlusStr:
		if i, ok := a.RightChild.(*expression.Interval); ok {
			x, iv = a.LeftChild, i
		} else if i, ok := a.LeftChild.(*expression.Interval); ok {
			x, iv = a.RightChild, i
		}
	case sqlparser.MinusStr:
		if i, ok := a.RightChild.(*expression.Interval); ok {
			x, iv = a.LeftChild, i
		}
	}
	if iv == nil {
		return nil
	}
	if _, ok := x.(*expression.Interval); ok {
		return nil
	}
	var out sql.Expression
	var err error
	if a.Op == sqlparser.MinusStr {
		out, err = function.NewDateSub(x, iv)
	} else {
		out, err = function.NewDateAdd(x, iv)
	}
	if err != nil {
		return nil
	}
	return out
}
