package rowenc

// MySQL binary JSON: decoding (binary JSON to Go values) and MySQL's
// JSON text form of them.

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"
)

// DecodeJSON parses MySQL binary JSON. Integers come back as int64 (INT16/
// INT32/INT64) or uint64 (UINT*), DOUBLE as float64, strings as string,
// literals as nil/true/false, containers as map[string]any and []any.
// Opaque values: NEWDECIMAL as decimal.Decimal; DATE, TIME, DATETIME and
// TIMESTAMP as the string MySQL's JSON printer shows for them; anything else
// as MySQL's "base64:typeNN:..." text. An empty input is the JSON null
// (MySQL's representation of a NULL-less empty JSON field).
//
// Malformed input returns an error wrapping ErrCorrupt. Because values are
// addressed by offset, a hostile document can reference the same bytes many
// times; decoding gives up after as many values as the input has bytes.
func DecodeJSON(b []byte) (any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	d := jsonDecoder{budget: len(b) + 1}
	return d.value(b[0], b[1:], 0)
}

type jsonDecoder struct {
	budget int
}

func (d *jsonDecoder) value(typ byte, data []byte, depth int) (any, error) {
	if depth > jsonMaxDepth {
		return nil, corrupt("JSON nested deeper than %d", jsonMaxDepth)
	}
	d.budget--
	if d.budget < 0 {
		return nil, corrupt("JSON document references more values than it has bytes")
	}
	switch typ {
	case jsonSmallObject, jsonLargeObject:
		return d.container(data, typ == jsonLargeObject, true, depth)
	case jsonSmallArray, jsonLargeArray:
		return d.container(data, typ == jsonLargeArray, false, depth)
	case jsonLiteral:
		if len(data) < 1 {
			return nil, corrupt("truncated JSON literal")
		}
		switch data[0] {
		case jsonNull:
			return nil, nil
		case jsonTrue:
			return true, nil
		case jsonFalse:
			return false, nil
		}
		return nil, corrupt("bad JSON literal %d", data[0])
	case jsonInt16:
		if len(data) < 2 {
			return nil, corrupt("truncated JSON int16")
		}
		return int64(int16(binary.LittleEndian.Uint16(data))), nil
	case jsonUint16:
		if len(data) < 2 {
			return nil, corrupt("truncated JSON uint16")
		}
		return uint64(binary.LittleEndian.Uint16(data)), nil
	case jsonInt32:
		if len(data) < 4 {
			return nil, corrupt("truncated JSON int32")
		}
		return int64(int32(binary.LittleEndian.Uint32(data))), nil
	case jsonUint32:
		if len(data) < 4 {
			return nil, corrupt("truncated JSON uint32")
		}
		return uint64(binary.LittleEndian.Uint32(data)), nil
	case jsonInt64:
		if len(data) < 8 {
			return nil, corrupt("truncated JSON int64")
		}
		return int64(binary.LittleEndian.Uint64(data)), nil
	case jsonUint64:
		if len(data) < 8 {
			return nil, corrupt("truncated JSON uint64")
		}
		return binary.LittleEndian.Uint64(data), nil
	case jsonDouble:
		if len(data) < 8 {
			return nil, corrupt("truncated JSON double")
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(data))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, corrupt("JSON double is NaN or Inf")
		}
		return f, nil
	case jsonString:
		s, err := readVarBytes(data)
		if err != nil {
			return nil, err
		}
		return string(s), nil
	case jsonOpaque:
		if len(data) < 1 {
			return nil, corrupt("truncated JSON opaque value")
		}
		raw, err := readVarBytes(data[1:])
		if err != nil {
			return nil, err
		}
		return decodeOpaque(data[0], raw)
	}
	return nil, corrupt("bad JSON type %#x", typ)
}

