package functions

import (
	"fmt"
	"reflect"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// A BIT value read as a string is its bytes, big-endian, as many as the
// column's width needs: in MySQL a BIT(8) holding b'01000001' is 'A' to
// CONCAT, UPPER, LENGTH, LIKE and CAST AS CHAR. GMS keeps BIT values as
// numbers (uint64) and its string functions printed the number's digits
// or failed with 1105 ("13877 is beyond the maximum value that can be
// held by 8 bits": CONCAT(b, 'x') typed as the BIT column). EnumTextRule
// wraps a BIT operand of a string consumer in bitText; HEX, which MySQL
// gives the number (HEX of BIT(16) 1 is '1'), and the JSON functions,
// whose BIT is an opaque base64 value in MySQL, keep the number.

// bitText is a BIT value as its bytes.
type bitText struct{ child sql.Expression }

var _ sql.Expression = (*bitText)(nil)
var _ sql.CollationCoercible = (*bitText)(nil)

func (b *bitText) Resolved() bool             { return b.child.Resolved() }
func (b *bitText) String() string             { return b.child.String() }
func (b *bitText) IsNullable() bool           { return b.child.IsNullable() }
func (b *bitText) Children() []sql.Expression { return []sql.Expression{b.child} }

// width is how many bytes the child's BIT type needs (8 for BIT(64)).
func (b *bitText) width() int {
	if bt, ok := b.child.Type().(types.BitType); ok {
		return (int(bt.NumberOfBits()) + 7) / 8
	}
	return 8
}

// Type is a VARBINARY of the value's width.
func (b *bitText) Type() sql.Type {
	return types.MustCreateBinary(sqltypes.VarBinary, int64(b.width()))
}

// CollationCoercibility: binary, with a column's coercibility.
func (b *bitText) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 2
}

func (b *bitText) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("functions: BIT text takes 1 child, got %d", len(children))
	}
	return &bitText{child: children[0]}, nil
}

func (b *bitText) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := b.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	var n uint64
	switch x := v.(type) {
	case uint64:
		n = x
	case []byte:
		return x, nil
	default:
		cv, _, err := types.Uint64.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		n = cv.(uint64)
	}
	w := b.width()
	out := make([]byte, w)
	for i := w - 1; i >= 0; i-- {
		out[i] = byte(n)
		n >>= 8
	}
	return out, nil
}

// bitAsText: a BIT operand of string consumer e is read as its bytes.
func bitAsText(e, operand sql.Expression) bool {
	if !types.IsBit(operand.Type()) {
		return false
	}
	if _, ok := e.(*function.Hex); ok {
		return false
	}
	if d, ok := e.(*delegate); ok && d.gms != nil {
		return bitAsText(d.gms, operand)
	}
	if types.IsJSON(e.Type()) {
		return false
	}
	t := reflect.TypeOf(e)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() != "github.com/dolthub/go-mysql-server/sql/expression/function/json"
}
