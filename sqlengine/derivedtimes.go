package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Readers of a derived table's (or a view's) DATE or DATETIME column
// take the column's type as analysed, as derivedtypes.go does for
// DECIMALs: GMS built DATE_ADD's readers DATETIME(6) whatever its
// operands (`SELECT w FROM (SELECT d - INTERVAL 1 HOUR w ...) s ORDER BY
// w` printed six zero decimals), where the analysed DATE_ADD has MySQL's
// type (arith/dateinterval.go: DATETIME(0) for it).

const derivedTimesRuleID analyzer.RuleId = 1751

func derivedTimesRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return retypeDerivedReaders(n, dateOrDatetime, func(reader, analysed sql.Type) bool { // derivedtypes.go
		return dateOrDatetime(reader) && !analysed.Equals(reader)
	})
}

// dateOrDatetime: a DATE or DATETIME type (not TIMESTAMP, whose values
// a reader converts by time zone).
func dateOrDatetime(t sql.Type) bool {
	return types.IsDateType(t) || types.IsDatetimeType(t)
}
