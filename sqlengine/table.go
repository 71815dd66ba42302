package sqlengine

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/storage"
	"petrel/storage/keys"
)

// Table adapts a storage table to GMS. A Table value is cheap and built per
// lookup; it resolves the latest storage definition when it edits, so a
// plan built before a DDL does not write with a stale schema.
type Table struct {
	db *Database
	t  *storage.Table
	// need lists the columns a statement reads (schema ordinals;
	// scancols.go): full scans decode only those, leaving the others NULL.
	// nil: every column.
	need []int
	// pre: conditions its primary-key scans test on the columns they
	// name before decoding a row's others (prefilter.go). nil: none.
	pre *scanPrefilter
	// temp: a temporary table of the session's (temptables.go).
	temp *tempRef
}

var (
	_ sql.Table                    = (*Table)(nil)
	_ sql.PrimaryKeyTable          = (*Table)(nil)
	_ sql.CommentedTable           = (*Table)(nil)
	_ sql.InsertableTable          = (*Table)(nil)
	_ sql.UpdatableTable           = (*Table)(nil)
	_ sql.DeletableTable           = (*Table)(nil)
	_ sql.ReplaceableTable         = (*Table)(nil)
	_ sql.TruncateableTable        = (*Table)(nil)
	_ sql.AutoIncrementTable       = (*Table)(nil)
	_ sql.IndexAddressableTable    = (*Table)(nil)
	_ sql.IndexAlterableTable      = (*Table)(nil)
	_ sql.AlterableTable           = (*Table)(nil)
	_ sql.RewritableTable          = (*Table)(nil)
	_ sql.CheckTable               = (*Table)(nil)
	_ sql.CheckAlterableTable      = (*Table)(nil)
	_ sql.StatisticsTable          = (*Table)(nil)
	_ sql.PrimaryKeyAlterableTable = (*Table)(nil)
)

func newTable(db *Database, t *storage.Table) *Table { return &Table{db: db, t: t} }

// Storage returns the storage table (used by the applier and tests).
func (t *Table) Storage() *storage.Table { return t.t }

// Name implements sql.Nameable.
func (t *Table) Name() string { return t.t.Def.Name }

// Database implements sql.Databaseable (GMS's planner names a table's
// statistics by it).
func (t *Table) Database() string { return t.db.name }

// String implements fmt.Stringer.
func (t *Table) String() string { return t.t.Def.Name }

// Schema implements sql.Table.
func (t *Table) Schema() sql.Schema { return t.t.Schema }

// Collation implements sql.Table.
func (t *Table) Collation() sql.CollationID {
	if t.t.Def.Collation == 0 {
		return sql.Collation_Default
	}
	return sql.CollationID(t.t.Def.Collation)
}

// Comment implements sql.CommentedTable.
func (t *Table) Comment() string { return t.t.Def.Comment }

// PrimaryKeySchema implements sql.PrimaryKeyTable.
func (t *Table) PrimaryKeySchema() sql.PrimaryKeySchema {
	return sql.NewPrimaryKeySchema(t.t.Schema, t.t.Def.PK...)
}

// latest returns the current storage definition of this table.
func (t *Table) latest() (*storage.Table, error) {
	if t.temp != nil {
		return t.temp.t, nil
	}
	cur := t.db.p.e.Catalog().Table(t.db.name, t.t.Def.Name)
	if cur == nil {
		return nil, sql.ErrTableNotFound.New(t.t.Def.Name)
	}
	return cur, nil
}

type scanPartition struct {
	lo, hi []byte
	rng    sql.MySQLRange // nil for a full scan
	// point is set when lo is a full primary key: one Get, no iterator.
	point bool
}

func (p *scanPartition) Key() []byte { return p.lo }

// Partitions implements sql.Table: one partition, the whole primary index.
func (t *Table) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(&scanPartition{}), nil
}

// PartitionRows implements sql.Table.
func (t *Table) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	sp, ok := p.(*scanPartition)
	if !ok {
		return nil, fmt.Errorf("sqlengine: unexpected partition %T", p)
	}
	it, err := t.scan(ctx, 0, sp, false, nil)
	t.narrow(it)
	t.prefilter(ctx, it)
	return it, err
}

