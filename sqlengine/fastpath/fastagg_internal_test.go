package fastpath

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// TestCountJoinBounds: the distinct-count join reads a bound as a
// parameter plus an integer literal (? - 20 is -20), reads a bound
// written the other way round with the operator flipped, and declines
// anything else (two parameters, a non-integer literal, a column).
func TestCountJoinBounds(t *testing.T) {
	where := func(cond string) *ast.ComparisonExpr {
		stmt, err := ast.Parse("SELECT 1 FROM t WHERE " + cond)
		if err != nil {
			t.Fatal(err)
		}
		return unparen(stmt.(*ast.Select).Where.Expr).(*ast.ComparisonExpr)
	}
	for _, c := range []struct {
		cond  string
		param int
		add   int64
		ok    bool
	}{
		{"a < :v3", 2, 0, true},
		{"a >= :v4 - 20", 3, -20, true},
		{"a >= (:v1 + 7)", 0, 7, true},
		{"a >= :v1 - -7", 0, 7, true},
		{"a >= :v1 - :v2", 0, 0, false},
		{"a >= :v1 - 2.5", 0, 0, false},
		{"a >= 20 - :v1", 0, 0, false},
		{"a >= b", 0, 0, false},
		{"a >= :v1 * 2", 0, 0, false},
	} {
		p, add, ok := paramPlus(where(c.cond).Right)
		if ok != c.ok || (ok && (p != c.param || add != c.add)) {
			t.Errorf("%s: param %d, add %d, ok %v; want %d, %d, %v", c.cond, p, add, ok, c.param, c.add, c.ok)
		}
	}
	for op, want := range map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="} {
		if got := flipOp(op); got != want {
			t.Errorf("flipOp(%s) = %s, want %s", op, got, want)
		}
		// a op b is b flipOp(op) a.
		for _, ab := range [][2]int64{{1, 2}, {2, 1}, {3, 3}} {
			if compareInt(op, ab[0], ab[1]) != compareInt(want, ab[1], ab[0]) {
				t.Errorf("%d %s %d and %d %s %d differ", ab[0], op, ab[1], ab[1], want, ab[0])
			}
		}
	}
}

// TestDecimalSumFields: SUM(DECIMAL(p,s))'s field is DECIMAL(p+22, s)
// (p capped at 65), made from the prepare's DOUBLE on a copy; any other
// field type is declined.
func TestDecimalSumFields(t *testing.T) {
	prep := []*querypb.Field{{Name: "d", Type: sqltypes.Int32}, {Name: "SUM(x)", Type: sqltypes.Float64, Decimals: 31}}
	for _, c := range []struct {
		p, s      uint8
		length    uint32
		precision uint8
	}{{6, 2, 30, 28}, {60, 4, 67, 65}, {10, 0, 33, 32}} {
		out, ok := decimalSumFields(prep, 1, types.MustCreateDecimalType(c.p, c.s))
		if !ok || out[1].Type != sqltypes.Decimal || out[1].Decimals != uint32(c.s) || out[1].ColumnLength != c.length || out[1].Name != "SUM(x)" {
			t.Errorf("DECIMAL(%d,%d): %v %v, want DECIMAL(%d,%d) of length %d", c.p, c.s, out, ok, c.precision, c.s, c.length)
		}
	}
	if prep[1].Type != sqltypes.Float64 {
		t.Error("the prepare's field was changed")
	}
	if _, ok := decimalSumFields([]*querypb.Field{{Type: sqltypes.VarChar}}, 0, types.MustCreateDecimalType(6, 2)); ok {
		t.Error("a VARCHAR field taken")
	}
}
