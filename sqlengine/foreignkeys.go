package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage"
)

// Foreign keys. go-mysql-server enforces FOREIGN KEY constraints (the
// checks of INSERT and UPDATE on a child, RESTRICT / NO ACTION / CASCADE /
// SET NULL on a parent's UPDATE and DELETE, the checks of CREATE / ALTER /
// DROP / RENAME / TRUNCATE, foreign_key_checks=0) for a table that
// implements sql.ForeignKeyTable; this file is that backend: constraints
// kept in the table's definition in storage (storage/foreignkeys.go), the
// reverse view from the catalog, and an editor GMS looks rows up through.
//
// Every row a cascade changes goes through the same editor as the
// statement's own rows, so it reaches the binlog as a row event. The
// rows events of a table in a foreign key carry NO_FOREIGN_KEY_CHECKS
// (binlog), so a replica applies exactly the logged rows and does not
// cascade a second time.
//
// The reference checks (does the parent row exist? does a child row
// still reference it?) are locking reads of the latest committed rows,
// as InnoDB's are: a check cannot pass on a row another transaction is
// deleting. Petrel's row locks are exclusive, so two transactions
// inserting children of one parent row take turns where InnoDB's shared
// locks let them run together.

var _ sql.ForeignKeyTable = (*Table)(nil)

// fkToSQL converts a stored constraint of db.table.
func fkToSQL(db, table string, fk storage.ForeignKeyDef) sql.ForeignKeyConstraint {
	return sql.ForeignKeyConstraint{
		Name:           fk.Name,
		Database:       db,
		Table:          table,
		Columns:        append([]string(nil), fk.Columns...),
		ParentDatabase: fk.ParentDatabase,
		ParentTable:    fk.ParentTable,
		ParentColumns:  append([]string(nil), fk.ParentColumns...),
		OnUpdate:       fkAction(fk.OnUpdate),
		OnDelete:       fkAction(fk.OnDelete),
		IsResolved:     fk.Resolved,
	}
}

func fkAction(a string) sql.ForeignKeyReferentialAction {
	if a == "" {
		return sql.ForeignKeyReferentialAction_DefaultAction
	}
	return sql.ForeignKeyReferentialAction(a)
}

// fkFromSQL converts a constraint to its stored form.
func fkFromSQL(fk sql.ForeignKeyConstraint) storage.ForeignKeyDef {
	act := func(a sql.ForeignKeyReferentialAction) string {
		if a == sql.ForeignKeyReferentialAction_DefaultAction {
			return ""
		}
		return string(a)
	}
	return storage.ForeignKeyDef{
		Name:           fk.Name,
		Columns:        append([]string(nil), fk.Columns...),
		ParentDatabase: fk.ParentDatabase,
		ParentTable:    fk.ParentTable,
		ParentColumns:  append([]string(nil), fk.ParentColumns...),
		OnUpdate:       act(fk.OnUpdate),
		OnDelete:       act(fk.OnDelete),
		Resolved:       fk.IsResolved,
	}
}

// GetDeclaredForeignKeys implements sql.ForeignKeyTable.
func (t *Table) GetDeclaredForeignKeys(*sql.Context) ([]sql.ForeignKeyConstraint, error) {
	st, err := t.latest()
	if err != nil {
		return nil, err
	}
	var out []sql.ForeignKeyConstraint
	for _, fk := range st.Def.ForeignKeys {
		out = append(out, fkToSQL(t.db.name, st.Def.Name, fk))
	}
	return out, nil
}

// GetReferencedForeignKeys implements sql.ForeignKeyTable. Tables in no
// foreign key (the flag storage keeps) answer without reading the catalog.
func (t *Table) GetReferencedForeignKeys(*sql.Context) ([]sql.ForeignKeyConstraint, error) {
	st, err := t.latest()
	if err != nil {
		return nil, err
	}
	if !st.InForeignKey() {
		return nil, nil
	}
	var out []sql.ForeignKeyConstraint
	for _, r := range t.db.p.e.Catalog().ReferencingForeignKeys(t.db.name, st.Def.Name) {
		out = append(out, fkToSQL(r.Child.Def.Database, r.Child.Def.Name, r.Key))
	}
	return out, nil
}

// AddForeignKey implements sql.ForeignKeyTable. Constraint names are
// unique within a database, as InnoDB's (1826); SET DEFAULT is refused,
// as InnoDB refuses it.
func (t *Table) AddForeignKey(ctx *sql.Context, fk sql.ForeignKeyConstraint) error {
	if err := noSetDefault(fk); err != nil {
		return err
	}
	if d := t.db.p.e.Catalog().Database(t.db.name); d != nil {
		for _, other := range d.Tables() {
			for _, have := range other.Def.ForeignKeys {
				if strings.EqualFold(have.Name, fk.Name) {
					return sql.ErrForeignKeyDuplicateName.New(fk.Name)
				}
			}
		}
	}
	return t.alter(ctx, func(def *storage.TableDef) error {
		def.ForeignKeys = append(def.ForeignKeys, fkFromSQL(fk))
		return nil
	})
}