// narrow makes a scan of t decode only t.need (scancols.go) where it can:
// scans of the primary key (a locking read still reads whole rows).
func (t *Table) narrow(it sql.RowIter) {
	if ri, ok := it.(*rowIter); ok && t.need != nil && ri.it.Project(t.need) {
		t.db.p.narrowScans.Add(1)
	}
}

func (t *Table) scan(ctx *sql.Context, ixID uint8, sp *scanPartition, reverse bool, filter sql.Expression) (sql.RowIter, error) {
	txn, err := readTxn(ctx)
	if err != nil {
		return nil, err
	}
	if !txn.LockingReads() && lockingStatement(ctx) {
		// SELECT ... FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE: GMS drops
		// the clause from the plan, so the parser marks the session
		// (lockparse.go). Shared locks are taken as exclusive ones
		// (stronger, never weaker).
		txn.SetLockingReads(true)
		lockWaitFor(ctx, txn)
	}
	if sp.point {
		// A single-row read decodes the statement's columns only, as
		// scans do (storage reads a locking read whole regardless: it
		// keeps the row for the UPDATE that follows). TPC-C's
		// STOCK_LEVEL reads 3 of stock's 17 columns, 200 rows a time.
		var want []bool
		if t.need != nil {
			want = make([]bool, len(t.t.Schema))
			for _, o := range t.need {
				if o < len(want) {
					want[o] = true
				}
			}
			t.db.p.narrowScans.Add(1)
		}
		row, err := txn.PointColumns(ctx, t.t, sp.lo, want)
		if err != nil {
			return nil, sessionError(ctx, err)
		}
		if row == nil {
			return sql.RowsToRowIter(), nil
		}
		row = tsRowFromStore(ctx, t.t, row)
		if filter != nil {
			ok, err := sql.EvaluateCondition(ctx, filter, row)
			if err != nil || !sql.IsTrue(ok) {
				return sql.RowsToRowIter(), err
			}
		}
		return sql.RowsToRowIter(row), nil
	}
	it, err := txn.Scan(ctx, t.t, ixID, sp.lo, sp.hi, reverse)
	if err != nil {
		return nil, sessionError(ctx, err)
	}
	return &rowIter{it: it, filter: filter, ts: newTSReader(ctx, t.t)}, nil
}

type rowIter struct {
	it     *storage.RowIter
	filter sql.Expression
	ts     tsReader // the session's TIMESTAMP zone (tszone.go)
	// rejected, when a prefilter is set, is the counter its rows turned
	// down are added to at Close (Petrel_prefiltered_rows).
	rejected *atomic.Uint64
}

func (r *rowIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		row, err := r.it.Next()
		if err != nil {
			return nil, sessionError(ctx, err)
		}
		if row == nil {
			return nil, io.EOF
		}
		row = r.ts.row(row)
		if r.filter != nil {
			ok, err := sql.EvaluateCondition(ctx, r.filter, row)
			if err != nil {
				return nil, err
			}
			if !sql.IsTrue(ok) {
				continue
			}
		}
		return row, nil
	}
}

func (r *rowIter) Close(*sql.Context) error {
	if r.rejected != nil {
		r.rejected.Add(r.it.Prefiltered())
	}
	return r.it.Close()
}

// Inserter implements sql.InsertableTable. The SELECT of INSERT ...
// SELECT reads the latest committed rows, not the transaction's snapshot,
// as InnoDB's does (there under shared locks Petrel does not take).
func (t *Table) Inserter(ctx *sql.Context) sql.RowInserter {
	currentReads(ctx)
	return t.editor(ctx)
}

// currentReads makes the statement's non-locking reads read the latest
// committed version (GMS asks for the editor before it opens the scans).
func currentReads(ctx *sql.Context) {
	if txn, err := readTxn(ctx); err == nil && !txn.LockingReads() {
		txn.SetCurrentReads(true)
	}
}

