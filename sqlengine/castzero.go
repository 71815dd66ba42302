package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// CAST(x AS CHAR(0)) and CAST(x AS BINARY(0)) are the empty string, with
// warning 1292 "Truncated incorrect CHAR(0) value" when x is not empty,
// as MySQL's. GMS builds both with length 0, which it reads as no length
// at all (CAST(x AS CHAR)), and answered x whole. The parse tree marks
// the length 0 as -1, a length no client can write (castZeroMark), for
// castCharRule to find (zeroCast).

// zeroCastMark is the length castZeroMark writes for a written 0.
const zeroCastMark = "-1"

// castZeroMark marks each CAST or CONVERT of stmt to CHAR(0), NCHAR(0)
// or BINARY(0).
func castZeroMark(stmt ast.Statement) {
	if stmt == nil {
		return
	}
	walkStatement(stmt, func(n ast.SQLNode) (bool, error) { // bitliteral.go
		c, ok := n.(*ast.ConvertExpr)
		if !ok || c.Type == nil || c.Type.Length == nil || string(c.Type.Length.Val) != "0" {
			return true, nil
		}
		switch strings.ToLower(c.Type.Type) {
		case expression.ConvertToChar, expression.ConvertToNChar, expression.ConvertToBinary:
			c.Type.Length = ast.NewIntVal([]byte(zeroCastMark))
		}
		return true, nil
	})
}

// zeroCast is CAST(child AS CHAR(0)) (binary false) or AS BINARY(0).
type zeroCast struct {
	child  sql.Expression
	binary bool
}

var _ sql.Expression = (*zeroCast)(nil)

func (z *zeroCast) Resolved() bool             { return z.child.Resolved() }
func (z *zeroCast) IsNullable() bool           { return z.child.IsNullable() }
func (z *zeroCast) Children() []sql.Expression { return []sql.Expression{z.child} }

func (z *zeroCast) String() string {
	if z.binary {
		return "convert(" + z.child.String() + ", binary(0))"
	}
	return "convert(" + z.child.String() + ", char(0))"
}

func (z *zeroCast) Type() sql.Type {
	if z.binary {
		return types.LongBlob
	}
	return types.LongText
}

func (z *zeroCast) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(z, len(children), 1)
	}
	return &zeroCast{child: children[0], binary: z.binary}, nil
}

func (z *zeroCast) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := z.child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	t, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return nil, err
	}
	kind := "CHAR"
	if z.binary {
		kind = "BINARY"
	}
	if s, _ := t.(string); s != "" {
		ctx.Warn(1292, "Truncated incorrect %s(0) value: '%s'", kind, s)
	}
	if z.binary {
		return []byte{}, nil
	}
	return "", nil
}
