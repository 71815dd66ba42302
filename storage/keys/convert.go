package keys

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/shopspring/decimal"
)

var (
	// ErrUnsupportedType is returned for column types that cannot be encoded
	// (JSON and spatial types in keys, unknown types anywhere).
	ErrUnsupportedType = errors.New("keys: unsupported type")
	// ErrOutOfRange is returned when a value does not fit its column type.
	// Callers building index ranges may widen their bounds and retry.
	ErrOutOfRange = errors.New("keys: value out of range")
	// ErrInvalidValue is returned when a value cannot be converted to its
	// column type at all.
	ErrInvalidValue = errors.New("keys: invalid value")
	// ErrCorrupt is returned by DecodeRow for malformed or truncated input.
	ErrCorrupt = errors.New("keys: corrupt row encoding")
)

// convCtx is the context handed to GMS's Convert. None of the conversions we
// rely on need session state, and a shared *sql.Context would not be safe to
// use from concurrent goroutines.
var convCtx = context.Background()

// kind is the storage class of a GMS type, derived from its query.Type.
type kind uint8

const (
	kindUnsupported kind = iota
	kindInt              // int8/int16/int32/int64, width bytes
	kindUint             // uint8/uint16/uint32/uint64, width bytes
	kindFloat32
	kindFloat64
	kindDecimal
	kindText // CHAR/VARCHAR/TEXT: string, collated
	kindBytes
	kindDatetime // DATE/DATETIME/TIMESTAMP: time.Time
	kindTime     // types.Timespan
	kindYear
	kindEnum
	kindSet
	kindBit
	kindJSON
	kindGeometry
)

// classify maps typ to its storage kind and, for integers, the key width in
// bytes.
func classify(typ sql.Type) (kind, int) {
	if typ == nil {
		return kindUnsupported, 0
	}
	switch typ.Type() {
	case sqltypes.Int8:
		return kindInt, 1
	case sqltypes.Int16:
		return kindInt, 2
	case sqltypes.Int24:
		return kindInt, 3
	case sqltypes.Int32:
		return kindInt, 4
	case sqltypes.Int64:
		return kindInt, 8
	case sqltypes.Uint8:
		return kindUint, 1
	case sqltypes.Uint16:
		return kindUint, 2
	case sqltypes.Uint24:
		return kindUint, 3
	case sqltypes.Uint32:
		return kindUint, 4
	case sqltypes.Uint64:
		return kindUint, 8
	case sqltypes.Float32:
		return kindFloat32, 0
	case sqltypes.Float64:
		return kindFloat64, 0
	case sqltypes.Decimal:
		return kindDecimal, 0
	case sqltypes.Char, sqltypes.VarChar, sqltypes.Text:
		if _, ok := typ.(sql.StringType); ok {
			return kindText, 0
		}
	case sqltypes.Binary, sqltypes.VarBinary, sqltypes.Blob:
		if _, ok := typ.(sql.StringType); ok {
			return kindBytes, 0
		}
	case sqltypes.Date, sqltypes.Datetime, sqltypes.Timestamp:
		return kindDatetime, 0
	case sqltypes.Time:
		return kindTime, 0
	case sqltypes.Year:
		return kindYear, 0
	case sqltypes.Enum:
		if _, ok := typ.(sql.EnumType); ok {
			return kindEnum, 0
		}
	case sqltypes.Set:
		return kindSet, 0
	case sqltypes.Bit:
		return kindBit, 0
	case sqltypes.TypeJSON:
		return kindJSON, 0
	case sqltypes.Geometry:
		return kindGeometry, 0
	}
	return kindUnsupported, 0
}

func unsupported(typ sql.Type) error {
	if typ == nil {
		return fmt.Errorf("%w: nil type", ErrUnsupportedType)
	}
	return fmt.Errorf("%w: %s", ErrUnsupportedType, typ.String())
}

func outOfRange(typ sql.Type, v any) error {
	return fmt.Errorf("%w: %v (%T) for %s", ErrOutOfRange, v, v, typ.String())
}

