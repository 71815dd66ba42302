package functions

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
)

// coalesceExpr is COALESCE(a, b, ...) typed as MySQL aggregates its
// arguments (branchType), like IF and IFNULL. GMS typed COALESCE(int_col,
// dec_col) over an INT and a DECIMAL(10,2) DECIMAL(10,2) and refused
// every integer past 99999999 with 1105 "Out of range value"; MySQL's
// type is DECIMAL(12,2). Arguments of one kind keep GMS's evaluation.
type coalesceExpr struct {
	args []sql.Expression
	gms  sql.Expression
}

var _ sql.FunctionExpression = (*coalesceExpr)(nil)

func newCoalesce(args ...sql.Expression) (sql.Expression, error) {
	g, err := function.NewCoalesce(args...)
	if err != nil {
		return nil, err
	}
	return &coalesceExpr{args: args, gms: g}, nil
}

func (c *coalesceExpr) Resolved() bool { return c.gms.Resolved() }
func (c *coalesceExpr) String() string { return c.gms.String() }

// IsNullable: NULL only when every argument can be (COALESCE(a, 1) is
// NOT NULL in MySQL; GMS flagged it nullable).
func (c *coalesceExpr) IsNullable() bool {
	for _, a := range c.args {
		if !a.IsNullable() {
			return false
		}
	}
	return true
}
func (c *coalesceExpr) Children() []sql.Expression { return c.args }
func (c *coalesceExpr) FunctionName() string       { return "coalesce" }
func (c *coalesceExpr) Description() string        { return "MySQL's COALESCE" }

func (c *coalesceExpr) Type() sql.Type {
	if t, ok := branchType(c.args); ok {
		return t
	}
	return c.gms.Type()
}

func (c *coalesceExpr) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return branchCollation(ctx, c.gms, c.args...) // branchtype.go
}

func (c *coalesceExpr) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return newCoalesce(children...)
}

func (c *coalesceExpr) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	to, ok := branchType(c.args)
	if !ok {
		return c.gms.Eval(ctx, row)
	}
	for _, a := range c.args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if v != nil {
			return branchValue(ctx, v, a.Type(), to, c.gms.Type())
		}
	}
	return nil, nil
}