func readVarBytes(data []byte) ([]byte, error) {
	var n uint64
	for i := 0; ; i++ {
		if i >= len(data) || i >= 5 {
			return nil, corrupt("bad JSON variable-length length")
		}
		n |= uint64(data[i]&0x7f) << (7 * i)
		if data[i]&0x80 == 0 {
			data = data[i+1:]
			break
		}
	}
	if n > uint64(len(data)) {
		return nil, corrupt("JSON string length %d exceeds %d remaining bytes", n, len(data))
	}
	return data[:n], nil
}

func (d *jsonDecoder) container(data []byte, large, isObject bool, depth int) (any, error) {
	osz := 2
	if large {
		osz = 4
	}
	get := func(at int) uint64 {
		if large {
			return uint64(binary.LittleEndian.Uint32(data[at:]))
		}
		return uint64(binary.LittleEndian.Uint16(data[at:]))
	}
	if len(data) < 2*osz {
		return nil, corrupt("truncated JSON container header")
	}
	count, size := get(0), get(osz)
	if size > uint64(len(data)) {
		return nil, corrupt("JSON container size %d exceeds %d available bytes", size, len(data))
	}
	data = data[:size]
	entry := 1 + osz
	keyEntry := 0
	if isObject {
		keyEntry = osz + 2
	}
	if count > size || uint64(2*osz)+count*uint64(keyEntry+entry) > size {
		return nil, corrupt("JSON container header exceeds its size")
	}
	n := int(count)
	if n > d.budget {
		return nil, corrupt("JSON document references more values than it has bytes")
	}
	valStart := 2*osz + n*keyEntry
	var arr []any
	var obj map[string]any
	if isObject {
		obj = make(map[string]any, n)
	} else {
		arr = make([]any, n)
	}
	for i := 0; i < n; i++ {
		var key string
		if isObject {
			kp := 2*osz + i*keyEntry
			off := get(kp)
			kl := uint64(binary.LittleEndian.Uint16(data[kp+osz:]))
			if off+kl > size {
				return nil, corrupt("JSON key out of bounds")
			}
			key = string(data[off : off+kl])
		}
		vp := valStart + i*entry
		typ := data[vp]
		var v any
		var err error
		if inlined(typ, large) {
			v, err = d.value(typ, data[vp+1:vp+1+osz], depth+1)
		} else {
			off := get(vp + 1)
			if off >= size {
				return nil, corrupt("JSON value offset %d out of bounds", off)
			}
			v, err = d.value(typ, data[off:], depth+1)
		}
		if err != nil {
			return nil, err
		}
		if isObject {
			obj[key] = v
		} else {
			arr[i] = v
		}
	}
	if isObject {
		return obj, nil
	}
	return arr, nil
}

// decodeOpaque interprets the opaque values MySQL creates for typed SQL
// values stored in JSON.
func decodeOpaque(fieldType byte, raw []byte) (any, error) {
	switch fieldType {
	case TypeNewDecimal:
		if len(raw) < 2 {
			return nil, corrupt("truncated JSON decimal")
		}
		s, _, err := DecodeDecimal(raw[2:], int(raw[0]), int(raw[1]))
		if err != nil {
			return nil, err
		}
		return decimal.NewFromString(s)
	case TypeDate, TypeTime, TypeDatetime, TypeTimestamp:
		if len(raw) < 8 {
			return nil, corrupt("truncated JSON temporal value")
		}
		m := unpackLonglongTime(int64(binary.LittleEndian.Uint64(raw)), fieldType == TypeTime)
		switch fieldType {
		case TypeDate:
			return m.formatDate(), nil
		case TypeTime:
			return m.formatTime(6), nil
		}
		m.Neg = false
		return m.formatDatetime(6), nil
	}
	return "base64:type" + strconv.Itoa(int(fieldType)) + ":" + base64.StdEncoding.EncodeToString(raw), nil
}

