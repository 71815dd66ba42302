package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"

	"petrel/internal/base"
)

// ColumnDef is the persisted form of a column.
type ColumnDef struct {
	Name          string `json:"name"`
	Type          string `json:"type"`
	Nullable      bool   `json:"nullable,omitempty"`
	PrimaryKey    bool   `json:"pk,omitempty"`
	AutoIncrement bool   `json:"autoinc,omitempty"`
	Default       string `json:"default,omitempty"`
	Generated     string `json:"generated,omitempty"`
	OnUpdate      string `json:"on_update,omitempty"`
	Virtual       bool   `json:"virtual,omitempty"`
	Comment       string `json:"comment,omitempty"`
	Extra         string `json:"extra,omitempty"`
	// FSP is a TIME column's fractional-seconds precision as declared
	// (TIME is TIME(0)); nil for columns of other types and for TIME
	// columns created before it was kept, which hold microseconds.
	FSP *int `json:"fsp,omitempty"`
	// Digits are a FLOAT(M,D) or DOUBLE(M,D) column's M and D as
	// declared; nil for other columns, plain FLOAT and DOUBLE, and
	// columns created before they were kept.
	Digits *FloatDigits `json:"digits,omitempty"`
}

// FloatDigits are the M (digits in all) and D (digits after the point)
// of a FLOAT(M,D) or DOUBLE(M,D) column: values are stored rounded to D
// places, within plus or minus 10^(M-D) - 10^-D.
type FloatDigits struct {
	M int `json:"m"`
	D int `json:"d"`
}

// TimeFSP is the fractional-seconds precision a TIME column keeps.
func (cd ColumnDef) TimeFSP() int {
	if cd.FSP == nil {
		return 6
	}
	return *cd.FSP
}

// IndexDef is the persisted form of a secondary index.
type IndexDef struct {
	ID      uint8    `json:"id"`
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
	Prefix  []uint16 `json:"prefix,omitempty"`
	Unique  bool     `json:"unique,omitempty"`
	Comment string   `json:"comment,omitempty"`
}

// TableDef is the persisted form of a table.
type TableDef struct {
	ID        uint32      `json:"id"`
	Database  string      `json:"db"`
	Name      string      `json:"name"`
	Columns   []ColumnDef `json:"columns"`
	PK        []int       `json:"pk"`
	Indexes   []IndexDef  `json:"indexes,omitempty"`
	Collation uint16      `json:"collation"`
	Comment   string      `json:"comment,omitempty"`
	Checks    []CheckDef  `json:"checks,omitempty"`
	// KeyFormat is how the table's keys encode text: 0 (tables created
	// before PAD SPACE keys) keeps trailing spaces; KeyFormatPadSpace
	// drops them under PAD SPACE collations. Tables are created, and
	// rebuilt, in the newest format; old ones keep theirs.
	KeyFormat int `json:"key_format,omitempty"`
	// RowFormat, KeyBlockSize and Compression are the table options as
	// declared (ROW_FORMAT in upper case, COMPRESSION in lower case; empty
	// and 0 when not given); SHOW CREATE TABLE prints them back and
	// Compressed says what they mean for storage (compress.go).
	RowFormat    string `json:"row_format,omitempty"`
	KeyBlockSize int    `json:"key_block_size,omitempty"`
	Compression  string `json:"compression,omitempty"`
	// ForeignKeys are the FOREIGN KEY constraints the table declares
	// (foreignkeys.go).
	ForeignKeys []ForeignKeyDef `json:"foreign_keys,omitempty"`
	// Temporary: a session's temporary table (temptables.go), never in
	// the catalog's persisted form.
	Temporary bool `json:"-"`
}

// KeyFormatPadSpace: text keys under PAD SPACE collations without
// trailing spaces (keys.AppendValuePad).
const KeyFormatPadSpace = 1

// CheckDef is a CHECK constraint.
type CheckDef struct {
	Name     string `json:"name"`
	Expr     string `json:"expr"`
	Enforced bool   `json:"enforced"`
}

// ViewDef is a persisted view.
type ViewDef struct {
	Name           string `json:"name"`
	TextDefinition string `json:"text"`
	CreateStmt     string `json:"create"`
	SqlMode        string `json:"sql_mode,omitempty"`
}

