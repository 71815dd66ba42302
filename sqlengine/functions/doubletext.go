package functions

import (
	"strconv"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/sqlengine/arith"
)

// A DOUBLE or FLOAT read as a string by a string function is MySQL's
// text of it (arith.DoubleText): CONCAT(1e15) is '1e15' and LENGTH(1e15)
// 4, where GMS's conversion wrote 1000000000000000; a FLOAT has six
// significant digits (CONCAT of FLOAT 3.14159265 is '3.14159', GMS's
// 3.1415927).

// doubleTextArgs are the string functions and the argument each reads as
// a string (-1: every argument); their other arguments are numbers.
var doubleTextArgs = map[string][]int{
	"concat": {-1}, "concat_ws": {-1}, "replace": {-1},
	"length": {0}, "octet_length": {0}, "char_length": {0}, "character_length": {0}, "bit_length": {0},
	"lpad": {0, 2}, "rpad": {0, 2}, "repeat": {0}, "insert": {0, 3},
	"upper": {0}, "lower": {0}, "ucase": {0}, "lcase": {0}, "reverse": {0},
	"left": {0}, "right": {0}, "substring": {0}, "substr": {0}, "mid": {0}, "substring_index": {0, 1},
	"ltrim": {0}, "rtrim": {0}, "md5": {0}, "sha1": {0}, "sha": {0}, "sha2": {0}, "to_base64": {0}, "quote": {0},
	"locate": {0, 1}, "instr": {0, 1}, "strcmp": {0, 1}, "soundex": {0}, "crc32": {0}, "find_in_set": {0, 1},
	"elt": {afterFirst}, "make_set": {afterFirst}, "export_set": {1, 2, 3},
	"regexp_like": {0, 1}, "regexp_instr": {0, 1}, "regexp_substr": {0, 1}, "regexp_replace": {0, 1, 2},
	"from_base64": {0}, "unhex": {0}, "compress": {0}, "aes_encrypt": {0, 1}, "sha256": {0},
}

// afterFirst in doubleTextArgs: every argument but the first (ELT's and
// MAKE_SET's index and bits are numbers).
const afterFirst = -2

// withDoubleText wraps fns' string functions so that their DOUBLE
// arguments read as MySQL's text; gms adds GMS's own string functions
// that neither fns nor skip define.
func withDoubleText(fns []sql.Function, gms bool, skip []sql.Function) []sql.Function {
	have := map[string]bool{}
	for _, f := range append(append([]sql.Function(nil), fns...), skip...) {
		have[f.FunctionName()] = true
	}
	for i, f := range fns {
		if args, ok := doubleTextArgs[f.FunctionName()]; ok {
			fns[i] = doubleTextFn{Function: f, args: args}
		}
	}
	if gms {
		for _, f := range function.BuiltIns {
			if args, ok := doubleTextArgs[f.FunctionName()]; ok && !have[f.FunctionName()] {
				fns = append(fns, doubleTextFn{Function: f, args: args})
			}
		}
	}
	return fns
}

// doubleTextFn reads its DOUBLE and FLOAT string arguments through
// doubleText.
type doubleTextFn struct {
	sql.Function
	args []int
}

func (f doubleTextFn) NewInstance(args []sql.Expression) (sql.Expression, error) {
	out := make([]sql.Expression, len(args))
	for i, a := range args {
		out[i] = a
		if a.Resolved() && types.IsFloat(a.Type()) && f.reads(i) {
			out[i] = &doubleText{child: a}
		}
	}
	return f.Function.NewInstance(out)
}

func (f doubleTextFn) reads(i int) bool {
	for _, k := range f.args {
		if k == -1 || k == i || (k == afterFirst && i > 0) {
			return true
		}
	}
	return false
}

// doubleText is its DOUBLE (or FLOAT) child as MySQL's text; with
// fixed decimals (a FLOAT(M,D) column, PI(): FixedDoubleText) that many
// digits after the point, as MySQL's String::set_real writes them.
type doubleText struct {
	child sql.Expression
	fixed bool
	dec   int
}

var _ sql.Expression = (*doubleText)(nil)

func (d *doubleText) Resolved() bool             { return d.child.Resolved() }
func (d *doubleText) String() string             { return d.child.String() }
func (d *doubleText) Type() sql.Type             { return types.LongText }
func (d *doubleText) IsNullable() bool           { return d.child.IsNullable() }
func (d *doubleText) Children() []sql.Expression { return []sql.Expression{d.child} }

func (d *doubleText) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(d, len(children), 1)
	}
	return &doubleText{child: children[0], fixed: d.fixed, dec: d.dec}, nil
}

func (d *doubleText) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	switch x := v.(type) {
	case float64:
		if d.fixed {
			return strconv.FormatFloat(x, 'f', d.dec, 64), nil
		}
		return arith.DoubleText(x, false), nil
	case float32:
		if d.fixed {
			return strconv.FormatFloat(float64(x), 'f', d.dec, 64), nil
		}
		return arith.DoubleText(float64(x), true), nil
	}
	s, _, err := types.LongText.Convert(ctx, v)
	return s, err
}

// DoubleText is e, a DOUBLE or FLOAT, read as MySQL's text of it (for
// CAST(e AS CHAR)); other expressions are returned as they are.
func DoubleText(e sql.Expression) sql.Expression {
	if !e.Resolved() || !types.IsFloat(e.Type()) {
		return e
	}
	return &doubleText{child: e}
}

// FixedDoubleText gives e, when it is a DOUBLE read as text, the fixed
// decimals dec reports for its value (ok false: none, as before).
func FixedDoubleText(e sql.Expression, dec func(sql.Expression) (int, bool)) (sql.Expression, bool) {
	d, ok := e.(*doubleText)
	if !ok || d.fixed {
		return e, false
	}
	n, ok := dec(d.child)
	if !ok {
		return e, false
	}
	return &doubleText{child: d.child, fixed: true, dec: n}, true
}
