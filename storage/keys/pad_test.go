package keys

import (
	"bytes"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// AppendValuePad drops trailing spaces under PAD SPACE collations only;
// AppendValue (tables of key format 0) keeps every byte.
func TestAppendValuePad(t *testing.T) {
	mk := func(c sql.CollationID) sql.Type {
		typ, err := types.CreateString(sqltypes.VarChar, 20, c)
		if err != nil {
			t.Fatal(err)
		}
		return typ
	}
	for _, c := range []struct {
		coll      sql.CollationID
		a, b      string
		padEqual  bool // keys equal with AppendValuePad
		bareEqual bool // keys equal with AppendValue
	}{
		{sql.Collation_utf8mb4_general_ci, "b", "B ", true, false},
		{sql.Collation_utf8mb4_general_ci, "b", "b\t", false, false},
		{sql.Collation_utf8mb4_bin, "b", "b  ", true, false},
		{sql.Collation_utf8mb4_0900_ai_ci, "b", "b ", false, false}, // NO PAD
		{sql.Collation_utf8mb4_0900_ai_ci, "b", "B", true, true},
		{sql.Collation_latin1_swedish_ci, "a ", "A", true, false},
	} {
		typ := mk(c.coll)
		pa, _ := AppendValuePad(nil, typ, c.a)
		pb, _ := AppendValuePad(nil, typ, c.b)
		ba, _ := AppendValue(nil, typ, c.a)
		bb, _ := AppendValue(nil, typ, c.b)
		if got := bytes.Equal(pa, pb); got != c.padEqual {
			t.Errorf("%s: pad keys of %q and %q equal = %v, want %v", c.coll.Name(), c.a, c.b, got, c.padEqual)
		}
		if got := bytes.Equal(ba, bb); got != c.bareEqual {
			t.Errorf("%s: keys of %q and %q equal = %v, want %v", c.coll.Name(), c.a, c.b, got, c.bareEqual)
		}
	}
}
