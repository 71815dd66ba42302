package storage

import "strings"

// Foreign keys in the catalog. A table's FOREIGN KEY constraints are kept
// in its definition (TableDef.ForeignKeys) as declared; enforcement,
// cascades and the checks of DDL are the SQL layer's (sqlengine's
// foreign-key table over go-mysql-server's handler). What storage adds is
// the reverse view: which constraints reference a table
// (ReferencingForeignKeys), and a flag per table, InForeignKey, that the
// write fast paths, the binlog's rows-event flags and the writeset
// dependency tracking read without touching the catalog. The flag lives
// in the table's counters, shared by every published version of the
// table, and is recomputed after each DDL that may change it.

// ForeignKeyDef is a FOREIGN KEY constraint of a table: Columns of the
// declaring (child) table reference ParentColumns of ParentTable in
// ParentDatabase. OnUpdate and OnDelete hold the referential action as
// SQL spells it ("RESTRICT", "CASCADE", "SET NULL", "NO ACTION", "SET
// DEFAULT", or "" when not given). Resolved is false for a constraint
// created with foreign_key_checks=0 whose parent was not checked.
type ForeignKeyDef struct {
	Name           string   `json:"name"`
	Columns        []string `json:"columns"`
	ParentDatabase string   `json:"parent_db"`
	ParentTable    string   `json:"parent_table"`
	ParentColumns  []string `json:"parent_columns"`
	OnUpdate       string   `json:"on_update,omitempty"`
	OnDelete       string   `json:"on_delete,omitempty"`
	Resolved       bool     `json:"resolved,omitempty"`
}

// InForeignKey reports whether the table declares a foreign key or is
// referenced by one (as the catalog stood after its last DDL).
func (t *Table) InForeignKey() bool { return t.ctr.inForeignKey.Load() }

// ReferencingKey is a foreign key of Child that references a table.
type ReferencingKey struct {
	Child *Table
	Key   ForeignKeyDef
}

// ReferencingForeignKeys lists the foreign keys, of any database's
// tables, whose parent is db.table (names compared case-insensitively).
func (c *Catalog) ReferencingForeignKeys(db, table string) []ReferencingKey {
	var out []ReferencingKey
	for _, d := range c.Databases() {
		for _, t := range d.Tables() {
			for _, fk := range t.Def.ForeignKeys {
				if strings.EqualFold(fk.ParentDatabase, db) && strings.EqualFold(fk.ParentTable, table) {
					out = append(out, ReferencingKey{Child: t, Key: fk})
				}
			}
		}
	}
	return out
}

// fkName is a table's key in refreshForeignKeys' set.
func fkName(db, table string) string { return lower(db) + "\x00" + lower(table) }

// refreshForeignKeys recomputes every table's InForeignKey flag. Callers
// hold no catalog lock. Runs are serialised, so the last one to finish
// saw the newest catalog.
func (c *Catalog) refreshForeignKeys() {
	c.fkMu.Lock()
	defer c.fkMu.Unlock()
	in := map[string]bool{}
	var all []*Table
	for _, d := range c.Databases() {
		for _, t := range d.Tables() {
			all = append(all, t)
			for _, fk := range t.Def.ForeignKeys {
				in[fkName(t.Def.Database, t.Def.Name)] = true
				in[fkName(fk.ParentDatabase, fk.ParentTable)] = true
			}
		}
	}
	for _, t := range all {
		t.ctr.inForeignKey.Store(in[fkName(t.Def.Database, t.Def.Name)])
	}
	c.fkAny.Store(len(in) > 0)
}

// afterDDL refreshes the flags when the change may have moved them: some
// table had a foreign key before, or the definition written has one.
func (c *Catalog) afterDDL(def *TableDef) {
	if c.fkAny.Load() || (def != nil && len(def.ForeignKeys) > 0) {
		c.refreshForeignKeys()
	}
}

// CreateTable adds a table within txn. def.ID is assigned here.
func (c *Catalog) CreateTable(txn *Txn, def TableDef) (*Table, error) {
	t, err := c.createTable(txn, def)
	c.afterDDL(&def)
	return t, err
}

// DropTable removes a table and its rows within txn.
func (c *Catalog) DropTable(txn *Txn, db, name string) error {
	err := c.dropTable(txn, db, name)
	c.afterDDL(nil)
	return err
}

// DropDatabase removes a database, its tables and their rows within txn.
func (c *Catalog) DropDatabase(txn *Txn, name string) error {
	err := c.dropDatabase(txn, name)
	c.afterDDL(nil)
	return err
}

// RenameTable renames a table (and may move it to another database).
func (c *Catalog) RenameTable(txn *Txn, db, from, toDB, to string) (*Table, error) {
	t, err := c.renameTable(txn, db, from, toDB, to)
	c.afterDDL(nil)
	return t, err
}

// AlterTable replaces a table's definition in place (same id, same rows):
// index, check and foreign-key changes, comments, column renames that
// keep the encoding. Use ReplaceTable when rows must be rewritten.
func (c *Catalog) AlterTable(txn *Txn, t *Table, fn func(*TableDef) error) (*Table, error) {
	nt, err := c.alterTable(txn, t, fn)
	if nt != nil {
		c.afterDDL(&nt.Def)
	}
	return nt, err
}

// ReplaceTable publishes a new, empty table under t's name with a fresh id
// and def's columns. The caller copies the rows over (reading t, which
// keeps its id and rows) and then deletes t's rows with DropTableRows.
func (c *Catalog) ReplaceTable(txn *Txn, t *Table, def TableDef) (*Table, error) {
	nt, err := c.replaceTable(txn, t, def)
	c.afterDDL(&def)
	return nt, err
}