func invalidValue(typ sql.Type, v any, cause error) error {
	if cause != nil {
		return fmt.Errorf("%w: %v (%T) for %s: %w", ErrInvalidValue, v, v, typ.String(), cause)
	}
	return fmt.Errorf("%w: %v (%T) for %s", ErrInvalidValue, v, v, typ.String())
}

// gmsConvert runs typ.Convert and turns GMS's mix of errors and in-range
// flags into ErrOutOfRange / ErrInvalidValue. Wrapper values (lazily loaded
// TEXT/BLOB) are unwrapped.
func gmsConvert(typ sql.Type, v any) (any, error) {
	typ, _ = CharLengthType(typ)
	out, inRange, err := typ.Convert(convCtx, v)
	if err != nil {
		if types.ErrLengthBeyondLimit.Is(err) || types.ErrConvertToDecimalLimit.Is(err) ||
			types.ErrConvertingToTimeOutOfRange.Is(err) {
			return nil, fmt.Errorf("%w: %w", ErrOutOfRange, err)
		}
		return nil, invalidValue(typ, v, err)
	}
	if !inRange {
		return nil, outOfRange(typ, v)
	}
	if out == nil {
		return nil, invalidValue(typ, v, errors.New("converted to NULL"))
	}
	out, err = sql.UnwrapAny(convCtx, out)
	if err != nil {
		return nil, invalidValue(typ, v, err)
	}
	return out, nil
}

// --- integers ---------------------------------------------------------------

func signedRange(width int) (int64, int64) {
	bits := uint(width * 8)
	return -1 << (bits - 1), 1<<(bits-1) - 1
}

func unsignedMax(width int) uint64 {
	if width >= 8 {
		return math.MaxUint64
	}
	return 1<<(uint(width)*8) - 1
}

// exactInt reduces v to an exact integer. Fractional inputs are rounded half
// away from zero, which is what GMS does for integer columns. Values above
// MaxInt64 are reported with big=true in u. handled=false means v is of a type
// we leave to GMS's Convert.
func exactInt(v any) (i int64, u uint64, big bool, handled bool, err error) {
	switch x := v.(type) {
	case int:
		return int64(x), 0, false, true, nil
	case int8:
		return int64(x), 0, false, true, nil
	case int16:
		return int64(x), 0, false, true, nil
	case int32:
		return int64(x), 0, false, true, nil
	case int64:
		return x, 0, false, true, nil
	case uint:
		return exactUint(uint64(x))
	case uint8:
		return int64(x), 0, false, true, nil
	case uint16:
		return int64(x), 0, false, true, nil
	case uint32:
		return int64(x), 0, false, true, nil
	case uint64:
		return exactUint(x)
	case bool:
		if x {
			return 1, 0, false, true, nil
		}
		return 0, 0, false, true, nil
	case float32:
		return exactFloat(float64(x))
	case float64:
		return exactFloat(x)
	case decimal.Decimal:
		return exactDecimal(x)
	case string:
		s := strings.Trim(x, " \t")
		if s == "" {
			// MySQL (and GMS) treat '' as 0 in numeric context.
			return 0, 0, false, true, nil
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, 0, false, true, nil
		}
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			return exactUint(n)
		}
		d, err := decimal.NewFromString(s)
		if err != nil {
			return 0, 0, false, true, errors.New("not a number")
		}
		return exactDecimal(d)
	}
	return 0, 0, false, false, nil
}

func exactUint(x uint64) (int64, uint64, bool, bool, error) {
	if x > math.MaxInt64 {
		return 0, x, true, true, nil
	}
	return int64(x), 0, false, true, nil
}

var errIntRange = errors.New("outside 64-bit integer range")

func exactFloat(f float64) (int64, uint64, bool, bool, error) {
	if math.IsNaN(f) {
		return 0, 0, false, true, errors.New("NaN")
	}
	f = math.Round(f)
	switch {
	case f < -(1<<63) || f >= 1<<64:
		return 0, 0, false, true, errIntRange
	case f >= 1<<63:
		return 0, uint64(f), true, true, nil
	}
	return int64(f), 0, false, true, nil
}

