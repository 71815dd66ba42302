package sqlengine

import (
	"sort"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage"
)

// Stored procedures (issue 31): GMS parses, plans and runs CREATE
// PROCEDURE and CALL; the backend keeps each procedure's CREATE
// statement in the database's catalog record, so it survives a restart
// and, the change being a catalog write committed with the statement's
// text, reaches the binlog as a DDL query event that replicas apply.

// GetStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) GetStoredProcedure(_ *sql.Context, name string) (sql.StoredProcedureDetails, bool, error) {
	sd := d.sdb()
	if sd == nil {
		return sql.StoredProcedureDetails{}, false, nil
	}
	for _, p := range sd.Def().Procedures {
		if strings.EqualFold(p.Name, name) {
			return procDetails(p), true, nil
		}
	}
	return sql.StoredProcedureDetails{}, false, nil
}

// GetStoredProcedures implements sql.StoredProcedureDatabase.
func (d *Database) GetStoredProcedures(*sql.Context) ([]sql.StoredProcedureDetails, error) {
	sd := d.sdb()
	if sd == nil {
		return nil, nil
	}
	var out []sql.StoredProcedureDetails
	for _, p := range sd.Def().Procedures {
		out = append(out, procDetails(p))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// SaveStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) SaveStoredProcedure(ctx *sql.Context, spd sql.StoredProcedureDetails) error {
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	return d.p.e.Catalog().UpdateDatabase(txn, d.name, func(dd *storage.DatabaseDef) error {
		for _, p := range dd.Procedures {
			if strings.EqualFold(p.Name, spd.Name) {
				return sql.ErrStoredProcedureAlreadyExists.New(spd.Name)
			}
		}
		dd.Procedures = append(dd.Procedures, storage.ProcedureDef{
			Name: spd.Name, CreateStmt: spd.CreateStatement, SqlMode: spd.SqlMode,
			CreatedAt: unixNanos(spd.CreatedAt), ModifiedAt: unixNanos(spd.ModifiedAt),
		})
		return nil
	})
}

// DropStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) DropStoredProcedure(ctx *sql.Context, name string) error {
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	return d.p.e.Catalog().UpdateDatabase(txn, d.name, func(dd *storage.DatabaseDef) error {
		for i, p := range dd.Procedures {
			if strings.EqualFold(p.Name, name) {
				dd.Procedures = append(dd.Procedures[:i], dd.Procedures[i+1:]...)
				return nil
			}
		}
		return sql.ErrStoredProcedureDoesNotExist.New(name)
	})
}

func procDetails(p storage.ProcedureDef) sql.StoredProcedureDetails {
	return sql.StoredProcedureDetails{
		Name: p.Name, CreateStatement: p.CreateStmt, SqlMode: p.SqlMode,
		CreatedAt: time.Unix(0, p.CreatedAt).UTC(), ModifiedAt: time.Unix(0, p.ModifiedAt).UTC(),
	}
}

// unixNanos is t in nanoseconds, or now when t is unset.
func unixNanos(t time.Time) int64 {
	if t.IsZero() {
		return time.Now().UnixNano()
	}
	return t.UnixNano()
}