// unpackLonglongTime decodes MySQL's in-memory packed temporal longlong
// (TIME_from_longlong_datetime_packed / TIME_from_longlong_time_packed).
func unpackLonglongTime(nr int64, isTime bool) mysqlTime {
	var m mysqlTime
	if nr < 0 {
		m.Neg = true
		nr = -nr
	}
	m.Micro = int(nr % (1 << 24))
	if m.Micro > 999999 {
		m.Micro = 999999
	}
	packed := nr >> 24
	if isTime {
		m.Hour = int(packed>>12) & 0x3ff
		m.Minute = int(packed>>6) & 63
		m.Second = int(packed) & 63
		return m
	}
	ymd := packed >> 17
	ym := ymd >> 5
	hms := packed % (1 << 17)
	m.Day = int(ymd % (1 << 5))
	m.Month = int(ym % 13)
	m.Year = int(ym / 13)
	m.Second = int(hms % (1 << 6))
	m.Minute = int((hms >> 6) % (1 << 6))
	m.Hour = int(hms >> 12)
	return m
}

// AppendJSONText appends v (a DecodeJSON result or a GMS JSON value) as
// MySQL prints JSON: ", " between elements, ": " after keys, keys in
// storage order (length, then bytes), strings with JSON escapes.
func AppendJSONText(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, x)
	case string:
		return appendQuotedJSON(dst, x)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case int:
		return strconv.AppendInt(dst, int64(x), 10)
	case int32:
		return strconv.AppendInt(dst, int64(x), 10)
	case int16:
		return strconv.AppendInt(dst, int64(x), 10)
	case int8:
		return strconv.AppendInt(dst, int64(x), 10)
	case uint64:
		return strconv.AppendUint(dst, x, 10)
	case uint:
		return strconv.AppendUint(dst, uint64(x), 10)
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10)
	case uint16:
		return strconv.AppendUint(dst, uint64(x), 10)
	case uint8:
		return strconv.AppendUint(dst, uint64(x), 10)
	case float32:
		return appendJSONDouble(dst, float64(x))
	case float64:
		return appendJSONDouble(dst, x)
	case decimal.Decimal:
		if x.Exponent() < 0 {
			// Keep the scale, as MySQL prints its DECIMAL values.
			return append(dst, x.StringFixed(-x.Exponent())...)
		}
		return append(dst, x.String()...)
	case json.Number:
		return append(dst, x...)
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendJSONText(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int {
			if len(a) != len(b) {
				return len(a) - len(b)
			}
			return strings.Compare(a, b)
		})
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendQuotedJSON(dst, k)
			dst = append(dst, ": "...)
			dst = AppendJSONText(dst, x[k])
		}
		return append(dst, '}')
	case sql.JSONWrapper:
		inner, err := x.ToInterface()
		if err != nil {
			return append(dst, "null"...)
		}
		return AppendJSONText(dst, inner)
	}
	// Other values (typed maps, time.Time...): normalise through our own
	// encoder so the text matches what would be stored.
	b, err := EncodeJSON(v)
	if err != nil {
		return append(dst, "null"...)
	}
	doc, err := DecodeJSON(b)
	if err != nil {
		return append(dst, "null"...)
	}
	return AppendJSONText(dst, doc)
}

// appendJSONDouble approximates how MySQL prints a JSON double (my_gcvt):
// the shortest digits that round-trip, in positional notation for moderate
// exponents and as d.ddde[-]N otherwise, with ".0" appended to integral
// values so they still read as doubles.
func appendJSONDouble(dst []byte, f float64) []byte {
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	if f != 0 && (exp < -5 || exp >= 15) {
		dst = append(dst, mant...)
		dst = append(dst, 'e')
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return append(dst, s...)
}

func appendQuotedJSON(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				dst = append(dst, "\ufffd"...)
			} else {
				dst = append(dst, s[i:i+n]...)
			}
			i += n
			continue
		}
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			if c < 0x20 {
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			} else {
				dst = append(dst, c)
			}
		}
		i++
	}
	return append(dst, '"')
}