func exactDecimal(d decimal.Decimal) (int64, uint64, bool, bool, error) {
	// Screen by magnitude first: rounding "1e999999999" would materialise a
	// billion-digit power of ten.
	if e, nonZero := decimalOrder(d); !nonZero || e < 0 {
		return 0, 0, false, true, nil // |d| < 0.1 rounds to 0
	} else if e > 20 {
		return 0, 0, false, true, errIntRange
	}
	b := d.Round(0).BigInt()
	switch {
	case b.IsInt64():
		return b.Int64(), 0, false, true, nil
	case b.IsUint64():
		return 0, b.Uint64(), true, true, nil
	}
	return 0, 0, false, true, errIntRange
}

// integerOf is exactInt with GMS's Convert as the fallback for input types
// exactInt does not know (time.Time, []byte bit strings, JSON, ...).
func integerOf(typ sql.Type, v any) (i int64, u uint64, big bool, err error) {
	i, u, big, handled, err := exactInt(v)
	if !handled {
		cv, cerr := gmsConvert(typ, v)
		if cerr != nil {
			return 0, 0, false, cerr
		}
		if i, u, big, handled, err = exactInt(cv); !handled {
			return 0, 0, false, invalidValue(typ, v, fmt.Errorf("GMS converted it to %T", cv))
		}
	}
	if err == errIntRange {
		return 0, 0, false, outOfRange(typ, v)
	} else if err != nil {
		return 0, 0, false, invalidValue(typ, v, err)
	}
	return i, u, big, nil
}

// toInt64 converts v to a signed integer of the given byte width.
func toInt64(typ sql.Type, v any, width int) (int64, error) {
	i, _, big, err := integerOf(typ, v)
	if err != nil {
		return 0, err
	}
	min, max := signedRange(width)
	if big || i < min || i > max {
		return 0, outOfRange(typ, v)
	}
	return i, nil
}

// toUint64 converts v to an unsigned integer of the given byte width.
func toUint64(typ sql.Type, v any, width int) (uint64, error) {
	i, u, big, err := integerOf(typ, v)
	if err != nil {
		return 0, err
	}
	if !big {
		if i < 0 {
			return 0, outOfRange(typ, v)
		}
		u = uint64(i)
	}
	if u > unsignedMax(width) {
		return 0, outOfRange(typ, v)
	}
	return u, nil
}

// --- floats -----------------------------------------------------------------

// toFloat converts v to a float64 that is exactly representable in the
// column's width (float32 columns are rounded to float32).
func toFloat(typ sql.Type, v any, is32 bool) (float64, error) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case string:
		s := strings.Trim(x, " \t\n\r")
		var err error
		if f, err = strconv.ParseFloat(s, 64); err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return 0, outOfRange(typ, v)
			}
			return 0, invalidValue(typ, v, nil)
		}
	case decimal.Decimal:
		// Float64 goes through big.Rat, so screen absurd exponents first.
		if e, nonZero := decimalOrder(x); !nonZero || e < -400 {
			f = 0
		} else if e > 400 {
			return 0, outOfRange(typ, v)
		} else {
			f, _ = x.Float64()
		}
	default:
		i, u, big, handled, err := exactInt(v)
		if handled && err == nil {
			if big {
				f = float64(u)
			} else {
				f = float64(i)
			}
			break
		}
		cv, err := gmsConvert(typ, v)
		if err != nil {
			return 0, err
		}
		switch c := cv.(type) {
		case float64:
			f = c
		case float32:
			f = float64(c)
		default:
			return 0, invalidValue(typ, v, fmt.Errorf("GMS converted it to %T", cv))
		}
	}
	if math.IsNaN(f) {
		return 0, invalidValue(typ, v, errors.New("NaN"))
	}
	if math.IsInf(f, 0) || (is32 && math.Abs(f) > math.MaxFloat32) {
		return 0, outOfRange(typ, v)
	}
	if is32 {
		f = float64(float32(f))
	}
	return f, nil
}

// --- other scalar types -----------------------------------------------------

// decimalOrder returns E such that 10^(E-1) <= |d| < 10^E, and whether d is
// non-zero. It costs one pass over the coefficient's digits.
func decimalOrder(d decimal.Decimal) (int64, bool) {
	if d.Sign() == 0 {
		return 0, false
	}
	return int64(d.NumDigits()) + int64(d.Exponent()), true
}

