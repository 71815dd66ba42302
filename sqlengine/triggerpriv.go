package sqlengine

import (
	"net"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
)

// CREATE and DROP TRIGGER need the TRIGGER privilege on its table (global,
// database or table grant), SUPER or not: MySQL's SUPER covers the
// trigger's DEFINER, not its table. GMS lets SUPER stand for every
// privilege, so a user with SUPER but no TRIGGER made and dropped triggers
// (mtr's trigger_notembedded expects 1142).

const triggerPrivRuleID analyzer.RuleId = 1734

func triggerPrivRule(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if a.Catalog == nil || a.Catalog.MySQLDb == nil || !a.Catalog.MySQLDb.Enabled() {
		return n, transform.SameTree, nil
	}
	switch x := n.(type) {
	case *plan.CreateTrigger:
		if table, ok := x.Table.(sql.Nameable); ok && x.Database() != nil {
			return n, transform.SameTree, needTrigger(ctx, a, x.Database().Name(), table.Name())
		}
	case *plan.DropTrigger:
		if table := droppedTriggerTable(ctx, x.Db, x.TriggerName); table != "" {
			return n, transform.SameTree, needTrigger(ctx, a, x.Db.Name(), table)
		}
	}
	return n, transform.SameTree, nil
}

// droppedTriggerTable is the table of trigger name in db, "" if unknown.
func droppedTriggerTable(ctx *sql.Context, db sql.Database, name string) string {
	tdb, ok := db.(sql.TriggerDatabase)
	if !ok {
		return ""
	}
	defs, err := tdb.GetTriggers(ctx)
	if err != nil {
		return ""
	}
	for _, d := range defs {
		if !strings.EqualFold(d.Name, name) {
			continue
		}
		st, err := ast.Parse(d.CreateStatement)
		if dd, ok := st.(*ast.DDL); err == nil && ok {
			return dd.Table.Name.String()
		}
	}
	return ""
}

// needTrigger is 1142 unless the session's user holds TRIGGER on db.table.
func needTrigger(ctx *sql.Context, a *analyzer.Analyzer, db, table string) error {
	ps := a.Catalog.MySQLDb.UserActivePrivilegeSet(ctx)
	dbs := ps.Database(db)
	if ps.Has(sql.PrivilegeType_Trigger) || dbs.Has(sql.PrivilegeType_Trigger) || dbs.Table(table).Has(sql.PrivilegeType_Trigger) {
		return nil
	}
	c := ctx.Session.Client()
	host := c.Address
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return mysqlerr.New(mysqlerr.ErTableAccessDenied, "TRIGGER command denied to user '%s'@'%s' for table '%s'", c.User, host, table)
}
