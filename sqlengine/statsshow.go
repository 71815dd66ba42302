package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"petrel/sqlengine/arith"
)

// Where the statistics show: ANALYZE TABLE's result rows,
// information_schema.STATISTICS.CARDINALITY and SHOW INDEX's Cardinality
// (GMS reports 0 for both), each the distinct count of the index's column
// prefix at the last analysis, 0 without one.

// Column ordinals of the rows GMS builds.
const (
	isStatsSchema, isStatsTable, isStatsIndex, isStatsSeq, isStatsCardinality = 1, 2, 5, 6, 9
	showIdxTable, showIdxKey, showIdxSeq, showIdxCardinality                  = 0, 2, 3, 6
)

// installCardinality makes cat's information_schema.STATISTICS report
// cardinalities. GMS's table keeps its row source in an exported field of
// an unexported type, reached by reflection; TestAnalyzeTableStatistics
// fails if a GMS upgrade moves it.
func (e *Engine) installCardinality(cat *analyzer.Catalog) error {
	return rewriteInfoSchemaRows(cat, information_schema.StatisticsTableName, func(r sql.Row) error {
		r[isStatsCardinality] = e.cardinality(r[isStatsSchema], r[isStatsTable], r[isStatsIndex], r[isStatsSeq])
		return nil
	})
}

// cardinality is CARDINALITY for one index column row; 0 without
// statistics (InnoDB's value for a table created empty).
func (e *Engine) cardinality(db, table, index, seq any) any {
	d, _ := db.(string)
	t, _ := table.(string)
	ix, _ := index.(string)
	if n, ok := arith.ToInt64(seq); ok {
		if _, distinct, ok := e.stats.PrefixCounts(d, t, ix, int(n)); ok {
			return int64(distinct)
		}
	}
	return int64(0)
}

// showIndexes is SHOW INDEX with cardinalities.
func (e *Engine) showIndexes(ctx *sql.Context, n *plan.ShowIndexes, row sql.Row) (sql.RowIter, error) {
	rt, ok := n.Child.(*plan.ResolvedTable)
	if !ok {
		return nil, nil
	}
	db := rt.Database().Name()
	return gmsRows(ctx, n, row, func(r sql.Row) error {
		r[showIdxCardinality] = e.cardinality(db, r[showIdxTable], r[showIdxKey], r[showIdxSeq])
		return nil
	})
}

// analyzeTables is ANALYZE TABLE with MySQL's result rows: the table
// named db.table, then analyze, status, OK (or Error and the reason).
func (e *Engine) analyzeTables(ctx *sql.Context, n *plan.AnalyzeTable) (sql.RowIter, error) {
	var rows []sql.Row
	for _, t := range n.Tables {
		name := t.Name()
		if tb, ok := petrelTable(t); ok {
			name = tb.db.name + "." + name
		} else if n.Db != "" {
			name = n.Db + "." + name
		}
		msgType, msg := "status", "OK"
		if err := e.stats.AnalyzeTable(ctx, t, n.Db); err != nil {
			msgType, msg = "Error", err.Error()
		}
		rows = append(rows, sql.Row{name, "analyze", msgType, msg})
	}
	return sql.RowsToRowIter(rows...), nil
}