// TriggerDef is a persisted trigger.
type TriggerDef struct {
	Name       string `json:"name"`
	CreateStmt string `json:"create"`
	CreatedAt  int64  `json:"created_at"`
	SqlMode    string `json:"sql_mode,omitempty"`
}

// ProcedureDef is a persisted stored procedure: its CREATE statement,
// parsed again when it is called.
type ProcedureDef struct {
	Name       string `json:"name"`
	CreateStmt string `json:"create"`
	CreatedAt  int64  `json:"created_at"`
	ModifiedAt int64  `json:"modified_at"`
	SqlMode    string `json:"sql_mode,omitempty"`
}

// EventDef is a persisted scheduled event: its definition as the SQL
// layer encodes it.
type EventDef struct {
	Name string          `json:"name"`
	Def  json.RawMessage `json:"def"`
}

// DatabaseDef is the persisted form of a database.
type DatabaseDef struct {
	Name       string         `json:"name"`
	Collation  uint16         `json:"collation"`
	Views      []ViewDef      `json:"views,omitempty"`
	Triggers   []TriggerDef   `json:"triggers,omitempty"`
	Procedures []ProcedureDef `json:"procedures,omitempty"`
	Events     []EventDef     `json:"events,omitempty"`
}

// Database is a database in the catalog.
type Database struct {
	mu     sync.RWMutex
	def    DatabaseDef
	tables map[string]*Table
}

// Def returns a copy of the database definition.
func (d *Database) Def() DatabaseDef {
	d.mu.RLock()
	defer d.mu.RUnlock()
	c := d.def
	c.Views = append([]ViewDef(nil), d.def.Views...)
	c.Triggers = append([]TriggerDef(nil), d.def.Triggers...)
	c.Procedures = append([]ProcedureDef(nil), d.def.Procedures...)
	c.Events = append([]EventDef(nil), d.def.Events...)
	return c
}

// Name is the database's name as created.
func (d *Database) Name() string { return d.def.Name }

// Index is a resolved secondary index.
type Index struct {
	Def   IndexDef
	Ords  []int // column ordinals in the table schema
	Types []sql.Type
}

// Table is a resolved table: definition plus runtime counters. A *Table
// is immutable once published; DDL publishes a new *Table.
type Table struct {
	Def     TableDef
	Schema  sql.Schema
	PKTypes []sql.Type
	Indexes []*Index
	// Hidden is true when the table has no primary key and rows are keyed
	// by a hidden row id (as InnoDB's DB_ROW_ID).
	Hidden bool
	// HasDigits is true when a column has FLOAT(M,D) or DOUBLE(M,D)
	// digits (ColumnDef.Digits): storing values asks only such tables.
	HasDigits bool

	ctr *tableCounters
}

// tableCounters survive DDL that republishes the *Table.
type tableCounters struct {
	autoInc atomic.Uint64 // next AUTO_INCREMENT value
	rowID   atomic.Uint64 // last hidden row id handed out
	// rows is an approximate row count for the planner: counted once on
	// first use, then moved by committed inserts and deletes.
	rowsOnce sync.Once
	rows     atomic.Int64
	// changed counts the rows inserted, updated and deleted by commits
	// since the server started (the statistics' refresh rule).
	changed atomic.Uint64
	// inForeignKey: the table declares a foreign key or one references
	// it (Catalog.refreshForeignKeys).
	inForeignKey atomic.Bool
}

// AutoIncColumn returns the ordinal of the AUTO_INCREMENT column or -1.
func (t *Table) AutoIncColumn() int {
	for i, c := range t.Schema {
		if c.AutoIncrement {
			return i
		}
	}
	return -1
}

// PeekAutoIncrement returns the next AUTO_INCREMENT value.
func (t *Table) PeekAutoIncrement() uint64 {
	v := t.ctr.autoInc.Load()
	if v == 0 {
		return 1
	}
	return v
}

// NextAutoIncrement allocates an AUTO_INCREMENT value. If explicit > 0 the
// counter is bumped past it instead (an inserted explicit value).
func (t *Table) NextAutoIncrement(explicit uint64) uint64 {
	for {
		raw := t.ctr.autoInc.Load()
		cur := max(raw, 1)
		if explicit > 0 {
			if explicit < cur || t.ctr.autoInc.CompareAndSwap(raw, explicit+1) {
				return explicit
			}
			continue
		}
		if t.ctr.autoInc.CompareAndSwap(raw, cur+1) {
			return cur
		}
	}
}

