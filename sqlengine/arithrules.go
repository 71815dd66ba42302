package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/sqlengine/arith"
)

// intArithRule puts intArith in place of integer +, - and *, and the
// other MySQL operators and casts of arith/mysqlops.go in place of GMS's.
func intArithRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	divErrors := arith.StrictDivision(ctx, n)
	n, sameSums, err := arith.ExactSums(ctx, n)
	if err != nil {
		return nil, transform.SameTree, err
	}
	out, same, err := transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if x, ok := e.(*expression.Convert); ok && types.IsTimespan(x.Type()) {
			// CAST(x AS TIME(n)) is TIME(n) (timefsp.go).
			return &castTime{Expression: x, fsp: arith.ConvertFSP(x)}, transform.NewTree, nil
		}
		// A TIME operand as a number (arith/timenum.go).
		if t, ok := arith.TimeOperands(ctx, e); ok {
			out, _, err := arith.Operator(ctx, t, divErrors)
			return out, transform.NewTree, err
		}
		return arith.Operator(ctx, e, divErrors)
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	out, sameRound, err := arith.RoundQuotients(out)
	return out, same && sameSums && sameRound, err
}
