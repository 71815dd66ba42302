package sqlengine

import (
	"sort"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
)

// GMS evaluates @@global.x, and @@x of a global-only variable, through
// its scope's GetValue, which asks the process-wide registry without the
// session (sql.MysqlScope). serverScopeRule gives every such reference a
// scope that reads the global value of the statement's own server
// (globals.go); SET GLOBAL already carries the session.

const serverScopeRuleID analyzer.RuleId = 1090

var serverScopeOnce sync.Once

func installServerScopeRule() {
	serverScopeOnce.Do(func() {
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: serverScopeRuleID, Apply: serverScopeRule})
	})
}

// serverScope is a global scope answered by the session's server.
type serverScope struct{ *sql.MysqlScope }

func (s serverScope) GetValue(ctx *sql.Context, name string, _ sql.CollationID) (any, error) {
	return globalValueOf(ctx, name)
}

func serverScopeRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		sv, ok := e.(*expression.SystemVar)
		if !ok {
			return e, transform.SameTree, nil
		}
		ms, ok := sv.Scope.(*sql.MysqlScope)
		if !ok || ms.Type != sql.SystemVariableScope_Global {
			return e, transform.SameTree, nil
		}
		c := *sv
		c.Scope = serverScope{ms}
		return &c, transform.NewTree, nil
	})
}

// engineStatusRows is SHOW [GLOBAL] STATUS from the session's engine: GMS's
// reads global status from the process-wide registry, which answers from
// the engine opened last. GMS's own counters (Connections,
// Threads_connected, ...) stay process-wide: GMS counts them without a
// session.
func engineStatusRows(ctx *sql.Context, global bool) []sql.Row {
	var vars map[string]sql.StatusVarValue
	if e := engineOf(ctx); e != nil && status != nil {
		vars = status.globalMap(e.statusFns())
	} else {
		vars = sql.StatusVariables.NewGlobalMap()
	}
	if !global {
		for name, v := range ctx.Session.GetAllStatusVariables(ctx) {
			vars[name] = v
		}
	}
	rows := make([]sql.Row, 0, len(vars))
	for name, v := range vars {
		rows = append(rows, sql.Row{name, v.Value()})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i][0].(string) < rows[j][0].(string) })
	return rows
}

// showGlobalVariables is SHOW GLOBAL VARIABLES [LIKE | WHERE] from the
// session's server (GMS's reads the process-wide registry).
func showGlobalVariables(ctx *sql.Context, n *plan.ShowVariables) (sql.RowIter, error) {
	rows, err := globalVariableRows(ctx, n.Filter)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

func globalVariableRows(ctx *sql.Context, filter sql.Expression) ([]sql.Row, error) {
	var rows []sql.Row
	for k, v := range procVars.of(ctx).all() {
		if filter != nil {
			res, err := filter.Eval(ctx, sql.Row{strings.ToLower(k)})
			if err != nil {
				return nil, err
			}
			res, _, err = types.Boolean.Convert(ctx, res)
			if err != nil {
				ctx.Warn(mysqlerr.ErWrongValue, "%s", err.Error())
				continue
			}
			if res.(int8) == 0 {
				continue
			}
		}
		rows = append(rows, sql.NewRow(k, v))
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i][0].(string) < rows[j][0].(string) })
	return rows, nil
}
