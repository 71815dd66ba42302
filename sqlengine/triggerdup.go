package sqlengine

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
)

// INSERT ... ON DUPLICATE KEY UPDATE fires the table's UPDATE triggers
// for each row it updates, and REPLACE its DELETE triggers for each row
// it deletes, as MySQL does (BEFORE INSERT first, then BEFORE UPDATE, the
// update, AFTER UPDATE; the AFTER UPDATE triggers fire even when the row
// is unchanged). GMS's insert fires only the INSERT triggers. Petrel
// has GMS analyze a plain UPDATE (DELETE) of the table, which carries the
// table's triggers as TriggerExecutor nodes, and runs those nodes' bodies
// around each row the insert's updater (replacer) writes: the
// destination is wrapped (dupTriggerTarget) so its editors run them.

// triggerEventRE reads a trigger's time, event and table from its
// CREATE TRIGGER text.
var triggerEventRE = regexp.MustCompile("(?is)\\bTRIGGER\\b.*?\\b(BEFORE|AFTER)\\s+(INSERT|UPDATE|DELETE)\\s+ON\\s+((?:`[^`]+`|[^\\s.`]+)(?:\\s*\\.\\s*(?:`[^`]+`|[^\\s.`]+))?)\\s+FOR\\s+EACH\\s+ROW")

// withDupTriggers returns n with its destination wrapped to fire the
// UPDATE (DELETE) triggers of its table, when n is an INSERT with ON
// DUPLICATE KEY UPDATE (a REPLACE) and the table has such triggers;
// otherwise n.
func (e *Engine) withDupTriggers(ctx *sql.Context, n *plan.InsertInto, afterInsert []*plan.TriggerExecutor) (*plan.InsertInto, error) {
	var event string
	switch {
	case len(n.OnDupExprs) > 0:
		event = "UPDATE"
	case n.IsReplace:
		event = "DELETE"
	default:
		return n, nil
	}
	dest := n.Destination
	if d, ok := dest.(*plan.InsertDestination); ok {
		dest = d.Child
	}
	tb, ok := resolvedPetrelTable(dest) // groupstream.go
	if !ok || tb.db == nil {
		return n, nil
	}
	var before, after []*plan.TriggerExecutor
	if hasTrigger(tb, event) {
		var err error
		if before, after, err = e.tableTriggers(ctx, tb, event); err != nil {
			return n, err
		}
	}
	if len(before)+len(after)+len(afterInsert) == 0 {
		return n, nil
	}
	ins, err := plan.GetInsertable(n.Destination)
	if err != nil {
		return n, nil
	}
	nn := *n
	nn.Destination = &dupTriggerTarget{child: n.Destination, table: ins, e: e, before: before, after: after, afterInsert: afterInsert}
	return &nn, nil
}

// hasTrigger reports whether tb has a trigger on event.
func hasTrigger(tb *Table, event string) bool {
	sd := tb.db.sdb()
	if sd == nil {
		return false
	}
	for _, tr := range sd.Def().Triggers {
		m := triggerEventRE.FindStringSubmatch(tr.CreateStmt)
		if m != nil && strings.EqualFold(m[2], event) && strings.EqualFold(triggerTable(m[3]), tb.t.Def.Name) {
			return true
		}
	}
	return false
}

