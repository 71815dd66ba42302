package sqlengine

import (
	"context"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/storage"
)

// Temporary tables (CREATE TEMPORARY TABLE), MySQL's way: visible to
// their session only, where they shadow a table of the same name until
// dropped; gone when the session ends (and at a restart); never in the
// binlog (MySQL's ROW format logs neither their DDL nor their rows), so
// a replica never sees them; their rows are written in the session's
// transactions, so COMMIT, ROLLBACK and a failed statement treat them as
// InnoDB's temporary tables (storage/temptables.go). A session with a
// temporary table gets no fast path (Engine.ExecutorOnFor). Writes to
// them are allowed in a READ ONLY transaction and under read_only, as in
// MySQL. A base table's triggers are hidden from a session while its
// temporary table shadows the name (triggerOnTemp). Not supported on
// them: FOREIGN KEY constraints (as InnoDB's).

var (
	_ sql.TemporaryTableCreator  = (*Database)(nil)
	_ sql.TemporaryTableDatabase = (*Database)(nil)
	_ sql.TemporaryTable         = (*Table)(nil)
)

// tempRef is a temporary table's latest definition (ALTER and CREATE
// INDEX publish a new one under the same id).
type tempRef struct{ t *storage.Table }

func tempKey(db, name string) string { return strings.ToLower(db) + "\x00" + strings.ToLower(name) }

func ctxSession(ctx *sql.Context) *Session {
	if ctx == nil {
		return nil
	}
	s, _ := ctx.Session.(*Session)
	return s
}

// tempTable is the session's temporary table db.name, nil if none.
func (d *Database) tempTable(ctx *sql.Context, name string) *Table {
	s := ctxSession(ctx)
	if s == nil || len(s.temps) == 0 {
		return nil
	}
	r := s.temps[tempKey(d.name, name)]
	if r == nil {
		return nil
	}
	return &Table{db: d, t: r.t, temp: r}
}

// CreateTemporaryTable implements sql.TemporaryTableCreator.
func (d *Database) CreateTemporaryTable(ctx *sql.Context, name string, sch sql.PrimaryKeySchema, collation sql.CollationID) error {
	s := ctxSession(ctx)
	if s == nil {
		return sql.ErrTemporaryTableNotSupported.New()
	}
	if d.sdb() == nil {
		return sql.ErrDatabaseNotFound.New(d.name)
	}
	k := tempKey(d.name, name)
	if s.temps[k] != nil {
		return sql.ErrTableAlreadyExists.New(name)
	}
	st, err := d.p.e.Catalog().NewTempTable(d.tableDef(ctx, name, sch, collation, ""))
	if err != nil {
		return err
	}
	if s.temps == nil {
		s.temps = map[string]*tempRef{}
	}
	s.temps[k] = &tempRef{t: st}
	s.tempDDL = true
	return nil
}

// GetAllTemporaryTables implements sql.TemporaryTableDatabase.
func (d *Database) GetAllTemporaryTables(ctx *sql.Context) ([]sql.Table, error) {
	s := ctxSession(ctx)
	if s == nil {
		return nil, nil
	}
	var out []sql.Table
	for _, r := range s.temps {
		if strings.EqualFold(r.t.Def.Database, d.name) {
			out = append(out, &Table{db: d, t: r.t, temp: r})
		}
	}
	return out, nil
}

// dropTemp drops the session's temporary table db.name, reporting
// whether there was one.
func (d *Database) dropTemp(ctx *sql.Context, name string) bool {
	s := ctxSession(ctx)
	if s == nil {
		return false
	}
	k := tempKey(d.name, name)
	r := s.temps[k]
	if r == nil {
		return false
	}
	delete(s.temps, k)
	s.tempDDL = true
	d.p.e.DropTempTable(r.t)
	return true
}

// renameTemp renames the session's temporary table from, if it has one.
func (d *Database) renameTemp(ctx *sql.Context, from, to string) (bool, error) {
	s := ctxSession(ctx)
	if s == nil {
		return false, nil
	}
	r := s.temps[tempKey(d.name, from)]
	if r == nil {
		return false, nil
	}
	if s.temps[tempKey(d.name, to)] != nil {
		return true, sql.ErrTableAlreadyExists.New(to)
	}
	nt, err := d.p.e.Catalog().AlterTempTable(r.t, func(def *storage.TableDef) error {
		def.Name = to
		return nil
	})
	if err != nil {
		return true, err
	}
	delete(s.temps, tempKey(d.name, from))
	r.t = nt
	s.temps[tempKey(d.name, to)] = r
	s.tempDDL = true
	return true, nil
}

// dropTempTables drops every temporary table of a session that ended.
func (e *Engine) dropTempTables(s *Session) {
	for k, r := range s.temps {
		e.store.DropTempTable(r.t)
		delete(s.temps, k)
	}
}

