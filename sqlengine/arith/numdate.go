package arith

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// DATE_ADD and DATE_SUB (and date +/- INTERVAL) of an integer read its
// digits as a date, as MySQL's: 20010101 + INTERVAL 2 DAY is
// '2001-01-03', 20010101120000 + INTERVAL 1 SECOND '2001-01-01
// 12:00:01' (YYYYMMDD, YYMMDD, and with hhmmss; a lost leading zero
// restored). GMS read the number as datetime text and gave NULL with
// 1292. Digits that name no date keep GMS's NULL and warning.

// numDateArg is e, a DATE_ADD or DATE_SUB, with its integer date operand
// read as date text; nil when it has none.
func numDateArg(e sql.Expression) sql.Expression {
	var date sql.Expression
	switch x := e.(type) {
	case *function.DateAdd:
		date = x.Date
	case *function.DateSub:
		date = x.Date
	default:
		return nil
	}
	if !IsIntegerType(date.Type()) || types.IsBit(date.Type()) {
		return nil
	}
	ch := e.Children()
	if len(ch) != 2 {
		return nil
	}
	ne, err := e.WithChildren(&numDateText{child: date}, ch[1])
	if err != nil {
		return nil
	}
	return ne
}

// numDateText is its integer child as date text ('2001-01-03', with
// the time when the number has one), or its digits when they name no
// date.
type numDateText struct{ child sql.Expression }

var _ sql.Expression = (*numDateText)(nil)

func (d *numDateText) Resolved() bool             { return d.child.Resolved() }
func (d *numDateText) String() string             { return d.child.String() }
func (d *numDateText) Type() sql.Type             { return types.LongText }
func (d *numDateText) IsNullable() bool           { return d.child.IsNullable() }
func (d *numDateText) Children() []sql.Expression { return []sql.Expression{d.child} }

func (d *numDateText) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(d, len(children), 1)
	}
	return &numDateText{child: children[0]}, nil
}

func (d *numDateText) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	n, big, u, ok := IntOperand(v)
	if !ok {
		return fmt.Sprint(v), nil
	}
	if big {
		return fmt.Sprint(u), nil
	}
	digits := itoa(n)
	if n < 0 {
		return digits, nil
	}
	if l := len(digits); l == 5 || l == 7 || l == 11 || l == 13 {
		digits = "0" + digits // a leading zero the number lost
	}
	p, ok := ParseDateDigits(digits)
	if !ok || p.Mo < 1 || p.Mo > 12 || p.D < 1 || p.D > DaysIn(p.Y, p.Mo) || p.H > 23 || p.Mi > 59 || p.S > 59 {
		return itoa(n), nil
	}
	if p.HasTime {
		return fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", p.Y, p.Mo, p.D, p.H, p.Mi, p.S), nil
	}
	return fmt.Sprintf("%04d-%02d-%02d", p.Y, p.Mo, p.D), nil
}