// Updater implements sql.UpdatableTable. The scan feeding an UPDATE reads
// with row locks, as InnoDB's current read does, so concurrent
// read-modify-write statements never lose updates.
func (t *Table) Updater(ctx *sql.Context) sql.RowUpdater {
	if txn, err := readTxn(ctx); err == nil {
		txn.SetLockingReads(true)
	}
	ed := t.editor(ctx)
	if s, ok := ctx.Session.(*Session); ok && s.updateJoin {
		ed.joinDone = map[string]bool{}
	}
	return ed
}

// lockingWrite makes an UPDATE's or DELETE's reads locking reads (see
// Updater) when its plan is built: a table in a foreign key is written
// through GMS's foreign-key handler, which never asks for Updater or
// Deleter, and its cascades must find the rows committed while the
// statement waited for a lock.
func lockingWrite(ctx *sql.Context) {
	if txn, err := readTxn(ctx); err == nil {
		txn.SetLockingReads(true)
	}
}

// Deleter implements sql.DeletableTable; see Updater.
func (t *Table) Deleter(ctx *sql.Context) sql.RowDeleter {
	if txn, err := readTxn(ctx); err == nil {
		txn.SetLockingReads(true)
	}
	return t.editor(ctx)
}

// Replacer implements sql.ReplaceableTable; see Inserter.
func (t *Table) Replacer(ctx *sql.Context) sql.RowReplacer {
	currentReads(ctx)
	return t.editor(ctx)
}

func (t *Table) editor(*sql.Context) *editor { return &editor{t: t} }

// ddlTxn is the transaction a change of t's definition is made in: the
// DDL transaction, or for a temporary table the session's (no read-only
// refusal, as in MySQL).
func (t *Table) ddlTxn(ctx *sql.Context) (*storage.Txn, error) {
	if t.temp != nil {
		return readTxn(ctx)
	}
	return ddlTxn(ctx)
}

// editor applies one statement's row edits to the session transaction.
type editor struct {
	t *Table
	// rows counts the rows written, for error 1366's "at row N".
	rows int
	// ddl: the edits copy a table an ALTER rewrites, DDL that a READ ONLY
	// transaction does not refuse (ddlTxn), unlike row writes.
	ddl bool
	// deletes counts the rows deleted since the last insert: a REPLACE
	// deletes each row its new row collides with, then inserts.
	deletes int
	// joinDone, in a multiple-table UPDATE, holds the primary keys of the
	// rows it has written. MySQL updates a row once however many joined
	// rows match it; GMS skips a row it updated only when the joined row
	// brings the same old values, and when the target is the join's inner
	// side its later joined rows bring the updated row (the statement's
	// own write, read again): it was updated once per match, the last
	// match's values kept and each counted.
	joinDone map[string]bool
}

func (e *editor) target(ctx *sql.Context) (*storage.Txn, *storage.Table, error) {
	txnFor := writeTxn
	if e.ddl {
		txnFor = ddlTxn
	}
	if e.t.temp != nil {
		// A temporary table is written in READ ONLY transactions and
		// under read_only too, as in MySQL.
		txnFor = readTxn
	}
	txn, err := txnFor(ctx)
	if err != nil {
		return nil, nil, err
	}
	st, err := e.t.latest()
	if err != nil {
		return nil, nil, err
	}
	return txn, st, nil
}

func (e *editor) StatementBegin(ctx *sql.Context) {
	if e.joinDone != nil {
		// An editor kept by a plan run again (a prepared statement)
		// starts each run with no row written.
		clear(e.joinDone)
	}
	if txn, err := readTxn(ctx); err == nil {
		txn.StatementBegin()
	}
}

func (e *editor) DiscardChanges(ctx *sql.Context, _ error) error {
	txn, err := readTxn(ctx)
	if err != nil {
		return nil
	}
	return txn.StatementRollback()
}

func (e *editor) StatementComplete(ctx *sql.Context) error {
	if txn, err := readTxn(ctx); err == nil {
		txn.StatementComplete()
	}
	return nil
}

