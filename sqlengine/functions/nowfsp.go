package functions

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/sqlengine/arith"
)

// NOW(n), CURRENT_TIMESTAMP(n), LOCALTIME(n) and SYSDATE(n) in a select
// list are DATETIME(n), printed with n fractional digits as MySQL's
// ('2026-12-02 03:31:02.50'). GMS types them DATETIME(6) and prints the
// digits without their trailing zeros ('...02.5' for NOW(2), one time
// in ten). NowPrecisionRule types the select list's NOW(n) as
// DATETIME(n); column defaults and ON UPDATE keep GMS's *function.Now,
// which GMS's DDL checks look for.

// NowPrecisionRuleID names NowPrecisionRule.
const NowPrecisionRuleID analyzer.RuleId = 1802

// NowPrecisionRule types the NOW(n) of select lists as DATETIME(n).
func NowPrecisionRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		p, ok := n.(*plan.Project)
		if !ok {
			return n, transform.SameTree, nil
		}
		same := transform.SameTree
		out := make([]sql.Expression, len(p.Projections))
		for i, e := range p.Projections {
			ne, s, err := transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				if now, ok := e.(*function.Now); ok {
					if t := nowType(now); t != nil {
						return &nowFsp{Now: now, typ: t}, transform.NewTree, nil
					}
				}
				return e, transform.SameTree, nil
			})
			if err != nil {
				return nil, transform.SameTree, err
			}
			if s == transform.NewTree {
				same = transform.NewTree
			}
			out[i] = ne
		}
		if same == transform.SameTree {
			return n, same, nil
		}
		np, err := p.WithExpressions(out...)
		return np, transform.NewTree, err
	})
}

// nowType is DATETIME(n) for NOW(n) with a constant n of 1 to 5; nil
// otherwise (NOW() is DATETIME, NOW(6) GMS's own type).
func nowType(now *function.Now) sql.Type {
	ch := now.Children()
	if len(ch) != 1 {
		return nil
	}
	lit, ok := ch[0].(*expression.Literal)
	if !ok {
		return nil
	}
	n, ok := arith.ToInt64(lit.Value())
	if !ok || n < 1 || n > 5 {
		return nil
	}
	t, err := types.CreateDatetimeType(sqltypes.Datetime, int(n))
	if err != nil {
		return nil
	}
	return t
}

type nowFsp struct {
	*function.Now
	typ sql.Type
}

func (n *nowFsp) Type() sql.Type { return n.typ }

func (n *nowFsp) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := n.Now.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if now, ok := e.(*function.Now); ok {
		if t := nowType(now); t != nil {
			return &nowFsp{Now: now, typ: t}, nil
		}
	}
	return e, nil
}
