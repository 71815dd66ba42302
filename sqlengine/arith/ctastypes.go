package arith

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
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
		literalCreateSelect(c, e)
		if hexCreateSelect(c, e) {
			continue
		}
		if ctx != nil && types.IsText(c.Type) {
			collateCreateSelect(ctx, c, e)
			varcharCreateSelect(c, e)
			continue
		}
		if types.IsDatetimeType(c.Type) || types.IsTimestampType(c.Type) {
			narrowDatetime(c, e)
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

// literalCreateSelect types a new column of an integer literal INT, or
// BIGINT past INT's range, as MySQL's integer literals are (GMS's
// TINYINT for `SELECT 1` refused 1000 later).
func literalCreateSelect(c *sql.Column, e sql.Expression) {
	if _, ok := e.(*expression.Literal); !ok || c.Nullable {
		// (A nullable column is one the statement declares, `CREATE
		// TABLE t (c TINYINT) SELECT 1 AS c`: its type stands.)
		return
	}
	switch c.Type {
	case types.Int8, types.Int16, types.Int24, types.Uint8, types.Uint16, types.Uint24:
		c.Type = types.Int32
	case types.Uint32:
		c.Type = types.Int64
	}
}

// hexCreateSelect gives a new column of a hexadecimal or bit-value
// literal MySQL's VARBINARY of its bytes (X'4142' VARBINARY(2); GMS's
// was LONGBLOB), and reports whether e is one.
func hexCreateSelect(c *sql.Column, e sql.Expression) bool {
	l, ok := e.(*expression.Literal)
	if !ok || l.Type() != types.LongBlob || c.Type != types.LongBlob {
		return false
	}
	b, ok := l.Value().([]byte)
	if !ok {
		return false
	}
	if t, err := types.CreateBinary(sqltypes.VarBinary, int64(len(b))); err == nil {
		c.Type = t
	}
	return true
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
		// GMS's default for a function's result (CASE, CONCAT of a
		// number): MySQL's is its string arguments' collation, and with
		// none the connection's.
		coll = argumentsCollation(ctx, e)
	}
	if coll == st.Collation() || coll == sql.Collation_binary || coll == sql.Collation_Unspecified {
		return
	}
	if t, err := types.CreateString(st.Type(), st.MaxCharacterLength(), coll); err == nil {
		c.Type = t
	}
}

// varcharCreateSelect gives a new text column of a string expression
// MySQL's VARCHAR(n), n the most characters the expression can make:
// GMS typed CONCAT, CONCAT_WS, LPAD, REPEAT, CASE over strings and string
// literals LONGTEXT, so `CREATE TABLE k AS SELECT CONCAT(a, b) k ...`
// followed by an index on k failed with 1170 (a TEXT key needs a prefix
// length). As MySQL, a result past 512 characters stays a TEXT type.
func varcharCreateSelect(c *sql.Column, e sql.Expression) {
	st, ok := c.Type.(sql.StringType)
	if !ok || st.Type() == sqltypes.VarChar || st.Type() == sqltypes.Char || st.Type() == sqltypes.VarBinary || st.Type() == sqltypes.Binary {
		return
	}
	if st.Collation() == sql.Collation_binary {
		return
	}
	n, ok := charLength(e)
	if !ok || n > 512 {
		return
	}
	if t, err := types.CreateString(sqltypes.VarChar, int64(n), st.Collation()); err == nil {
		c.Type = t
	}
}

// charLength is the most characters e's value can have, as MySQL counts
// a string expression's length; ok=false where that is not known here.
func charLength(e sql.Expression) (int, bool) {
	switch x := e.(type) {
	case *expression.Alias:
		return charLength(x.Child)
	case *expression.Literal:
		switch v := x.Value().(type) {
		case nil:
			return 0, true
		case string:
			return utf8.RuneCountInString(v), true
		}
		return displayWidth(x.Type())
	case *expression.Case:
		n := 0
		for _, b := range x.Branches {
			bn, ok := charLength(b.Value)
			if !ok {
				return 0, false
			}
			n = max(n, bn)
		}
		if x.Else != nil {
			en, ok := charLength(x.Else)
			if !ok {
				return 0, false
			}
			n = max(n, en)
		}
		return n, true
	case *expression.Convert:
		// CAST(x AS CHAR): x's characters.
		return charLength(x.Child)
	case sql.FunctionExpression:
		return functionLength(x)
	}
	if ce, ok := e.(interface{ Unwrap() sql.Expression }); ok {
		return charLength(ce.Unwrap())
	}
	return displayWidth(e.Type())
}

