package arith

import (
	"math/rand"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// TestIntQuotientIsGMSs: intQuot gives the value GMS's Div gives for an
// outermost integer quotient, digit for digit, over random operands of
// every size (the int64 path and GMS's, past maxScaled11) and a zero
// divisor (NULL, from GMS's Div).
func TestIntQuotientIsGMSs(t *testing.T) {
	ctx := sql.NewEmptyContext()
	rng := rand.New(rand.NewSource(1))
	pick := func() int64 {
		switch rng.Intn(5) {
		case 0:
			return int64(rng.Intn(21) - 10)
		case 1:
			return rng.Int63n(2000) - 1000
		case 2:
			return rng.Int63n(2*maxScaled11+3) - maxScaled11 - 1
		case 3:
			return rng.Int63() - rng.Int63()
		}
		return rng.Int63n(9_999_999) + 1
	}
	fast := 0
	for i := 0; i < 50000; i++ {
		l, r := pick(), pick()
		if i%97 == 0 {
			r = 0
		}
		d := expression.NewDiv(expression.NewLiteral(l, types.Int64), expression.NewLiteral(r, types.Int64))
		q := newIntQuot(ctx, d)
		if q == nil {
			t.Fatalf("%d / %d: not taken", l, r)
		}
		want, err := d.Eval(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := q.Eval(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := quotient4(l, r); ok {
			fast++
		}
		if (got == nil) != (want == nil) || got != nil && toString(got) != toString(want) {
			t.Fatalf("%d / %d: %v, GMS's Div %v", l, r, got, want)
		}
	}
	if fast < 30000 {
		t.Errorf("only %d of 50000 quotients took the int64 path", fast)
	}
	if q := newIntQuot(ctx, expression.NewDiv(expression.NewLiteral(int64(7), types.Int64), expression.NewLiteral(int64(2), types.Int64))); q.Type().String() != "decimal(65,4)" {
		t.Errorf("7 / 2 is typed %s, want GMS's decimal(65,4)", q.Type())
	}
}

// TestIntQuotientOnlyOutermost: a quotient under another operator or a
// comparison keeps GMS's Div (GMS computes with its 9-digit value).
func TestIntQuotientOnlyOutermost(t *testing.T) {
	ctx := sql.NewEmptyContext()
	lit := func(v int64) sql.Expression { return expression.NewLiteral(v, types.Int64) }
	inner := expression.NewDiv(lit(1), lit(3))
	expression.NewPlus(inner, lit(1))
	if newIntQuot(ctx, inner) != nil {
		t.Error("1 / 3 under + was taken")
	}
	cmp := expression.NewDiv(lit(1), lit(3))
	expression.NewEquals(cmp, lit(0))
	if newIntQuot(ctx, cmp) != nil {
		t.Error("1 / 3 under = was taken")
	}
	if newIntQuot(ctx, expression.NewDiv(lit(1), expression.NewLiteral(3.0, types.Float64))) != nil {
		t.Error("1 / 3.0e0 (a DOUBLE) was taken")
	}
	if newIntQuot(ctx, expression.NewDiv(lit(1), lit(3))) == nil {
		t.Error("a lone 1 / 3 was not taken")
	}
}

func toString(v any) string {
	s, _, _ := types.LongText.Convert(sql.NewEmptyContext(), v)
	return s.(string)
}
