package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/sqlengine/functions"
)

// The string operators GMS builds without the function registry, TRIM,
// LIKE and REGEXP, read a DOUBLE or FLOAT operand as MySQL's text of it
// too (functions/doubletext.go does the registered string functions):
// 1e15 LIKE '1e%' is 1, TRIM(LEADING '1' FROM 1e15) 'e15'; GMS read
// 1000000000000000.

// doubleTextOperands is e with its DOUBLE operands read as text, when e
// is one of those operators and has one.
func doubleTextOperands(e sql.Expression) (sql.Expression, bool) {
	switch e.(type) {
	case *function.Trim, *expression.Like, *function.RegexpLike:
	default:
		return nil, false
	}
	kids := e.Children()
	out := make([]sql.Expression, len(kids))
	changed := false
	for i, k := range kids {
		out[i] = k
		if k != nil && k.Resolved() && types.IsFloat(k.Type()) {
			out[i], changed = functions.DoubleText(k), true
		}
	}
	if !changed {
		return nil, false
	}
	ne, err := e.WithChildren(out...)
	if err != nil {
		return nil, false
	}
	return ne, true
}
