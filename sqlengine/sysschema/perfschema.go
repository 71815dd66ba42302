package sysschema

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// PerformanceSchema is the name of the read-only database whose tables the
// pipeline's stages register (replication status, applier workers, ...).
// Each table's rows are computed by its owner at every scan, so they are
// always current; nothing is stored.
const PerformanceSchema = "performance_schema"

// Table is one performance_schema table: its name, its columns and
// the function that returns its rows at the moment of a scan.
type Table struct {
	Name   string
	Schema sql.Schema
	Rows   func(ctx *sql.Context) ([]sql.Row, error)
}

// Tables is the registry the provider serves performance_schema from.
type Tables struct {
	mu     sync.RWMutex
	tables map[string]*systemTable // lower-case name
}

func (s *Tables) Register(t Table) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tables == nil {
		s.tables = map[string]*systemTable{}
	}
	sch := make(sql.Schema, len(t.Schema))
	for i, c := range t.Schema {
		cc := *c
		cc.Source = t.Name
		cc.DatabaseSource = PerformanceSchema
		sch[i] = &cc
	}
	s.tables[strings.ToLower(t.Name)] = &systemTable{def: t, schema: sch}
}

func (s *Tables) lookup(name string) (*systemTable, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tables[strings.ToLower(name)]
	return t, ok
}

func (s *Tables) names() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.tables))
	for _, t := range s.tables {
		out = append(out, t.def.Name)
	}
	sort.Strings(out)
	return out
}

// Database is performance_schema as GMS sees it: tables only. It
// implements no TableCreator/TableDropper and its tables no
// Inserter/Updater/Deleter, so GMS refuses DDL (1044) and writes (1142)
// as MySQL does; it is not marked read-only, which GMS would refuse with
// one error for both.
type Database struct{ s *Tables }

// DB is the performance_schema database serving t's tables.
func (t *Tables) DB() Database { return Database{t} }

var _ sql.Database = Database{}

func (Database) Name() string { return PerformanceSchema }

func (d Database) GetTableInsensitive(_ *sql.Context, name string) (sql.Table, bool, error) {
	t, ok := d.s.lookup(name)
	if !ok {
		return nil, false, nil
	}
	return t, true, nil
}

func (d Database) GetTableNames(*sql.Context) ([]string, error) { return d.s.names(), nil }

// performance_schema has no views; GMS asks every database for them
// (information_schema.VIEWS, name resolution).
var _ sql.ViewDatabase = Database{}

func (Database) CreateView(ctx *sql.Context, _, _, _ string) error { return Denied(ctx) }
func (Database) DropView(ctx *sql.Context, _ string) error         { return Denied(ctx) }
func (Database) GetViewDefinition(*sql.Context, string) (sql.ViewDefinition, bool, error) {
	return sql.ViewDefinition{}, false, nil
}
func (Database) AllViews(*sql.Context) ([]sql.ViewDefinition, error) { return nil, nil }

// performance_schema has no triggers either; GMS asks every database
// (information_schema.TRIGGERS, SHOW TRIGGERS) through its privilege
// wrapper, which refuses databases without TriggerDatabase.
var _ sql.TriggerDatabase = Database{}

func (Database) GetTriggers(*sql.Context) ([]sql.TriggerDefinition, error) { return nil, nil }
func (Database) CreateTrigger(ctx *sql.Context, _ sql.TriggerDefinition) error {
	return Denied(ctx)
}
func (Database) DropTrigger(ctx *sql.Context, _ string) error { return Denied(ctx) }

// Nor procedures: SHOW PROCEDURE STATUS and information_schema.ROUTINES
// ask every database the same way.
var _ sql.StoredProcedureDatabase = Database{}

func (Database) GetStoredProcedure(*sql.Context, string) (sql.StoredProcedureDetails, bool, error) {
	return sql.StoredProcedureDetails{}, false, nil
}
func (Database) GetStoredProcedures(*sql.Context) ([]sql.StoredProcedureDetails, error) {
	return nil, nil
}
func (Database) SaveStoredProcedure(ctx *sql.Context, _ sql.StoredProcedureDetails) error {
	return Denied(ctx)
}
func (Database) DropStoredProcedure(ctx *sql.Context, _ string) error { return Denied(ctx) }

// Nor events (SHOW EVENTS, information_schema.EVENTS).
var _ sql.EventDatabase = Database{}

func (Database) GetEvent(*sql.Context, string) (sql.EventDefinition, bool, error) {
	return sql.EventDefinition{}, false, nil
}
func (Database) GetEvents(*sql.Context) ([]sql.EventDefinition, interface{}, error) {
	return nil, nil, nil
}
func (Database) SaveEvent(ctx *sql.Context, _ sql.EventDefinition) (bool, error) {
	return false, Denied(ctx)
}
func (Database) DropEvent(ctx *sql.Context, _ string) error { return Denied(ctx) }
func (Database) UpdateEvent(ctx *sql.Context, _ string, _ sql.EventDefinition) (bool, error) {
	return false, Denied(ctx)
}
func (Database) UpdateLastExecuted(*sql.Context, string, time.Time) error { return nil }
func (Database) NeedsToReloadEvents(*sql.Context, interface{}) (bool, error) {
	return false, nil
}

// Denied is MySQL's refusal of a change to performance_schema (1044).
func Denied(ctx *sql.Context) error {
	c := ctx.Session.Client()
	return sql.ErrDatabaseAccessDeniedForUser.New(fmt.Sprintf("'%s'@'%s'", c.User, c.Address), PerformanceSchema)
}

// systemTable is one registered table as a GMS table of one partition.
type systemTable struct {
	def    Table
	schema sql.Schema
}

var _ sql.Table = (*systemTable)(nil)

func (t *systemTable) Name() string               { return t.def.Name }
func (t *systemTable) String() string             { return t.def.Name }
func (t *systemTable) Schema() sql.Schema         { return t.schema }
func (t *systemTable) Collation() sql.CollationID { return sql.Collation_Default }

func (t *systemTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return &onePartition{}, nil
}

func (t *systemTable) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	rows, err := t.def.Rows(ctx)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(rows...), nil
}

type onePartition struct{ done bool }

type sysPartition struct{}

func (sysPartition) Key() []byte { return []byte("all") }

func (p *onePartition) Next(*sql.Context) (sql.Partition, error) {
	if p.done {
		return nil, io.EOF
	}
	p.done = true
	return sysPartition{}, nil
}

func (p *onePartition) Close(*sql.Context) error { return nil }
