package sqlengine

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"

	"petrel/sqlengine/arith"
)

// CAST(d AS CHAR) and CAST(d AS BINARY) of a DECIMAL expression print
// it at its type's scale, as MySQL's val_str does. A quotient's value
// holds more digits than its scale (9-digit words: arith/divinc.go), and
// GMS printed them: CAST(1/3 AS CHAR) was '0.333333333' where MySQL
// answers '0.3333', CAST(2/3 AS CHAR(10)) '0.66666666', CAST(1/3*3 AS
// CHAR) '0.999999999' (MySQL: '1.0000').

const castCharRuleID analyzer.RuleId = 1732

// castCharRule puts decFixed under each cast of a DECIMAL to text.
func castCharRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return eachExpr(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		c, ok := e.(*expression.Convert)
		if !ok {
			return e, transform.SameTree, nil
		}
		if t := c.Type(); !types.IsText(t) && (t.Type() != sqltypes.VarBinary && t.Type() != sqltypes.Blob && t.Type() != sqltypes.Binary) {
			return e, transform.SameTree, nil
		}
		dt, ok := c.Child.Type().(sql.DecimalType)
		if !ok {
			return e, transform.SameTree, nil
		}
		if _, done := c.Child.(*decFixed); done {
			return e, transform.SameTree, nil
		}
		scale, ok := arith.ResultScale(c.Child, arith.DivIncrement(ctx))
		if !ok {
			scale = int(dt.Scale())
		}
		ne, err := c.WithChildren(&decFixed{child: c.Child, scale: int32(scale)})
		if err != nil {
			return nil, transform.SameTree, err
		}
		return ne, transform.NewTree, nil
	})
}

// decFixed is a DECIMAL's text at scale digits after the point.
type decFixed struct {
	child sql.Expression
	scale int32
}

var _ sql.Expression = (*decFixed)(nil)

func (d *decFixed) Resolved() bool             { return d.child.Resolved() }
func (d *decFixed) String() string             { return d.child.String() }
func (d *decFixed) IsNullable() bool           { return d.child.IsNullable() }
func (d *decFixed) Children() []sql.Expression { return []sql.Expression{d.child} }
func (d *decFixed) Type() sql.Type             { return types.LongText }

func (d *decFixed) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(d, len(children), 1)
	}
	return &decFixed{child: children[0], scale: d.scale}, nil
}

func (d *decFixed) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	switch v := v.(type) {
	case decimal.Decimal:
		return v.StringFixed(d.scale), nil
	case decimal.NullDecimal:
		if !v.Valid {
			return nil, nil
		}
		return v.Decimal.StringFixed(d.scale), nil
	}
	// Another representation: as GMS would print it.
	s, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return nil, err
	}
	if str, ok := s.(string); ok {
		return str, nil
	}
	return fmt.Sprint(s), nil
}