// IsTemporary implements sql.TemporaryTable (GMS's read-only check asks
// every table it finds in a write, and lets a temporary one through).
func (t *Table) IsTemporary() bool { return t.temp != nil }

// alterDef publishes fn's change of st: in the catalog, or for a
// temporary table in its session's reference.
func (t *Table) alterDef(ctx *sql.Context, txn *storage.Txn, st *storage.Table, fn func(*storage.TableDef) error) (*storage.Table, error) {
	if t.temp == nil {
		return t.db.p.e.Catalog().AlterTable(txn, st, fn)
	}
	nt, err := t.db.p.e.Catalog().AlterTempTable(st, fn)
	if err != nil {
		return nil, err
	}
	t.temp.t = nt
	if s := ctxSession(ctx); s != nil {
		s.tempDDL = true
	}
	return nt, nil
}

// triggerOnTemp reports whether the trigger created by stmt is on a table
// the session's temporary table shadows: such a trigger is not the
// session's to see (MySQL fires no trigger on a temporary table, and
// dropping the temporary table must not drop the base table's
// triggers). Only a session holding a temporary table parses.
func (d *Database) triggerOnTemp(ctx *sql.Context, stmt string) bool {
	s := ctxSession(ctx)
	if s == nil || len(s.temps) == 0 {
		return false
	}
	st, err := ast.Parse(stmt)
	if err != nil {
		return false
	}
	ddl, ok := st.(*ast.DDL)
	if !ok || ddl.TriggerSpec == nil {
		return false
	}
	db := ddl.Table.DbQualifier.String()
	if db == "" {
		db = d.name
	}
	return s.temps[tempKey(db, ddl.Table.Name.String())] != nil
}

// dropTempIfExistsPattern is DROP TEMPORARY TABLE IF EXISTS t, ...
const dropTempIfExistsPattern = `DROP TEMPORARY TABLES? IF EXISTS (.+?)(?: (?:RESTRICT|CASCADE))?`

// dropTempIfExists answers DROP TEMPORARY TABLE IF EXISTS as MySQL: a
// name that is no temporary table of the session (a base table's
// included, which stays) is Note 1051 "Unknown table 'db.t'", the
// session's temporary tables among the names are dropped. GMS refused
// the statement with 1051 when a name was a base table only.
func (e *Engine) dropTempIfExists(ctx context.Context, s *Session, m []string) (*AdminResult, error) {
	return e.dropTemporary(ctx, s, m[1], true)
}

// dropTempPattern is DROP TEMPORARY TABLE t, ... (without IF EXISTS:
// dropTempIfExistsPattern is matched first).
const dropTempPattern = `DROP TEMPORARY TABLES? (.+?)(?: (?:RESTRICT|CASCADE))?`

// dropTemp answers DROP TEMPORARY TABLE as MySQL: the session's
// temporary tables among the names are dropped, then the others are one
// error 1051 "Unknown table 'db.t1,db.t2'" (a base table stays). GMS
// refused the statement and dropped none.
func (e *Engine) dropTemp(ctx context.Context, s *Session, m []string) (*AdminResult, error) {
	return e.dropTemporary(ctx, s, m[1], false)
}

// dropTemporary drops the temporary tables among names; the others are
// notes (ifExists) or the statement's error.
func (e *Engine) dropTemporary(ctx context.Context, s *Session, names string, ifExists bool) (*AdminResult, error) {
	s.ClearWarnings()
	var keep, unknown []string
	for _, name := range strings.Split(names, ",") {
		db, table := splitTableName(strings.TrimSpace(name), s.GetCurrentDatabase())
		if db == "" {
			return nil, mysqlerr.New(mysqlerr.ErNoDB, "No database selected")
		}
		if r := s.temps[tempKey(db, table)]; r != nil {
			if e.store.Catalog().Database(db) == nil {
				// Its database was dropped (a temporary table outlives
				// DROP DATABASE, as in MySQL): nothing resolves the name.
				delete(s.temps, tempKey(db, table))
				s.tempDDL = true
				e.store.DropTempTable(r.t)
				continue
			}
			keep = append(keep, quoteIdent(db)+"."+quoteIdent(table))
			continue
		}
		unknown = append(unknown, db+"."+table)
	}
	if len(keep) > 0 {
		if err := e.runInternal(ctx, s, "DROP TEMPORARY TABLE IF EXISTS "+strings.Join(keep, ", ")); err != nil {
			return nil, err
		}
	}
	if !ifExists && len(unknown) > 0 {
		return nil, mysqlerr.New(mysqlerr.ErBadTable, "Unknown table '%s'", strings.Join(unknown, ","))
	}
	// After the drop, which starts with no warnings.
	for _, u := range unknown {
		s.Warn(&sql.Warning{Level: "Note", Code: mysqlerr.ErBadTable, Message: fmt.Sprintf("Unknown table '%s'", u)})
	}
	return &AdminResult{}, nil
}
