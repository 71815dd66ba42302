package rowenc

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"
)

// MySQL binary JSON (sql-common/json_binary.cc). A document is a type byte
// followed by the value. Containers are
//
//	count | size | key entries (objects) | value entries | keys | values
//
// with 2-byte (small) or 4-byte (large) count, size and offsets; offsets are
// relative to the start of the container (its count field). Key entries are
// offset + 2-byte length; keys are sorted by length, then bytewise. Value
// entries are a type byte plus either an offset or, for literals and 16-bit
// integers (and 32-bit integers in large containers), the value itself.
// Strings are a variable-length length (7 bits per byte, little-endian,
// high bit = more) plus UTF-8 bytes. Opaque values are a MySQL field type
// byte, a variable-length length and the field's binary value.

const (
	jsonSmallObject = 0x00
	jsonLargeObject = 0x01
	jsonSmallArray  = 0x02
	jsonLargeArray  = 0x03
	jsonLiteral     = 0x04
	jsonInt16       = 0x05
	jsonUint16      = 0x06
	jsonInt32       = 0x07
	jsonUint32      = 0x08
	jsonInt64       = 0x09
	jsonUint64      = 0x0a
	jsonDouble      = 0x0b
	jsonString      = 0x0c
	jsonOpaque      = 0x0f

	jsonNull  = 0x00
	jsonTrue  = 0x01
	jsonFalse = 0x02

	// jsonMaxDepth is MySQL's JSON_DOCUMENT_MAX_DEPTH.
	jsonMaxDepth = 100
)

var errJSONTooDeep = errors.New("rowenc: JSON document exceeds maximum depth 100")

// EncodeJSON serialises a JSON document held as GMS holds it (the Go value
// inside types.JSONDocument: map[string]any, []any, string, float64, int64,
// uint64, bool, nil, and also decimal.Decimal, json.Number, smaller integer
// types, map[string]string and nested sql.JSONWrapper) into MySQL's binary
// JSON format.
//
// Numbers: integers are stored as the smallest of INT16/INT32/INT64 (UINT16/
// UINT32/UINT64 for unsigned Go types), as MySQL does. A float64 holding an
// integral value in the 64-bit integer range is stored as an integer:
// GMS parses the JSON text 1 into float64(1), and MySQL would have stored
// that text as an integer. Other floats are DOUBLE; NaN and ±Inf are errors.
// decimal.Decimal becomes an opaque NEWDECIMAL, as MySQL stores DECIMAL
// values in JSON. time.Time becomes the string encoding/json produces for it,
// which is how Petrel's storage keeps it. Anything else goes through
// encoding/json.
func EncodeJSON(v any) ([]byte, error) {
	var e jsonEncoder
	typ, payload, err := e.value(v, 0)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 1+len(payload))
	out = append(out, typ)
	return append(out, payload...), nil
}

type jsonEncoder struct{}

// value encodes v and returns its type byte and payload.
func (e *jsonEncoder) value(v any, depth int) (byte, []byte, error) {
	if depth > jsonMaxDepth {
		return 0, nil, errJSONTooDeep
	}
	switch x := v.(type) {
	case nil:
		return jsonLiteral, []byte{jsonNull}, nil
	case bool:
		if x {
			return jsonLiteral, []byte{jsonTrue}, nil
		}
		return jsonLiteral, []byte{jsonFalse}, nil
	case string:
		return jsonString, appendJSONString(nil, x), nil
	case int:
		return jsonInt(int64(x))
	case int8:
		return jsonInt(int64(x))
	case int16:
		return jsonInt(int64(x))
	case int32:
		return jsonInt(int64(x))
	case int64:
		return jsonInt(x)
	case uint:
		return jsonUint(uint64(x))
	case uint8:
		return jsonUint(uint64(x))
	case uint16:
		return jsonUint(uint64(x))
	case uint32:
		return jsonUint(uint64(x))
	case uint64:
		return jsonUint(x)
	case float32:
		return jsonFloat(float64(x))
	case float64:
		return jsonFloat(x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return jsonInt(i)
		}
		if u, err := strconv.ParseUint(string(x), 10, 64); err == nil {
			return jsonUint(u)
		}
		f, err := x.Float64()
		if err != nil {
			return 0, nil, fmt.Errorf("rowenc: bad JSON number %q", string(x))
		}
		return jsonFloat(f)
	case decimal.Decimal:
		return jsonDecimal(x)
	case time.Time:
		b, err := json.Marshal(x)
		if err != nil {
			return 0, nil, err
		}
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, nil, err
		}
		return jsonString, appendJSONString(nil, s), nil
	case []any:
		return e.array(x, depth)
	case map[string]any:
		return e.object(x, depth)
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return e.object(m, depth)
	case sql.JSONWrapper:
		inner, err := x.ToInterface()
		if err != nil {
			return 0, nil, err
		}
		return e.value(inner, depth)
	}
	// Typed slices, structs and the like: take encoding/json's view.
	b, err := json.Marshal(v)
	if err != nil {
		return 0, nil, fmt.Errorf("rowenc: cannot encode %T as JSON: %w", v, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return 0, nil, err
	}
	return e.value(doc, depth)
}

func jsonInt(i int64) (byte, []byte, error) {
	switch {
	case i >= math.MinInt16 && i <= math.MaxInt16:
		return jsonInt16, binary.LittleEndian.AppendUint16(nil, uint16(i)), nil
	case i >= math.MinInt32 && i <= math.MaxInt32:
		return jsonInt32, binary.LittleEndian.AppendUint32(nil, uint32(i)), nil
	}
	return jsonInt64, binary.LittleEndian.AppendUint64(nil, uint64(i)), nil
}

