package fastpath

import (
	"strconv"
	"unicode/utf8"

	"petrel/sqlengine"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/shopspring/decimal"
)

// wireValue converts a stored value of a column of type t into its wire
// value for a client whose character_set_results is results, writing
// the bytes into dest's spare capacity where it can, as GMS's t.SQL
// does. The commonest columns are formatted here, without GMS's
// per-value session lookups: integers as decimal digits, DECIMALs of
// up to 18 digits at their column's scale (appendDecimal), and utf8mb4
// text as its bytes where GMS's conversion leaves them unchanged (valid
// UTF-8 to a utf8mb4 client, ASCII to a latin1 one: textPassThrough).
// Every other value, and text that is not valid UTF-8 (GMS's error),
// goes to t.SQL.
func wireValue(sctx *sql.Context, t sql.Type, results sql.CharacterSetID, dest []byte, v any) (sqltypes.Value, error) {
	switch x := v.(type) {
	case int64:
		if q := integerType(t); q == sqltypes.Int64 {
			return sqltypes.MakeTrusted(q, strconv.AppendInt(dest, x, 10)), nil
		}
	case int32:
		if q := integerType(t); q == sqltypes.Int32 || (q == sqltypes.Int24 && x >= -1<<23 && x < 1<<23) {
			return sqltypes.MakeTrusted(q, strconv.AppendInt(dest, int64(x), 10)), nil
		}
	case int16:
		if q := integerType(t); q == sqltypes.Int16 {
			return sqltypes.MakeTrusted(q, strconv.AppendInt(dest, int64(x), 10)), nil
		}
	case int8:
		if q := integerType(t); q == sqltypes.Int8 {
			return sqltypes.MakeTrusted(q, strconv.AppendInt(dest, int64(x), 10)), nil
		}
	case uint64:
		if q := integerType(t); q == sqltypes.Uint64 {
			return sqltypes.MakeTrusted(q, strconv.AppendUint(dest, x, 10)), nil
		}
	case uint32:
		if q := integerType(t); q == sqltypes.Uint32 || (q == sqltypes.Uint24 && x < 1<<24) {
			return sqltypes.MakeTrusted(q, strconv.AppendUint(dest, uint64(x), 10)), nil
		}
	case uint16:
		if q := integerType(t); q == sqltypes.Uint16 {
			return sqltypes.MakeTrusted(q, strconv.AppendUint(dest, uint64(x), 10)), nil
		}
	case uint8:
		if q := integerType(t); q == sqltypes.Uint8 {
			return sqltypes.MakeTrusted(q, strconv.AppendUint(dest, uint64(x), 10)), nil
		}
	case decimal.Decimal:
		if dt, ok := t.(types.DecimalType_); ok && dt.Precision() <= 18 && -x.Exponent() == int32(dt.Scale()) {
			return sqltypes.MakeTrusted(sqltypes.Decimal, appendDecimal(dest, x.CoefficientInt64(), int(dt.Scale()))), nil
		}
	case string:
		if st, ok := t.(types.StringType); ok {
			if pass := textPassThrough(st, results); (pass == passValid && utf8.ValidString(x)) || (pass == passASCII && sqlengine.IsASCIIText(x)) {
				return sqltypes.MakeTrusted(st.Type(), append(dest, x...)), nil
			}
		}
	}
	return t.SQL(sctx, dest, v)
}

// appendDecimal appends the DECIMAL coefficient c * 10^-scale with
// scale decimals, as GMS's DecimalType_.SQL prints a value at its
// column's scale (StringFixed): "-0.05", "0.00", "12". wireValue uses it
// for a column of at most 18 digits whose value has the column's scale,
// so that c, the stored value's coefficient, fits in an int64 (a stored
// value is within its column's range); GMS parsed and printed such a
// value through big.Int twice (1% of the server's CPU under TPC-C).
func appendDecimal(dest []byte, c int64, scale int) []byte {
	if c < 0 {
		dest = append(dest, '-')
		c = -c
	}
	var buf [20]byte
	d := strconv.AppendUint(buf[:0], uint64(c), 10)
	switch {
	case scale == 0:
		return append(dest, d...)
	case len(d) > scale:
		dest = append(dest, d[:len(d)-scale]...)
		dest = append(dest, '.')
		return append(dest, d[len(d)-scale:]...)
	}
	dest = append(dest, '0', '.')
	for range scale - len(d) {
		dest = append(dest, '0')
	}
	return append(dest, d...)
}

// integerType is t's wire type when t is one of GMS's integer types
// (TINYINT to BIGINT; not BIT, YEAR, ENUM or SET, whose values are
// integers too but print otherwise), else Null_type. wireValue formats a
// value only when its Go type is the one storage decodes the column
// into, so GMS's clamping to the column's range never applies.
func integerType(t sql.Type) querypb.Type {
	if nt, ok := t.(types.NumberTypeImpl_); ok {
		return nt.Type()
	}
	return sqltypes.Null
}

// textPass is which text values GMS sends unchanged.
type textPass uint8

const (
	passNone  textPass = iota
	passValid          // every valid UTF-8 value
	passASCII          // every ASCII value
)

// textPassThrough reports which values of the text column st GMS sends
// to a client with character_set_results results as they are stored:
// only for VARCHAR and TEXT in utf8mb4 (CHAR and the binary types are
// left to GMS); all valid UTF-8 when they are sent as utf8mb4 (results
// utf8mb4, or unset or binary, which mean "the column's own"); ASCII
// when the result set's encoder maps ASCII to itself (latin1, the
// MariaDB and MySQL command-line tools' default, and the other sets
// resultenc.go wraps).
func textPassThrough(st types.StringType, results sql.CharacterSetID) textPass {
	if q := st.Type(); q != sqltypes.VarChar && q != sqltypes.Text {
		return passNone
	}
	cs := st.CharacterSet()
	if cs != sql.CharacterSet_utf8mb4 {
		return passNone
	}
	if results == cs || results == sql.CharacterSet_Unspecified || results == sql.CharacterSet_binary {
		return passValid
	}
	if sqlengine.ASCIIPassThrough(results) {
		return passASCII
	}
	return passNone
}
