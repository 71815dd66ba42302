package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"petrel/sqlengine/tablelocks"
)

// The table locks' check point (locktables.go): an after-all analyzer
// rule over each statement's finished plan. It runs LOCK TABLES and
// UNLOCK TABLES (their nodes replaced by Petrel's), and checks every
// other statement's tables against the locks: a session in locked-tables
// mode gets 1100/1099 for a table it did not lock (or READ-locked), a
// routine or database DDL 1192; another session waits while a lock
// conflicts. While no session holds a lock it does nothing.

const tableLockRuleID analyzer.RuleId = 1098

// tableLockRule is the rule (planrules.go installs it).
func tableLockRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	s := ctxSession(ctx)
	// A nested analysis (a trigger's body) is part of its statement,
	// whose plan this rule walks whole.
	if s == nil || s.eng == nil || !scope.IsEmpty() {
		return n, transform.SameTree, nil
	}
	l := s.eng.tlocks
	switch x := n.(type) {
	case *plan.LockTables:
		return &lockTablesNode{reqs: lockRequests(ctx, x)}, transform.NewTree, nil
	case *plan.UnlockTables:
		return &unlockTablesNode{}, transform.NewTree, nil
	}
	if !l.Active() {
		return n, transform.SameTree, nil
	}
	if routine := routineOrDBDDL(n); routine || plan.IsDDLNode(n) && !tempDDLOnly(s, n) {
		err := l.decide(ctx, s, func(m *tablelocks.Manager, id tablelocks.SessionID) tablelocks.Decision {
			return m.DDL(id, routine)
		})
		if err != nil || routine {
			return n, transform.SameTree, err
		}
	}
	c := &useCollector{views: map[string]tablelocks.Table{}, temp: func(db, name string) bool { return s.temps[tempKey(db, name)] != nil }}
	for _, r := range l.locked(s.ID()) {
		if r.Alias == "" && !r.Implicit {
			c.views[strings.ToLower(r.Table.Name)] = r.Table
		}
	}
	c.node(n, "", false, false)
	holder := l.inLockedTables(s.ID())
	if plan.IsDDLNode(n) {
		for i := range c.uses {
			c.uses[i].Exclusive = c.uses[i].Write
		}
	}
	uses := c.uses
	if !holder {
		// Triggers' tables are prelocked with their table under LOCK
		// TABLES; other sessions wait for them all the same.
		uses = append(uses, c.trig...)
	}
	err := l.decide(ctx, s, func(m *tablelocks.Manager, id tablelocks.SessionID) tablelocks.Decision {
		return m.Access(id, uses)
	})
	if err != nil {
		return n, transform.SameTree, err
	}
	if d, ok := n.(*plan.DropTable); ok && holder {
		// DROP TABLE of a locked table releases its lock; a temporary
		// table holds none, and dropping it leaves the session in
		// locked-tables mode (MySQL's read_only_innodb: LOCK TABLES of
		// a temporary t1 shadowing a base t1, DROP TABLE t1, then the
		// base t1 is not locked, 1100).
		for _, t := range d.Tables {
			if pt := tableOfNode(t); pt != nil && pt.temp == nil {
				l.do(s.ID(), func(m *tablelocks.Manager, id tablelocks.SessionID) {
					m.Dropped(id, tablelocks.Table{DB: pt.db.name, Name: pt.Name()})
				})
			}
		}
	}
	return n, transform.SameTree, nil
}

// routineOrDBDDL: statements MySQL refuses under LOCK TABLES (1192).
func routineOrDBDDL(n sql.Node) bool {
	switch n.(type) {
	case *plan.CreateProcedure, *plan.DropProcedure, *plan.CreateDB, *plan.DropDB, *plan.AlterDB,
		*plan.CreateEvent, *plan.DropEvent, *plan.AlterEvent:
		return true
	}
	return false
}

// useCollector gathers a plan's table uses.
type useCollector struct {
	// uses are the statement's own, trig those of its triggers' bodies.
	uses, trig []tablelocks.Use
	// views are the names the session locked by name: a view of one of
	// them counts as a use of the view, not of its tables.
	views map[string]tablelocks.Table
	// temp says whether db.name is one of the session's temporary
	// tables, which LOCK TABLES neither locks nor needs (MySQL).
	temp func(db, name string) bool
}

