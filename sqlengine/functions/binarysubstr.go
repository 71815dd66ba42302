package functions

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// SUBSTRING (SUBSTR, MID), LEFT and RIGHT of a binary string count
// bytes, as MySQL's do: GMS counted characters, so SUBSTRING(BINARY
// 'ábc', 2, 1) was 'b' (MySQL: the second byte of á, 0xA1) and a
// VARBINARY or BLOB holding UTF-8 text was cut at other places than
// MySQL cuts it, silently. Text arguments keep GMS's functions.

func substringFns() []sql.Function {
	sub := func(name string) sql.Function {
		var mk func(args ...sql.Expression) (sql.Expression, error)
		mk = func(args ...sql.Expression) (sql.Expression, error) {
			g, err := function.NewSubstring(args...)
			if err != nil {
				return nil, err
			}
			return &delegate{name: name, args: args, gms: g, mk: mk, eval: binarySubstring}, nil
		}
		return sql.FunctionN{Name: name, Fn: mk}
	}
	var left, right func(args ...sql.Expression) (sql.Expression, error)
	left = func(args ...sql.Expression) (sql.Expression, error) {
		if len(args) != 2 {
			return nil, sql.ErrInvalidArgumentNumber.New("LEFT", 2, len(args))
		}
		return &delegate{name: "left", args: args, gms: function.NewLeft(args[0], args[1]), mk: left, eval: binaryEnd(false)}, nil
	}
	right = func(args ...sql.Expression) (sql.Expression, error) {
		if len(args) != 2 {
			return nil, sql.ErrInvalidArgumentNumber.New("RIGHT", 2, len(args))
		}
		return &delegate{name: "right", args: args, gms: function.NewRight(args[0], args[1]), mk: right, eval: binaryEnd(true)}, nil
	}
	return []sql.Function{sub("substring"), sub("substr"), sub("mid"), sql.FunctionN{Name: "left", Fn: left}, sql.FunctionN{Name: "right", Fn: right}}
}

// binaryArgs evaluates a binary string and its integer arguments; ok
// false when the string is not binary (GMS answers).
func binaryArgs(ctx *sql.Context, row sql.Row, args []sql.Expression) (s []byte, ns []int64, null, ok bool, err error) {
	if !binaryString(args[0].Type()) {
		return nil, nil, false, false, nil
	}
	v, err := args[0].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, nil, v == nil, true, err
	}
	switch v := v.(type) {
	case []byte:
		s = v
	case string:
		s = []byte(v)
	default:
		return nil, nil, false, false, nil
	}
	for _, a := range args[1:] {
		x, err := a.Eval(ctx, row)
		if err != nil || x == nil {
			return nil, nil, x == nil, true, err
		}
		n, _, err := types.Int64.Convert(ctx, x)
		if err != nil {
			return nil, nil, false, false, nil
		}
		ns = append(ns, n.(int64))
	}
	return s, ns, false, true, nil
}

// binarySubstring is SUBSTRING(s, pos[, len]) over bytes: pos counts
// from 1, from the end when negative; 0, or a start past the end, is
// the empty string.
func binarySubstring(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
	s, ns, null, ok, err := binaryArgs(ctx, row, args)
	if !ok || err != nil || null {
		return nil, ok, err
	}
	n := int64(len(s))
	pos := ns[0]
	switch {
	case pos > 0:
		pos--
	case pos < 0:
		pos += n
	default:
		return []byte{}, true, nil
	}
	if pos < 0 || pos >= n {
		return []byte{}, true, nil
	}
	end := n
	if len(ns) > 1 {
		if ns[1] < 1 {
			return []byte{}, true, nil
		}
		end = min(n, pos+ns[1])
	}
	return append([]byte{}, s[pos:end]...), true, nil
}

// binaryEnd is LEFT (fromRight false) or RIGHT over bytes.
func binaryEnd(fromRight bool) func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
	return func(ctx *sql.Context, row sql.Row, args []sql.Expression) (any, bool, error) {
		s, ns, null, ok, err := binaryArgs(ctx, row, args)
		if !ok || err != nil || null {
			return nil, ok, err
		}
		k := min(max(ns[0], 0), int64(len(s)))
		if fromRight {
			return append([]byte{}, s[int64(len(s))-k:]...), true, nil
		}
		return append([]byte{}, s[:k]...), true, nil
	}
}

// binaryString reports whether t is a binary string type (BINARY,
// VARBINARY, BLOB): GMS's IsBinaryType counts JSON and spatial types
// too, which MySQL's string functions read as text.
func binaryString(t sql.Type) bool {
	if t == nil {
		return false
	}
	switch t.Type() {
	case sqltypes.Binary, sqltypes.VarBinary, sqltypes.Blob:
		return true
	}
	return false
}
