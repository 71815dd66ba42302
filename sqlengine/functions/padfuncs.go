package functions

import (
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// LPAD and RPAD count characters, as MySQL does. GMS counted bytes, so
// LPAD('é', 3, '0') was '0é' and LPAD(s, 4, 'é') cut a character in two
// (1366); it also gave '' where MySQL gives NULL: a negative length, or
// an empty pad string when padding is needed.

// maxPadChars bounds a padded result (MySQL's max_allowed_packet refuses
// longer ones with NULL).
const maxPadChars = 64 << 20

func newLPad(args ...sql.Expression) (sql.Expression, error) { return newPad(true, args...) }
func newRPad(args ...sql.Expression) (sql.Expression, error) { return newPad(false, args...) }

func newPad(left bool, args ...sql.Expression) (sql.Expression, error) {
	var g sql.Expression
	var err error
	name := "rpad"
	if left {
		name = "lpad"
		g, err = function.NewLeftPad(args...)
	} else {
		g, err = function.NewRightPad(args...)
	}
	if err != nil {
		return nil, err
	}
	return &delegate{name: name, args: args, gms: g, mk: func(args ...sql.Expression) (sql.Expression, error) {
		return newPad(left, args...)
	}, eval: func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
		return padEval(ctx, row, args, left)
	}}, nil
}

func padEval(ctx *sql.Context, row sql.Row, args []sql.Expression, left bool) (any, bool, error) {
	var vals [3]any
	for i, a := range args {
		v, err := a.Eval(ctx, row)
		if err != nil || v == nil {
			return nil, true, err
		}
		vals[i] = v
	}
	str, ok := padText(ctx, vals[0])
	if !ok {
		return nil, false, nil
	}
	nv, _, err := types.Int64.Convert(ctx, vals[1])
	if err != nil {
		return nil, false, nil
	}
	n := nv.(int64)
	if n < 0 || n > maxPadChars {
		return nil, true, nil
	}
	have := utf8.RuneCountInString(str)
	if int64(have) >= n {
		return truncRunes(str, int(n)), true, nil
	}
	pad, ok := padText(ctx, vals[2])
	if !ok {
		return nil, false, nil
	}
	if pad == "" {
		return nil, true, nil
	}
	need := int(n) - have
	padRunes := utf8.RuneCountInString(pad)
	fill := strings.Repeat(pad, need/padRunes) + truncRunes(pad, need%padRunes)
	if left {
		return fill + str, true, nil
	}
	return str + fill, true, nil
}

// padText is v as text (a number's digits, a date's text), or false for
// values left to GMS (bytes that are not UTF-8).
func padText(ctx *sql.Context, v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, utf8.ValidString(x)
	case []byte:
		return string(x), utf8.Valid(x)
	}
	s, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return "", false
	}
	str, ok := s.(string)
	return str, ok && utf8.ValidString(str)
}

// truncRunes is s's first n characters.
func truncRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}