// Bounds beyond every DECIMAL(p,s) column (p <= 65, s <= 30): larger values
// are out of range, smaller ones round to zero.
const (
	maxDecimalScale = types.DecimalTypeMaxScale

	maxDecimalOrder = types.DecimalTypeMaxPrecision + 1
	minDecimalOrder = -maxDecimalScale - 2
)

func toDecimal(typ sql.Type, v any) (decimal.Decimal, error) {
	if d, ok := v.(decimal.Decimal); ok && DecimalFits(typ, d) {
		return d, nil // Convert would return it unchanged (decfit.go)
	}
	// GMS rescales decimals to compare and round them, which for inputs like
	// '1e-999999999' means computing enormous powers of ten. Parse and screen
	// such values here before handing them to Convert.
	if s, ok := v.(string); ok {
		if d, err := decimal.NewFromString(strings.Trim(s, " \t\n\r")); err == nil {
			v = d
		}
	}
	if d, ok := v.(decimal.Decimal); ok {
		if e, nonZero := decimalOrder(d); nonZero && e > maxDecimalOrder {
			return decimal.Decimal{}, outOfRange(typ, v)
		} else if nonZero && e < minDecimalOrder {
			v = decimal.New(0, -maxDecimalScale)
		}
	}
	cv, err := gmsConvert(typ, v)
	if err != nil {
		return decimal.Decimal{}, err
	}
	d, ok := cv.(decimal.Decimal)
	if !ok {
		return decimal.Decimal{}, invalidValue(typ, v, fmt.Errorf("GMS converted it to %T", cv))
	}
	return d, nil
}

// toText converts v for a CHAR/VARCHAR/TEXT column. Strings that are already
// valid for the column skip GMS's Convert, which always copies.
func toText(typ sql.Type, v any) (string, error) {
	if s, ok := v.(string); ok && utf8.ValidString(s) && textFits(typ.(sql.StringType), s) {
		return s, nil
	}
	cv, err := gmsConvert(typ, v)
	if err != nil {
		return "", err
	}
	switch c := cv.(type) {
	case string:
		return c, nil
	case []byte:
		return string(c), nil
	}
	return "", invalidValue(typ, v, fmt.Errorf("GMS converted it to %T", cv))
}

// textFits mirrors the length checks in GMS's ConvertToBytes: TEXT limits
// bytes, CHAR/VARCHAR limit characters.
func textFits(st sql.StringType, s string) bool {
	if st.Type() == sqltypes.Text {
		return int64(len(s)) <= st.MaxByteLength()
	}
	max := st.MaxCharacterLength()
	if int64(len(s)) <= max {
		return true
	}
	return st.CharacterSet().MaxLength() > 1 && int64(utf8.RuneCountInString(s)) <= max
}

// toBytes converts v for a BINARY/VARBINARY/BLOB column. BINARY(n) values
// shorter than n go through Convert, which zero-pads them.
func toBytes(typ sql.Type, v any) ([]byte, error) {
	if b, ok := v.([]byte); ok {
		st := typ.(sql.StringType)
		n := int64(len(b))
		if n == st.MaxCharacterLength() || (typ.Type() != sqltypes.Binary && n < st.MaxCharacterLength()) {
			return b, nil
		}
	}
	cv, err := gmsConvert(typ, v)
	if err != nil {
		return nil, err
	}
	switch c := cv.(type) {
	case []byte:
		return c, nil
	case string:
		return []byte(c), nil
	}
	return nil, invalidValue(typ, v, fmt.Errorf("GMS converted it to %T", cv))
}

func toTime(typ sql.Type, v any) (time.Time, error) {
	cv, err := gmsConvert(typ, v)
	if err != nil {
		return time.Time{}, err
	}
	t, ok := cv.(time.Time)
	if !ok {
		return time.Time{}, invalidValue(typ, v, fmt.Errorf("GMS converted it to %T", cv))
	}
	if us := t.UnixMicro(); us < minDatetimeMicros || us > maxDatetimeMicros {
		return time.Time{}, outOfRange(typ, v)
	}
	return t, nil
}

