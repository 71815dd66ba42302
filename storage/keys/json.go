package keys

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"
)

// appendJSON writes v, a JSON document as produced by GMS (maps, slices,
// strings, float64 and friends), as compact JSON text. We do not use GMS's
// MySQL-style printer because it does not escape object keys, nor
// encoding/json alone because it quotes decimal.Decimal values. DecodeRow reads
// the text back with json.Unmarshal, exactly as GMS's JSON Convert does.
func appendJSON(dst []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case string:
		return appendJSONString(dst, x), nil
	case float64:
		return appendJSONFloat(dst, x, 64)
	case float32:
		return appendJSONFloat(dst, float64(x), 32)
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int8:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case uint:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint8:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case decimal.Decimal:
		return append(dst, x.String()...), nil
	case json.Number:
		if !json.Valid([]byte(x)) {
			return nil, fmt.Errorf("invalid JSON number %q", string(x))
		}
		return append(dst, x...), nil
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendJSON(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		return appendJSONObject(dst, x)
	case map[string]string:
		return appendJSONObject(dst, x)
	case sql.JSONWrapper:
		inner, err := x.ToInterface()
		if err != nil {
			return nil, err
		}
		return appendJSON(dst, inner)
	}
	// Anything else GMS may put in a document (time.Time, typed slices...)
	// gets encoding/json's representation.
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

func appendJSONObject[V any](dst []byte, m map[string]V) ([]byte, error) {
	// Sorted keys make the encoding deterministic.
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(appendJSONString(dst, k), ':')
		if dst, err = appendJSON(dst, m[k]); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

func appendJSONFloat(dst []byte, f float64, bits int) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errors.New("JSON cannot represent NaN or Inf")
	}
	// Shortest representation that parses back to the same float.
	return strconv.AppendFloat(dst, f, 'g', -1, bits), nil
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s. Invalid UTF-8 becomes U+FFFD, as json.Unmarshal
// would make it anyway.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, "\ufffd"...)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}
