package sqlengine

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/sqlengine/planstats"
	"petrel/sqlengine/storedfn"
	"petrel/sqlengine/sysschema"
	"petrel/storage"
)

// Provider serves Petrel's databases to GMS. Safe for concurrent use.
type Provider struct {
	e *storage.Engine
	// stats is the engine's statistics provider, set once by
	// newStatsProvider before the engine serves (index choice reads it).
	stats *planstats.Provider

	mu  sync.Mutex
	dbs map[*storage.Database]*Database // stable wrappers

	sys sysschema.Tables // performance_schema

	fnMu sync.RWMutex
	fns  map[string]sql.Function // RegisterFunction's, by lower-case name
	// callFunction runs a stored function (storedfuncs.go); set once by
	// the engine before it serves.
	callFunction func(ctx *sql.Context, db string, def *storedfn.Def, args []any) (any, error)

	// narrowScans counts full scans that decoded only some columns
	// (scancols.go; Petrel_narrow_scans).
	narrowScans atomic.Uint64
	// prefilteredRows counts rows scans turned down before decoding
	// them whole (prefilter.go; Petrel_prefiltered_rows).
	prefilteredRows atomic.Uint64
}

var (
	_ sql.DatabaseProvider         = (*Provider)(nil)
	_ sql.MutableDatabaseProvider  = (*Provider)(nil)
	_ sql.CollatedDatabaseProvider = (*Provider)(nil)
)

// NewProvider returns a provider over e's catalog.
func NewProvider(e *storage.Engine) *Provider {
	return &Provider{e: e, dbs: map[*storage.Database]*Database{}}
}

func (p *Provider) wrap(d *storage.Database) *Database {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.dbs[d]
	if !ok {
		w = &Database{p: p, name: d.Name()}
		p.dbs[d] = w
	}
	return w
}

// Database implements sql.DatabaseProvider.
func (p *Provider) Database(_ *sql.Context, name string) (sql.Database, error) {
	if strings.EqualFold(name, sysschema.PerformanceSchema) {
		return p.sys.DB(), nil
	}
	d := p.e.Catalog().Database(name)
	if d == nil {
		return nil, sql.ErrDatabaseNotFound.New(name)
	}
	return p.wrap(d), nil
}

// HasDatabase implements sql.DatabaseProvider.
func (p *Provider) HasDatabase(_ *sql.Context, name string) bool {
	return strings.EqualFold(name, sysschema.PerformanceSchema) || p.e.Catalog().Database(name) != nil
}

// AllDatabases implements sql.DatabaseProvider.
func (p *Provider) AllDatabases(*sql.Context) []sql.Database {
	out := []sql.Database{p.sys.DB()}
	for _, d := range p.e.Catalog().Databases() {
		out = append(out, p.wrap(d))
	}
	return out
}

// CreateDatabase implements sql.MutableDatabaseProvider.
func (p *Provider) CreateDatabase(ctx *sql.Context, name string) error {
	return p.CreateCollatedDatabase(ctx, name, serverCollation(ctx))
}

// CreateCollatedDatabase implements sql.CollatedDatabaseProvider.
func (p *Provider) CreateCollatedDatabase(ctx *sql.Context, name string, collation sql.CollationID) error {
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	if err := p.e.Catalog().CreateDatabase(txn, name, uint16(collation)); err != nil {
		if errors.Is(err, storage.ErrExists) {
			return sql.ErrDatabaseExists.New(name)
		}
		return err
	}
	return nil
}

// DropDatabase implements sql.MutableDatabaseProvider.
func (p *Provider) DropDatabase(ctx *sql.Context, name string) error {
	if strings.EqualFold(name, sysschema.PerformanceSchema) {
		return sysschema.Denied(ctx)
	}
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	d := p.e.Catalog().Database(name)
	if err := p.e.Catalog().DropDatabase(txn, name); err != nil {
		if errors.Is(err, storage.ErrNotExist) {
			return sql.ErrDatabaseNotFound.New(name)
		}
		return err
	}
	p.mu.Lock()
	delete(p.dbs, d)
	p.mu.Unlock()
	return nil
}