func jsonUint(u uint64) (byte, []byte, error) {
	switch {
	case u <= math.MaxUint16:
		return jsonUint16, binary.LittleEndian.AppendUint16(nil, uint16(u)), nil
	case u <= math.MaxUint32:
		return jsonUint32, binary.LittleEndian.AppendUint32(nil, uint32(u)), nil
	}
	return jsonUint64, binary.LittleEndian.AppendUint64(nil, u), nil
}

func jsonFloat(f float64) (byte, []byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, nil, errors.New("rowenc: JSON cannot hold NaN or Inf")
	}
	if f == math.Trunc(f) && !(f == 0 && math.Signbit(f)) {
		if f >= -(1<<63) && f < 1<<63 {
			return jsonInt(int64(f))
		}
		if f >= 0 && f < 1<<64 {
			return jsonUint(uint64(f))
		}
	}
	return jsonDouble, binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)), nil
}

// jsonDecimal stores d as MySQL stores a DECIMAL inside JSON: opaque
// NEWDECIMAL whose data is precision, scale and the binary decimal.
// Values no DECIMAL column could hold fall back to DOUBLE.
func jsonDecimal(d decimal.Decimal) (byte, []byte, error) {
	scale := 0
	if d.Exponent() < 0 {
		scale = int(-d.Exponent())
	}
	intDigits := int(d.NumDigits()) + int(d.Exponent())
	if intDigits < 0 {
		intDigits = 0
	}
	prec := intDigits + scale
	if prec == 0 {
		prec = 1
	}
	if scale > maxDecimalScale || prec > maxDecimalPrecision {
		f, _ := d.Float64()
		return jsonFloat(f)
	}
	data := []byte{byte(prec), byte(scale)}
	data, err := AppendDecimal(data, d, prec, scale)
	if err != nil {
		return 0, nil, err
	}
	payload := []byte{TypeNewDecimal}
	payload = appendVarLen(payload, len(data))
	return jsonOpaque, append(payload, data...), nil
}

func appendJSONString(dst []byte, s string) []byte {
	dst = appendVarLen(dst, len(s))
	return append(dst, s...)
}

func appendVarLen(dst []byte, n int) []byte {
	for n >= 0x80 {
		dst = append(dst, byte(n)|0x80)
		n >>= 7
	}
	return append(dst, byte(n))
}

type jsonChild struct {
	typ     byte
	payload []byte
}

// inlined reports whether a value of type typ lives in its value entry.
func inlined(typ byte, large bool) bool {
	switch typ {
	case jsonLiteral, jsonInt16, jsonUint16:
		return true
	case jsonInt32, jsonUint32:
		return large
	}
	return false
}

func (e *jsonEncoder) array(a []any, depth int) (byte, []byte, error) {
	children := make([]jsonChild, len(a))
	for i, v := range a {
		typ, p, err := e.value(v, depth+1)
		if err != nil {
			return 0, nil, err
		}
		children[i] = jsonChild{typ, p}
	}
	if b, ok := assemble(nil, children, false); ok {
		return jsonSmallArray, b, nil
	}
	b, ok := assemble(nil, children, true)
	if !ok {
		return 0, nil, errors.New("rowenc: JSON array too large")
	}
	return jsonLargeArray, b, nil
}

func (e *jsonEncoder) object(m map[string]any, depth int) (byte, []byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		if len(k) > math.MaxUint16 {
			return 0, nil, errors.New("rowenc: JSON object key longer than 65535 bytes")
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	children := make([]jsonChild, len(keys))
	for i, k := range keys {
		typ, p, err := e.value(m[k], depth+1)
		if err != nil {
			return 0, nil, err
		}
		children[i] = jsonChild{typ, p}
	}
	if b, ok := assemble(keys, children, false); ok {
		return jsonSmallObject, b, nil
	}
	b, ok := assemble(keys, children, true)
	if !ok {
		return 0, nil, errors.New("rowenc: JSON object too large")
	}
	return jsonLargeObject, b, nil
}

// assemble lays out a container (an object when keys != nil) in the small or
// large format; ok is false if it does not fit the format's offsets.
func assemble(keys []string, children []jsonChild, large bool) ([]byte, bool) {
	osz := 2
	if large {
		osz = 4
	}
	limit := uint64(math.MaxUint16)
	if large {
		limit = math.MaxUint32
	}
	n := len(children)
	hdr := 2*osz + n*(1+osz)
	if keys != nil {
		hdr += n * (osz + 2)
	}
	total := uint64(hdr)
	for _, k := range keys {
		total += uint64(len(k))
	}
	for _, c := range children {
		if !inlined(c.typ, large) {
			total += uint64(len(c.payload))
		}
	}
	if total > limit || uint64(n) > limit {
		return nil, false
	}
	out := make([]byte, hdr, total)
	put := func(at int, v uint64) {
		if large {
			binary.LittleEndian.PutUint32(out[at:], uint32(v))
		} else {
			binary.LittleEndian.PutUint16(out[at:], uint16(v))
		}
	}
	put(0, uint64(n))
	put(osz, total)
	pos := 2 * osz
	if keys != nil {
		for _, k := range keys {
			put(pos, uint64(len(out)))
			binary.LittleEndian.PutUint16(out[pos+osz:], uint16(len(k)))
			out = append(out, k...)
			pos += osz + 2
		}
	}
	for _, c := range children {
		out[pos] = c.typ
		if inlined(c.typ, large) {
			copy(out[pos+1:pos+1+osz], c.payload)
		} else {
			put(pos+1, uint64(len(out)))
			out = append(out, c.payload...)
		}
		pos += 1 + osz
	}
	return out, true
}

// newJSONTextDecoder reads JSON text keeping numbers exact (json.Number), so
// integers are stored as integers.
func newJSONTextDecoder(text []byte) *json.Decoder {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	return dec
}

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
