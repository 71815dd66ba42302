package functions

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
)

// assignUserVar is `@v := expr` inside an expression (sqlmode/assign.go
// rewrites it as this call): it sets user variable v to expr's value for
// the session and returns the value, row by row, as MySQL does.
type assignUserVar struct {
	v    *expression.UserVar
	expr sql.Expression
}

func newAssignUserVar(a, b sql.Expression) (sql.Expression, error) {
	v, ok := a.(*expression.UserVar)
	if !ok {
		return nil, fmt.Errorf("%s: the assigned name must be a user variable, not %s", AssignFunc, a)
	}
	return &assignUserVar{v: v, expr: b}, nil
}

// AssignFunc is the name sqlmode's rewrite calls (sqlmode.AssignFunc).
const AssignFunc = "petrel_assign_user_var"

func (a *assignUserVar) Resolved() bool             { return a.v.Resolved() && a.expr.Resolved() }
func (a *assignUserVar) String() string             { return fmt.Sprintf("@%s := %s", a.v.Name, a.expr) }
func (a *assignUserVar) Type() sql.Type             { return a.expr.Type() }
func (a *assignUserVar) IsNullable() bool           { return a.expr.IsNullable() }
func (a *assignUserVar) Children() []sql.Expression { return []sql.Expression{a.v, a.expr} }
func (a *assignUserVar) FunctionName() string       { return AssignFunc }
func (a *assignUserVar) Description() string {
	return "assigns a user variable in an expression (@v := expr)"
}

// IsNonDeterministic keeps the call from being folded or cached: each
// evaluation assigns.
func (a *assignUserVar) IsNonDeterministic() bool { return true }

func (a *assignUserVar) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(a, len(children), 2)
	}
	return newAssignUserVar(children[0], children[1])
}

func (a *assignUserVar) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := a.expr.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if err := ctx.SetUserVariable(ctx, strings.ToLower(a.v.Name), v, a.expr.Type()); err != nil {
		return nil, err
	}
	return v, nil
}