// noSetDefault refuses the SET DEFAULT action.
func noSetDefault(fk sql.ForeignKeyConstraint) error {
	if fk.OnUpdate == sql.ForeignKeyReferentialAction_SetDefault || fk.OnDelete == sql.ForeignKeyReferentialAction_SetDefault {
		return sql.ErrForeignKeySetDefault.New()
	}
	return nil
}

// DropForeignKey implements sql.ForeignKeyTable.
func (t *Table) DropForeignKey(ctx *sql.Context, name string) error {
	return t.alter(ctx, func(def *storage.TableDef) error {
		for i, fk := range def.ForeignKeys {
			if strings.EqualFold(fk.Name, name) {
				def.ForeignKeys = append(def.ForeignKeys[:i], def.ForeignKeys[i+1:]...)
				return nil
			}
		}
		return sql.ErrForeignKeyNotFound.New(name, def.Name)
	})
}

// UpdateForeignKey implements sql.ForeignKeyTable (a renamed parent, a
// constraint resolved once its parent exists).
func (t *Table) UpdateForeignKey(ctx *sql.Context, name string, fk sql.ForeignKeyConstraint) error {
	if err := noSetDefault(fk); err != nil {
		return err
	}
	return t.alter(ctx, func(def *storage.TableDef) error {
		for i, have := range def.ForeignKeys {
			if strings.EqualFold(have.Name, name) {
				def.ForeignKeys[i] = fkFromSQL(fk)
				return nil
			}
		}
		return sql.ErrForeignKeyNotFound.New(name, def.Name)
	})
}

// CreateIndexForForeignKey implements sql.ForeignKeyTable: the index
// InnoDB adds when no index leads with the constraint's columns.
func (t *Table) CreateIndexForForeignKey(ctx *sql.Context, def sql.IndexDef) error {
	return t.CreateIndex(ctx, def)
}

// GetForeignKeyEditor implements sql.ForeignKeyTable.
func (t *Table) GetForeignKeyEditor(ctx *sql.Context) sql.ForeignKeyEditor {
	return &fkEditor{editor: t.editor(ctx)}
}

// fkEditor is the editor GMS's foreign-key handler writes a table's rows
// through and looks its rows up by index with.
type fkEditor struct {
	*editor
}

// GetIndexes implements sql.IndexAddressable.
func (f *fkEditor) GetIndexes(ctx *sql.Context) ([]sql.Index, error) {
	return f.t.GetIndexes(ctx)
}

// PreciseMatch implements sql.IndexAddressable.
func (f *fkEditor) PreciseMatch() bool { return true }

// IndexedAccess implements sql.IndexAddressable; lookups made for a
// reference check (SetReferenceCheck) are locking reads.
func (f *fkEditor) IndexedAccess(ctx *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	st, err := f.t.latest()
	t := f.t
	if err == nil {
		t = &Table{db: f.t.db, t: st}
	}
	return &fkLookup{indexedTable: indexedTable{Table: t, lookup: lookup}}
}

// fkLookup is an index lookup of the foreign-key handler.
type fkLookup struct {
	indexedTable
	refCheck bool
}

// SetReferenceCheck implements sql.ReferenceChecker.
func (l *fkLookup) SetReferenceCheck() error {
	l.refCheck = true
	return nil
}

// PartitionRows implements sql.Table: a reference check reads with row
// locks whatever the statement's own reads do.
func (l *fkLookup) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	if !l.refCheck {
		return l.indexedTable.PartitionRows(ctx, p)
	}
	txn, err := readTxn(ctx)
	if err != nil {
		return nil, err
	}
	if txn.LockingReads() {
		return l.indexedTable.PartitionRows(ctx, p)
	}
	cur := txn.CurrentReads()
	txn.SetLockingReads(true)
	defer restoreReads(txn, cur)
	it, err := l.indexedTable.PartitionRows(ctx, p)
	if err != nil {
		return nil, err
	}
	return &lockingIter{RowIter: it, txn: txn}, nil
}

// lockingIter reads its rows with the transaction's locking reads on.
type lockingIter struct {
	sql.RowIter
	txn *storage.Txn
}

func (l *lockingIter) Next(ctx *sql.Context) (sql.Row, error) {
	cur := l.txn.CurrentReads()
	l.txn.SetLockingReads(true)
	defer restoreReads(l.txn, cur)
	return l.RowIter.Next(ctx)
}

// restoreReads turns locking reads off again, keeping current reads as
// they were.
func restoreReads(txn *storage.Txn, current bool) {
	txn.SetLockingReads(false)
	txn.SetCurrentReads(current)
}