func (e *editor) Insert(ctx *sql.Context, row sql.Row) error {
	txn, st, err := e.target(ctx)
	if err != nil {
		return err
	}
	e.rows++
	row = fitTimeFSP(ctx, st, row)
	if row, err = tsRowToStore(ctx, st, row, e.rows); err != nil {
		return err
	}
	if err := keys.CheckRow(st.Schema, nil, row); err != nil {
		return stringError(err, e.rows)
	}
	if err := txn.Insert(ctx, st, row); err != nil {
		return sessionError(ctx, err)
	}
	if e.deletes > 1 {
		// GMS counts one deleted row per replaced row; MySQL each.
		if s, ok := ctx.Session.(*Session); ok {
			s.extraAffected += uint64(e.deletes - 1)
		}
	}
	e.deletes = 0
	return nil
}

func (e *editor) Update(ctx *sql.Context, old, new sql.Row) error {
	txn, st, err := e.target(ctx)
	if err != nil {
		return err
	}
	if old, err = tsRowToStore(ctx, st, old, e.rows+1); err != nil {
		return err
	}
	if new, err = tsRowToStore(ctx, st, new, e.rows+1); err != nil {
		return err
	}
	if e.joinDone != nil && st.Hidden {
		return e.updateKeyless(ctx, txn, st, old, new)
	}
	if e.joinDone != nil {
		k, err := st.PKKey(nil, old)
		if err != nil {
			return sessionError(ctx, err)
		}
		if e.joinDone[string(k)] {
			// Written already by this statement: not again, and not
			// counted (GMS counted it).
			if s, ok := ctx.Session.(*Session); ok {
				s.fewerAffected++
			}
			return nil
		}
		e.joinDone[string(k)] = true
		if nk, err := st.PKKey(nil, new); err == nil {
			e.joinDone[string(nk)] = true
		}
	}
	e.rows++
	new = fitTimeFSP(ctx, st, new)
	if err := keys.CheckRow(st.Schema, old, new); err != nil {
		return stringError(err, e.rows)
	}
	return sessionError(ctx, txn.Update(ctx, st, old, new))
}

// updateKeyless writes, in a multiple-table UPDATE, every row of a
// table without a primary key that holds old's content and that the
// statement has not written (storage's UpdateUnwritten): GMS passes each
// old content once, and again when a later joined row brings a row the
// statement wrote. The rows written beyond the one GMS counted are added
// to the statement's counts, a content found written already taken off.
func (e *editor) updateKeyless(ctx *sql.Context, txn *storage.Txn, st *storage.Table, old, new sql.Row) error {
	e.rows++
	new = fitTimeFSP(ctx, st, new)
	if err := keys.CheckRow(st.Schema, old, new); err != nil {
		return stringError(err, e.rows)
	}
	n, err := txn.UpdateUnwritten(ctx, st, old, new, e.joinDone)
	if s, ok := ctx.Session.(*Session); ok {
		switch {
		case n == 0 && err == nil:
			s.fewerAffected++
		case n > 1:
			s.moreAffected += uint64(n - 1)
		}
	}
	return sessionError(ctx, err)
}

func (e *editor) Delete(ctx *sql.Context, row sql.Row) error {
	txn, st, err := e.target(ctx)
	if err != nil {
		return err
	}
	if row, err = tsRowToStore(ctx, st, row, e.rows+1); err != nil {
		return err
	}
	if err := txn.Delete(ctx, st, row); err != nil {
		return sessionError(ctx, err)
	}
	e.deletes++
	return nil
}

func (e *editor) Close(*sql.Context) error { return nil }

// SetAutoIncrementValue implements sql.AutoIncrementSetter.
func (e *editor) SetAutoIncrementValue(ctx *sql.Context, v uint64) error {
	txn, st, err := e.target(ctx)
	if err != nil {
		return err
	}
	return e.t.db.p.e.Catalog().PersistAutoIncrement(txn, st, v)
}

