package arith

import (
	"math"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// TestFastInMatchesGMS: an integer column's IN over integer literals
// answers as GMS's InTuple and HashInTuple do, for short lists (a scan)
// and long ones (a set), values in and out of the list, negatives, NULL,
// every integer width, and an unsigned value past int64's range (GMS's
// evaluation); lists holding a NULL, a non-integer or a column are not
// taken.
func TestFastInMatchesGMS(t *testing.T) {
	ctx := sql.NewEmptyContext()
	lits := func(vals ...int64) expression.Tuple {
		var tup expression.Tuple
		for _, v := range vals {
			switch {
			case v >= math.MinInt8 && v <= math.MaxInt8:
				tup = append(tup, expression.NewLiteral(int8(v), types.Int8))
			case v >= math.MinInt32 && v <= math.MaxInt32:
				tup = append(tup, expression.NewLiteral(int32(v), types.Int32))
			default:
				tup = append(tup, expression.NewLiteral(v, types.Int64))
			}
		}
		return tup
	}
	short := lits(48, 19, 12, 4, 41, 7, 21, 39)
	long := lits(-5, 0, 3, 100, 1000, 70000, 1<<40, 9, 10, 11, 12)
	cols := []struct {
		typ  sql.Type
		vals []interface{}
	}{
		{types.Int8, []interface{}{int8(4), int8(5), int8(-5), int8(0), nil}},
		{types.Int32, []interface{}{int32(41), int32(42), int32(70000), int32(-5), nil}},
		{types.Int64, []interface{}{int64(39), int64(1 << 40), int64(-1), nil}},
		{types.Uint64, []interface{}{uint64(7), uint64(12), uint64(math.MaxUint64), uint64(1 << 40), nil}},
		{types.Uint8, []interface{}{uint8(21), uint8(200), nil}},
	}
	taken := 0
	for _, c := range cols {
		col := expression.NewGetField(0, c.typ, "c", true)
		for _, list := range []expression.Tuple{short, long} {
			in := expression.NewInTuple(col, list)
			hashed, err := expression.NewHashInTuple(ctx, col, list)
			if err != nil {
				t.Fatal(err)
			}
			for _, gms := range []sql.Expression{in, hashed} {
				f := NewFastIn(gms)
				if f == nil {
					t.Fatalf("%s not taken", gms)
				}
				taken++
				for _, v := range c.vals {
					row := sql.Row{v}
					want, err := in.Eval(ctx, row)
					if err != nil {
						t.Fatal(err)
					}
					got, err := f.Eval(ctx, row)
					if err != nil {
						t.Fatal(err)
					}
					if got != want {
						t.Errorf("%s with c = %v: %v, GMS %v", gms, v, got, want)
					}
				}
			}
		}
	}
	if taken != 20 {
		t.Errorf("%d lists taken, want 20", taken)
	}
	col := expression.NewGetField(0, types.Int64, "c", true)
	for _, list := range []expression.Tuple{
		append(lits(1, 2), expression.NewLiteral(nil, types.Null)),
		append(lits(1), expression.NewLiteral("2", types.LongText)),
		append(lits(1), expression.NewGetField(1, types.Int64, "d", true)),
	} {
		if f := NewFastIn(expression.NewInTuple(col, list)); f != nil {
			t.Errorf("%s taken", list)
		}
	}
	if f := NewFastIn(expression.NewInTuple(expression.NewGetField(0, types.Text, "s", true), short)); f != nil {
		t.Errorf("a string column's IN taken")
	}
}