// Database is one database. Its tables are looked up in the catalog on
// each call, so DDL by other sessions is seen at once.
type Database struct {
	p    *Provider
	name string
}

var (
	_ sql.Database            = (*Database)(nil)
	_ sql.TableCreator        = (*Database)(nil)
	_ sql.IndexedTableCreator = (*Database)(nil)
	_ sql.TableDropper        = (*Database)(nil)
	_ sql.TableRenamer        = (*Database)(nil)
	_ sql.ViewDatabase        = (*Database)(nil)
	_ sql.TriggerDatabase     = (*Database)(nil)
	_ sql.CollatedDatabase    = (*Database)(nil)
)

// Name implements sql.Nameable.
func (d *Database) Name() string { return d.name }

func (d *Database) sdb() *storage.Database { return d.p.e.Catalog().Database(d.name) }

// GetTableInsensitive implements sql.Database: a temporary table of the
// session's shadows a table of the same name (temptables.go).
func (d *Database) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	if t := d.tempTable(ctx, name); t != nil {
		return t, true, nil
	}
	t := d.p.e.Catalog().Table(d.name, name)
	if t == nil {
		return nil, false, nil
	}
	return newTable(d, t), true, nil
}

// GetTableNames implements sql.Database.
func (d *Database) GetTableNames(*sql.Context) ([]string, error) {
	sd := d.sdb()
	if sd == nil {
		return nil, nil
	}
	var names []string
	for _, t := range sd.Tables() {
		names = append(names, t.Def.Name)
	}
	return names, nil
}

// IsReadOnly implements sql.ReadOnlyDatabase-like checks.
func (d *Database) IsReadOnly() bool { return false }

// CreateTable implements sql.TableCreator.
func (d *Database) CreateTable(ctx *sql.Context, name string, sch sql.PrimaryKeySchema, collation sql.CollationID, comment string) error {
	return d.createTable(ctx, name, sch, collation, comment)
}

// CreateIndexedTable implements sql.IndexedTableCreator.
func (d *Database) CreateIndexedTable(ctx *sql.Context, name string, sch sql.PrimaryKeySchema, idxDef sql.IndexDef, collation sql.CollationID) error {
	for _, c := range idxDef.Columns {
		if c.Length > 0 {
			return sql.ErrUnsupportedIndexPrefix.New(c.Name)
		}
	}
	return d.createTable(ctx, name, sch, collation, "")
}

func (d *Database) createTable(ctx *sql.Context, name string, sch sql.PrimaryKeySchema, collation sql.CollationID, comment string) error {
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	def := d.tableDef(ctx, name, sch, collation, comment)
	if _, err := d.p.e.Catalog().CreateTable(txn, def); err != nil {
		if errors.Is(err, storage.ErrExists) {
			return sql.ErrTableAlreadyExists.New(name)
		}
		return err
	}
	return nil
}

// tableDef is the definition of a new table of d.
func (d *Database) tableDef(ctx *sql.Context, name string, sch sql.PrimaryKeySchema, collation sql.CollationID, comment string) storage.TableDef {
	def := storage.TableDef{Database: d.name, Name: name, PK: append([]int(nil), sch.PkOrdinals...), Collation: uint16(collation), Comment: comment}
	for _, c := range sch.Schema {
		if c.Type == types.Null {
			// CREATE TABLE ... SELECT NULL: MySQL makes the column
			// BINARY(0) (GMS's NULL type has no stored form).
			cc := *c
			cc.Type, cc.Nullable = types.MustCreateBinary(sqltypes.Binary, 0), true
			c = &cc
		}
		def.Columns = append(def.Columns, storage.ColumnDefFrom(c))
	}
	takeTableOptions(ctx, &def)
	takeTimePrecisions(ctx, &def, nil, nil)
	return def
}

