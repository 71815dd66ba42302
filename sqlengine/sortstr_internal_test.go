package sqlengine

import (
	"context"
	"math/rand"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// TestOrderByStringsAsGMS: ORDER BY's string comparison from the ASCII
// weight table gives GMS's StringType.Compare answer for random pairs
// (either case, punctuation, spaces, control bytes, prefixes of each
// other, non-ASCII) under four collations; and a plan's ORDER BY of a
// string column uses it, with rows in the order GMS gives.
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
	env := openStatsEnv(t, t.TempDir())
	defer env.close()
	env.must("CREATE DATABASE d")
	env.s.SetCurrentDatabase("d")
	env.must("CREATE TABLE s (id INT PRIMARY KEY, v VARCHAR(20))")
	env.must("INSERT INTO s VALUES (1, 'b'), (2, 'A'), (3, 'a'), (4, 'ab'), (5, 'B'), (6, NULL), (7, 'a-'), (8, '_z')")
	const q = "SELECT id FROM s ORDER BY v, id"
	if got := env.must(q); got != "[[6] [8] [2] [3] [7] [4] [1] [5]]" {
		t.Errorf("%s: %s", q, got)
	}
	n, err := env.e.GMS().AnalyzeQuery(env.e.NewContext(context.Background(), env.s).WithQuery(q), q)
	if err != nil {
		t.Fatal(err)
	}
	keys := 0
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		if _, ok := e.(*strSortKey); ok {
			keys++
		}
		return true
	})
	if keys != 1 {
		t.Errorf("%d string sort keys in the plan:\n%s", keys, sql.DebugString(n))
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
