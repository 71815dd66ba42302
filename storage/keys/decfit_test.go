package keys

import (
	"bytes"
	"math/big"
	mrand "math/rand"
	"math/rand/v2"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// TestDecimalFitsAsConvert checks DecimalFits against GMS's Convert: a
// value it accepts converts to itself (same coefficient and exponent, in
// range), a value with the column's exponent that it refuses is out of
// range, and the bytes appendFitDecimal writes for it are those of the
// general encoder on Convert's result.
func TestDecimalFitsAsConvert(t *testing.T) {
	typs := []sql.DecimalType{
		types.MustCreateDecimalType(12, 2), types.MustCreateDecimalType(4, 4),
		types.MustCreateDecimalType(18, 0), types.MustCreateDecimalType(18, 6),
		types.MustCreateDecimalType(19, 2), types.MustCreateDecimalType(65, 30),
		types.MustCreateDecimalType(1, 0),
	}
	fixed := []string{"0", "0.00", "1.5", "1.50", "-1.50", "9999999999.99", "10000000000.00",
		"-9999999999.99", "-10000000000.00", "123", "0.001", "0.9999", "1.0000", "-0.9999",
		"999999999999999999", "-999999999999999999", "1000000000000000000", "9", "-9", "10",
		"999999999999.999999", "9223372036854775807", "99999999999999999.99", "100000000000000000.00"}
	rng := rand.New(rand.NewPCG(29, 29))
	old := mrand.New(mrand.NewSource(29))
	var accepted, refused int
	for _, typ := range typs {
		p, s := int64(typ.Precision()), int32(typ.Scale())
		vals := make([]decimal.Decimal, 0, len(fixed)+400)
		for _, f := range fixed {
			vals = append(vals, decimal.RequireFromString(f))
		}
		for range 400 {
			// up to p+1 digits: about as many values in range as beyond it
			lim := new(big.Int).Exp(big.NewInt(10), big.NewInt(1+rng.Int64N(p+1)), nil)
			if rng.IntN(2) == 0 {
				lim.Exp(big.NewInt(10), big.NewInt(p+1), nil)
			}
			c := new(big.Int).Rand(old, lim)
			if rng.IntN(2) == 0 {
				c.Neg(c)
			}
			vals = append(vals, decimal.NewFromBigInt(c, -s))
		}
		for _, d := range vals {
			fits := DecimalFits(typ, d)
			cv, _, err := typ.Convert(convCtx, d)
			var got decimal.Decimal
			same := false
			if err == nil {
				got = cv.(decimal.Decimal)
				same = got.Exponent() == d.Exponent() && got.Equal(d)
			}
			if fits && !same {
				t.Fatalf("%s: DecimalFits(%s) but Convert gives %v, %v", typ, d, cv, err)
			}
			if d.Exponent() == -s && !fits && err == nil {
				t.Fatalf("%s: DecimalFits refuses %s, which Convert keeps in range", typ, d)
			}
			if !fits {
				refused++
				continue
			}
			accepted++
			want := appendRowDecimal(nil, got)
			if gotB := appendFitDecimal(nil, typ, d); !bytes.Equal(gotB, want) {
				t.Fatalf("%s %s: appendFitDecimal %x, appendRowDecimal %x", typ, d, gotB, want)
			}
			row, err := EncodeRow(nil, sql.Schema{{Name: "d", Type: typ}}, sql.Row{d})
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeRow(row, sql.Schema{{Name: "d", Type: typ}})
			if err != nil || !back[0].(decimal.Decimal).Equal(d) || back[0].(decimal.Decimal).Exponent() != d.Exponent() {
				t.Fatalf("%s %s: decoded %v, %v", typ, d, back, err)
			}
		}
	}
	if accepted < 1000 || refused < 1000 {
		t.Fatalf("accepted %d, refused %d: the values do not cover both sides", accepted, refused)
	}
}