// node collects n's tables: write says n's tables are written; targets
// (when set) names the written ones among them (UPDATE, DELETE).
func (c *useCollector) node(n sql.Node, alias string, write, trig bool) {
	c.nodeTargets(n, alias, write, trig, nil)
}

func (c *useCollector) nodeTargets(n sql.Node, alias string, write, trig bool, targets map[string]bool) {
	if n == nil {
		return
	}
	c.exprs(n, trig)
	switch x := n.(type) {
	case *plan.TableAlias:
		// A view over one table may be planned as its table under the
		// view's name.
		if t, ok := c.views[strings.ToLower(x.Name())]; ok && tableNodeName(x.Child) != strings.ToLower(x.Name()) {
			c.add(tablelocks.Use{Table: t, Write: write || targets[strings.ToLower(x.Name())]}, trig)
			return
		}
		c.nodeTargets(x.Child, x.Name(), write, trig, targets)
		return
	case *plan.SubqueryAlias:
		if t, ok := c.views[strings.ToLower(x.Name())]; ok {
			c.add(tablelocks.Use{Table: t, Write: write || targets[strings.ToLower(x.Name())]}, trig)
			return
		}
	case *plan.InsertInto:
		c.node(x.Destination, "", true, trig)
		c.node(x.Source, "", false, trig)
		return
	case *plan.TriggerExecutor:
		c.nodeTargets(x.Left(), alias, write, trig, targets)
		c.node(x.Right(), "", false, true)
		return
	case *plan.Update:
		c.nodeTargets(x.Child, "", false, trig, lockWriteTargets(x.Child))
		return
	case *plan.DeleteFrom:
		t := map[string]bool{}
		for _, d := range x.GetDeleteTargets() {
			if name := tableNodeName(d); name != "" {
				t[name] = true
			}
		}
		if len(t) == 0 {
			t = lockWriteTargets(x.Child)
		}
		c.nodeTargets(x.Child, "", false, trig, t)
		return
	case *plan.RenameTable:
		// RENAME TABLE writes the tables it renames (named, not planned).
		if x.Db != nil {
			for _, name := range x.OldNames {
				if c.temp != nil && c.temp(x.Db.Name(), name) {
					continue // renaming a temporary table (temp_table)
				}
				c.add(tablelocks.Use{Table: tablelocks.Table{DB: x.Db.Name(), Name: name}, Write: true}, trig)
			}
		}
		return
	case *plan.CreateTable, *plan.CreateView, *plan.DropView:
		// The new table is not locked; a CREATE ... SELECT reads.
		for _, ch := range n.Children() {
			c.node(ch, "", false, trig)
		}
		return
	case *plan.DropTable, *plan.Truncate, *plan.AlterPK, *plan.AlterIndex,
		*plan.AddColumn, *plan.ModifyColumn, *plan.DropColumn, *plan.RenameColumn,
		*plan.CreateTrigger, *plan.DropTrigger, *plan.AlterAutoIncrement, *plan.AlterDefaultSet, *plan.AlterDefaultDrop:
		write = true
	}
	if tn, ok := n.(sql.TableNode); ok {
		if pt, ok := petrelTable(tn.UnderlyingTable()); ok && pt.temp == nil {
			name := strings.ToLower(pt.Name())
			if alias != "" {
				name = strings.ToLower(alias)
			}
			c.add(tablelocks.Use{Table: tablelocks.Table{DB: pt.db.name, Name: pt.Name()}, Alias: alias, Write: write || targets[name]}, trig)
		}
		return
	}
	for _, ch := range n.Children() {
		c.nodeTargets(ch, "", write, trig, targets)
	}
}

// exprs collects the tables of n's subqueries.
func (c *useCollector) exprs(n sql.Node, trig bool) {
	e, ok := n.(sql.Expressioner)
	if !ok {
		return
	}
	for _, x := range e.Expressions() {
		transform.InspectExpr(x, func(x sql.Expression) bool {
			if sq, ok := x.(*plan.Subquery); ok {
				c.node(sq.Query, "", false, trig)
			}
			return false
		})
	}
}

func (c *useCollector) add(u tablelocks.Use, trig bool) {
	if trig {
		c.trig = append(c.trig, u)
	} else {
		c.uses = append(c.uses, u)
	}
}