// functionLength is charLength of a string function's result.
func functionLength(f sql.FunctionExpression) (int, bool) {
	args := f.Children()
	lens := func(from int) (sum, most int, ok bool) {
		for _, a := range args[from:] {
			n, ok := charLength(a)
			if !ok {
				return 0, 0, false
			}
			sum, most = sum+n, max(most, n)
		}
		return sum, most, true
	}
	constInt := func(e sql.Expression) (int, bool) {
		l, ok := e.(*expression.Literal)
		if !ok {
			return 0, false
		}
		switch v := l.Value().(type) {
		case int8:
			return int(v), true
		case int16:
			return int(v), true
		case int32:
			return int(v), true
		case int64:
			return int(v), true
		case uint8:
			return int(v), true
		}
		return 0, false
	}
	switch strings.ToLower(f.FunctionName()) {
	case "concat":
		sum, _, ok := lens(0)
		return sum, ok
	case "concat_ws":
		if len(args) < 1 {
			return 0, false
		}
		sep, ok := charLength(args[0])
		sum, _, ok2 := lens(1)
		return sum + sep*max(len(args)-2, 0), ok && ok2
	case "upper", "lower", "ucase", "lcase", "trim", "ltrim", "rtrim", "reverse", "substring", "substr", "mid":
		if len(args) < 1 {
			return 0, false
		}
		return charLength(args[0])
	case "left", "right":
		if len(args) != 2 {
			return 0, false
		}
		n, ok := charLength(args[0])
		if k, kok := constInt(args[1]); kok && ok {
			return min(n, max(k, 0)), true
		}
		return n, ok
	case "lpad", "rpad":
		if len(args) != 3 {
			return 0, false
		}
		k, ok := constInt(args[1])
		return max(k, 0), ok
	case "repeat":
		if len(args) != 2 {
			return 0, false
		}
		n, ok := charLength(args[0])
		k, kok := constInt(args[1])
		return n * max(k, 0), ok && kok
	case "ifnull", "coalesce":
		_, most, ok := lens(0)
		return most, ok
	case "if":
		if len(args) != 3 {
			return 0, false
		}
		_, most, ok := lens(1)
		return most, ok
	case "replace":
		if len(args) != 3 {
			return 0, false
		}
		n, ok := charLength(args[0])
		from, fok := charLength(args[1])
		to, tok := charLength(args[2])
		if !ok || !fok || !tok {
			return 0, false
		}
		// Each character of the subject may be a match of a
		// one-character search string: MySQL's n * to.
		if to > 1 && from > 0 {
			n *= to
		}
		return n, true
	case "nullif":
		if len(args) != 2 {
			return 0, false
		}
		return charLength(args[0])
	}
	return 0, false
}

// displayWidth is the characters MySQL gives a non-string value of type
// t in a string: an INT's 11, a DATE's 10; a string type's own length.
func displayWidth(t sql.Type) (int, bool) {
	switch {
	case t == types.Null:
		return 0, true
	case types.IsInteger(t):
		switch t.Type() {
		case sqltypes.Int8, sqltypes.Uint8:
			return 4, true
		case sqltypes.Int16, sqltypes.Uint16:
			return 6, true
		case sqltypes.Int24, sqltypes.Uint24:
			return 9, true
		case sqltypes.Int32, sqltypes.Uint32:
			return 11, true
		}
		return 20, true
	case types.IsDecimal(t):
		dt := t.(sql.DecimalType)
		n := int(dt.Precision()) + 1
		if dt.Scale() > 0 {
			n++
		}
		return n, true
	case types.IsDateType(t):
		return 10, true
	case types.IsDatetimeType(t), types.IsTimestampType(t):
		if p := t.(sql.DatetimeType).Precision(); p > 0 {
			return 20 + p, true
		}
		return 19, true
	case types.IsText(t):
		st := t.(sql.StringType)
		switch st.Type() {
		case sqltypes.VarChar, sqltypes.Char:
			return int(st.MaxCharacterLength()), true
		}
	}
	return 0, false
}

