package storage

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Column types must survive the catalog's persisted form exactly,
// collation included (LIKE and comparisons depend on it).
func TestColumnTypesRoundTripThroughCatalog(t *testing.T) {
	for _, typ := range []sql.Type{
		types.MustCreateStringWithDefaults(sqltypes.VarChar, 20), types.Text, types.LongText,
		types.MustCreateString(sqltypes.VarChar, 10, sql.Collation_utf8mb4_0900_ai_ci),
		types.MustCreateString(sqltypes.Char, 10, sql.Collation_utf8mb4_general_ci),
		types.MustCreateBinary(sqltypes.VarBinary, 10), types.JSON, types.Blob,
		types.MustCreateEnumType([]string{"a", "b"}, sql.Collation_Default),
		types.Int8, types.Uint64, types.MustCreateDecimalType(20, 4), types.DatetimeMaxPrecision, types.Year,
	} {
		cd := ColumnDefFrom(&sql.Column{Name: "c", Type: typ})
		col, err := cd.toColumn("t", "d")
		if err != nil {
			t.Fatalf("%q: %v", cd.Type, err)
		}
		if !col.Type.Equals(typ) {
			t.Errorf("%q read back as %v, want %v", cd.Type, col.Type, typ)
		}
	}
}
