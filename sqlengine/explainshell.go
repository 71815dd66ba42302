package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"petrel/sqlengine/explain"
	"petrel/sqlengine/planstats"
	"petrel/storage"
)

// The backend's side of the statistics (planstats) and EXPLAIN (explain):
// its tables and indexes as those packages read them, and the session's
// EXPLAIN ANALYZE profile.

var (
	_ planstats.Table = (*Table)(nil)
	_ planstats.Index = (*Index)(nil)
)

// Latest implements planstats.Table.
func (t *Table) Latest() (*storage.Table, error) { return t.latest() }

// ApproxRows implements planstats.Table.
func (t *Table) ApproxRows() uint64 { return t.db.p.e.ApproxRows(t.t) }

// Statistics implements planstats.Table.
func (t *Table) Statistics() *planstats.Provider { return t.db.p.stats }

// Owner implements planstats.Index.
func (ix *Index) Owner() planstats.Table { return ix.t }

// tableOf is the backend's table of st; nil if its database is gone.
func (p *Provider) tableOf(st *storage.Table) planstats.Table {
	d := p.e.Catalog().Database(st.Def.Database)
	if d == nil {
		return nil
	}
	return newTable(p.wrap(d), st)
}

// petrelTable finds Petrel's table under GMS's wrappers.
func petrelTable(t sql.Table) (*Table, bool) {
	for t != nil {
		switch x := t.(type) {
		case *Table:
			return x, true
		case *indexedTable:
			return x.Table, true
		case sql.TableWrapper:
			t = x.Underlying()
		default:
			return nil, false
		}
	}
	return nil, false
}

// profiled returns the session's profile when a statement is being
// profiled (EXPLAIN ANALYZE).
func profiled(ctx *sql.Context) *explain.Profile {
	if s, ok := ctx.Session.(*Session); ok {
		return s.profile
	}
	return nil
}

// explainAnalyze runs d's statement with every operator measured
// (explain.Analyze).
func (e *Engine) explainAnalyze(ctx *sql.Context, d *plan.DescribeQuery, row sql.Row) (sql.RowIter, error) {
	s, ok := ctx.Session.(*Session)
	if !ok {
		return nil, nil
	}
	return explain.Analyze(ctx, d, row, e.exec.Build, func(p *explain.Profile) { s.profile = p })
}
