package sqlengine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/sqlmode"
	"petrel/sqlengine/storeval"
	"petrel/storage"
)

// checkModifiedValues applies MySQL's rules for storing a value
// (storeval) to every stored value of a column an ALTER TABLE ... MODIFY
// or CHANGE gives another type, in strict mode, before the table is
// rewritten: GMS's conversion refused a value the new type cannot hold
// with its own errors (1105 "Out of range value for column of Decimal
// type", 1105 "Incorrect datetime value", 1406 naming the type), where
// MySQL answers 1264, 1292, 1265 or 1406 naming the column and the row.
// Outside strict mode GMS's conversion is left to answer.
func checkModifiedValues(ctx *sql.Context, txn *storage.Txn, st *storage.Table, oldSch sql.Schema, oldCol, newCol *sql.Column) error {
	if oldCol == nil || newCol == nil || !strictMode(ctx) {
		return nil
	}
	if oldCol.Nullable && !newCol.Nullable {
		// A NULL where the column becomes NOT NULL: MySQL's strict
		// ALTER refuses it with 1138 (GMS's copy failed with 1048).
		if err := checkNoNulls(ctx, txn, st, oldSch, oldCol); err != nil {
			return err
		}
	}
	if oldCol.Type.Equals(newCol.Type) {
		return nil
	}
	if isEnumOrSet(oldCol.Type) || isEnumOrSet(newCol.Type) {
		return nil // stored as indexes and bits, which GMS remaps
	}
	return eachStored(ctx, txn, st, oldSch, oldCol, func(n int, v any) error {
		if v == nil {
			return nil
		}
		_, err := storeval.Value(ctx, storeval.Mode{Strict: true}, newCol, v, n)
		if se, ok := err.(*mysql.SQLError); ok && se.Num == mysqlerr.ErDataTooLong {
			if types.IsText(oldCol.Type) {
				// A shorter string column cuts the value: MySQL's
				// ALTER says so (1265), where an INSERT says 1406.
				return mysqlerr.New(mysqlerr.ErWarnDataTruncated, "Data truncated for column '%s' at row %d", newCol.Name, n)
			}
			return mysqlerr.New(mysqlerr.ErDataTooLong, "Data too long for column '%s' at row %d", newCol.Name, n)
		}
		return err
	})
}

// eachStored calls fn with each stored value of column col of st (of
// schema sch) and its row number, from 1, until fn fails.
func eachStored(ctx *sql.Context, txn *storage.Txn, st *storage.Table, sch sql.Schema, col *sql.Column, fn func(n int, v any) error) error {
	ord := sch.IndexOfColName(col.Name)
	if ord < 0 {
		return nil
	}
	it, err := txn.Scan(ctx, st, 0, nil, nil, false)
	if err != nil {
		return sessionError(ctx, err)
	}
	defer it.Close()
	it.Project([]int{ord})
	for n := 1; ; n++ {
		row, err := it.Next()
		if err != nil {
			return sessionError(ctx, err)
		}
		if row == nil {
			return nil
		}
		if ord >= len(row) {
			continue
		}
		if err := fn(n, row[ord]); err != nil {
			return err
		}
	}
}

func strictMode(ctx *sql.Context) bool {
	m := sqlmode.Load(ctx)
	return m.ModeEnabled("STRICT_TRANS_TABLES") || m.ModeEnabled("STRICT_ALL_TABLES")
}

func isEnumOrSet(t sql.Type) bool {
	_, e := t.(sql.EnumType)
	_, s := t.(sql.SetType)
	return e || s
}

// checkNoNulls is 1138 when column col of st holds a NULL.
func checkNoNulls(ctx *sql.Context, txn *storage.Txn, st *storage.Table, sch sql.Schema, col *sql.Column) error {
	return eachStored(ctx, txn, st, sch, col, func(_ int, v any) error {
		if v == nil {
			return mysqlerr.New(mysqlerr.ErInvalidUseOfNull, "Invalid use of NULL value")
		}
		return nil
	})
}