// Range of DATE/DATETIME values (0000-01-01 .. 9999-12-31 23:59:59.999999).
// TIMESTAMP is narrower; GMS's Convert enforces that.
var (
	minDatetimeMicros = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	maxDatetimeMicros = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC).UnixMicro()
)

// maxTimespan is 838:59:59 in microseconds, the TIME range limit.
const maxTimespan = 3020399000000

func toTimespan(typ sql.Type, v any) (int64, error) {
	cv, err := gmsConvert(typ, v)
	if err != nil {
		return 0, err
	}
	ts, ok := cv.(types.Timespan)
	if !ok {
		return 0, invalidValue(typ, v, fmt.Errorf("GMS converted it to %T", cv))
	}
	if ts < -maxTimespan || ts > maxTimespan {
		return 0, outOfRange(typ, v)
	}
	return int64(ts), nil
}

func toYear(typ sql.Type, v any) (int16, error) {
	cv, err := gmsConvert(typ, v)
	if err != nil {
		return 0, err
	}
	y, ok := cv.(int16)
	if !ok {
		return 0, invalidValue(typ, v, fmt.Errorf("GMS converted it to %T", cv))
	}
	return y, nil
}

func toEnum(typ sql.Type, v any) (uint16, error) {
	et := typ.(sql.EnumType)
	if x, ok := v.(uint16); ok && x <= et.NumberOfElements() {
		return x, nil
	}
	cv, err := gmsConvert(typ, v)
	if err != nil {
		return 0, err
	}
	x, ok := cv.(uint16)
	if !ok {
		return 0, invalidValue(typ, v, fmt.Errorf("GMS converted it to %T", cv))
	}
	return x, nil
}

// toUint64Bits converts v for SET and BIT columns, whose GMS value is uint64.
func toUint64Bits(typ sql.Type, v any) (uint64, error) {
	cv, err := gmsConvert(typ, v)
	if err != nil {
		return 0, err
	}
	x, ok := cv.(uint64)
	if !ok {
		return 0, invalidValue(typ, v, fmt.Errorf("GMS converted it to %T", cv))
	}
	return x, nil
}

func toJSON(typ sql.Type, v any) (any, error) {
	cv, err := gmsConvert(typ, v)
	if err != nil {
		return nil, err
	}
	w, ok := cv.(sql.JSONWrapper)
	if !ok {
		return nil, invalidValue(typ, v, fmt.Errorf("GMS converted it to %T", cv))
	}
	doc, err := w.ToInterface()
	if err != nil {
		return nil, invalidValue(typ, v, err)
	}
	return doc, nil
}

func toGeometry(typ sql.Type, v any) (types.GeometryValue, error) {
	cv, err := gmsConvert(typ, v)
	if err != nil {
		return nil, err
	}
	g, ok := cv.(types.GeometryValue)
	if !ok {
		return nil, invalidValue(typ, v, fmt.Errorf("GMS converted it to %T", cv))
	}
	return g, nil
}

// CharLengthType is typ (and false), or for a single-byte character set's CHAR or
// VARCHAR the utf8mb4 type of the same length: GMS counts such a value's
// length in bytes of its UTF-8 form (a latin1 VARCHAR(5) refused 'Kälmx',
// five characters), MySQL in characters. Whether the column's character
// set can hold the value is checked apart (CheckRow).
func CharLengthType(typ sql.Type) (sql.Type, bool) {
	st, ok := typ.(sql.StringType)
	if !ok || !types.IsText(typ) || types.IsTextBlob(typ) || st.CharacterSet() == sql.CharacterSet_binary || st.CharacterSet().MaxLength() != 1 {
		return typ, false
	}
	k := charLengthKey{typ.Type(), st.MaxCharacterLength()}
	if w, ok := charLengthTypes.Load(k); ok {
		return w.(sql.Type), true
	}
	w, err := types.CreateString(typ.Type(), st.MaxCharacterLength(), sql.Collation_utf8mb4_0900_bin)
	if err != nil {
		return typ, false
	}
	charLengthTypes.Store(k, w)
	return w, true
}

type charLengthKey struct {
	base   querypb.Type
	length int64
}

// charLengthTypes caches CharLengthType's types (a handful per process).
var charLengthTypes sync.Map
