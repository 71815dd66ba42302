package arith

import "github.com/dolthub/go-mysql-server/sql"

// FloatUnwrapped is the GMS arithmetic under e when e is floatArith's
// overflow check, else e: a reader of the expression's operator and
// operands (sqlengine/doubledecimals.go) looks through the check.
func FloatUnwrapped(e sql.Expression) sql.Expression {
	if f, ok := e.(floatArith); ok {
		return f.Expression
	}
	return e
}