// tableTriggers is tb's triggers on event as GMS plans them for an
// UPDATE (DELETE) of the table: the BEFORE and the AFTER executors, each
// in firing order.
func (e *Engine) tableTriggers(ctx *sql.Context, tb *Table, event string) (before, after []*plan.TriggerExecutor, err error) {
	name := quoteIdent(tb.db.Name()) + "." + quoteIdent(tb.t.Def.Name)
	q := "DELETE FROM " + name
	if event == "UPDATE" {
		col := ""
		for _, c := range tb.Schema() {
			if c.Generated == nil {
				col = quoteIdent(c.Name)
				break
			}
		}
		if col == "" {
			return nil, nil, nil
		}
		q = fmt.Sprintf("UPDATE %s SET %s = %s", name, col, col)
	}
	node, _, err := planbuilder.Parse(ctx, e.gms.Analyzer.Catalog, q)
	if err != nil {
		return nil, nil, err
	}
	analyzed, err := e.gms.Analyzer.Analyze(ctx, node, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	// Outer executors are found first; the innermost fires first. A
	// trigger body (an executor's right child) is not searched: its
	// triggers are its statements'.
	var walk func(sql.Node)
	walk = func(n sql.Node) {
		if te, ok := n.(*plan.TriggerExecutor); ok {
			if te.TriggerTime == plan.BeforeTrigger {
				before = append([]*plan.TriggerExecutor{te}, before...)
			} else {
				after = append([]*plan.TriggerExecutor{te}, after...)
			}
			walk(te.Left())
			return
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(analyzed)
	return before, after, nil
}

// fire runs te's body for row (old and new values for UPDATE, the old
// for DELETE) and returns the row as the body left it (a BEFORE
// trigger's SET NEW.x).
func (e *Engine) fire(ctx *sql.Context, te *plan.TriggerExecutor, row sql.Row) (sql.Row, error) {
	x := plan.NewTriggerExecutor(&triggerRow{row: row, schema: te.Left().Schema()}, te.Right(), te.TriggerEvent, te.TriggerTime, te.TriggerDefinition)
	it, err := e.exec.Build(ctx, x, nil)
	if err != nil {
		return nil, err
	}
	out := row
	for {
		r, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			_ = it.Close(ctx)
			return nil, err
		}
		out = r
	}
	return out, it.Close(ctx)
}

// triggerRow is the one row a trigger body runs for (execOverrides
// builds it).
type triggerRow struct {
	row    sql.Row
	schema sql.Schema
}

var _ sql.Node = (*triggerRow)(nil)

func (r *triggerRow) Resolved() bool       { return true }
func (r *triggerRow) String() string       { return "TriggerRow" }
func (r *triggerRow) Schema() sql.Schema   { return r.schema }
func (r *triggerRow) Children() []sql.Node { return nil }
func (r *triggerRow) IsReadOnly() bool     { return true }
func (r *triggerRow) WithChildren(children ...sql.Node) (sql.Node, error) {
	return plan.NillaryWithChildren(r, children...)
}

// dupTriggerTarget stands for an INSERT's destination table whose
// updater (replacer) fires the table's UPDATE (DELETE) triggers around
// each row it writes; rows are written by the table's own editors.
type dupTriggerTarget struct {
	child         sql.Node
	table         sql.InsertableTable
	e             *Engine
	before, after []*plan.TriggerExecutor // UPDATE (DELETE) triggers
	afterInsert   []*plan.TriggerExecutor
}

var (
	_ sql.Node             = (*dupTriggerTarget)(nil)
	_ sql.InsertableTable  = (*dupTriggerTarget)(nil)
	_ sql.ReplaceableTable = (*dupTriggerTarget)(nil)
	_ sql.UpdatableTable   = (*dupTriggerTarget)(nil)
	_ sql.TableWrapper     = (*dupTriggerTarget)(nil)
)

func (x *dupTriggerTarget) Resolved() bool             { return x.child.Resolved() }
func (x *dupTriggerTarget) String() string             { return x.child.String() }
func (x *dupTriggerTarget) Schema() sql.Schema         { return x.child.Schema() }
func (x *dupTriggerTarget) Children() []sql.Node       { return []sql.Node{x.child} }
func (x *dupTriggerTarget) IsReadOnly() bool           { return false }
func (x *dupTriggerTarget) Name() string               { return x.table.Name() }
func (x *dupTriggerTarget) Underlying() sql.Table      { return x.table }
func (x *dupTriggerTarget) Collation() sql.CollationID { return x.table.Collation() }

func (x *dupTriggerTarget) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("sqlengine: trigger target takes 1 child, got %d", len(children))
	}
	c := *x
	c.child = children[0]
	return &c, nil
}

func (x *dupTriggerTarget) Partitions(ctx *sql.Context) (sql.PartitionIter, error) {
	return x.table.Partitions(ctx)
}

func (x *dupTriggerTarget) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	return x.table.PartitionRows(ctx, p)
}

func (x *dupTriggerTarget) Inserter(ctx *sql.Context) sql.RowInserter {
	return &triggerInserter{RowInserter: x.table.Inserter(ctx), x: x}
}

func (x *dupTriggerTarget) Replacer(ctx *sql.Context) sql.RowReplacer {
	return &triggerReplacer{RowReplacer: x.table.(sql.ReplaceableTable).Replacer(ctx), x: x}
}

// afterInserted fires the AFTER INSERT triggers for row, inserted.
func (x *dupTriggerTarget) afterInserted(ctx *sql.Context, row sql.Row) error {
	for _, te := range x.afterInsert {
		if _, err := x.e.fire(ctx, te, row); err != nil {
			return err
		}
	}
	return nil
}

// triggerInserter fires the AFTER INSERT triggers for each row it
// inserts (not for a duplicate, which is updated instead).
type triggerInserter struct {
	sql.RowInserter
	x *dupTriggerTarget
}

