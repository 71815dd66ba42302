package storage

import (
	"github.com/cockroachdb/pebble/v2"
)

// Temporary tables (CREATE TEMPORARY TABLE). A temporary table belongs to
// one session: the SQL layer keeps it, not the catalog, and its
// definition is never persisted. Its rows are ordinary rows under a table
// id from a range of their own (TempTableIDBase and up, numbered per
// process), written through the session's transactions, so they take
// part in its commits, rollbacks and savepoints like any row; but a
// change to a temporary table is never recorded (Txn.record), so it never
// reaches the binlog, and a commit that wrote nothing else bypasses the
// sink and is applied without a sync (commit.go). At open every row in
// the temporary range is deleted: the sessions that owned them are gone.

// TempTableIDBase is the first table id of temporary tables; the catalog
// never reaches it (ids count up from 1 and are never reused).
const TempTableIDBase uint32 = 0xF000_0000

// NewTempTable makes a temporary table of def (its name as the session
// knows it; def.ID is assigned here). Nothing is written.
func (c *Catalog) NewTempTable(def TableDef) (*Table, error) {
	def.ID = TempTableIDBase + c.tempNext.Add(1) - 1
	def.Temporary = true
	def.KeyFormat = KeyFormatPadSpace
	t, err := resolveTable(def, nil)
	if err != nil {
		return nil, err
	}
	c.e.spans.set(def.ID, codecOf(&def))
	return t, nil
}

// AlterTempTable is AlterTable for a temporary table: the new definition
// (same id, same rows) is returned, not published.
func (c *Catalog) AlterTempTable(t *Table, fn func(*TableDef) error) (*Table, error) {
	def := t.Def
	def.Columns = append([]ColumnDef(nil), t.Def.Columns...)
	def.PK = append([]int(nil), t.Def.PK...)
	def.Indexes = append([]IndexDef(nil), t.Def.Indexes...)
	def.Checks = append([]CheckDef(nil), t.Def.Checks...)
	def.ForeignKeys = nil
	if err := fn(&def); err != nil {
		return nil, err
	}
	return resolveTable(def, t.ctr)
}

// DropTempTable deletes a temporary table's rows (DROP TABLE, the end of
// its session), outside any transaction: nothing else writes them.
func (e *Engine) DropTempTable(t *Table) error {
	if !t.Def.Temporary {
		return nil
	}
	p := tablePrefix(t.Def.ID)
	return e.db.DeleteRange(p, prefixEnd(p), pebble.NoSync)
}

// TruncateTemp deletes a temporary table's rows within the transaction,
// which is no catalog change (TruncateTable's is).
func (t *Txn) TruncateTemp(tb *Table) error {
	if err := t.writable(); err != nil {
		return err
	}
	p := tablePrefix(tb.Def.ID)
	if err := t.indexNow(); err != nil {
		return err
	}
	t.rangeDeleted = true
	if err := t.batch.DeleteRange(p, prefixEnd(p), nil); err != nil {
		return err
	}
	t.tempWrites = true
	tb.ctr.rowID.Store(0)
	tb.SetAutoIncrement(1)
	return nil
}

// clearTempTables deletes the rows of every temporary table (at open),
// if any is left. Not synced (the WAL may be the binlog's): rows a crash
// brings back are deleted at the next open.
func (e *Engine) clearTempTables() error {
	lo, hi := tablePrefix(TempTableIDBase), []byte{spaceData + 1}
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return err
	}
	any := it.First()
	if err := it.Close(); err != nil || !any {
		return err
	}
	return e.db.DeleteRange(lo, hi, pebble.NoSync)
}
