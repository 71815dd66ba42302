package keys

import (
	"encoding/binary"
	"math/big"
	"math/bits"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"
)

// Decimals already in their column's shape.
//
// Most DECIMAL values a write stores are already what GMS's Convert would
// make of them: the unchanged columns of an UPDATE's row (decoded from
// storage) and values a fast path converted once. Convert still rebuilds
// each of them (for a DECIMAL(p,s) column with s > 0 it formats the value
// with StringFixed and parses the text again, then allocates its absolute
// value for the range check), and the row encoder copied its coefficient
// into a new big.Int and bytes: about ten allocations per value, and TPC-C
// rewrites four DECIMAL columns of a customer row and two of a stock row
// per update. DecimalFits recognises such a value without allocating, and
// the encoder writes a small coefficient from an int64.

// decBound is ±10^(p-s) at exponent -s: the exclusive bounds of a
// DECIMAL(p,s) value, with the exponent the column's values have, so that
// a comparison with them does not rescale (allocate).
type decBound struct{ lo, hi decimal.Decimal }

// decBounds caches decBound per precision and scale (p <= 65, s <= 30).
var decBounds [66][31]atomic.Pointer[decBound]

func boundFor(p, s uint8) *decBound {
	if int(p) >= len(decBounds) || int(s) >= len(decBounds[0]) {
		return nil
	}
	if b := decBounds[p][s].Load(); b != nil {
		return b
	}
	c := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)
	b := &decBound{
		hi: decimal.NewFromBigInt(c, -int32(s)),
		lo: decimal.NewFromBigInt(new(big.Int).Neg(c), -int32(s)),
	}
	decBounds[p][s].Store(b)
	return b
}

// DecimalFits reports whether d is a value of the DECIMAL column type typ
// exactly as GMS's Convert returns it for that column: its exponent is
// minus the column's scale and its magnitude below 10^(precision-scale).
// Such a value converts to itself (no rounding, in range), so callers may
// store it as it is. It does not allocate for a d with a coefficient.
func DecimalFits(typ sql.Type, d decimal.Decimal) bool {
	dt, ok := typ.(sql.DecimalType)
	if !ok {
		return false
	}
	p, s := dt.Precision(), dt.Scale()
	if d.Exponent() != -int32(s) {
		return false
	}
	b := boundFor(p, s)
	return b != nil && d.Cmp(b.hi) < 0 && d.Cmp(b.lo) > 0
}

// appendFitDecimal is appendRowDecimal for a d that DecimalFits typ: a
// coefficient of at most 18 digits is written from an int64, in the bytes
// appendRowDecimal writes (exponent, length and sign, big-endian
// magnitude without leading zero bytes).
func appendFitDecimal(dst []byte, typ sql.Type, d decimal.Decimal) []byte {
	if typ.(sql.DecimalType).Precision() > 18 {
		return appendRowDecimal(dst, d)
	}
	c := d.CoefficientInt64() // |c| < 10^18: fits
	var sign uint64
	mag := uint64(c)
	if c < 0 {
		sign, mag = 1, uint64(-c)
	}
	n := (bits.Len64(mag) + 7) / 8
	dst = binary.AppendVarint(dst, int64(d.Exponent()))
	dst = binary.AppendUvarint(dst, uint64(n)<<1|sign)
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(mag>>(8*i)))
	}
	return dst
}
