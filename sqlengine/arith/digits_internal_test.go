package arith

import (
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// TestDigitsAtMost: the comparison with ±10^n at the value's exponent
// says what decimal's NumDigits says, at the boundaries (n digits of
// nines, 10^n, their negatives) and for random values of exponents -35
// to 3.
func TestDigitsAtMost(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	check := func(d decimal.Decimal) {
		t.Helper()
		for _, c := range []struct {
			lim *digitLimits
			n   int
		}{{limit65, 65}, {Limit18, 18}} {
			if got, want := c.lim.Holds(d), d.NumDigits() <= c.n; got != want {
				t.Fatalf("%s (exponent %d) has at most %d digits: %v, NumDigits says %v", d, d.Exponent(), c.n, got, want)
			}
		}
	}
	for _, n := range []int{18, 65} {
		nines, _ := new(big.Int).SetString(strings.Repeat("9", n), 10)
		ten := new(big.Int).Add(nines, big.NewInt(1))
		for _, v := range []*big.Int{nines, ten, new(big.Int).Neg(nines), new(big.Int).Neg(ten)} {
			for e := int32(-31); e <= 1; e++ {
				check(decimal.NewFromBigInt(v, e))
			}
		}
	}
	for i := 0; i < 20000; i++ {
		digits := 1 + r.Intn(70)
		var b strings.Builder
		if r.Intn(2) == 0 {
			b.WriteByte('-')
		}
		b.WriteByte(byte('1' + r.Intn(9)))
		for j := 1; j < digits; j++ {
			b.WriteByte(byte('0' + r.Intn(10)))
		}
		v, _ := new(big.Int).SetString(b.String(), 10)
		check(decimal.NewFromBigInt(v, int32(r.Intn(39)-35)))
	}
	check(decimal.Zero)
}
