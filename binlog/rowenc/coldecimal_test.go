package rowenc

import (
	"bytes"
	"errors"
	"math/big"
	"math/rand"
	"testing"

	"github.com/shopspring/decimal"
)

// TestColumnDecimalIsTheGeneralPaths: a value at its column's scale is
// encoded (appendColumnDecimal) to the bytes the general path gives the
// same number with one more fractional zero, and refused alike when it
// does not fit; over random DECIMAL(p,s) of up to 18 digits.
func TestColumnDecimalIsTheGeneralPaths(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	fast := 0
	for i := 0; i < 50000; i++ {
		prec := 1 + rng.Intn(18)
		scale := rng.Intn(min(prec, 10) + 1)
		var c int64
		switch rng.Intn(3) {
		case 0:
			c = rng.Int63n(2000) - 1000
		case 1:
			c = rng.Int63n(2_000_000_000_000) - 1_000_000_000_000
		default:
			c = rng.Int63() - rng.Int63()
		}
		at := decimal.New(c, -int32(scale))
		// The same value with another exponent: the general path.
		longer := decimal.NewFromBigInt(new(big.Int).Mul(big.NewInt(c), big.NewInt(10)), -int32(scale+1))
		got, gerr := AppendDecimal(nil, at, prec, scale)
		want, werr := AppendDecimal(nil, longer, prec, scale)
		if (gerr == nil) != (werr == nil) || gerr != nil && !errors.Is(gerr, ErrRange) {
			t.Fatalf("%s as DECIMAL(%d,%d): error %v, general path %v", at, prec, scale, gerr, werr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s as DECIMAL(%d,%d): % x, general path % x", at, prec, scale, got, want)
		}
		if gerr == nil {
			fast++
			text, _, err := DecodeDecimal(got, prec, scale)
			if back, perr := decimal.NewFromString(text); err != nil || perr != nil || !back.Equal(at) {
				t.Fatalf("%s as DECIMAL(%d,%d) reads back as %s (%v)", at, prec, scale, text, err)
			}
		}
	}
	if fast < 10000 {
		t.Errorf("only %d of 50000 values fit their column", fast)
	}
}
