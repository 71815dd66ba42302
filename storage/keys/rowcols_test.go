package keys

import (
	"errors"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
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
	vc := new(ScanCache)
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
		// The prefix decoding gives the same wanted values (when any is
		// wanted), reading no further than the last of them: a row cut
		// after that decodes, one cut before it is corruption.
		if last := slices.Index(want, true); last >= 0 {
			last = len(want) - 1 - slices.Index(reversed(want), true)
			pre, err := DecodeRowPrefix(buf, enc, sch, want, nil)
			if err != nil {
				t.Fatalf("seed %d: prefix: %v", seed, err)
			}
			if !reflect.DeepEqual(pre, got) {
				t.Fatalf("seed %d: prefix decoding %v, DecodeRowColumns %v", seed, pre, got)
			}
			// The scans' decoding (DecodeRowLeading) too, copying.
			lead, err := DecodeRowLeading(enc, sch, want, vc)
			if err != nil {
				t.Fatalf("seed %d: leading: %v", seed, err)
			}
			if !reflect.DeepEqual(lead, got) {
				t.Fatalf("seed %d: leading decoding %v, DecodeRowColumns %v", seed, lead, got)
			}
			end := prefixEnd(t, enc, sch, last)
			if _, err := DecodeRowPrefix(buf, enc[:end], sch, want, nil); err != nil {
				t.Fatalf("seed %d: row cut after its column %d: %v", seed, last, err)
			}
			if _, err := DecodeRowLeading(enc[:end], sch, want, vc); err != nil {
				t.Fatalf("seed %d: leading: row cut after its column %d: %v", seed, last, err)
			}
			if cut := r.Intn(end); cut > 0 {
				if _, err := DecodeRowPrefix(buf, enc[:cut], sch, want, nil); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("seed %d: row cut at %d, before its column %d's end %d: %v", seed, cut, last, end, err)
				}
				if _, err := DecodeRowLeading(enc[:cut], sch, want, vc); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("seed %d: leading: row cut at %d, before its column %d's end %d: %v", seed, cut, last, end, err)
				}
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

func reversed(b []bool) []bool {
	out := slices.Clone(b)
	slices.Reverse(out)
	return out
}

// prefixEnd is the offset just past column last of the encoded row enc:
// the length of the shortest cut DecodeRowColumns reads column last of.
func prefixEnd(t *testing.T, enc []byte, sch sql.Schema, last int) int {
	t.Helper()
	want := make([]bool, len(sch))
	want[last] = true
	for end := 1; end <= len(enc); end++ {
		r := reader{b: enc[:end], partial: true, last: last}
		if _, err := r.row(make(sql.Row, len(sch)), sch, want); err == nil {
			return end
		}
	}
	t.Fatalf("column %d never decodes", last)
	return 0
}

// TestScanCache: a scan's decoding with a ScanCache gives the values
// DecodeRow gives, for rows whose DECIMALs and DATEs repeat, differ and
// share a cache slot, whole or in part (a coefficient at two
// exponents); and a row whose values are all
// in the cache builds none of them (the allocations of a row of four
// cached DECIMALs and a DATE: only the row).
func TestScanCache(t *testing.T) {
	dec := func(p, s int) sql.Type { return types.MustCreateDecimalType(uint8(p), uint8(s)) }
	sch := schemaOf(dec(15, 2), dec(15, 2), dec(15, 2), dec(15, 4), types.Date, dec(65, 10))
	r := rand.New(rand.NewSource(3))
	vc := new(ScanCache)
	var rows [][]byte
	for i := 0; i < 3000; i++ {
		row := sql.Row{
			mustConvert(t, sch[0].Type, decimal.New(int64(r.Intn(50)), -2)),
			mustConvert(t, sch[1].Type, decimal.New(int64(r.Intn(5000))-2500, -2)),
			mustConvert(t, sch[2].Type, decimal.New(r.Int63n(1e15), -2)),
			nil,
			mustConvert(t, sch[4].Type, time.Date(1992+r.Intn(7), time.Month(1+r.Intn(12)), 1+r.Intn(28), 0, 0, 0, 0, time.UTC)),
			mustConvert(t, sch[5].Type, decimal.RequireFromString("123456789012345678901234567890.5")),
		}
		if r.Intn(3) > 0 {
			// The coefficient of column 0 at another exponent.
			row[3] = mustConvert(t, sch[3].Type, decimal.New(row[0].(decimal.Decimal).CoefficientInt64(), -4))
		}
		enc, err := EncodeRow(nil, sch, row)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, enc)
		want := []bool{true, true, true, r.Intn(2) == 0, true, r.Intn(2) == 0}
		full, err := DecodeRow(enc, sch)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range [][]bool{nil, want} {
			got, err := DecodeRowLeading(enc, sch, w, vc)
			if err != nil {
				t.Fatal(err)
			}
			for c := range got {
				if (w == nil || w[c]) && !reflect.DeepEqual(got[c], full[c]) {
					t.Fatalf("row %d column %d: %s with the cache, DecodeRow %s", i, c, describe(got[c]), describe(full[c]))
				}
			}
			pre, err := DecodeRowPrefix(nil, enc, sch, want, vc)
			if err != nil {
				t.Fatal(err)
			}
			for c := range pre {
				if want[c] && !reflect.DeepEqual(pre[c], full[c]) {
					t.Fatalf("row %d column %d: prefix %s with the cache, DecodeRow %s", i, c, describe(pre[c]), describe(full[c]))
				}
			}
		}
	}
	// A row of values the cache holds: the row is the one allocation.
	enc := rows[len(rows)-1]
	only := []bool{true, false, false, true, true, false}
	if _, err := DecodeRowLeading(enc, sch, only, vc); err != nil {
		t.Fatal(err)
	}
	cached := testing.AllocsPerRun(100, func() { _, _ = DecodeRowLeading(enc, sch, only, vc) })
	uncached := testing.AllocsPerRun(100, func() { _, _ = DecodeRowLeading(enc, sch, only, nil) })
	if cached != 1 || uncached <= cached {
		t.Errorf("allocations a row: %v with the cache, %v without", cached, uncached)
	}
}
