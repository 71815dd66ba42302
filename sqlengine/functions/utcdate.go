package functions

import (
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// UTC_DATE() (and UTC_DATE without parentheses): the statement's date in
// UTC, a DATE, as MySQL gives it. GMS has no such function (1305).
func newUTCDate(args ...sql.Expression) (sql.Expression, error) {
	if len(args) != 0 {
		return nil, sql.ErrInvalidArgumentNumber.New("UTC_DATE", 0, len(args))
	}
	return &scalarFn{name: "utc_date", typ: types.Date, mk: newUTCDate, volatile: true, eval: func(ctx *sql.Context, _ []any) (any, error) {
		t := ctx.QueryTime().UTC()
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), nil
	}}, nil
}
