package rowenc

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// FormatValue renders v, a value of column c as returned by DecodeValue
// (generic or GMS-typed), the way `mysqlbinlog -v` (MySQL 8.0 and MariaDB
// alike) prints it in its "###   @N=..." pseudo-SQL:
//
//   - NULL for nil;
//   - integers in decimal, with the value's real signedness (mysqlbinlog
//     itself prints the signed reading followed by " (unsigned)" when that is
//     negative, e.g. "-1 (255)" for TINYINT UNSIGNED 255);
//   - FLOAT with C's "%-20g" (six significant digits, left-justified, padded
//     with spaces to 20 columns) and DOUBLE with "%-.20g", as mysqlbinlog does;
//   - DECIMAL as its exact fixed-scale text (-0.50);
//   - CHAR/VARCHAR/TEXT/BLOB/GEOMETRY values and JSON text single-quoted,
//     bytes below 0x20 written as \xNN and everything else (quotes and
//     backslashes included) as is. Character values are printed as UTF-8;
//     mysqlbinlog prints the bytes of the column's charset;
//   - DATE as 'YYYY:MM:DD' (sic: mysqlbinlog separates DATE parts with
//     colons), DATETIME as 'YYYY-MM-DD HH:MM:SS' plus the column's fsp
//     fractional digits, TIME as '[-]HH:MM:SS[.fff]' (hours may have 3 digits);
//   - TIMESTAMP as Unix seconds plus the column's fsp fractional digits,
//     unquoted (0 for the zero timestamp);
//   - YEAR as the year, and 0 for the zero year (mysqlbinlog adds 1900 to the
//     stored byte unconditionally and prints 1900);
//   - ENUM as its 1-based index;
//   - SET and BIT as b'0101...' bit strings: BIT with the column's width,
//     most significant bit first; SET with 8 bits per pack byte, the bytes
//     in storage (little-endian) order as mysqlbinlog prints them, so a
//     3-byte SET holding members 1 and 20 prints b'000000010000000000001000'.
func FormatValue(c Column, v any) string {
	if v == nil {
		return "NULL"
	}
	if w, ok := v.(sql.AnyWrapper); ok {
		if u, err := w.UnwrapAny(convCtx); err == nil {
			v = u
		}
	}
	switch c.Type {
	case TypeTiny, TypeShort, TypeInt24, TypeLong, TypeLongLong, TypeYear:
		if i, u, isU, ok := intValue(v); ok {
			if isU {
				return strconv.FormatUint(u, 10)
			}
			return strconv.FormatInt(i, 10)
		}
	case TypeFloat:
		if f, ok := floatValue(v); ok {
			return cFormatG(f, 6, 20)
		}
	case TypeDouble:
		if f, ok := floatValue(v); ok {
			return cFormatG(f, 20, 0)
		}
	case TypeNewDecimal:
		switch x := v.(type) {
		case string:
			return x
		case decimal.Decimal:
			return x.StringFixed(int32(c.Meta & 0xff))
		}
	case TypeVarchar, TypeVarString, TypeBlob, TypeTinyBlob, TypeMediumBlob, TypeLongBlob, TypeGeometry:
		switch x := v.(type) {
		case string:
			return quote(x)
		case []byte:
			return quote(string(x))
		case types.GeometryValue:
			return quote(string(x.Serialize()))
		}
	case TypeJSON:
		switch x := v.(type) {
		case string:
			return quote(x)
		default:
			// A GMS document: print what would be stored (GMS keeps JSON
			// integers as float64; the binary format stores integers).
			if b, err := EncodeJSON(x); err == nil {
				if doc, err := DecodeJSON(b); err == nil {
					return quote(string(AppendJSONText(nil, doc)))
				}
			}
			return quote(string(AppendJSONText(nil, x)))
		}
	case TypeString:
		switch c.RealType() {
		case TypeEnum:
			if i, u, isU, ok := intValue(v); ok {
				if isU {
					return strconv.FormatUint(u, 10)
				}
				return strconv.FormatInt(i, 10)
			}
		case TypeSet:
			if u, ok := bitsValue(v); ok {
				// mysqlbinlog prints the bitmap's bytes in storage order,
				// which is little-endian: byte 0 (members 1-8) first.
				n := int(c.Meta & 0xff)
				var sb strings.Builder
				sb.WriteString("b'")
				for i := 0; i < n && i < 8; i++ {
					sb.WriteString(bitString(u>>(8*i)&0xff, 8)[2:10])
				}
				sb.WriteByte('\'')
				return sb.String()
			}
		default:
			switch x := v.(type) {
			case string:
				return quote(x)
			case []byte:
				return quote(string(x))
			}
		}
	case TypeBit:
		if u, ok := bitsValue(v); ok {
			return bitString(u, int(c.Meta>>8)*8+int(c.Meta&0xff))
		}
	case TypeDate, TypeNewDate:
		switch x := v.(type) {
		case string:
			return "'" + strings.ReplaceAll(x, "-", ":") + "'"
		case time.Time:
			return "'" + strings.ReplaceAll(brokenDown(x.UTC()).formatDate(), "-", ":") + "'"
		}
	case TypeDatetime2, TypeDatetime:
		switch x := v.(type) {
		case string:
			return "'" + x + "'"
		case time.Time:
			return "'" + brokenDown(x.UTC()).formatDatetime(c.fsp()) + "'"
		}
	case TypeTimestamp2, TypeTimestamp:
		var sec int64
		us := 0
		switch x := v.(type) {
		case string:
			if !strings.HasPrefix(x, "0000-00-00") {
				t, err := time.Parse("2006-01-02 15:04:05.999999", x)
				if err != nil {
					return quote(x)
				}
				sec, us = t.Unix(), t.Nanosecond()/1000
			}
		case time.Time:
			if !x.Equal(zeroTime) {
				sec, us = x.Unix(), x.Nanosecond()/1000
			}
		default:
			return fmt.Sprint(v)
		}
		s := strconv.FormatInt(sec, 10)
		if fsp := c.fsp(); fsp > 0 {
			s += "." + strconv.Itoa(1000000 + us)[1:1+fsp]
		}
		return s
	case TypeTime2, TypeTime:
		switch x := v.(type) {
		case string:
			return "'" + x + "'"
		case types.Timespan:
			return "'" + timespanBroken(int64(x)).formatTime(c.fsp()) + "'"
		}
	}
	// Unexpected combinations still print something useful.
	switch x := v.(type) {
	case string:
		return quote(x)
	case []byte:
		return quote(string(x))
	}
	return fmt.Sprint(v)
}

