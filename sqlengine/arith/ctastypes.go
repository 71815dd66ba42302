package arith

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// CREATE TABLE ... AS SELECT's column types, where GMS's would change the
// values copied into them (retypeCreateSelect, widenCreateSelect).

// analysedType reports whether a new column typed built (as GMS built
// the plan) takes the analysed select's type analysed instead: both are
// numbers, or both temporal, and they differ. Strings keep theirs (GMS's
// analysed string types carry no collation of their own).
func analysedType(built, analysed sql.Type) bool {
	if built.Equals(analysed) || analysed == types.Null {
		return false
	}
	num := func(t sql.Type) bool { return types.IsInteger(t) || types.IsDecimal(t) }
	tmp := func(t sql.Type) bool {
		return types.IsTime(t) || types.IsDateType(t) || types.IsDatetimeType(t) || types.IsTimestampType(t) || types.IsTimespan(t)
	}
	switch {
	case num(built) && num(analysed):
		return !(types.IsDecimal(analysed) && built == types.Float64)
	case tmp(built) && tmp(analysed):
		return true
	}
	return false
}

// widenCreateSelect gives a new DECIMAL column of `a + b`, `a - b` or
// `a * b` MySQL's precision: GMS typed `d * 2` and `d + i` over a
// DECIMAL(10,2) DECIMAL(10,2), so a product past 99999999.99 failed the
// copy with 1264 (MySQL: DECIMAL(11,2) and DECIMAL(13,2)). A sum or
// difference has the larger scale and one more integer digit than the
// larger operand's; a product the sum of the precisions and of the
// scales; capped at 65 digits and 30 of scale. Only ever widened.
func widenCreateSelect(ctx *sql.Context, tc *plan.TableCopier) {
	ct, ok := tc.Destination.(*plan.CreateTable)
	if !ok {
		return
	}
	outs := selectOutputs(tc.Source)
	cols := ct.PkSchema().Schema
	if len(outs) != len(cols) {
		return
	}
	for i, c := range cols {
		e := outs[i]
		if a, ok := e.(*expression.Alias); ok {
			e = a.Child
		}
		if ctx != nil && types.IsText(c.Type) {
			collateCreateSelect(ctx, c, e)
			continue
		}
		dt, ok := c.Type.(sql.DecimalType)
		if !ok {
			continue
		}
		p, s, ok := decimalDigits(e)
		if !ok {
			continue
		}
		p, s = min(p, 65), min(s, 30)
		if p-s > int(dt.Precision())-int(dt.Scale()) || s > int(dt.Scale()) {
			ip := max(p-s, int(dt.Precision())-int(dt.Scale()))
			sc := max(s, int(dt.Scale()))
			if t, err := types.CreateDecimalType(uint8(min(ip+sc, 65)), uint8(sc)); err == nil {
				c.Type = t
			}
		}
	}
}

// collateCreateSelect gives a new text column its expression's
// collation: GMS typed the results of string functions (CONCAT, LPAD,
// REPLACE, CASE over strings, ...) as its LONGTEXT of collation
// utf8mb4_0900_bin, so the copied column compared case-sensitively where
// MySQL's takes its arguments' collation (utf8mb4_0900_ai_ci by default).
func collateCreateSelect(ctx *sql.Context, c *sql.Column, e sql.Expression) {
	st, ok := c.Type.(sql.StringType)
	if !ok || st.Collation() != sql.Collation_utf8mb4_0900_bin {
		return
	}
	coll, _ := sql.GetCoercibility(ctx, e)
	if coll == st.Collation() || coll == sql.Collation_binary || coll == sql.Collation_Unspecified {
		return
	}
	if t, err := types.CreateString(st.Type(), st.MaxCharacterLength(), coll); err == nil {
		c.Type = t
	}
}

// decimalDigits is MySQL's precision and scale of e's result, for
// arithmetic over exact numbers; ok=false for anything else.
func decimalDigits(e sql.Expression) (p, s int, ok bool) {
	var op string
	var l, r sql.Expression
	switch x := e.(type) {
	case *expression.Arithmetic:
		op, l, r = x.Op, x.LeftChild, x.RightChild
	case *DecArith:
		op, l, r = x.gms.Op, x.left, x.right
	case *expression.UnaryMinus:
		return decimalDigits(x.Child)
	case *expression.Literal:
		return literalDigits(x)
	case *expression.GetField:
		return ExactDigits(x.Type())
	default:
		return 0, 0, false
	}
	p1, s1, ok1 := decimalDigits(l)
	p2, s2, ok2 := decimalDigits(r)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	switch op {
	case sqlparser.PlusStr, sqlparser.MinusStr:
		s = max(s1, s2)
		return max(p1-s1, p2-s2) + s + 1, s, true
	case sqlparser.MultStr:
		return p1 + p2, s1 + s2, true
	}
	return 0, 0, false
}

// literalDigits is the precision and scale of an exact literal as
// written (2 has one digit, 1.50 three with scale 2).
func literalDigits(l *expression.Literal) (p, s int, ok bool) {
	v := l.Value()
	var txt string
	switch x := v.(type) {
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64:
		txt = strings.TrimPrefix(fmt.Sprint(x), "-")
	default:
		if dt, ok := l.Type().(sql.DecimalType); ok {
			return int(dt.Precision()), int(dt.Scale()), true
		}
		return 0, 0, false
	}
	return max(len(txt), 1), 0, true
}
