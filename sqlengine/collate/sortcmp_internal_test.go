package collate

import (
	"context"
	"math/rand"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// TestOrderByStringsAsGMS: ORDER BY's string comparison from the ASCII
// weight table gives GMS's StringType.Compare answer for random pairs
// (either case, punctuation, spaces, control bytes, prefixes of each
// other, non-ASCII) under four collations.
func TestOrderByStringsAsGMS(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	alphabet := "aAbBzZ09 -_.~\x01\x7f"
	word := func() string {
		var b strings.Builder
		for i, n := 0, r.Intn(6); i < n; i++ {
			b.WriteByte(alphabet[r.Intn(len(alphabet))])
		}
		if r.Intn(20) == 0 {
			b.WriteString("é")
		}
		return b.String()
	}
	ctx := context.Background()
	for _, coll := range []sql.CollationID{sql.Collation_utf8mb4_0900_ai_ci, sql.Collation_utf8mb4_bin, sql.Collation_utf8mb4_0900_as_cs, sql.Collation_utf8mb4_general_ci} {
		st := types.MustCreateString(sqltypes.VarChar, 40, coll)
		k, ok := newStrSortKey(&constExpr{typ: st})
		if !ok {
			t.Fatalf("%s: no string sort key", coll)
		}
		for i := 0; i < 20000; i++ {
			a, b := word(), word()
			if i%5 == 0 {
				b = a + word()
			}
			got, err := k.typ.Compare(ctx, a, b)
			if err != nil {
				t.Fatal(err)
			}
			want, err := st.Compare(ctx, a, b)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("%s: %q vs %q: %d, GMS's %d", coll, a, b, got, want)
			}
		}
	}
}

// constExpr is an expression of a given type (its value unused).
type constExpr struct{ typ sql.Type }

func (c *constExpr) Resolved() bool                                         { return true }
func (c *constExpr) String() string                                         { return "c" }
func (c *constExpr) Type() sql.Type                                         { return c.typ }
func (c *constExpr) IsNullable() bool                                       { return false }
func (c *constExpr) Eval(*sql.Context, sql.Row) (interface{}, error)        { return nil, nil }
func (c *constExpr) Children() []sql.Expression                             { return nil }
func (c *constExpr) WithChildren(...sql.Expression) (sql.Expression, error) { return c, nil }
