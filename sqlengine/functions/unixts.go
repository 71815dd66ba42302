package functions

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// UNIX_TIMESTAMP(ts) of a TIMESTAMP column is the instant the column
// holds. Petrel's tables return TIMESTAMP values as wall-clock times of
// the session's time_zone (sqlengine/tszone.go), as GMS's functions take
// every other time; GMS's UNIX_TIMESTAMP read a TIMESTAMP(0) argument as
// UTC, so under `SET time_zone = '+05:30'` a row written at
// '2020-06-01 12:00:00' UTC answered 1591032600, 5.5 hours late (MySQL
// 1591012800). UnixTimestampZoneRule hands GMS's UNIX_TIMESTAMP its
// TIMESTAMP argument typed as a DATETIME of the same precision, which it
// reads in the session's zone.

// UnixTimestampZoneRuleID names UnixTimestampZoneRule.
const UnixTimestampZoneRuleID analyzer.RuleId = 1804

// UnixTimestampZoneRule retypes the TIMESTAMP arguments of UNIX_TIMESTAMP.
func UnixTimestampZoneRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		ut, ok := e.(*function.UnixTimestamp)
		if !ok || len(ut.Children()) != 1 {
			return e, transform.SameTree, nil
		}
		arg := ut.Children()[0]
		dt, ok := arg.Type().(sql.DatetimeType)
		if !ok || arg.Type().Type() != sqltypes.Timestamp {
			return e, transform.SameTree, nil
		}
		typ, err := types.CreateDatetimeType(sqltypes.Datetime, dt.Precision())
		if err != nil {
			return e, transform.SameTree, nil
		}
		ne, err := ut.WithChildren(&asDatetime{Expression: arg, typ: typ})
		if err != nil {
			return e, transform.SameTree, nil
		}
		return ne, transform.NewTree, nil
	})
}

// asDatetime is a TIMESTAMP expression typed as a DATETIME.
type asDatetime struct {
	sql.Expression
	typ sql.Type
}

func (a *asDatetime) Type() sql.Type { return a.typ }

func (a *asDatetime) String() string { return a.Expression.String() }

func (a *asDatetime) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := a.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &asDatetime{Expression: e, typ: a.typ}, nil
}
