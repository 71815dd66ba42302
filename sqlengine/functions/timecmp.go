package functions

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/sqlengine/arith"
)

// A TIME expression compared with a string compares TIMEs, as MySQL
// converts the string: GMS's comparison has no common type for a TIME
// value and text unless the TIME is a column, so `TIME(t) = '10:00:00'`,
// `CAST('10:00:00' AS TIME) = '10:00:00'` and `ADDTIME(t, '1:00')
// BETWEEN '9:00' AND '11:00'` were false for every row. timeCompare
// converts the string side of such a comparison to TIME. A TIME column
// compared with a string is left as it is (GMS compares it as a TIME,
// and index ranges and the fast comparisons take it so).
//
// A TIME compared with a DECIMAL or floating-point number compares
// numbers, the TIME read as hhmmss.f (arith.NewTimeNumber): GMS read the
// number as a TIME and lost its fraction, so `t = 100000.25` was false
// for '10:00:00.25' in a TIME(2).
func timeCompare(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	if c, ok := e.(expression.Comparer); ok {
		if ch := e.Children(); len(ch) == 2 {
			l, r := ch[0], ch[1]
			changed := true
			switch {
			case types.IsTimespan(l.Type()) && fractionalNumber(r.Type()):
				l = arith.NewTimeNumber(ctx, l)
			case types.IsTimespan(r.Type()) && fractionalNumber(l.Type()):
				r = arith.NewTimeNumber(ctx, r)
			default:
				changed = false
			}
			if changed {
				ne, err := c.WithChildren(l, r)
				if err != nil {
					return e, transform.SameTree, nil
				}
				return ne, transform.NewTree, nil
			}
		}
	}
	switch x := e.(type) {
	case *expression.Between:
		if !timeExpr(x.Val) {
			return e, transform.SameTree, nil
		}
		lo, hi := asTime(x.Lower), asTime(x.Upper)
		if lo == x.Lower && hi == x.Upper {
			return e, transform.SameTree, nil
		}
		return expression.NewBetween(x.Val, lo, hi), transform.NewTree, nil
	case expression.Comparer:
		ch := e.Children()
		if len(ch) != 2 {
			return e, transform.SameTree, nil
		}
		l, r := ch[0], ch[1]
		switch {
		case timeExpr(l) && types.IsText(r.Type()):
			r = asTime(r)
		case timeExpr(r) && types.IsText(l.Type()):
			l = asTime(l)
		default:
			return e, transform.SameTree, nil
		}
		ne, err := e.WithChildren(l, r)
		if err != nil {
			return e, transform.SameTree, nil
		}
		return ne, transform.NewTree, nil
	}
	return e, transform.SameTree, nil
}

// timeExpr: e is a TIME expression other than a column.
func timeExpr(e sql.Expression) bool {
	if _, ok := e.(*expression.GetField); ok {
		return false
	}
	return types.IsTimespan(e.Type())
}

// asTime is e converted to TIME when it is text, e itself otherwise.
func asTime(e sql.Expression) sql.Expression {
	if !types.IsText(e.Type()) {
		return e
	}
	// At full precision: the string's fraction is compared whole.
	return expression.NewConvertWithLengthAndScale(e, expression.ConvertToTime, 6, 0)
}

// timeFn is TIME(x): GMS's, but a TIME argument is its own value. GMS
// read a TIME value as a date and time first, so TIME('-01:00:00' in a
// TIME column) was 23:00:00 and TIME of 25:00:00 was 01:00:00 (MySQL:
// the value itself).
type timeFn struct{ *function.Time }

func newTimeFn(arg sql.Expression) sql.Expression {
	return &timeFn{function.NewTime(arg).(*function.Time)}
}

func (t *timeFn) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := t.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	if ts, ok := v.(types.Timespan); ok {
		return ts, nil
	}
	return t.Time.Eval(ctx, row)
}

func (t *timeFn) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 1)
	}
	return newTimeFn(children[0]), nil
}

// fractionalNumber: t is a DECIMAL or a floating-point type.
func fractionalNumber(t sql.Type) bool {
	return types.IsDecimal(t) || types.IsFloat(t)
}