// argumentsCollation is the collation MySQL derives for e's result from
// its string arguments (the connection's when it has none); a COLLATE
// clause anywhere keeps GMS's answer (Unspecified).
func argumentsCollation(ctx *sql.Context, e sql.Expression) sql.CollationID {
	coll, coer, found, explicit := sql.Collation_Unspecified, byte(7), false, false
	sql.Inspect(e, func(x sql.Expression) bool {
		if x == e {
			return true
		}
		if _, ok := x.(*expression.CollatedExpression); ok {
			explicit = true
			return false
		}
		if !types.IsText(x.Type()) {
			return true
		}
		c, k := sql.GetCoercibility(ctx, x)
		if c == sql.Collation_binary {
			return false
		}
		if !found {
			coll, coer, found = c, k, true
		} else {
			coll, coer = sql.ResolveCoercibility(coll, coer, c, k)
		}
		return false
	})
	if explicit {
		return sql.Collation_Unspecified
	}
	if !found {
		return ctx.GetCollation()
	}
	return coll
}

// narrowDatetime gives a new DATETIME column of a temporal function the
// fractional digits MySQL gives the function's result, its arguments':
// GMS typed DATE_ADD, ADDTIME, CONVERT_TZ, FROM_UNIXTIME and NOW(6)'s
// kin DATETIME(6), so a copy of `DATE_ADD(ts, INTERVAL 1 HOUR)` over a
// DATETIME(2) printed 14:14:15.670000 where MySQL prints 14:14:15.67.
// Only ever narrowed from 6, to digits every value already fits.
func narrowDatetime(c *sql.Column, e sql.Expression) {
	dt, ok := c.Type.(sql.DatetimeType)
	if !ok || dt.Precision() != 6 {
		return
	}
	p, ok := TemporalFsp(e)
	if !ok || p >= 6 {
		return
	}
	if t, err := types.CreateDatetimeType(dt.Type(), p); err == nil {
		c.Type = t
	}
}

// TemporalFsp is the fractional-second digits MySQL gives e's temporal
// value (a literal's as written); ok=false where not known here.
func TemporalFsp(e sql.Expression) (int, bool) {
	switch x := e.(type) {
	case *expression.Alias:
		return TemporalFsp(x.Child)
	case *expression.Literal:
		switch v := x.Value().(type) {
		case nil:
			return 0, true
		case string:
			n := 0
			if i := strings.LastIndexByte(v, '.'); i >= 0 {
				for _, c := range v[i+1:] {
					if c < '0' || c > '9' {
						break
					}
					n++
				}
			}
			return min(n, 6), true
		}
		if dt, ok := x.Type().(sql.DecimalType); ok {
			return min(int(dt.Scale()), 6), true
		}
		if types.IsInteger(x.Type()) {
			return 0, true
		}
		return 0, false
	case *expression.Interval:
		if strings.Contains(strings.ToUpper(x.Unit), "MICROSECOND") {
			return 6, true
		}
		if types.IsInteger(x.Child.Type()) {
			return 0, true
		}
		return TemporalFsp(x.Child)
	case sql.FunctionExpression:
		args := x.Children()
		switch strings.ToLower(x.FunctionName()) {
		case "date_add", "date_sub", "adddate", "subdate", "addtime", "subtime", "timestamp":
			p := 0
			for _, a := range args {
				ap, ok := TemporalFsp(a)
				if !ok {
					return 0, false
				}
				p = max(p, ap)
			}
			return p, true
		case "convert_tz", "from_unixtime":
			if len(args) == 0 {
				return 0, false
			}
			return TemporalFsp(args[0])
		case "now", "current_timestamp", "localtime", "localtimestamp", "sysdate", "utc_timestamp":
			if len(args) == 0 {
				return 0, true
			}
			if l, ok := args[0].(*expression.Literal); ok {
				if n, ok := l.Value().(int8); ok {
					return int(n), true
				}
			}
			return 0, false
		}
		return 0, false
	}
	t := e.Type()
	switch {
	case types.IsDatetimeType(t), types.IsTimestampType(t):
		return t.(sql.DatetimeType).Precision(), true
	case types.IsDateType(t), types.IsInteger(t):
		return 0, true
	case types.IsDecimal(t):
		return min(int(t.(sql.DecimalType).Scale()), 6), true
	}
	return 0, false
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