// AcquireAutoIncrementLock implements sql.AutoIncrementSetter; allocation
// is atomic (innodb_autoinc_lock_mode=2), so there is nothing to lock.
func (e *editor) AcquireAutoIncrementLock(*sql.Context) (func(), error) { return func() {}, nil }

// Truncate implements sql.TruncateableTable.
func (t *Table) Truncate(ctx *sql.Context) (int, error) {
	// MySQL answers TRUNCATE with 0 rows affected (InnoDB drops and
	// recreates the table), so the rows are not counted. (A DELETE
	// without WHERE, which GMS would run as a truncation, stays a DELETE:
	// deleterows.go.)
	if t.temp != nil {
		txn, err := readTxn(ctx)
		if err != nil {
			return 0, err
		}
		if s := ctxSession(ctx); s != nil {
			s.tempDDL = true
		}
		return 0, txn.TruncateTemp(t.temp.t)
	}
	txn, err := writeTxn(ctx)
	if err != nil {
		return 0, err
	}
	st, err := t.latest()
	if err != nil {
		return 0, err
	}
	if err := txn.TruncateTable(st); err != nil {
		return 0, ddlError(ctx, err)
	}
	return 0, nil
}

// PeekNextAutoIncrementValue implements sql.AutoIncrementGetter.
func (t *Table) PeekNextAutoIncrementValue(*sql.Context) (uint64, error) {
	st, err := t.latest()
	if err != nil {
		return 0, err
	}
	return st.PeekAutoIncrement(), nil
}

// GetNextAutoIncrementValue implements sql.AutoIncrementTable: nil allocates
// the next value; an explicit value moves the counter past it.
func (t *Table) GetNextAutoIncrementValue(ctx *sql.Context, insertVal interface{}) (uint64, error) {
	st, err := t.latest()
	if err != nil {
		return 0, err
	}
	if insertVal == nil {
		return st.NextAutoIncrement(0), nil
	}
	v, _, err := types.Uint64.Convert(ctx, insertVal)
	if err != nil {
		return 0, err
	}
	return st.NextAutoIncrement(v.(uint64)), nil
}

// AutoIncrementSetter implements sql.AutoIncrementTable.
func (t *Table) AutoIncrementSetter(ctx *sql.Context) sql.AutoIncrementSetter { return t.editor(ctx) }

// GetChecks implements sql.CheckTable.
func (t *Table) GetChecks(*sql.Context) ([]sql.CheckDefinition, error) {
	var out []sql.CheckDefinition
	for _, c := range t.t.Def.Checks {
		out = append(out, sql.CheckDefinition{Name: c.Name, CheckExpression: c.Expr, Enforced: c.Enforced})
	}
	return out, nil
}

// CreateCheck implements sql.CheckAlterableTable.
func (t *Table) CreateCheck(ctx *sql.Context, check *sql.CheckDefinition) error {
	return t.alter(ctx, func(def *storage.TableDef) error {
		name := check.Name
		if name == "" {
			// MySQL names unnamed checks <table>_chk_<n>.
			for n := 1; ; n++ {
				name = fmt.Sprintf("%s_chk_%d", def.Name, n)
				taken := false
				for _, c := range def.Checks {
					taken = taken || strings.EqualFold(c.Name, name)
				}
				if !taken {
					break
				}
			}
		}
		for _, c := range def.Checks {
			if strings.EqualFold(c.Name, name) {
				return sql.ErrDuplicateKey.New(name)
			}
		}
		def.Checks = append(def.Checks, storage.CheckDef{Name: name, Expr: check.CheckExpression, Enforced: check.Enforced})
		return nil
	})
}

// DropCheck implements sql.CheckAlterableTable.
func (t *Table) DropCheck(ctx *sql.Context, name string) error {
	return t.alter(ctx, func(def *storage.TableDef) error {
		for i, c := range def.Checks {
			if strings.EqualFold(c.Name, name) {
				def.Checks = append(def.Checks[:i], def.Checks[i+1:]...)
				return nil
			}
		}
		return sql.ErrUnknownConstraint.New(name)
	})
}

