package storeval

import (
	"math/rand"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// TestSmallDecimalIsTheGeneralPaths: for random integers and DECIMALs
// stored into DECIMAL(p,s) columns, smallDecimal either declines or gives
// the general path's value (rounded to the scale, the same exponent),
// and declines exactly where that path would warn (a value out of range
// or with digits rounded away) and for columns of more than 18 digits.
func TestSmallDecimalIsTheGeneralPaths(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	taken := 0
	for i := 0; i < 40000; i++ {
		p := uint8(1 + rng.Intn(20))
		s := uint8(rng.Intn(int(min(p, 10)) + 1))
		if s > p {
			s = p
		}
		dt := types.MustCreateDecimalType(p, s)
		var v any
		var d decimal.Decimal
		switch rng.Intn(3) {
		case 0:
			n := rng.Int63n(2_000_000) - 1_000_000
			v, d = n, decimal.NewFromInt(n)
		case 1:
			n := rng.Int63() - rng.Int63()
			v, d = n, decimal.NewFromInt(n)
		default:
			d = decimal.New(rng.Int63n(20_000_000)-10_000_000, -int32(rng.Intn(12)))
			v = d
		}
		got, ok := smallDecimal(dt.(sql.DecimalType), v)
		r := d.Round(int32(s))
		max := dt.(sql.DecimalType).ExclusiveUpperBound()
		fits := r.Abs().LessThan(max) && r.Equal(d) && p <= 18 // wider columns: the general path
		if ok != fits {
			t.Fatalf("%v into DECIMAL(%d,%d): taken %v, but exact and in range is %v", v, p, s, ok, fits)
		}
		if !ok {
			continue
		}
		taken++
		if !got.Equal(r) || got.Exponent() != r.Exponent() {
			t.Fatalf("%v into DECIMAL(%d,%d): %s (exponent %d), general path %s (exponent %d)", v, p, s, got, got.Exponent(), r, r.Exponent())
		}
	}
	if taken < 5000 {
		t.Errorf("only %d of 40000 values took the small path", taken)
	}
}