// SetAutoIncrement sets the next AUTO_INCREMENT value (ALTER/TRUNCATE).
func (t *Table) SetAutoIncrement(v uint64) { t.ctr.autoInc.Store(v) }

// Catalog holds databases and tables. Safe for concurrent use. DDL
// changes the in-memory catalog at once and writes its persisted form into
// the DDL's transaction; a rolled-back DDL reloads the catalog.
type Catalog struct {
	e   *Engine
	mu  sync.RWMutex
	dbs map[string]*Database
	// nextID is the next table id; ids are never reused.
	nextID uint32
	// gen moves at every catalog change, when it is made, committed and
	// rolled back: a read view taken at an older generation checks the
	// definitions of the tables it reads (Txn.checkTable).
	gen atomic.Uint64
	// fkMu serialises refreshForeignKeys; fkAny: its last run found a
	// foreign key.
	fkMu  sync.Mutex
	fkAny atomic.Bool
	// tempNext numbers temporary tables (TempTableIDBase + n).
	tempNext atomic.Uint32
}

func newCatalog(e *Engine) *Catalog {
	return &Catalog{e: e, dbs: map[string]*Database{}}
}

func lower(s string) string { return strings.ToLower(s) }

func (c *Catalog) load() error {
	dbs := map[string]*Database{}
	it, err := c.e.db.NewIter(&pebble.IterOptions{LowerBound: metaKey(metaDatabase), UpperBound: metaKey(metaDatabase + 1)})
	if err != nil {
		return err
	}
	for it.First(); it.Valid(); it.Next() {
		var def DatabaseDef
		if err := json.Unmarshal(it.Value(), &def); err != nil {
			it.Close()
			return base.Wrap(base.ClassCorrupt, err, "storage: database definition %q", it.Key())
		}
		dbs[lower(def.Name)] = &Database{def: def, tables: map[string]*Table{}}
	}
	if err := it.Close(); err != nil {
		return err
	}
	it, err = c.e.db.NewIter(&pebble.IterOptions{LowerBound: metaKey(metaTable), UpperBound: metaKey(metaTable + 1)})
	if err != nil {
		return err
	}
	var defs []TableDef
	for it.First(); it.Valid(); it.Next() {
		var def TableDef
		if err := json.Unmarshal(it.Value(), &def); err != nil {
			it.Close()
			return base.Wrap(base.ClassCorrupt, err, "storage: table definition %q", it.Key())
		}
		defs = append(defs, def)
	}
	if err := it.Close(); err != nil {
		return err
	}
	next, err := c.e.readUint64(metaKey(metaNextID))
	if err != nil {
		return err
	}
	for _, def := range defs {
		db := dbs[lower(def.Database)]
		if db == nil {
			return base.Errorf(base.ClassCorrupt, "storage: table %s.%s belongs to no database", def.Database, def.Name)
		}
		t, err := resolveTable(def, nil)
		if err != nil {
			return base.Wrap(base.ClassCorrupt, err, "storage: table %s.%s", def.Database, def.Name)
		}
		if err := c.initCounters(t); err != nil {
			return err
		}
		db.tables[lower(def.Name)] = t
		if uint64(def.ID) >= next {
			next = uint64(def.ID) + 1
		}
	}
	if next == 0 {
		next = 1
	}
	var codecs []tableCodec
	for _, def := range defs {
		codecs = append(codecs, tableCodec{def.ID, codecOf(&def)})
	}
	c.e.spans.reset(codecs)
	c.mu.Lock()
	c.dbs = dbs
	c.nextID = uint32(next)
	c.mu.Unlock()
	c.refreshForeignKeys()
	return nil
}

// Reload re-reads the catalog from storage (after a rolled-back DDL).
func (c *Catalog) Reload() error { return c.load() }