func (w *triggerInserter) Insert(ctx *sql.Context, row sql.Row) error {
	if err := w.RowInserter.Insert(ctx, row); err != nil {
		return err
	}
	return w.x.afterInserted(ctx, row)
}

func (x *dupTriggerTarget) Updater(ctx *sql.Context) sql.RowUpdater {
	return &triggerUpdater{RowUpdater: x.table.(sql.UpdatableTable).Updater(ctx), x: x}
}

// triggerUpdater fires the UPDATE triggers around each row it updates.
type triggerUpdater struct {
	sql.RowUpdater
	x *dupTriggerTarget
}

func (u *triggerUpdater) Update(ctx *sql.Context, old, new sql.Row) error {
	row := append(append(make(sql.Row, 0, len(old)+len(new)), old...), new...)
	var err error
	for _, te := range u.x.before {
		if row, err = u.x.e.fire(ctx, te, row); err != nil {
			return err
		}
	}
	if len(row) != len(old)+len(new) {
		return fmt.Errorf("sqlengine: a BEFORE UPDATE trigger returned %d values for %d columns", len(row), len(old))
	}
	if err := u.RowUpdater.Update(ctx, old, row[len(old):]); err != nil {
		return err
	}
	for _, te := range u.x.after {
		if _, err := u.x.e.fire(ctx, te, row); err != nil {
			return err
		}
	}
	return nil
}

// triggerReplacer fires the DELETE triggers around each row it deletes,
// and the AFTER INSERT triggers for each row it inserts.
type triggerReplacer struct {
	sql.RowReplacer
	x *dupTriggerTarget
}

func (r *triggerReplacer) Insert(ctx *sql.Context, row sql.Row) error {
	if err := r.RowReplacer.Insert(ctx, row); err != nil {
		return err
	}
	return r.x.afterInserted(ctx, row)
}

func (r *triggerReplacer) Delete(ctx *sql.Context, old sql.Row) error {
	for _, te := range r.x.before {
		if _, err := r.x.e.fire(ctx, te, old); err != nil {
			return err
		}
	}
	if err := r.RowReplacer.Delete(ctx, old); err != nil {
		return err
	}
	for _, te := range r.x.after {
		if _, err := r.x.e.fire(ctx, te, old); err != nil {
			return err
		}
	}
	return nil
}

// triggerTable is the table name of a trigger's ON clause (db.t, `db`.`t`
// or t), unquoted.
func triggerTable(on string) string {
	on = strings.TrimSpace(on)
	if strings.HasSuffix(on, "`") {
		if i := strings.LastIndex(on[:len(on)-1], "`"); i >= 0 {
			return on[i+1 : len(on)-1]
		}
	}
	if i := strings.LastIndex(on, "."); i >= 0 {
		on = on[i+1:]
	}
	return strings.Trim(strings.TrimSpace(on), "`")
}

// buildAfterInsert builds te, an AFTER INSERT trigger over an INSERT ...
// ON DUPLICATE KEY UPDATE or a REPLACE: GMS's executor fires it for every
// row the insert returns, which for a row ON DUPLICATE KEY UPDATE updated
// is its old and new values (MySQL fires no INSERT trigger for it) and
// for every row of a REPLACE its deleted and new values (the trigger read
// the deleted ones as NEW). The executors are dropped and their triggers
// fired by the destination's inserter for each row it inserts. ok is
// false for any other executor.
func (e *Engine) buildAfterInsert(ctx *sql.Context, te *plan.TriggerExecutor, row sql.Row) (sql.RowIter, bool, error) {
	if te.TriggerEvent != plan.InsertTrigger || te.TriggerTime != plan.AfterTrigger {
		return nil, false, nil
	}
	var chain []*plan.TriggerExecutor
	var n sql.Node = te
	for {
		x, ok := n.(*plan.TriggerExecutor)
		if !ok || x.TriggerEvent != plan.InsertTrigger || x.TriggerTime != plan.AfterTrigger {
			break
		}
		chain = append([]*plan.TriggerExecutor{x}, chain...) // the innermost fires first
		n = x.Left()
	}
	ins, ok := n.(*plan.InsertInto)
	if !ok || (len(ins.OnDupExprs) == 0 && !ins.IsReplace) {
		return nil, false, nil
	}
	nn, err := e.withDupTriggers(ctx, ins, chain)
	if err != nil {
		return nil, true, err
	}
	it, err := e.exec.Build(ctx, nn, row)
	return it, true, err
}
