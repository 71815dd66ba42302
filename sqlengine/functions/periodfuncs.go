package functions

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
)

// PERIOD_ADD(P, N) and PERIOD_DIFF(P1, P2), which GMS lacks: periods are
// YYMM or YYYYMM numbers (YY below 70 is 20YY, else 19YY), as MySQL's
// convert_period_to_month and convert_month_to_period read and write
// them. A period whose month is not 1-12 is error 1210, as MySQL 8.

type periodFunc struct {
	name string
	a, b sql.Expression
}

var _ sql.FunctionExpression = (*periodFunc)(nil)

func newPeriodAdd(a, b sql.Expression) sql.Expression {
	return &periodFunc{name: "period_add", a: a, b: b}
}
func newPeriodDiff(a, b sql.Expression) sql.Expression {
	return &periodFunc{name: "period_diff", a: a, b: b}
}

func (p *periodFunc) Resolved() bool             { return p.a.Resolved() && p.b.Resolved() }
func (p *periodFunc) String() string             { return fmt.Sprintf("%s(%s, %s)", p.name, p.a, p.b) }
func (p *periodFunc) Type() sql.Type             { return types.Int64 }
func (p *periodFunc) IsNullable() bool           { return true }
func (p *periodFunc) Children() []sql.Expression { return []sql.Expression{p.a, p.b} }
func (p *periodFunc) FunctionName() string       { return p.name }
func (p *periodFunc) Description() string        { return "MySQL's " + p.name }

func (p *periodFunc) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(p, len(children), 2)
	}
	return &periodFunc{name: p.name, a: children[0], b: children[1]}, nil
}

func (p *periodFunc) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	var n [2]int64
	for i, e := range []sql.Expression{p.a, p.b} {
		v, err := e.Eval(ctx, row)
		if err != nil || v == nil {
			return nil, err
		}
		c, _, err := types.Int64.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		n[i] = c.(int64)
	}
	bad := func(period int64) bool { return period < 0 || (period != 0 && (period%100 < 1 || period%100 > 12)) }
	if bad(n[0]) || (p.name == "period_diff" && bad(n[1])) {
		return nil, mysqlerr.New(mysqlerr.ErWrongArguments, "Incorrect arguments to %s", p.name)
	}
	if p.name == "period_diff" {
		return periodMonths(n[0]) - periodMonths(n[1]), nil
	}
	return monthsPeriod(periodMonths(n[0]) + n[1]), nil
}

func periodYear(y int64) int64 {
	if y < 100 {
		if y < 70 {
			return y + 2000
		}
		return y + 1900
	}
	return y
}

func periodMonths(period int64) int64 {
	if period == 0 {
		return 0
	}
	return periodYear(period/100)*12 + period%100 - 1
}

func monthsPeriod(months int64) int64 {
	if months <= 0 {
		return 0
	}
	return periodYear(months/12)*100 + months%12 + 1
}