// lockWriteTargets names the tables an UPDATE or DELETE below n writes: a
// join's updaters, else its one table.
func lockWriteTargets(n sql.Node) map[string]bool {
	out := map[string]bool{}
	var first string
	transform.Inspect(n, func(n sql.Node) bool {
		if uj, ok := n.(*plan.UpdateJoin); ok {
			for k := range uj.Updaters {
				out[strings.ToLower(k)] = true
			}
			return false
		}
		if first == "" {
			first = tableNodeName(n)
		}
		return first == ""
	})
	if len(out) == 0 && first != "" {
		out[first] = true
	}
	return out
}

// tableNodeName is the name (alias, else table name) a table node goes
// by, lower-cased; "" for another node.
func tableNodeName(n sql.Node) string {
	switch x := n.(type) {
	case *plan.TableAlias:
		return strings.ToLower(x.Name())
	case sql.TableNode:
		return strings.ToLower(x.UnderlyingTable().Name())
	}
	return ""
}

// tableOfNode is Petrel's table under a table node, nil for another.
func tableOfNode(n sql.Node) *Table {
	if tn, ok := n.(sql.TableNode); ok {
		if pt, ok := petrelTable(tn.UnderlyingTable()); ok {
			return pt
		}
	}
	return nil
}

const viewLockRuleID analyzer.RuleId = 1099

// viewLockRule refuses, under LOCK TABLES, a view the session did not
// lock (1100), as MySQL does even when its tables are locked. It runs
// before GMS's rules fold a view's query into the plan (tableLockRule
// sees only its tables); a view is a derived table named as a view of the
// current database.
func viewLockRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	s := ctxSession(ctx)
	if s == nil || s.eng == nil || !scope.IsEmpty() || !s.eng.tlocks.inLockedTables(s.ID()) {
		return n, transform.SameTree, nil
	}
	if _, ok := n.(*plan.LockTables); ok {
		return n, transform.SameTree, nil // it releases the locks first
	}
	locked := map[string]bool{}
	for _, r := range s.eng.tlocks.locked(s.ID()) {
		if !r.Implicit {
			locked[strings.ToLower(r.Table.Name)] = true
		}
	}
	db, err := s.eng.prov.Database(ctx, ctx.GetCurrentDatabase())
	vdb, ok := db.(sql.ViewDatabase)
	if err != nil || !ok {
		return n, transform.SameTree, nil
	}
	var refused error
	var visit func(n sql.Node)
	visit = func(n sql.Node) {
		transform.Inspect(n, func(n sql.Node) bool {
			if refused != nil {
				return false
			}
			if sa, ok := n.(*plan.SubqueryAlias); ok && !locked[strings.ToLower(sa.Name())] {
				if _, isView, _ := vdb.GetViewDefinition(ctx, sa.Name()); isView {
					refused = refusal(tablelocks.Decision{Outcome: tablelocks.Refused, Refusal: tablelocks.NotLocked, Name: sa.Name()})
					return false
				}
			}
			if e, ok := n.(sql.Expressioner); ok {
				for _, x := range e.Expressions() {
					transform.InspectExpr(x, func(x sql.Expression) bool {
						if sq, ok := x.(*plan.Subquery); ok {
							visit(sq.Query)
						}
						return false
					})
				}
			}
			return true
		})
	}
	visit(n)
	return n, transform.SameTree, refused
}

// tempDDLOnly reports whether n is DDL on s's temporary tables only (a
// rename of them, an index change of one), which takes no metadata lock
// in MySQL, so neither the global read lock nor LOCK TABLES refuses it
// (mtr's temp_table).
func tempDDLOnly(s *Session, n sql.Node) bool {
	switch x := n.(type) {
	case *plan.RenameTable:
		if x.Db == nil || len(x.OldNames) == 0 {
			return false
		}
		for _, name := range x.OldNames {
			if s.temps[tempKey(x.Db.Name(), name)] == nil {
				return false
			}
		}
		return true
	case *plan.AlterIndex:
		if x.Table == nil {
			return false
		}
		pt, ok := petrelTable(x.Table.UnderlyingTable())
		return ok && pt.temp != nil
	}
	return false
}
