package sqlengine

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/tablelocks"
)

// FLUSH TABLE[S] [t, ...] [WITH READ LOCK], which GMS answers with
// nothing: the statement is read by vitess's parser (the pattern only
// routes it here) and decided by the table locks (locktables.go).
//   - FLUSH TABLES WITH READ LOCK takes the global read lock: other
//     sessions' writes and DDL wait until its UNLOCK TABLES.
//   - FLUSH TABLES t, ... WITH READ LOCK READ-locks the tables, the
//     session in locked-tables mode.
//   - FLUSH TABLES [t, ...] under LOCK TABLES needs the tables (all the
//     locked ones when none is named) WRITE-locked (1099, 1100); from
//     another session it waits while a table lock on them is held.
const flushTablesPattern = `FLUSH (?:LOCAL |NO_WRITE_TO_BINLOG )?TABLES?(?: .*)?`

func (e *Engine) flushTables(ctx context.Context, s *Session, m []string) (*AdminResult, error) {
	st, err := ast.Parse(m[0])
	if err != nil {
		return nil, mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax; %s", err.Error())
	}
	f, ok := st.(*ast.Flush)
	if !ok || f.Option == nil {
		return nil, mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax near '%s'", m[0])
	}
	op, end := e.killableContext(ctx, s)
	defer end()
	sctx := e.NewContext(op, s)
	var tables []tablelocks.Table
	for _, t := range f.Option.Tables {
		db := t.DbQualifier.String()
		if db == "" {
			db = s.GetCurrentDatabase()
		}
		if db == "" {
			return nil, mysqlerr.New(mysqlerr.ErNoDB, "No database selected")
		}
		if _, _, err := e.gms.Analyzer.Catalog.Table(sctx, db, t.Name.String()); err != nil {
			return nil, mysqlerr.New(mysqlerr.ErNoSuchTable, "Table '%s.%s' doesn't exist", db, t.Name.String())
		}
		tables = append(tables, tablelocks.Table{DB: db, Name: t.Name.String()})
	}
	if !f.Option.ReadLock {
		s.restartHandlers() // tablehandler.go
	}
	l := e.tlocks
	l.setInfo(s.ID(), m[0])
	defer l.setInfo(s.ID(), "")
	if f.Option.ReadLock {
		if l.inLockedTables(s.ID()) {
			return nil, errLockedTables()
		}
		if err := s.implicitCommit(sctx); err != nil {
			return nil, err
		}
		err := l.decide(sctx, s, func(m *tablelocks.Manager, id tablelocks.SessionID) tablelocks.Decision {
			if len(tables) == 0 {
				return m.GlobalReadLock(id)
			}
			return m.FlushReadLock(id, tables)
		})
		return &AdminResult{}, err
	}
	if !l.Active() {
		return &AdminResult{}, nil
	}
	var uses []tablelocks.Use
	if len(tables) == 0 && l.inLockedTables(s.ID()) {
		for _, r := range l.locked(s.ID()) {
			if !r.Implicit {
				uses = append(uses, tablelocks.Use{Table: r.Table, Alias: r.Alias, Write: true})
			}
		}
	}
	for _, t := range tables {
		uses = append(uses, tablelocks.Use{Table: t, Write: true, Exclusive: true})
	}
	global := l.holdsGlobal(s.ID())
	err = l.decide(sctx, s, func(m *tablelocks.Manager, id tablelocks.SessionID) tablelocks.Decision {
		if global {
			// Flushing is no write: the global read lock's holder may.
			return tablelocks.Decision{}
		}
		return m.Access(id, uses)
	})
	return &AdminResult{}, err
}

// killableContext is ctx as a statement KILL QUERY ends (the process
// list's operation), and its end.
func (e *Engine) killableContext(ctx context.Context, s *Session) (context.Context, func()) {
	pl := e.gms.ProcessList
	op, err := pl.BeginOperation(sql.NewContext(ctx, sql.WithSession(s), sql.WithProcessList(pl)))
	if err != nil {
		return ctx, noop
	}
	return op, func() { pl.EndOperation(op) }
}
