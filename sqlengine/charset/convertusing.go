package charset

import (
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Strings converted between character sets as MySQL converts them, with
// every character string UTF-8 inside Petrel:
//
//   - CONVERT(x USING cs): GMS returned x encoded in cs's bytes as if
//     they were UTF-8 text (HEX of it failed, 1105 "unable to re-encode",
//     or panicked for latin1); MySQL's value is x's characters, those cs
//     lacks as '?'. A binary x is read as cs's bytes; USING binary gives
//     x's bytes in its own character set.
//   - an introducer over a hex or bit literal (_latin2 0xB1): GMS kept
//     the decoded text as []byte, which HEX and others read as bytes
//     (HEX(_latin1 0xE9) was C3A9); it becomes the string it is.

// ConvertRuleID is ConvertRule's analyzer rule id.
const ConvertRuleID analyzer.RuleId = 1740

// ConvertRule puts convertUsing in place of GMS's CONVERT ... USING and
// makes introduced binary literals strings.
func ConvertRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch x := e.(type) {
		case *expression.ConvertUsing:
			return &convertUsing{ConvertUsing: x}, transform.NewTree, nil
		case *expression.Literal:
			if b, ok := x.Value().([]byte); ok && isCharType(x.Type()) {
				return expression.NewLiteral(string(b), x.Type()), transform.NewTree, nil
			}
		}
		return e, transform.SameTree, nil
	})
}

// isCharType reports a character string type (not binary).
func isCharType(t sql.Type) bool {
	st, ok := t.(sql.StringType)
	return ok && types.IsText(t) && st.Collation() != sql.Collation_binary && st.CharacterSet() != sql.CharacterSet_binary
}

// convertUsing is CONVERT(x USING cs) with MySQL's value.
type convertUsing struct {
	*expression.ConvertUsing
}

var _ sql.Expression = (*convertUsing)(nil)
var _ sql.CollationCoercible = (*convertUsing)(nil)

// Type is a string type of the target character set (GMS kept a
// number's own type, CONVERT(1 USING latin1) an integer, and a binary
// string's, so HEX(CONVERT(0xB1 USING latin2)) read UTF-8 bytes).
func (c *convertUsing) Type() sql.Type {
	if c.TargetCharSet == sql.CharacterSet_binary {
		if st, ok := c.Child.Type().(sql.StringType); ok && !isCharType(st) {
			return st // binary already
		}
		return types.LongBlob
	}
	if isCharType(c.Child.Type()) {
		return c.ConvertUsing.Type()
	}
	return types.CreateLongText(c.TargetCharSet.DefaultCollation())
}

func (c *convertUsing) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	x, err := c.ConvertUsing.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &convertUsing{ConvertUsing: x.(*expression.ConvertUsing)}, nil
}

func (c *convertUsing) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	from := sql.CharacterSet_utf8mb4
	if st, ok := c.Child.Type().(sql.StringType); ok {
		from = st.CharacterSet()
	}
	var raw []byte // the value's bytes when it is a binary string
	var text string
	switch x := v.(type) {
	case []byte:
		raw = x
	case string:
		text = x
		if from == sql.CharacterSet_binary {
			raw = []byte(x)
		}
	default:
		s, _, err := types.LongText.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		text, _ = s.(string)
	}
	to := c.TargetCharSet
	enc := to.Encoder()
	if enc == nil {
		return nil, sql.ErrCharSetNotYetImplementedTemp.New(to.Name())
	}
	if to == sql.CharacterSet_binary {
		if raw != nil {
			return raw, nil
		}
		if fe := from.Encoder(); fe != nil && from != sql.CharacterSet_binary {
			return fe.EncodeReplaceUnknown([]byte(text)), nil
		}
		return []byte(text), nil
	}
	if raw != nil {
		// A binary string's bytes read in the target character set;
		// bytes that are no character of it are '?'.
		if dec, ok := enc.Decode(raw); ok && utf8.Valid(dec) {
			return string(dec), nil
		}
		var b strings.Builder
		for i := 0; i < len(raw); {
			n := 1
			if to.MaxLength() > 1 {
				_, n = utf8.DecodeRune(raw[i:])
			}
			if dec, ok := enc.Decode(raw[i : i+n]); ok && utf8.Valid(dec) {
				b.Write(dec)
			} else {
				b.WriteByte('?')
			}
			i += n
		}
		return b.String(), nil
	}
	if to == sql.CharacterSet_utf8mb4 {
		return text, nil
	}
	// The characters the target set lacks become '?'.
	out, ok := enc.Decode(enc.EncodeReplaceUnknown([]byte(text)))
	if !ok {
		return text, nil
	}
	return string(out), nil
}