func timespanBroken(us int64) mysqlTime {
	m := mysqlTime{Neg: us < 0}
	if us < 0 {
		us = -us
	}
	m.Micro = int(us % 1000000)
	s := us / 1000000
	m.Second, m.Minute, m.Hour = int(s%60), int(s/60%60), int(s/3600)
	return m
}

// quote is mysqlbinlog's my_b_write_quoted: bytes above 0x1F are copied,
// the rest written as \xNN. (MySQL's version has branches meant to escape
// the quote and the backslash, but they sit behind the > 0x1F test and never
// run; MariaDB's has none. Neither escapes them.)
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c > 0x1f {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\x%02x", c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// bitString is mysqlbinlog's my_b_write_bit: b'...' with nbits digits.
func bitString(u uint64, nbits int) string {
	if nbits > 64 {
		nbits = 64
	}
	var b strings.Builder
	b.WriteString("b'")
	for i := nbits - 1; i >= 0; i-- {
		if u>>uint(i)&1 != 0 {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// cFormatG formats f like C's printf("%-*.*g", width, prec, f).
func cFormatG(f float64, prec, width int) string {
	var s string
	switch {
	case math.IsNaN(f):
		s = "nan"
	case math.IsInf(f, 1):
		s = "inf"
	case math.IsInf(f, -1):
		s = "-inf"
	default:
		// Go's %g with an explicit precision follows C: exponent form when
		// exp < -4 or exp >= prec, trailing zeros removed, at least two
		// exponent digits.
		s = strconv.FormatFloat(f, 'g', prec, 64)
		if e := strings.IndexByte(s, 'e'); e >= 0 && len(s)-e-2 < 2 {
			s = s[:e+2] + "0" + s[e+2:]
		}
	}
	for len(s) < width {
		s += " "
	}
	return s
}
