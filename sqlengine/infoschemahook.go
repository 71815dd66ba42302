package sqlengine

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
)

// Petrel's hooks into GMS's information_schema tables and SHOW
// statements: GMS computes the rows, Petrel corrects some columns.

// rewriteInfoSchemaRows makes cat's information_schema table name pass
// every row it produces through fix.
func rewriteInfoSchemaRows(cat *analyzer.Catalog, name string, fix func(sql.Row) error) error {
	return wrapInfoSchemaReader(cat, name, func(orig infoReader) infoReader {
		return func(ctx *sql.Context, c sql.Catalog) (sql.RowIter, error) {
			it, err := orig(ctx, c)
			if err != nil {
				return nil, err
			}
			return fixedRows(ctx, it, fix)
		}
	})
}

// infoReader is an information_schema table's row source.
type infoReader = func(*sql.Context, sql.Catalog) (sql.RowIter, error)

// readPerDatabase makes information_schema table name read each
// database's rows with that database current. GMS's TRIGGERS parses
// every trigger's CREATE statement against the current database, so one
// trigger elsewhere on a table of a name the current database lacks
// failed the whole table (mariadb-dump --triggers reads it per table).
func readPerDatabase(cat *analyzer.Catalog, name string) error {
	return wrapInfoSchemaReader(cat, name, func(orig infoReader) infoReader {
		return func(ctx *sql.Context, c sql.Catalog) (sql.RowIter, error) {
			cur := ctx.GetCurrentDatabase()
			defer ctx.SetCurrentDatabase(cur)
			var all []sql.Row
			for _, db := range c.AllDatabases(ctx) {
				ctx.SetCurrentDatabase(db.Name())
				it, err := orig(ctx, oneDatabase{Catalog: c, db: db})
				if err != nil {
					return nil, err
				}
				rows, err := sql.RowIterToRows(ctx, it)
				if err != nil {
					return nil, err
				}
				all = append(all, rows...)
			}
			return sql.RowsToRowIter(all...), nil
		}
	})
}

// oneDatabase is a catalog whose AllDatabases lists one database.
type oneDatabase struct {
	sql.Catalog
	db sql.Database
}

func (c oneDatabase) AllDatabases(*sql.Context) []sql.Database { return []sql.Database{c.db} }

// wrapInfoSchemaReader replaces information_schema table name's row
// source by wrap(the source). GMS's table keeps it in an exported field
// (Reader) of the table or of an embedded InformationSchemaTable of an
// unexported type, reached by reflection; the tests of each hook fail if
// a GMS upgrade moves it.
func wrapInfoSchemaReader(cat *analyzer.Catalog, name string, wrap func(infoReader) infoReader) error {
	t, ok, err := cat.InfoSchema.GetTableInsensitive(sql.NewEmptyContext(), name)
	if err != nil || !ok {
		return fmt.Errorf("sqlengine: information_schema.%s not found", name)
	}
	ist, _ := t.(*information_schema.InformationSchemaTable)
	if ist == nil {
		v := reflect.ValueOf(t)
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		if v.Kind() == reflect.Struct {
			if f := v.FieldByName("InformationSchemaTable"); f.IsValid() && f.CanInterface() {
				ist, _ = f.Interface().(*information_schema.InformationSchemaTable)
			}
		}
	}
	if ist == nil || ist.Reader == nil {
		return errors.New("sqlengine: information_schema." + name + " has no row source to extend")
	}
	ist.Reader = wrap(ist.Reader)
	return nil
}

// gmsRows builds n as GMS does and reads its rows through fix.
func gmsRows(ctx *sql.Context, n sql.Node, row sql.Row, fix func(sql.Row) error) (sql.RowIter, error) {
	it, err := rowexec.DefaultBuilder.Build(ctx, n, row)
	if err != nil {
		return nil, err
	}
	return fixedRows(ctx, it, fix)
}

// fixedRows reads it whole, passing each row through fix.
func fixedRows(ctx *sql.Context, it sql.RowIter, fix func(sql.Row) error) (sql.RowIter, error) {
	rows, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if err := fix(r); err != nil {
			return nil, err
		}
	}
	return sql.RowsToRowIter(rows...), nil
}
