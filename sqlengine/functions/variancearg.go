package functions

import "github.com/dolthub/go-mysql-server/sql"

// IsVariance reports whether e is one of STD, STDDEV, VARIANCE and their
// _POP and _SAMP forms as Petrel registers them (variance.go): MySQL
// gives their results over an integer or DECIMAL argument fixed
// decimals (sqlengine/doubledecimals.go).
func IsVariance(e sql.Expression) bool {
	_, ok := e.(*varianceAgg)
	return ok
}