func (t *Table) alter(ctx *sql.Context, fn func(*storage.TableDef) error) error {
	txn, err := t.ddlTxn(ctx)
	if err != nil {
		return err
	}
	st, err := t.latest()
	if err != nil {
		return err
	}
	nt, err := t.alterDef(ctx, txn, st, fn)
	if err != nil {
		return err
	}
	t.t = nt
	return nil
}

// AddColumn implements sql.AlterableTable. Rows are rewritten through
// RewriteInserter, so this is only reached when GMS decides no rewrite is
// needed; Petrel always asks for one.
func (t *Table) AddColumn(*sql.Context, *sql.Column, *sql.ColumnOrder) error {
	return fmt.Errorf("sqlengine: ADD COLUMN without rewrite is not supported")
}

// DropColumn implements sql.AlterableTable; see AddColumn.
func (t *Table) DropColumn(*sql.Context, string) error {
	return fmt.Errorf("sqlengine: DROP COLUMN without rewrite is not supported")
}

// ModifyColumn implements sql.AlterableTable. GMS calls it directly for
// changes that keep the stored encoding (RENAME COLUMN, SET/DROP DEFAULT):
// those are catalog-only. Anything else goes through RewriteInserter.
func (t *Table) ModifyColumn(ctx *sql.Context, name string, col *sql.Column, order *sql.ColumnOrder) error {
	st, err := t.latest()
	if err != nil {
		return err
	}
	o := st.Schema.IndexOfColName(name)
	if o < 0 {
		return sql.ErrTableColumnNotFound.New(st.Def.Name, name)
	}
	if order != nil || !col.Type.Equals(st.Schema[o].Type) {
		return fmt.Errorf("sqlengine: MODIFY COLUMN %s needs a table rewrite", name)
	}
	return t.alter(ctx, func(def *storage.TableDef) error {
		cd := storage.ColumnDefFrom(col)
		cd.PrimaryKey = def.Columns[o].PrimaryKey
		if cd.PrimaryKey {
			cd.Nullable = false
		}
		old := def.Columns[o].Name
		prev := storage.TableDef{Columns: append([]storage.ColumnDef(nil), def.Columns...)}
		def.Columns[o] = cd
		takeTimePrecisions(ctx, def, &prev, map[string]string{strings.ToLower(col.Name): old})
		for i := range def.Indexes {
			for j, c := range def.Indexes[i].Columns {
				if strings.EqualFold(c, old) {
					def.Indexes[i].Columns[j] = col.Name
				}
			}
		}
		return nil
	})
}

// CreatePrimaryKey implements sql.PrimaryKeyAlterableTable; GMS rewrites
// the table through RewriteInserter, so nothing is left to do here.
func (t *Table) CreatePrimaryKey(*sql.Context, []sql.IndexColumn) error { return nil }

// DropPrimaryKey implements sql.PrimaryKeyAlterableTable; see CreatePrimaryKey.
func (t *Table) DropPrimaryKey(*sql.Context) error { return nil }

// DataLength implements sql.StatisticsTable (an estimate).
func (t *Table) DataLength(ctx *sql.Context) (uint64, error) {
	return t.db.p.e.ApproxRows(t.t) * 128, nil
}

// RowCount implements sql.StatisticsTable: approximate, for the planner
// (never exact, so COUNT(*) is always counted, in the transaction's view).
func (t *Table) RowCount(*sql.Context) (uint64, bool, error) {
	return t.db.p.e.ApproxRows(t.t), false, nil
}

// ShouldRewriteTable implements sql.RewritableTable: Petrel rewrites rows
// on every column change, so the stored encoding always matches the schema.
func (t *Table) ShouldRewriteTable(*sql.Context, sql.PrimaryKeySchema, sql.PrimaryKeySchema, *sql.Column, *sql.Column) bool {
	return true
}