// DropTable implements sql.TableDropper; a temporary table of the
// session's goes first, as in MySQL.
func (d *Database) DropTable(ctx *sql.Context, name string) error {
	if d.dropTemp(ctx, name) {
		return nil
	}
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	if err := d.p.e.Catalog().DropTable(txn, d.name, name); err != nil {
		if errors.Is(err, storage.ErrNotExist) {
			return sql.ErrTableNotFound.New(name)
		}
		return err
	}
	return nil
}

// RenameTable implements sql.TableRenamer.
func (d *Database) RenameTable(ctx *sql.Context, from, to string) error {
	if ok, err := d.renameTemp(ctx, from, to); ok {
		return err
	}
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	if _, err := d.p.e.Catalog().RenameTable(txn, d.name, from, d.name, to); err != nil {
		if errors.Is(err, storage.ErrExists) {
			return sql.ErrTableAlreadyExists.New(to)
		}
		if errors.Is(err, storage.ErrNotExist) {
			return sql.ErrTableNotFound.New(from)
		}
		return err
	}
	return nil
}

// GetCollation implements sql.CollatedDatabase.
func (d *Database) GetCollation(*sql.Context) sql.CollationID {
	sd := d.sdb()
	if sd == nil || sd.Def().Collation == 0 {
		return sql.Collation_Default
	}
	return sql.CollationID(sd.Def().Collation)
}

// SetCollation implements sql.CollatedDatabase.
func (d *Database) SetCollation(ctx *sql.Context, collation sql.CollationID) error {
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	return d.p.e.Catalog().UpdateDatabase(txn, d.name, func(def *storage.DatabaseDef) error {
		def.Collation = uint16(collation)
		return nil
	})
}

// CreateView implements sql.ViewDatabase.
func (d *Database) CreateView(ctx *sql.Context, name string, selectStatement, createViewStmt string) error {
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	return d.p.e.Catalog().UpdateDatabase(txn, d.name, func(def *storage.DatabaseDef) error {
		for _, v := range def.Views {
			if strings.EqualFold(v.Name, name) {
				return sql.ErrExistingView.New(d.name, name)
			}
		}
		def.Views = append(def.Views, storage.ViewDef{Name: name, TextDefinition: selectStatement, CreateStmt: createViewStmt, SqlMode: sqlMode(ctx)})
		return nil
	})
}

// DropView implements sql.ViewDatabase.
func (d *Database) DropView(ctx *sql.Context, name string) error {
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	return d.p.e.Catalog().UpdateDatabase(txn, d.name, func(def *storage.DatabaseDef) error {
		for i, v := range def.Views {
			if strings.EqualFold(v.Name, name) {
				def.Views = append(def.Views[:i], def.Views[i+1:]...)
				return nil
			}
		}
		return sql.ErrViewDoesNotExist.New(d.name, name)
	})
}

// GetViewDefinition implements sql.ViewDatabase.
func (d *Database) GetViewDefinition(ctx *sql.Context, name string) (sql.ViewDefinition, bool, error) {
	sd := d.sdb()
	if sd == nil {
		return sql.ViewDefinition{}, false, nil
	}
	for _, v := range sd.Def().Views {
		if strings.EqualFold(v.Name, name) {
			if d.tempShadowsView(ctx, name) {
				return sql.ViewDefinition{}, false, nil
			}
			viewWithoutDatabase(ctx, d.name)
			return viewDef(v), true, nil
		}
	}
	return sql.ViewDefinition{}, false, nil
}

// tempShadowsView reports a temporary table of the session named as view
// name: it is the one statements other than the view commands (CREATE,
// ALTER, DROP, SHOW CREATE VIEW) read and drop, as in MySQL (GMS found
// the view first).
func (d *Database) tempShadowsView(ctx *sql.Context, name string) bool {
	if d.tempTable(ctx, name) == nil {
		return false
	}
	w := firstWords(ctx.Query(), 8)
	for i, x := range w {
		if x == "VIEW" && i > 0 {
			return false // a view command names the view
		}
	}
	return true
}

