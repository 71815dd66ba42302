package sqlengine

import (
	"net"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"petrel/internal/mysqlerr"
)

// CREATE TRIGGER needs the TRIGGER privilege on its table (global,
// database or table grant), SUPER or not: MySQL's SUPER covers the
// trigger's DEFINER, not its table. GMS lets SUPER stand for every
// privilege, so a user with SUPER but no TRIGGER made the trigger
// (mtr's trigger_notembedded expects 1142).

const triggerPrivRuleID analyzer.RuleId = 1734

func triggerPrivRule(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	ct, ok := n.(*plan.CreateTrigger)
	if !ok || a.Catalog == nil || a.Catalog.MySQLDb == nil || !a.Catalog.MySQLDb.Enabled() {
		return n, transform.SameTree, nil
	}
	table, ok := ct.Table.(sql.Nameable)
	if !ok || ct.Database() == nil {
		return n, transform.SameTree, nil
	}
	db := ct.Database().Name()
	ps := a.Catalog.MySQLDb.UserActivePrivilegeSet(ctx)
	dbs := ps.Database(db)
	if ps.Has(sql.PrivilegeType_Trigger) || dbs.Has(sql.PrivilegeType_Trigger) || dbs.Table(table.Name()).Has(sql.PrivilegeType_Trigger) {
		return n, transform.SameTree, nil
	}
	c := ctx.Session.Client()
	host := c.Address
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return n, transform.SameTree, mysqlerr.New(mysqlerr.ErTableAccessDenied, "TRIGGER command denied to user '%s'@'%s' for table '%s'", c.User, host, table.Name())
}
