package functions

import "github.com/dolthub/go-mysql-server/sql"

// RoundArgs are the value and decimals arguments of ROUND(x[, d]) or
// TRUNCATE(x, d) (d nil for ROUND(x)); ok false for other expressions.
// MySQL gives a DOUBLE result of either d decimals when d is a
// constant, printed with that many digits (ROUND(1.5e0, 2) is 1.50).
func RoundArgs(e sql.Expression) (x, d sql.Expression, ok bool) {
	switch f := e.(type) {
	case *truncateExpr:
		return f.x, f.d, true
	case *delegate:
		if f.name != "round" || len(f.args) == 0 {
			return nil, nil, false
		}
		if len(f.args) > 1 {
			d = f.args[1]
		}
		return f.args[0], d, true
	}
	return nil, nil, false
}
