package sqlengine

import (
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"

	"petrel/sqlengine/arith"
	"petrel/sqlengine/functions"
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
		if ch, ok := e.(*function.Char); ok && ch.Collation != sql.Collation_binary && ch.Collation != sql.Collation_Unspecified {
			return &charUsing{args: ch.Children(), coll: ch.Collation}, transform.NewTree, nil // charusing.go
		}
		if ne, ok := doubleTextOperands(e); ok {
			return ne, transform.NewTree, nil // doubletextops.go
		}
		c, ok := e.(*expression.Convert)
		if !ok {
			return e, transform.SameTree, nil
		}
		if z, ok := zeroLengthCast(c); ok {
			return z, transform.NewTree, nil // castzero.go
		}
		if t := c.Type(); !types.IsText(t) && (t.Type() != sqltypes.VarBinary && t.Type() != sqltypes.Blob && t.Type() != sqltypes.Binary) {
			return e, transform.SameTree, nil
		}
		if types.IsFloat(c.Child.Type()) {
			// MySQL's text of a DOUBLE, 1e15 (functions/doubletext.go).
			ne, err := c.WithChildren(functions.DoubleText(c.Child))
			if err != nil {
				return nil, transform.SameTree, err
			}
			c = ne.(*expression.Convert)
		}
		if n, ok := charCastLength(c); ok && n > 0 {
			// CAST(x AS CHAR(n)): Petrel's, in characters, with 1292.
			child := c.Child
			if dt, ok := child.Type().(sql.DecimalType); ok {
				child = &decFixed{child: child, scale: int32(castScale(ctx, child, dt))}
			}
			return &charCast{child: child, n: n}, transform.NewTree, nil
		}
		dt, ok := c.Child.Type().(sql.DecimalType)
		if !ok {
			if c != e {
				return c, transform.NewTree, nil
			}
			return e, transform.SameTree, nil
		}
		if _, done := c.Child.(*decFixed); done {
			return e, transform.SameTree, nil
		}
		ne, err := c.WithChildren(&decFixed{child: c.Child, scale: int32(castScale(ctx, c.Child, dt))})
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

// castScale is the scale DECIMAL expression e prints at.
func castScale(ctx *sql.Context, e sql.Expression, dt sql.DecimalType) int {
	if scale, ok := arith.ResultScale(e, arith.DivIncrement(ctx)); ok {
		return scale
	}
	return int(dt.Scale())
}

// CAST(x AS CHAR(n)) keeps n characters, with warning 1292 "Truncated
// incorrect CHAR(n) value" when it cuts, as MySQL's. GMS cut n bytes
// (CAST('日本語' AS CHAR(2)) was the first two bytes of 日, not UTF-8),
// silently. GMS keeps the cast's kind and length unexported: they are
// read by reflection (the version is pinned; fields not found leave
// GMS's cast).

// charCastLength is c's length when c casts to CHAR(n) or NCHAR(n).
func charCastLength(c *expression.Convert) (int, bool) {
	v := reflect.ValueOf(c).Elem()
	kind, length := v.FieldByName("castToType"), v.FieldByName("typeLength")
	if kind.Kind() != reflect.String || length.Kind() != reflect.Int {
		return 0, false
	}
	if k := strings.ToLower(kind.String()); k != expression.ConvertToChar && k != expression.ConvertToNChar {
		return 0, false
	}
	return int(length.Int()), true
}

// zeroLengthCast is c as a zeroCast when its length is castZeroMark's.
func zeroLengthCast(c *expression.Convert) (sql.Expression, bool) {
	v := reflect.ValueOf(c).Elem()
	kind, length := v.FieldByName("castToType"), v.FieldByName("typeLength")
	if kind.Kind() != reflect.String || length.Kind() != reflect.Int || length.Int() != -1 {
		return nil, false
	}
	switch k := strings.ToLower(kind.String()); k {
	case expression.ConvertToChar, expression.ConvertToNChar, expression.ConvertToBinary:
		return &zeroCast{child: c.Child, binary: k == expression.ConvertToBinary}, true
	}
	return nil, false
}

// charCast is CAST(child AS CHAR(n)).
type charCast struct {
	child sql.Expression
	n     int
}

var _ sql.Expression = (*charCast)(nil)

func (c *charCast) Resolved() bool             { return c.child.Resolved() }
func (c *charCast) String() string             { return fmt.Sprintf("convert(%s, char(%d))", c.child, c.n) }
func (c *charCast) IsNullable() bool           { return true }
func (c *charCast) Children() []sql.Expression { return []sql.Expression{c.child} }
func (c *charCast) Type() sql.Type             { return types.LongText }

func (c *charCast) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 1)
	}
	return &charCast{child: children[0], n: c.n}, nil
}

func (c *charCast) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	t, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		ctx.Warn(1292, "Incorrect char value: %v", v)
		return nil, nil
	}
	s, ok := t.(string)
	if !ok {
		return t, nil
	}
	if utf8.RuneCountInString(s) <= c.n {
		return s, nil
	}
	cut, left := s, c.n
	for i := range s {
		if left == 0 {
			cut = s[:i]
			break
		}
		left--
	}
	ctx.Warn(1292, "Truncated incorrect CHAR(%d) value: '%s'", c.n, s)
	return cut, nil
}
