package sqlengine

import (
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
)

// CHAR(n, ... USING cs) whose bytes are no string of cs is NULL with
// warning 1300 "Invalid cs character string: 'E4'", as MySQL's: GMS
// failed the statement (1366), kept the bytes of another set undecoded,
// and its WithChildren dropped the USING.
// castCharRule (castchar.go) puts charUsing in place of GMS's CHAR.

type charUsing struct {
	args []sql.Expression
	coll sql.CollationID
}

var _ sql.FunctionExpression = (*charUsing)(nil)

// gms is GMS's CHAR over c's arguments in collation coll.
func (c *charUsing) gms(coll sql.CollationID) *function.Char {
	x, _ := function.NewChar(c.args...)
	ch := x.(*function.Char)
	ch.Collation = coll
	return ch
}

func (c *charUsing) Resolved() bool             { return c.gms(c.coll).Resolved() }
func (c *charUsing) String() string             { return c.gms(c.coll).String() }
func (c *charUsing) Type() sql.Type             { return c.gms(c.coll).Type() }
func (c *charUsing) IsNullable() bool           { return true }
func (c *charUsing) Children() []sql.Expression { return c.args }
func (c *charUsing) FunctionName() string       { return "char" }
func (c *charUsing) Description() string        { return "MySQL's CHAR(... USING cs)" }

func (c *charUsing) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return c.gms(c.coll).CollationCoercibility(ctx)
}

func (c *charUsing) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return &charUsing{args: children, coll: c.coll}, nil
}

func (c *charUsing) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	raw, err := c.gms(sql.Collation_binary).Eval(ctx, row)
	if err != nil || raw == nil {
		return nil, err
	}
	b, ok := raw.([]byte)
	if !ok {
		return c.gms(c.coll).Eval(ctx, row)
	}
	// The bytes are cs's: decoded to the UTF-8 GMS holds strings in (GMS
	// kept latin1's 0xE4 as it was, which LENGTH and HEX then failed on).
	cs := c.coll.CharacterSet()
	if dec, ok := cs.Encoder().Decode(b); ok && utf8.Valid(dec) {
		return string(dec), nil
	}
	if strings.HasPrefix(cs.Name(), "utf8") {
		// MySQL shows the bytes from the first invalid one.
		for i := 0; i < len(b); {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				b = b[i:]
				break
			}
			i += n
		}
	}
	ctx.Warn(1300, "Invalid %s character string: '%s'", cs.Name(), strings.ToUpper(hex.EncodeToString(b)))
	return nil, nil
}
