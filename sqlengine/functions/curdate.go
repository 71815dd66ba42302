package functions

import (
	"context"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// curDate is CURDATE() and CURRENT_DATE as MySQL's: a DATE of the
// session's time zone. GMS's was text of the query time's UTC date, so
// CURDATE() + 0 read 2026 (the text's leading number; MySQL 20261130),
// CREATE TABLE ... AS SELECT CURDATE() made a LONGTEXT column, clients
// were sent a string column, and under `SET time_zone = '+10:00'` it
// named the day before NOW()'s.
type curDate struct {
	name string
	now  sql.Expression // GMS's NOW(), in the session's time zone
}

var _ sql.FunctionExpression = (*curDate)(nil)

func newCurDate(name string) func() sql.Expression {
	return func() sql.Expression {
		now, _ := function.NewNow()
		return &curDate{name: name, now: now}
	}
}

func (c *curDate) Resolved() bool             { return true }
func (c *curDate) String() string             { return c.name + "()" }
func (c *curDate) Type() sql.Type             { return types.Date }
func (c *curDate) IsNullable() bool           { return false }
func (c *curDate) IsNonDeterministic() bool   { return true }
func (c *curDate) Children() []sql.Expression { return nil }
func (c *curDate) FunctionName() string       { return c.name }
func (c *curDate) Description() string        { return "returns the current date." }
func (c *curDate) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (c *curDate) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 0)
	}
	return c, nil
}

func (c *curDate) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.now.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	t, ok := v.(time.Time)
	if !ok {
		return nil, sql.ErrInvalidType.New(v)
	}
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), nil
}

// curTime is CURTIME([fsp]) and CURRENT_TIME as MySQL's: a TIME of the
// session's time zone, with fsp fractional digits. GMS's was text
// ('13:17:11', its fraction dropped), so CURTIME() + 0 read 13 (MySQL
// 131711), a copy made a LONGTEXT column, and CURTIME(2) LIKE '%.__'
// failed with 1105.
type curTime struct {
	name string
	now  sql.Expression // GMS's NOW(fsp), in the session's time zone
	args []sql.Expression
}

var _ sql.FunctionExpression = (*curTime)(nil)

func newCurTime(name string) func(args ...sql.Expression) (sql.Expression, error) {
	return func(args ...sql.Expression) (sql.Expression, error) {
		if len(args) > 1 {
			return nil, sql.ErrInvalidArgumentNumber.New(name, "0 or 1", len(args))
		}
		now, err := function.NewNow(args...)
		if err != nil {
			return nil, err
		}
		return &curTime{name: name, now: now, args: args}, nil
	}
}

func (c *curTime) Resolved() bool {
	for _, a := range c.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}
func (c *curTime) String() string {
	if len(c.args) == 1 {
		return c.name + "(" + c.args[0].String() + ")"
	}
	return c.name + "()"
}
func (c *curTime) Type() sql.Type { return types.Time }

// FSP is CURTIME(n)'s n (arith.TimeFSP); 0 without one.
func (c *curTime) FSP() int {
	if len(c.args) == 1 {
		if l, ok := c.args[0].(*expression.Literal); ok {
			if n, _, err := types.Int64.Convert(context.Background(), l.Value()); err == nil {
				return min(max(int(n.(int64)), 0), 6)
			}
		}
		return 6
	}
	return 0
}
func (c *curTime) IsNullable() bool           { return false }
func (c *curTime) IsNonDeterministic() bool   { return true }
func (c *curTime) Children() []sql.Expression { return c.args }
func (c *curTime) FunctionName() string       { return c.name }
func (c *curTime) Description() string        { return "returns the current time." }
func (c *curTime) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (c *curTime) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return newCurTime(c.name)(children...)
}

func (c *curTime) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.now.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	t, ok := v.(time.Time)
	if !ok {
		return nil, sql.ErrInvalidType.New(v)
	}
	return types.Time.MicrosecondsToTimespan(clockOf(t)), nil // miscfuncs.go
}