// viewWithoutDatabase lets a statement with no current database read a
// view named with its database (SELECT * FROM db.v). GMS's planner binds
// the view's definition only after reading the current database, and
// refused with 1046 (No database selected) when there was none; the
// view's database is made current for the rest of the statement, and
// the session has none again when the statement ends (CommandEnd).
func viewWithoutDatabase(ctx *sql.Context, db string) {
	if ctx == nil || ctx.GetCurrentDatabase() != "" {
		return
	}
	if s, ok := ctx.Session.(*Session); ok {
		s.viewDB = true
		ctx.SetCurrentDatabase(db)
	}
}

// AllViews implements sql.ViewDatabase.
func (d *Database) AllViews(*sql.Context) ([]sql.ViewDefinition, error) {
	sd := d.sdb()
	if sd == nil {
		return nil, nil
	}
	var out []sql.ViewDefinition
	for _, v := range sd.Def().Views {
		out = append(out, viewDef(v))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func viewDef(v storage.ViewDef) sql.ViewDefinition {
	return sql.ViewDefinition{Name: v.Name, TextDefinition: v.TextDefinition, CreateViewStatement: v.CreateStmt, SqlMode: v.SqlMode}
}

// GetTriggers implements sql.TriggerDatabase.
func (d *Database) GetTriggers(ctx *sql.Context) ([]sql.TriggerDefinition, error) {
	sd := d.sdb()
	if sd == nil {
		return nil, nil
	}
	var out []sql.TriggerDefinition
	for _, t := range sd.Def().Triggers {
		if d.triggerOnTemp(ctx, t.CreateStmt) {
			continue
		}
		out = append(out, sql.TriggerDefinition{Name: t.Name, CreateStatement: t.CreateStmt, CreatedAt: time.Unix(0, t.CreatedAt), SqlMode: t.SqlMode})
	}
	return out, nil
}

// CreateTrigger implements sql.TriggerDatabase.
func (d *Database) CreateTrigger(ctx *sql.Context, def sql.TriggerDefinition) error {
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	return d.p.e.Catalog().UpdateDatabase(txn, d.name, func(dd *storage.DatabaseDef) error {
		for _, t := range dd.Triggers {
			if strings.EqualFold(t.Name, def.Name) {
				return fmt.Errorf("trigger %s already exists", def.Name)
			}
		}
		dd.Triggers = append(dd.Triggers, storage.TriggerDef{Name: def.Name, CreateStmt: def.CreateStatement, CreatedAt: def.CreatedAt.UnixNano(), SqlMode: def.SqlMode})
		return nil
	})
}

// DropTrigger implements sql.TriggerDatabase.
func (d *Database) DropTrigger(ctx *sql.Context, name string) error {
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	return d.p.e.Catalog().UpdateDatabase(txn, d.name, func(dd *storage.DatabaseDef) error {
		for i, t := range dd.Triggers {
			if strings.EqualFold(t.Name, name) {
				dd.Triggers = append(dd.Triggers[:i], dd.Triggers[i+1:]...)
				return nil
			}
		}
		return sql.ErrTriggerDoesNotExist.New(name)
	})
}

func sqlMode(ctx *sql.Context) string {
	v, err := ctx.GetSessionVariable(ctx, "sql_mode")
	if err != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}

// RegisterSystemTable adds (or replaces) a performance_schema table. The
// owner's Rows is called once per scan, on the querying session's
// goroutine.
func (e *Engine) RegisterSystemTable(t sysschema.Table) {
	e.prov.sys.Register(t)
}

// SystemTable is one performance_schema table (sysschema.Table), as the
// stages' SQL surfaces register them.
type SystemTable = sysschema.Table
