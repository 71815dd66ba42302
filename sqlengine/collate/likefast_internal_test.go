package collate

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// TestFastLikeMatchesGMS: LIKE over ASCII bytes answers as GMS's LIKE,
// for random ASCII values and patterns ('%', '_', letters of either
// case, punctuation, spaces, control bytes) under MySQL 8's default
// collation, a binary, an accent-sensitive case-sensitive and a PAD
// SPACE collation, NULL, integers and non-ASCII values (GMS's matcher)
// included;
// TPC-H's patterns are taken by the fast path; patterns it cannot take
// (an escape, non-ASCII) stay GMS's LIKE.
func TestFastLikeMatchesGMS(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(11))
	alphabet := "aAbBcC%_ -.\x01\x1f!zZ"
	word := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteByte(alphabet[r.Intn(len(alphabet))])
		}
		return b.String()
	}
	colls := []sql.CollationID{sql.Collation_utf8mb4_0900_ai_ci, sql.Collation_utf8mb4_bin, sql.Collation_utf8mb4_0900_as_cs, sql.Collation_utf8mb4_general_ci}
	fast, matched := 0, 0
	for _, coll := range colls {
		col := expression.NewGetField(0, types.MustCreateString(sqltypes.VarChar, 100, coll), "s", true)
		for i := 0; i < 400; i++ {
			pattern := word(r.Intn(7))
			l := expression.NewLike(col, expression.NewLiteral(pattern, types.LongText), nil).(*expression.Like)
			f := newFastLike(ctx, l)
			if f == nil {
				t.Fatalf("%s: pattern %q not taken", coll, pattern)
			}
			fast++
			for k := 0; k < 30; k++ {
				var v any = word(r.Intn(9))
				switch k {
				case 0:
					v = nil
				case 1:
					v = "é" + pattern
				case 2:
					v = strings.ReplaceAll(strings.ReplaceAll(pattern, "%", "xy"), "_", "q")
				case 3:
					v = int64(r.Intn(1000)) // read as its text, as GMS does
				case 4:
					v = "é" + strings.ReplaceAll(pattern, "%", "") // GMS's matcher
				}
				got, err := f.Eval(ctx, sql.Row{v})
				if err != nil {
					t.Fatal(err)
				}
				want, err := l.Eval(ctx, sql.Row{v})
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("%s: %q LIKE %q: %v, GMS's %v", coll, v, pattern, got, want)
				}
				if got == true {
					matched++
				}
			}
		}
	}
	if matched < fast {
		t.Errorf("%d matches in %d patterns: too few to tell", matched, fast)
	}
	col := expression.NewGetField(0, types.MustCreateString(sqltypes.VarChar, 100, sql.Collation_utf8mb4_0900_ai_ci), "s", true)
	for _, p := range []string{"LARGE BRUSHED%", "%special%requests%", "%green%", "forest%", "%BRASS"} {
		if newFastLike(ctx, expression.NewLike(col, expression.NewLiteral(p, types.LongText), nil).(*expression.Like)) == nil {
			t.Errorf("%q not taken", p)
		}
	}
	for _, p := range []string{`a\%b`, "é%"} {
		if newFastLike(ctx, expression.NewLike(col, expression.NewLiteral(p, types.LongText), nil).(*expression.Like)) != nil {
			t.Errorf("%q taken", p)
		}
	}
}