// RewriteInserter implements sql.RewritableTable: it publishes the new
// schema under a fresh table id, deletes the old rows, and returns an
// inserter GMS fills with the projected rows.
func (t *Table) RewriteInserter(ctx *sql.Context, oldSch, newSch sql.PrimaryKeySchema, oldCol, newCol *sql.Column, _ []sql.IndexColumn) (sql.RowInserter, error) {
	if len(oldSch.PkOrdinals) > 0 && len(newSch.PkOrdinals) == 0 {
		// DROP PRIMARY KEY keeps an AUTO_INCREMENT key column only with
		// another index led by it (1075), as MySQL's.
		if err := sql.ValidatePrimaryKeyDrop(ctx, t, oldSch); err != nil {
			return nil, err
		}
	}
	txn, err := t.ddlTxn(ctx)
	if err != nil {
		return nil, err
	}
	st, err := t.latest()
	if err != nil {
		return nil, err
	}
	def := st.Def
	def.Columns = nil
	for _, c := range newSch.Schema {
		def.Columns = append(def.Columns, storage.ColumnDefFrom(c))
	}
	renamed := map[string]string{}
	if oldCol != nil && newCol != nil {
		renamed[strings.ToLower(newCol.Name)] = oldCol.Name
	}
	takeTimePrecisions(ctx, &def, &st.Def, renamed)
	def.PK = append([]int(nil), newSch.PkOrdinals...)
	for _, o := range def.PK {
		// Primary-key columns are NOT NULL, as in MySQL.
		def.Columns[o].Nullable = false
	}
	// Indexes follow renamed columns and lose dropped ones.
	var idxs []storage.IndexDef
	for _, ix := range st.Def.Indexes {
		var cols []string
		for _, c := range ix.Columns {
			name := c
			if oldCol != nil && strings.EqualFold(c, oldCol.Name) {
				if newCol == nil {
					continue
				}
				name = newCol.Name
			}
			if newSch.Schema.IndexOfColName(name) >= 0 {
				cols = append(cols, name)
			}
		}
		if len(cols) == 0 {
			continue
		}
		ix.Columns = cols
		idxs = append(idxs, ix)
	}
	def.Indexes = idxs
	if t.temp != nil {
		// A temporary table's new copy is another temporary table.
		nt, err := t.db.p.e.Catalog().NewTempTable(def)
		if err != nil {
			return nil, err
		}
		nt.SetAutoIncrement(st.PeekAutoIncrement())
		t.temp.t = nt
		if s := ctxSession(ctx); s != nil {
			s.tempDDL = true
		}
		return &rewriteEditor{editor: editor{t: t, ddl: true}, old: st}, nil
	}
	if err := checkModifiedValues(ctx, txn, st, oldSch.Schema, oldCol, newCol); err != nil {
		return nil, err
	}
	if _, err := t.db.p.e.Catalog().ReplaceTable(txn, st, def); err != nil {
		return nil, ddlError(ctx, err)
	}
	// GMS reads the old rows through t (still the old table) and inserts
	// the projected rows through the editor (which resolves the new one).
	return &rewriteEditor{editor: editor{t: t, ddl: true}, old: st}, nil
}

// rewriteEditor deletes the old copy of a rewritten table once every row
// has been copied.
type rewriteEditor struct {
	editor
	old *storage.Table
}

func (r *rewriteEditor) Insert(ctx *sql.Context, row sql.Row) error {
	if _, st, err := r.editor.target(ctx); err == nil && st.HasDigits {
		// Columns whose FLOAT(M,D) digits change take their rows'
		// values as a store does (floatdigits.go).
		if row, err = fitFloatDigits(ctx, st, r.old, row, r.rows+1); err != nil {
			return ddlError(ctx, err)
		}
	}
	return ddlError(ctx, r.editor.Insert(ctx, row))
}

func (r *rewriteEditor) Close(ctx *sql.Context) error {
	if r.old.Def.Temporary {
		return r.t.db.p.e.DropTempTable(r.old)
	}
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	return ddlError(ctx, txn.DropTableRows(r.old))
}

// ColumnOrdinal is the ordinal of the column named name, -1 if none.
func (t *Table) ColumnOrdinal(name string) int { return t.t.Schema.IndexOfColName(name) }
