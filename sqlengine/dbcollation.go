package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// The "Database Collation" of triggers, routines and events is their
// database's collation in MySQL; GMS reports collation_server. Dump
// tools compare it with the database's and, when they differ, write the
// database's collation change around the object, which mariadb-dump
// cannot do for a collation its client library lacks (utf8mb4_0900_ai_ci
// in MariaDB's): the dump of a trigger in a utf8mb4_general_ci database
// stopped with exit 2 and no message.

// collationOf is the collation of database name, "" when there is none.
func (e *Engine) collationOf(ctx *sql.Context, name string) string {
	db, err := e.prov.Database(ctx, name)
	if err != nil {
		return ""
	}
	if cd, ok := db.(sql.CollatedDatabase); ok {
		return cd.GetCollation(ctx).Name()
	}
	return ""
}

// installDatabaseCollations fixes the DATABASE_COLLATION column of
// information_schema's TRIGGERS and EVENTS. (ROUTINES, which SHOW
// PROCEDURE STATUS reads, keeps GMS's: its row source is unexported.)
func (e *Engine) installDatabaseCollations(cat *analyzer.Catalog) error {
	for _, tb := range []struct{ name, schemaCol string }{
		{information_schema.TriggersTableName, "TRIGGER_SCHEMA"},
		{information_schema.EventsTableName, "EVENT_SCHEMA"},
	} {
		t, ok, err := cat.InfoSchema.GetTableInsensitive(sql.NewEmptyContext(), tb.name)
		if err != nil || !ok {
			return err
		}
		dbCol, collCol := t.Schema().IndexOfColName(tb.schemaCol), t.Schema().IndexOfColName("DATABASE_COLLATION")
		if dbCol < 0 || collCol < 0 {
			return nil
		}
		if err := wrapInfoSchemaReader(cat, tb.name, func(orig infoReader) infoReader {
			return func(ctx *sql.Context, c sql.Catalog) (sql.RowIter, error) {
				it, err := orig(ctx, c)
				if err != nil {
					return nil, err
				}
				return fixedRows(ctx, it, func(r sql.Row) error {
					if name, ok := r[dbCol].(string); ok {
						if coll := e.collationOf(ctx, name); coll != "" {
							r[collCol] = coll
						}
					}
					return nil
				})
			}
		}); err != nil {
			return err
		}
	}
	return nil
}

// showWithDatabaseCollation builds a SHOW of a database's triggers,
// routines or events with its "Database Collation" column set to the
// database's collation; ok=false for other nodes.
func (e *Engine) showWithDatabaseCollation(ctx *sql.Context, n sql.Node, row sql.Row) (sql.RowIter, bool, error) {
	var db sql.Database
	switch n := n.(type) {
	case *plan.ShowCreateTrigger:
		db = n.Database()
	case *plan.ShowTriggers:
		db = n.Database()
	case *plan.ShowCreateProcedure:
		db = n.Database()
	case *plan.ShowCreateEvent:
		db = n.Database()
	case *plan.ShowEvents:
		db = n.Database()
	default:
		return nil, false, nil
	}
	col := -1
	for i, c := range n.Schema() {
		if strings.EqualFold(c.Name, "Database Collation") {
			col = i
		}
	}
	coll := ""
	if db != nil {
		coll = e.collationOf(ctx, db.Name())
	}
	if col < 0 || coll == "" {
		return nil, false, nil
	}
	it, err := gmsRows(ctx, n, row, func(r sql.Row) error {
		if col < len(r) {
			r[col] = coll
		}
		return nil
	})
	return it, true, err
}
