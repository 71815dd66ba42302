package arith

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// TestDecimalSmallPath: DECIMAL arithmetic computed in an int64
// (decArith's small path) gives the value the decimal path gives, digit
// for digit and with the same exponent, over random operands of up to
// 20 digits (past an int64 and past the 18 digits the small path
// takes), negatives, NULLs and integers, for TPC-H Q1's expression
// shapes; and SUM over those expressions (exactBuffer, which adds the
// small values without a decimal) equals the sum of the decimal path's
// values. Both paths are taken.
func TestDecimalSmallPath(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(7))
	d152 := types.MustCreateDecimalType(15, 2)
	d202 := types.MustCreateDecimalType(22, 4)
	price := expression.NewGetField(0, d152, "p", true)
	disc := expression.NewGetField(1, d152, "d", true)
	wide := expression.NewGetField(2, d202, "w", true)
	n := expression.NewGetField(3, types.Int64, "n", true)
	one := expression.NewLiteral(int8(1), types.Int8)
	half := expression.NewLiteral(decimal.RequireFromString("0.5"), types.MustCreateDecimalType(2, 1))
	mk := func(l, r sql.Expression, op string) sql.Expression {
		e, ok := NewDecArith(expression.NewArithmetic(l, r, op))
		if !ok {
			t.Fatalf("%s %s %s is not decimal arithmetic", l, op, r)
		}
		return e
	}
	exprs := []sql.Expression{
		mk(price, mk(one, disc, "-"), "*"),
		mk(mk(price, mk(one, disc, "-"), "*"), mk(one, disc, "+"), "*"),
		mk(wide, price, "-"),
		mk(wide, wide, "*"),
		mk(n, half, "*"),
		mk(mk(wide, n, "+"), disc, "*"),
	}
	// digits returns a random coefficient of 1 to max digits, maybe
	// negative, at exponent -scale.
	digits := func(max, scale int) decimal.Decimal {
		var b strings.Builder
		if r.Intn(4) == 0 {
			b.WriteByte('-')
		}
		for i, k := 0, 1+r.Intn(max); i < k; i++ {
			b.WriteByte(byte('0' + r.Intn(10)))
		}
		return decimal.RequireFromString(b.String()).Shift(-int32(scale))
	}
	value := func(d decimal.Decimal) any {
		if r.Intn(20) == 0 {
			return nil
		}
		return d
	}
	small, fallback := 0, 0
	for ei, e := range exprs {
		buf := &exactBuffer{expr: e, scale: 8}
		want, rows := decimal.Zero, 0
		for i := 0; i < 3000; i++ {
			var nv any = int64(r.Intn(2000000) - 1000000)
			if r.Intn(8) == 0 {
				nv = int64(r.Uint64() >> 1)
			}
			row := sql.Row{value(digits(15, 2)), value(digits(5, 2)), value(digits(20, 4)), nv}
			got, err := e.Eval(ctx, row)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := e.(*DecArith).EvalDecimal(ctx, row)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, ok, _ := e.(*DecArith).EvalSmall(ctx, row); ok {
				small++
			} else {
				fallback++
			}
			if fmt.Sprint(got) != fmt.Sprint(ref) {
				t.Fatalf("expression %d, row %v: %v, the decimal path %v", ei, row, got, ref)
			}
			if g, ok := got.(decimal.Decimal); ok && g.Exponent() != ref.(decimal.Decimal).Exponent() {
				t.Fatalf("expression %d, row %v: exponent %d, the decimal path %d", ei, row, g.Exponent(), ref.(decimal.Decimal).Exponent())
			}
			if ref != nil {
				want, rows = want.Add(ref.(decimal.Decimal)), rows+1
			}
			if err := buf.Update(ctx, row); err != nil {
				t.Fatal(err)
			}
		}
		got, err := buf.Eval(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rows == 0 || !got.(decimal.Decimal).Equal(want) {
			t.Errorf("expression %d: SUM %v over %d rows, want %v", ei, got, rows, want)
		}
	}
	if small < 5000 || fallback < 500 {
		t.Errorf("%d values took the small path and %d the decimal path: both should be exercised", small, fallback)
	}
}
