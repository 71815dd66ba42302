package node_test

import (
	"fmt"
	"testing"
)

// NOW(n) and its synonyms are DATETIME(n): the field says n decimals and
// the text has n fractional digits, trailing zeros too (GMS typed them
// DATETIME(6) and printed '...41.5' for NOW(2) when the hundredths were
// zero).
func TestNowFractionDigits(t *testing.T) {
	nd, open := startNode(t)
	db := open("")
	raw := rootConn(t, nd) // text as sent: no parseTime
	for n := 1; n <= 5; n++ {
		q := fmt.Sprintf("SELECT NOW(%d), CURRENT_TIMESTAMP(%d), LOCALTIME(%d)", n, n, n)
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cts, err := rows.ColumnTypes()
		if err != nil {
			t.Fatal(err)
		}
		for _, ct := range cts {
			if d, _, ok := ct.DecimalSize(); ct.DatabaseTypeName() != "DATETIME" || !ok || d != int64(n) {
				t.Errorf("%s: column %s is %s with %d decimals (%v), want DATETIME with %d", q, ct.Name(), ct.DatabaseTypeName(), d, ok, n)
			}
		}
		rows.Close()
		// 40 reads: the last digit is 0 in about one of ten.
		for i := 0; i < 40; i++ {
			got := queryRows(t, raw, q)
			for _, v := range got[0] {
				if len(v) != 20+n {
					t.Fatalf("%s: %q has %d characters, want %d (%d fractional digits)", q, v, len(v), 20+n, n)
				}
			}
		}
	}
}
