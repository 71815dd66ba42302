package collate

import (
	"math/rand"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/encodings"
)

// TestTabledSortersSameWeights: the installed sorters give the weights
// GMS's own functions give, for every code point of the table and
// random ones past it, under MySQL 8's default collation, a
// case-sensitive one and a PAD SPACE one; and every collation's sorter
// agrees with a fresh table of itself (the table is the original's).
func TestTabledSortersSameWeights(t *testing.T) {
	InstallFastSorters()
	r := rand.New(rand.NewSource(5))
	runes := make([]rune, 0, tabledRunes+2000)
	for c := rune(0); c < tabledRunes+64; c++ {
		runes = append(runes, c)
	}
	for i := 0; i < 2000; i++ {
		runes = append(runes, rune(r.Intn(0x30000)))
	}
	for _, c := range []struct {
		id   sql.CollationID
		orig sql.CollationSorter
	}{
		{sql.Collation_utf8mb4_0900_ai_ci, encodings.Utf8mb4_0900_ai_ci_RuneWeight},
		{sql.Collation_utf8mb4_0900_as_cs, encodings.Utf8mb4_0900_as_cs_RuneWeight},
		{sql.Collation_utf8mb4_general_ci, encodings.Utf8mb4_general_ci_RuneWeight},
	} {
		got := c.id.Sorter()
		for _, x := range runes {
			if g, w := got(x), c.orig(x); g != w {
				t.Fatalf("%s: rune %U weighs %d, GMS's %d", c.id, x, g, w)
			}
		}
	}
	tabled := 0
	for it := sql.NewCollationsIterator(); ; {
		c, ok := it.Next()
		if !ok {
			break
		}
		s := c.ID.Sorter()
		if s == nil {
			continue
		}
		again, ok := tabledSorter(s)
		if !ok {
			continue
		}
		tabled++
		for _, x := range runes[:tabledRunes] {
			if s(x) != again(x) {
				t.Fatalf("%s: rune %U weighs %d and %d", c.Name, x, s(x), again(x))
			}
		}
	}
	if tabled < 100 {
		t.Errorf("%d collations' sorters tabled", tabled)
	}
}