// initCounters sets the AUTO_INCREMENT and hidden row id counters from
// the persisted floor and the largest key present.
func (c *Catalog) initCounters(t *Table) error {
	floor, err := c.e.readUint64(metaTableKey(metaAutoInc, t.Def.ID))
	if err != nil {
		return err
	}
	lo := indexPrefix(nil, t.Def.ID, 0)
	it, err := c.e.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: prefixEnd(lo)})
	if err != nil {
		return err
	}
	defer it.Close()
	if t.Hidden {
		if it.Last() {
			k := it.Key()[len(lo):]
			if len(k) == 8 {
				t.ctr.rowID.Store(binary.BigEndian.Uint64(k))
			}
		}
	}
	ai := t.AutoIncColumn()
	if ai < 0 {
		return nil
	}
	maxv := uint64(0)
	if len(t.Def.PK) > 0 && t.Def.PK[0] == ai {
		if it.Last() {
			row, err := decodeRow(it.Value(), t.Schema)
			if err != nil {
				return err
			}
			maxv = toUint64(row[ai])
		}
	} else {
		for it.First(); it.Valid(); it.Next() {
			row, err := decodeRow(it.Value(), t.Schema)
			if err != nil {
				return err
			}
			if v := toUint64(row[ai]); v > maxv {
				maxv = v
			}
		}
	}
	next := maxv + 1
	if floor > next {
		next = floor
	}
	t.ctr.autoInc.Store(next)
	return nil
}

func toUint64(v any) uint64 {
	switch x := v.(type) {
	case int8:
		return uint64(max(x, 0))
	case int16:
		return uint64(max(x, 0))
	case int32:
		return uint64(max(x, 0))
	case int64:
		return uint64(max(x, 0))
	case uint8:
		return uint64(x)
	case uint16:
		return uint64(x)
	case uint32:
		return uint64(x)
	case uint64:
		return x
	case float32:
		return uint64(max(x, 0))
	case float64:
		return uint64(max(x, 0))
	}
	return 0
}

// resolveTable builds the runtime table for def. ctr carries counters over
// from the previous version of the table (nil for a new one).
func resolveTable(def TableDef, ctr *tableCounters) (*Table, error) {
	sch := make(sql.Schema, len(def.Columns))
	for i, cd := range def.Columns {
		col, err := cd.toColumn(def.Name, def.Database)
		if err != nil {
			return nil, err
		}
		sch[i] = col
	}
	t := &Table{Def: def, Schema: sch, Hidden: len(def.PK) == 0, ctr: ctr}
	for _, cd := range def.Columns {
		t.HasDigits = t.HasDigits || cd.Digits != nil
	}
	if t.ctr == nil {
		t.ctr = &tableCounters{}
	}
	for _, o := range def.PK {
		if o < 0 || o >= len(sch) {
			return nil, fmt.Errorf("primary key ordinal %d out of range", o)
		}
		t.PKTypes = append(t.PKTypes, sch[o].Type)
	}
	for _, id := range def.Indexes {
		ix := &Index{Def: id}
		for _, cn := range id.Columns {
			o := sch.IndexOfColName(cn)
			if o < 0 {
				return nil, fmt.Errorf("index %s names unknown column %s", id.Name, cn)
			}
			ix.Ords = append(ix.Ords, o)
			ix.Types = append(ix.Types, sch[o].Type)
		}
		t.Indexes = append(t.Indexes, ix)
	}
	return t, nil
}

// ColumnDefFrom converts a GMS column to its persisted form.
func ColumnDefFrom(c *sql.Column) ColumnDef {
	typ := c.Type.String()
	if ct, ok := c.Type.(sql.TypeWithCollation); ok {
		// Spell out charset and collation: the bare type string leaves the
		// default collation out, and reading it back would lose it.
		typ = ct.StringWithTableCollation(sql.Collation_Unspecified)
	}
	typ = QuotedMembers(c.Type, typ)
	cd := ColumnDef{
		Name: c.Name, Type: typ, Nullable: c.Nullable, PrimaryKey: c.PrimaryKey,
		AutoIncrement: c.AutoIncrement, Virtual: c.Virtual, Comment: c.Comment, Extra: c.Extra,
	}
	if c.Default != nil {
		cd.Default = c.Default.String()
	}
	if c.Generated != nil {
		cd.Generated = c.Generated.String()
	}
	if c.OnUpdate != nil {
		cd.OnUpdate = c.OnUpdate.String()
	}
	return cd
}

