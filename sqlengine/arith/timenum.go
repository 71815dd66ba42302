package arith

import (
	"fmt"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// A TIME value in a numeric context is the number its digits read,
// hhmmss: '09:26:00' + 0 is 92600 in MySQL. GMS's arithmetic and numeric
// casts read a TIME value (types.Timespan) as 0 (Zeit + 0, Zeit * 1,
// CAST(Zeit AS SIGNED) all 0). TimeOperands gives an arithmetic
// operator's or numeric cast's TIME operands as that number (timeNumber:
// an integer for TIME(0), a DECIMAL with the operand's precision's
// decimals for TIME(n), as '10:00:00.25' in a TIME(2) + 0 is 100000.25;
// timefsp.go).

// Likewise a DATE is yyyymmdd (GMS read it as a DATETIME:
// 20240229000000, and date_col + 1 was 20240229000001 where MySQL's is
// 20240230), and a DATETIME(n) or TIMESTAMP(n) yyyymmddhhmmss with n
// decimals (GMS dropped them).

// TimeOperands is e with its TIME operands as numbers when e is an
// arithmetic operator or a cast to a number (true); e itself otherwise.
func TimeOperands(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	switch x := e.(type) {
	case *expression.Arithmetic, *expression.Div, *expression.IntDiv, *expression.Mod, *expression.UnaryMinus:
	case *expression.Convert:
		if !types.IsNumber(x.Type()) {
			return e, false
		}
	default:
		return e, false
	}
	ch := e.Children()
	for _, c := range ch {
		if _, ok := c.(*expression.Interval); ok {
			return e, false // DATE_ADD (dateinterval.go)
		}
	}
	var out []sql.Expression
	for i, c := range ch {
		if c == nil {
			continue
		}
		var n sql.Expression
		switch t := c.Type(); {
		case types.IsTimespan(t):
			n = NewTimeNumber(ctx, c)
		case types.IsDateType(t):
			n = &dateNumber{child: c}
		case (types.IsDatetimeType(t) || types.IsTimestampType(t)) && t.(sql.DatetimeType).Precision() > 0 && isColumn(c):
			// Only a column's precision: GMS types STR_TO_DATE and
			// DATE_SUB DATETIME(6) where MySQL's are DATETIME(0).
			n = &dateNumber{child: c, fsp: t.(sql.DatetimeType).Precision()}
		default:
			continue
		}
		if out == nil {
			out = append([]sql.Expression(nil), ch...)
		}
		out[i] = n
	}
	if out == nil {
		return e, false
	}
	n, err := e.WithChildren(out...)
	if err != nil {
		return e, false
	}
	return n, true
}

// timeNumber is a TIME value as the integer hhmmss, or (fsp > 0) the
// DECIMAL hhmmss.f with fsp decimals.
type timeNumber struct {
	child sql.Expression
	fsp   int
}

var _ sql.Expression = (*timeNumber)(nil)

// NewTimeNumber is TIME expression e as a number, with e's precision's
// decimals when TimeFSP is sure of them.
func NewTimeNumber(ctx *sql.Context, e sql.Expression) sql.Expression {
	fsp, trusted := TimeFSP(ctx, e)
	if !trusted {
		fsp = 0
	}
	return &timeNumber{child: e, fsp: fsp}
}

func (t *timeNumber) Resolved() bool             { return t.child.Resolved() }
func (t *timeNumber) String() string             { return t.child.String() }
func (t *timeNumber) IsNullable() bool           { return t.child.IsNullable() }
func (t *timeNumber) Children() []sql.Expression { return []sql.Expression{t.child} }

func (t *timeNumber) Type() sql.Type {
	if t.fsp == 0 {
		return types.Int64
	}
	return types.MustCreateDecimalType(uint8(7+t.fsp), uint8(t.fsp))
}

func (t *timeNumber) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("arith: TIME number takes 1 child, got %d", len(children))
	}
	return &timeNumber{child: children[0], fsp: t.fsp}, nil
}

func (t *timeNumber) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := t.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	ts, ok := v.(types.Timespan)
	if !ok {
		return v, nil
	}
	us := ts.AsMicroseconds()
	neg := us < 0
	if neg {
		us = -us
	}
	secs := us / 1_000_000
	n := (secs/3600)*10000 + (secs/60%60)*100 + secs%60
	if t.fsp == 0 {
		if neg {
			n = -n
		}
		return n, nil
	}
	d := decimal.New(n, 0).Add(decimal.New(us%1_000_000, -6).Truncate(int32(t.fsp))).Add(decimal.New(0, -int32(t.fsp)))
	if neg {
		d = d.Neg()
	}
	return d, nil
}

// dateNumber is a DATE value as the integer yyyymmdd, or (fsp > 0) a
// DATETIME's as the DECIMAL yyyymmddhhmmss.f with fsp decimals.
type dateNumber struct {
	child sql.Expression
	fsp   int
}

var _ sql.Expression = (*dateNumber)(nil)

func (d *dateNumber) Resolved() bool             { return d.child.Resolved() }
func (d *dateNumber) String() string             { return d.child.String() }
func (d *dateNumber) IsNullable() bool           { return d.child.IsNullable() }
func (d *dateNumber) Children() []sql.Expression { return []sql.Expression{d.child} }

func (d *dateNumber) Type() sql.Type {
	if d.fsp == 0 {
		return types.Int64
	}
	return types.MustCreateDecimalType(uint8(14+d.fsp), uint8(d.fsp))
}

func (d *dateNumber) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("arith: DATE number takes 1 child, got %d", len(children))
	}
	return &dateNumber{child: children[0], fsp: d.fsp}, nil
}

func (d *dateNumber) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	tm, ok := v.(time.Time)
	if !ok {
		// GMS's DATE() and a few others are DATE-typed but evaluate
		// to the date's text: read it back as the date it prints.
		s, isText := v.(string)
		if !isText {
			return v, nil
		}
		cv, _, cerr := types.DatetimeMaxPrecision.Convert(ctx, s)
		if tm, ok = cv.(time.Time); cerr != nil || !ok {
			return v, nil
		}
	}
	ymd := int64(tm.Year())*10000 + int64(tm.Month())*100 + int64(tm.Day())
	if d.fsp == 0 {
		return ymd, nil
	}
	whole := ymd*1_000_000 + int64(tm.Hour())*10000 + int64(tm.Minute())*100 + int64(tm.Second())
	frac := decimal.New(int64(tm.Nanosecond()/1000), -6).Truncate(int32(d.fsp))
	return decimal.New(whole, 0).Add(frac).Add(decimal.New(0, -int32(d.fsp))), nil
}

func isColumn(e sql.Expression) bool {
	_, ok := e.(*expression.GetField)
	return ok
}
