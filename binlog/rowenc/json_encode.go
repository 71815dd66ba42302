package rowenc

// MySQL binary JSON: encoding (GMS JSON values to binary JSON).

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"
)

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