// QuotedMembers is typ, the type string of t, with an ENUM's or SET's
// members written as SQL strings: GMS writes them between quotes as
// they are, so a member holding a quote or a backslash (it's) made
// a type string that does not parse back (CREATE TABLE failed, 1105).
func QuotedMembers(t sql.Type, typ string) string {
	var members []string
	var kw string
	switch x := t.(type) {
	case sql.EnumType:
		members, kw = x.Values(), "enum("
	case sql.SetType:
		members, kw = x.Values(), "set("
	default:
		return typ
	}
	plain, quoted := kw, kw
	for i, m := range members {
		if i > 0 {
			plain, quoted = plain+",", quoted+","
		}
		plain += "'" + m + "'"
		quoted += "'" + strings.ReplaceAll(strings.ReplaceAll(m, `\`, `\\`), "'", "''") + "'"
	}
	plain, quoted = plain+")", quoted+")"
	if plain == quoted || !strings.HasPrefix(typ, plain) {
		return typ
	}
	return quoted + typ[len(plain):]
}

func (cd ColumnDef) toColumn(table, db string) (*sql.Column, error) {
	typ, err := planbuilder.ParseColumnTypeString(cd.Type)
	if err != nil {
		return nil, fmt.Errorf("column %s type %q: %w", cd.Name, cd.Type, err)
	}
	col := &sql.Column{
		Name: cd.Name, Type: typ, Nullable: cd.Nullable, PrimaryKey: cd.PrimaryKey,
		AutoIncrement: cd.AutoIncrement, Virtual: cd.Virtual, Comment: cd.Comment, Extra: cd.Extra,
		Source: table, DatabaseSource: db,
	}
	if cd.Default != "" {
		col.Default = sql.NewUnresolvedColumnDefaultValue(cd.Default)
	}
	if cd.Generated != "" {
		col.Generated = sql.NewUnresolvedColumnDefaultValue(cd.Generated)
	}
	if cd.OnUpdate != "" {
		col.OnUpdate = sql.NewUnresolvedColumnDefaultValue(cd.OnUpdate)
	}
	return col, nil
}

// Databases lists databases sorted by name.
func (c *Catalog) Databases() []*Database {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*Database, 0, len(c.dbs))
	for _, d := range c.dbs {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].def.Name < out[j].def.Name })
	return out
}

// Database looks a database up by name, case-insensitively.
func (c *Catalog) Database(name string) *Database {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.dbs[lower(name)]
}

// Table looks a table up, case-insensitively.
func (c *Catalog) Table(db, name string) *Table {
	d := c.Database(db)
	if d == nil {
		return nil
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.tables[lower(name)]
}

// Tables lists a database's tables sorted by name.
func (d *Database) Tables() []*Table {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]*Table, 0, len(d.tables))
	for _, t := range d.tables {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Def.Name < out[j].Def.Name })
	return out
}

// ErrExists and ErrNotExist classify catalog conflicts.
var (
	ErrExists   = errors.New("storage: already exists")
	ErrNotExist = errors.New("storage: does not exist")
)

// CreateDatabase adds a database within txn.
func (c *Catalog) CreateDatabase(txn *Txn, name string, collation uint16) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.dbs[lower(name)]; ok {
		return fmt.Errorf("%w: database %s", ErrExists, name)
	}
	d := &Database{def: DatabaseDef{Name: name, Collation: collation}, tables: map[string]*Table{}}
	if err := txn.putJSON(metaKey(metaDatabase, lower(name)), d.def); err != nil {
		return err
	}
	c.dbs[lower(name)] = d
	return nil
}

// dropDatabase: DropDatabase without the foreign-key refresh.
func (c *Catalog) dropDatabase(txn *Txn, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dbs[lower(name)]
	if !ok {
		return fmt.Errorf("%w: database %s", ErrNotExist, name)
	}
	for _, t := range d.tables {
		if err := txn.dropTableData(t); err != nil {
			return err
		}
	}
	if err := txn.del(metaKey(metaDatabase, lower(name))); err != nil {
		return err
	}
	delete(c.dbs, lower(name))
	return nil
}

// UpdateDatabase rewrites a database's definition (views, triggers,
// procedures, events, collation) within txn.
func (c *Catalog) UpdateDatabase(txn *Txn, name string, fn func(*DatabaseDef) error) error {
	d := c.Database(name)
	if d == nil {
		return fmt.Errorf("%w: database %s", ErrNotExist, name)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	def := d.def
	def.Views = append([]ViewDef(nil), d.def.Views...)
	def.Triggers = append([]TriggerDef(nil), d.def.Triggers...)
	def.Procedures = append([]ProcedureDef(nil), d.def.Procedures...)
	def.Events = append([]EventDef(nil), d.def.Events...)
	if err := fn(&def); err != nil {
		return err
	}
	if err := txn.putJSON(metaKey(metaDatabase, lower(name)), def); err != nil {
		return err
	}
	d.def = def
	return nil
}

// createTable: CreateTable without the foreign-key refresh.
func (c *Catalog) createTable(txn *Txn, def TableDef) (*Table, error) {
	d := c.Database(def.Database)
	if d == nil {
		return nil, fmt.Errorf("%w: database %s", ErrNotExist, def.Database)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.tables[lower(def.Name)]; ok {
		return nil, fmt.Errorf("%w: table %s", ErrExists, def.Name)
	}
	def.Database = d.def.Name
	def.KeyFormat = KeyFormatPadSpace
	c.mu.Lock()
	def.ID = c.nextID
	c.nextID++
	next := c.nextID
	c.mu.Unlock()
	t, err := resolveTable(def, nil)
	if err != nil {
		return nil, err
	}
	if err := txn.put(metaKey(metaNextID), u64(uint64(next))); err != nil {
		return nil, err
	}
	if err := txn.putJSON(metaTableKey(metaTable, def.ID), def); err != nil {
		return nil, err
	}
	c.e.spans.set(def.ID, codecOf(&def))
	d.tables[lower(def.Name)] = t
	return t, nil
}

// dropTable: DropTable without the foreign-key refresh.
func (c *Catalog) dropTable(txn *Txn, db, name string) error {
	d := c.Database(db)
	if d == nil {
		return fmt.Errorf("%w: database %s", ErrNotExist, db)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.tables[lower(name)]
	if !ok {
		return fmt.Errorf("%w: table %s", ErrNotExist, name)
	}
	if err := txn.dropTableData(t); err != nil {
		return err
	}
	delete(d.tables, lower(name))
	return nil
}

// renameTable: RenameTable without the foreign-key refresh.
func (c *Catalog) renameTable(txn *Txn, db, from, toDB, to string) (*Table, error) {
	src, dst := c.Database(db), c.Database(toDB)
	if src == nil || dst == nil {
		return nil, fmt.Errorf("%w: database", ErrNotExist)
	}
	src.mu.Lock()
	if src != dst {
		dst.mu.Lock()
		defer dst.mu.Unlock()
	}
	defer src.mu.Unlock()
	t, ok := src.tables[lower(from)]
	if !ok {
		return nil, fmt.Errorf("%w: table %s", ErrNotExist, from)
	}
	if _, ok := dst.tables[lower(to)]; ok {
		return nil, fmt.Errorf("%w: table %s", ErrExists, to)
	}
	def := t.Def
	def.Name, def.Database = to, dst.def.Name
	nt, err := resolveTable(def, t.ctr)
	if err != nil {
		return nil, err
	}
	if err := txn.putJSON(metaTableKey(metaTable, def.ID), def); err != nil {
		return nil, err
	}
	delete(src.tables, lower(from))
	dst.tables[lower(to)] = nt
	return nt, nil
}

// alterTable: AlterTable without the foreign-key refresh.
func (c *Catalog) alterTable(txn *Txn, t *Table, fn func(*TableDef) error) (*Table, error) {
	d := c.Database(t.Def.Database)
	if d == nil {
		return nil, fmt.Errorf("%w: database %s", ErrNotExist, t.Def.Database)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	cur, ok := d.tables[lower(t.Def.Name)]
	if !ok {
		return nil, fmt.Errorf("%w: table %s", ErrNotExist, t.Def.Name)
	}
	def := cur.Def
	def.Columns = append([]ColumnDef(nil), cur.Def.Columns...)
	def.PK = append([]int(nil), cur.Def.PK...)
	def.Indexes = append([]IndexDef(nil), cur.Def.Indexes...)
	def.Checks = append([]CheckDef(nil), cur.Def.Checks...)
	def.ForeignKeys = append([]ForeignKeyDef(nil), cur.Def.ForeignKeys...)
	if err := fn(&def); err != nil {
		return nil, err
	}
	nt, err := resolveTable(def, cur.ctr)
	if err != nil {
		return nil, err
	}
	if err := txn.putJSON(metaTableKey(metaTable, def.ID), def); err != nil {
		return nil, err
	}
	c.e.spans.set(def.ID, codecOf(&def))
	d.tables[lower(def.Name)] = nt
	return nt, nil
}

// replaceTable: ReplaceTable without the foreign-key refresh.
func (c *Catalog) replaceTable(txn *Txn, t *Table, def TableDef) (*Table, error) {
	d := c.Database(t.Def.Database)
	if d == nil {
		return nil, fmt.Errorf("%w: database %s", ErrNotExist, t.Def.Database)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	cur, ok := d.tables[lower(t.Def.Name)]
	if !ok {
		return nil, fmt.Errorf("%w: table %s", ErrNotExist, t.Def.Name)
	}
	c.mu.Lock()
	def.ID = c.nextID
	c.nextID++
	next := c.nextID
	c.mu.Unlock()
	def.Name, def.Database = cur.Def.Name, cur.Def.Database
	def.KeyFormat = KeyFormatPadSpace // the caller copies every row in anew
	nt, err := resolveTable(def, cur.ctr)
	if err != nil {
		return nil, err
	}
	if err := txn.put(metaKey(metaNextID), u64(uint64(next))); err != nil {
		return nil, err
	}
	if err := txn.del(metaTableKey(metaTable, cur.Def.ID)); err != nil {
		return nil, err
	}
	if err := txn.putJSON(metaTableKey(metaTable, def.ID), def); err != nil {
		return nil, err
	}
	if v := cur.ctr.autoInc.Load(); v > 0 {
		if err := txn.put(metaTableKey(metaAutoInc, def.ID), u64(v)); err != nil {
			return nil, err
		}
	}
	c.e.spans.set(def.ID, codecOf(&def))
	d.tables[lower(def.Name)] = nt
	return nt, nil
}

// PersistAutoIncrement records an AUTO_INCREMENT floor for t within txn.
func (c *Catalog) PersistAutoIncrement(txn *Txn, t *Table, v uint64) error {
	t.SetAutoIncrement(v)
	if t.Def.Temporary {
		return nil
	}
	return txn.put(metaTableKey(metaAutoInc, t.Def.ID), u64(v))
}

// keyColumnsDiffer reports whether a and b differ in a column of the
// primary key or of an index (in doubt: true).
func (t *Table) keyColumnsDiffer(a, b sql.Row) bool {
	differ := func(o int) bool { return o >= len(a) || o >= len(b) || !sameValue(a[o], b[o]) }
	for _, o := range t.Def.PK {
		if differ(o) {
			return true
		}
	}
	for _, ix := range t.Indexes {
		for _, o := range ix.Ords {
			if differ(o) {
				return true
			}
		}
	}
	return false
}

// sameValue compares two stored column values; false when unsure.
func sameValue(x, y any) bool {
	switch a := x.(type) {
	case nil:
		return y == nil
	case int64:
		b, ok := y.(int64)
		return ok && a == b
	case int32:
		b, ok := y.(int32)
		return ok && a == b
	case uint64:
		b, ok := y.(uint64)
		return ok && a == b
	case string:
		b, ok := y.(string)
		return ok && a == b
	case []byte:
		b, ok := y.([]byte)
		return ok && bytes.Equal(a, b)
	case time.Time:
		b, ok := y.(time.Time)
		return ok && a.Equal(b)
	}
	return reflect.DeepEqual(x, y)
}

// Generation is the catalog's generation: it moves at every catalog
// change (DDL of tables, indexes, CHECK constraints, triggers and views,
// when made, committed and rolled back). A plan made at one generation is
// checked again at any other.
func (c *Catalog) Generation() uint64 { return c.gen.Load() }
