package storeval

import (
	"fmt"
	"math/big"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/sqlmode"
)

// The value an INSERT gives an AUTO_INCREMENT column, as MySQL takes it.
// GMS's AutoIncrement converts a given value to the column's type by
// clipping it (1000 into a TINYINT stored 127, strict mode or not), clips
// the next generated value the same way (so a full TINYINT sequence gave
// 127 again and a duplicate key), and ignores auto_increment_increment
// and auto_increment_offset. autoIncGiven stands between it and the
// value: a given value is stored by Value (1264 in strict mode, clipped
// with the warning otherwise); for a generated one it computes MySQL's
// next value from the table's counter and the two variables, refuses one
// the column cannot hold (MySQL's 167, HA_ERR_AUTOINC_ERANGE, in any
// mode) and, when the variables are not 1, hands it to AutoIncrement as
// if given, which moves the counter past it.
type autoIncGiven struct {
	child sql.Expression
	col   *sql.Column
	tbl   sql.AutoIncrementGetter
	mode  Mode
	n     *int // rows evaluated: the row number of messages
}

var _ sql.Expression = (*autoIncGiven)(nil)

func (x *autoIncGiven) Resolved() bool             { return x.child.Resolved() }
func (x *autoIncGiven) String() string             { return x.child.String() }
func (x *autoIncGiven) Type() sql.Type             { return x.child.Type() }
func (x *autoIncGiven) IsNullable() bool           { return x.child.IsNullable() }
func (x *autoIncGiven) Children() []sql.Expression { return []sql.Expression{x.child} }

func (x *autoIncGiven) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("storeval: auto-increment value takes 1 child, got %d", len(children))
	}
	c := *x
	c.child = children[0]
	return &c, nil
}

func (x *autoIncGiven) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	*x.n++
	v, err := x.child.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if v != nil {
		if v, err = Value(ctx, x.mode, x.col, v, *x.n); err != nil {
			return nil, err
		}
		zero, err := x.col.Type.Compare(ctx, v, x.col.Type.Zero())
		if err != nil || zero != 0 || sqlmode.Load(ctx).ModeEnabled(sql.NoAutoValueOnZero) {
			return v, err
		}
	}
	// Generated: MySQL's next value after the counter's last
	// (handler.cc's compute_next_insert_id).
	next, err := x.tbl.PeekNextAutoIncrementValue(ctx)
	if err != nil {
		return nil, err
	}
	inc, off := sessionUint(ctx, "auto_increment_increment"), sessionUint(ctx, "auto_increment_offset")
	if inc == 0 {
		inc = 1
	}
	if off == 0 || off > inc {
		off = 1
	}
	gen := next
	if inc != 1 || off != 1 {
		gen = ((next-1+inc-off)/inc)*inc + off
	}
	if types.IsInteger(x.col.Type) {
		if _, hi, _ := intBounds(x.col); decimal.NewFromBigInt(new(big.Int).SetUint64(gen), 0).GreaterThan(hi) {
			return nil, mysqlerr.New(mysqlerr.ErAutoincErange, "Out of range value for column '%s' at row %d", x.col.Name, *x.n)
		}
	}
	if gen == next {
		return v, nil // AutoIncrement takes the counter's value
	}
	return gen, nil
}

// sessionUint is an integer session variable's value (0 if unset).
func sessionUint(ctx *sql.Context, name string) uint64 {
	v, err := ctx.GetSessionVariable(ctx, name)
	if err != nil {
		return 0
	}
	switch n := v.(type) {
	case int64:
		if n > 0 {
			return uint64(n)
		}
	case uint64:
		return n
	case int:
		if n > 0 {
			return uint64(n)
		}
	case int32:
		if n > 0 {
			return uint64(n)
		}
	case uint32:
		return uint64(n)
	}
	return 0
}

// checkedAutoIncrement gives each AutoIncrement in an INSERT's row
// projection (GMS's wrapRowSource puts it there) an autoIncGiven; src is
// returned unchanged when it has none.
func checkedAutoIncrement(ctx *sql.Context, src sql.Node, sch sql.Schema, tbl sql.Table, ignore bool) sql.Node {
	p, ok := src.(*plan.Project)
	if !ok || len(p.Projections) != len(sch) {
		return src
	}
	getter, ok := tbl.(sql.AutoIncrementGetter)
	if !ok {
		return src
	}
	var exprs []sql.Expression
	n := new(int)
	for i, e := range p.Projections {
		ai, ok := e.(*expression.AutoIncrement)
		if !ok || i >= len(sch) || !sch[i].AutoIncrement {
			continue
		}
		wrapped, err := ai.WithChildren(&autoIncGiven{child: ai.Child, col: sch[i], tbl: getter, mode: storeModeOf(ctx, ignore), n: n})
		if err != nil {
			return src
		}
		if exprs == nil {
			exprs = append([]sql.Expression(nil), p.Projections...)
		}
		exprs[i] = wrapped
	}
	if exprs == nil {
		return src
	}
	np, err := p.WithExpressions(exprs...)
	if err != nil {
		return src
	}
	return np
}
