package functions

import (
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// A DATE as text is 'YYYY-MM-DD', and a DATETIME(n) column's value has n
// fractional digits, as MySQL prints them. GMS's string conversion reads
// any time.Time as a DATETIME with its non-zero fraction, so
// CONCAT(date_col), CONCAT_WS(',', date_col) and GROUP_CONCAT(date_col)
// gave '2024-02-29 00:00:00', and CONCAT(datetime2_col)
// '2024-02-29 10:11:12.5' for '... .50'.

// asText is a as text when CONCAT must not take GMS's conversion of it
// (nil otherwise).
func asText(a sql.Expression) sql.Expression {
	if a == nil || !a.Resolved() {
		return nil
	}
	t := a.Type()
	switch {
	case types.IsTimespan(t):
		return &timeText{child: a}
	case types.IsDateType(t):
		return &dateText{child: a, layout: "2006-01-02"}
	case types.IsDatetimeType(t) || types.IsTimestampType(t):
		// A column's precision only: GMS types many expressions
		// DATETIME(6) where MySQL's are DATETIME(0).
		if _, ok := a.(*expression.GetField); !ok {
			return nil
		}
		layout := "2006-01-02 15:04:05"
		if p := t.(sql.DatetimeType).Precision(); p > 0 {
			layout += "." + strings.Repeat("0", p)
		}
		return &dateText{child: a, layout: layout}
	}
	return nil
}

// groupConcatText is g with its DATE and DATETIME arguments as text (the
// ORDER BY ones too: their text sorts as they do).
func groupConcatText(g *aggregation.GroupConcat) (sql.Expression, transform.TreeIdentity, error) {
	ch := g.Children()
	var out []sql.Expression
	for i, c := range ch {
		if c == nil || types.IsTimespan(c.Type()) {
			continue
		}
		t := asText(c)
		if t == nil {
			continue
		}
		if out == nil {
			out = append([]sql.Expression(nil), ch...)
		}
		out[i] = t
	}
	if out == nil {
		return g, transform.SameTree, nil
	}
	n, err := g.WithChildren(out...)
	if err != nil {
		return g, transform.SameTree, nil
	}
	return n, transform.NewTree, nil
}

// dateText is a DATE or DATETIME value as text in layout.
type dateText struct {
	child  sql.Expression
	layout string
}

var _ sql.Expression = (*dateText)(nil)
var _ sql.CollationCoercible = (*dateText)(nil)

func (t *dateText) Resolved() bool             { return t.child.Resolved() }
func (t *dateText) String() string             { return t.child.String() }
func (t *dateText) IsNullable() bool           { return t.child.IsNullable() }
func (t *dateText) Children() []sql.Expression { return []sql.Expression{t.child} }

func (t *dateText) Type() sql.Type {
	return types.MustCreateStringWithDefaults(sqltypes.VarChar, int64(len(t.layout)))
}

// CollationCoercibility: as timeText's.
func (t *dateText) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return ctx.GetCollation(), 5
}

func (t *dateText) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("functions: DATE text takes 1 child, got %d", len(children))
	}
	return &dateText{child: children[0], layout: t.layout}, nil
}

func (t *dateText) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := t.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	tm, ok := v.(time.Time)
	if !ok {
		return v, nil
	}
	if tm.IsZero() || tm.Year() == 0 {
		// The zero date keeps GMS's text.
		return v, nil
	}
	return tm.Format(t.layout), nil
}
