package functions

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// LOCATE, POSITION and INSTR as MySQL's: by the arguments' collation and
// in characters. GMS's LOCATE lower-cased both strings and answered a
// byte offset, and its INSTR compared bytes: under the default
// utf8mb4_0900_ai_ci INSTR('abc', 'B') was 0 (MySQL: 2) and LOCATE('c',
// 'ábc') 4 (MySQL: 3); a binary string matched case-insensitively; a
// number argument was an error (MySQL reads it as text).

// Collated is the functions of this file and binarysubstr.go,
// registered over GMS's.
func Collated() []sql.Function {
	return withDoubleText(append([]sql.Function{
		sql.FunctionN{Name: "locate", Fn: func(args ...sql.Expression) (sql.Expression, error) {
			if len(args) < 2 || len(args) > 3 {
				return nil, sql.ErrInvalidArgumentNumber.New("LOCATE", "2 or 3", len(args))
			}
			return &locate{name: "locate", args: args}, nil
		}},
		sql.Function2{Name: "instr", Fn: func(str, sub sql.Expression) sql.Expression {
			return &locate{name: "instr", args: []sql.Expression{sub, str}, instr: true}
		}},
	}, substringFns()...), false, nil) // binarysubstr.go, doubletext.go
}

// locate is LOCATE(substr, str[, pos]); INSTR(str, substr) with its
// arguments swapped.
type locate struct {
	name  string
	args  []sql.Expression // substr, str[, pos]
	instr bool
}

var _ sql.FunctionExpression = (*locate)(nil)
var _ sql.CollationCoercible = (*locate)(nil)

func (l *locate) FunctionName() string { return l.name }
func (l *locate) Description() string {
	return "returns the position of the first occurrence of a substring in a string"
}
func (l *locate) Resolved() bool {
	for _, a := range l.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}
func (l *locate) Type() sql.Type             { return types.Int32 }
func (l *locate) IsNullable() bool           { return true }
func (l *locate) Children() []sql.Expression { return l.args }
func (l *locate) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (l *locate) String() string {
	if l.instr {
		return fmt.Sprintf("instr(%s,%s)", l.args[1], l.args[0])
	}
	s := make([]string, len(l.args))
	for i, a := range l.args {
		s[i] = a.String()
	}
	return "locate(" + strings.Join(s, ",") + ")"
}

func (l *locate) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != len(l.args) {
		return nil, sql.ErrInvalidChildrenNumber.New(l, len(children), len(l.args))
	}
	return &locate{name: l.name, args: children, instr: l.instr}, nil
}

// collation is the comparison's collation: the argument of stronger
// coercibility's, the string's on a tie (binary if either is binary).
func (l *locate) collation(ctx *sql.Context) sql.CollationID {
	coll := func(e sql.Expression) (sql.CollationID, byte) {
		if binaryString(e.Type()) {
			return sql.Collation_binary, 2
		}
		if cc, ok := e.(sql.CollationCoercible); ok {
			return cc.CollationCoercibility(ctx)
		}
		if st, ok := e.Type().(sql.StringType); ok {
			return st.Collation(), 2
		}
		return ctx.GetCollation(), 4
	}
	sc, sco := coll(l.args[0])
	tc, tco := coll(l.args[1])
	switch {
	case sc == sql.Collation_binary || tc == sql.Collation_binary:
		return sql.Collation_binary
	case sco < tco:
		return sc
	}
	return tc
}

func (l *locate) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	vals := make([]any, len(l.args))
	for i, a := range l.args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if v == nil && i < 2 {
			return nil, nil
		}
		vals[i] = v
	}
	sub, err := textArg(ctx, vals[0])
	if err != nil {
		return nil, err
	}
	str, err := textArg(ctx, vals[1])
	if err != nil {
		return nil, err
	}
	pos := int64(1)
	if len(vals) == 3 {
		if vals[2] == nil {
			return nil, nil
		}
		p, _, err := types.Int64.Convert(ctx, vals[2])
		if err != nil {
			return nil, err
		}
		pos = p.(int64)
	}
	return int32(locateIn(l.collation(ctx), sub, str, pos)), nil
}

// textArg is an argument as text (a number as MySQL writes it).
func textArg(ctx *sql.Context, v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case []byte:
		return string(v), nil
	}
	s, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return "", err
	}
	t, ok := s.(string)
	if !ok {
		return fmt.Sprint(s), nil
	}
	return t, nil
}

// locateIn is the 1-based character position of sub in str from
// character pos on, 0 if none, under coll: binary compares bytes (and
// counts them); another collation compares each window of sub's length
// in characters by its weights.
func locateIn(coll sql.CollationID, sub, str string, pos int64) int64 {
	n := int64(utf8.RuneCountInString(str))
	if coll == sql.Collation_binary {
		n = int64(len(str))
	}
	switch {
	case pos < 1:
		return 0
	case sub == "":
		if pos <= n+1 {
			return pos
		}
		return 0
	case pos > n:
		return 0
	}
	if coll == sql.Collation_binary {
		i := strings.Index(str[pos-1:], sub)
		if i < 0 {
			return 0
		}
		return int64(i) + pos
	}
	exact := coll == sql.Collation_utf8mb4_0900_bin || strings.HasSuffix(coll.Name(), "_bin")
	var want bytes.Buffer
	if !exact {
		if err := coll.WriteWeightString(&want, sub); err != nil {
			exact = true
		}
	}
	k := utf8.RuneCountInString(sub)
	// starts are the byte offsets of str's characters.
	starts := make([]int, 0, n+1)
	for i := range str {
		starts = append(starts, i)
	}
	starts = append(starts, len(str))
	var got bytes.Buffer
	for c := int(pos - 1); c+k <= int(n); c++ {
		w := str[starts[c]:starts[c+k]]
		if exact {
			if w == sub {
				return int64(c + 1)
			}
			continue
		}
		got.Reset()
		if coll.WriteWeightString(&got, w) == nil && bytes.Equal(got.Bytes(), want.Bytes()) {
			return int64(c + 1)
		}
	}
	return 0
}
