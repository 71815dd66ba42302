package keys

import (
	"errors"
	"math/rand"
	"reflect"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// TestDecodeRowColumns: for rows of every column type and random wanted
// sets, the wanted columns decode to exactly DecodeRow's values and the
// others are nil; truncated rows are corruption, as for DecodeRow.
func TestDecodeRowColumns(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewSource(seed))
	cases := allTypeCases()
	var typs []sql.Type
	for _, tc := range cases {
		typs = append(typs, tc.typ)
	}
	sch := schemaOf(typs...)
	buf := make(sql.Row, len(sch))
	for n := 0; n < 300; n++ {
		row := make(sql.Row, len(cases))
		want := make([]bool, len(cases))
		for i, tc := range cases {
			if r.Intn(4) != 0 {
				row[i] = mustConvert(t, tc.typ, tc.gen(r))
			}
			want[i] = r.Intn(3) == 0
		}
		enc, err := EncodeRow(nil, sch, row)
		if err != nil {
			t.Fatal(err)
		}
		full, err := DecodeRow(enc, sch)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeRowColumns(enc, sch, want)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		// The borrowed decoding gives the same values, in the buffer it
		// was given (stale values of the previous row cleared).
		borrowed, err := DecodeRowBorrowed(buf, enc, sch, want)
		if err != nil {
			t.Fatalf("seed %d: borrowed: %v", seed, err)
		}
		if !reflect.DeepEqual(borrowed, got) {
			t.Fatalf("seed %d: borrowed decoding %v, DecodeRowColumns %v", seed, borrowed, got)
		}
		if &borrowed[0] != &buf[0] {
			t.Fatalf("seed %d: the borrowed decoding did not reuse its buffer", seed)
		}
		for i := range row {
			if !want[i] {
				if got[i] != nil {
					t.Fatalf("seed %d: unwanted column %s decoded", seed, typs[i])
				}
				continue
			}
			if !reflect.DeepEqual(got[i], full[i]) {
				t.Fatalf("seed %d: column %s: %s, DecodeRow gives %s", seed, typs[i], describe(got[i]), describe(full[i]))
			}
		}
		if cut := r.Intn(len(enc)); cut > 0 {
			none := make([]bool, len(sch))
			if _, err := DecodeRowColumns(enc[:cut], sch, none); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("seed %d: row cut at %d of %d: %v", seed, cut, len(enc), err)
			}
		}
	}
	if _, err := DecodeRowColumns([]byte{1, 0}, sch, []bool{true}); err == nil {
		t.Error("a short wanted list accepted")
	}
}
