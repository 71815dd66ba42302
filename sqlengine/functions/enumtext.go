package functions

import (
	"fmt"
	"reflect"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// An ENUM or SET value read as a string is its member text: in MySQL
// CONCAT(e), e LIKE 'y%', HEX(e), MD5(e), GROUP_CONCAT(e), JSON_OBJECT('k',
// e), CHAR_LENGTH(s) and every other string function see 'y' or 'a,c'.
// GMS keeps the values as their index (uint16) and bit mask (uint64) and
// most of its string functions print those numbers: CONCAT_WS(',', e, s)
// was '2,5', e LIKE 'y%' matched no row, LOWER(s) failed with 1105.
// EnumTextRule wraps an ENUM or SET operand of a string consumer in
// enumText. Numeric contexts (arithmetic, comparisons with numbers, SUM,
// CAST AS SIGNED, ABS ...), ORDER BY and GROUP_CONCAT's ORDER BY keep the
// index, as MySQL's val_int does; pass-through expressions (CASE, IF,
// COALESCE ...) keep the column's type for the result's metadata. MAX,
// MIN and comparisons with text (e > 'a') compare the member text.

// EnumTextRuleID names the rule in the analyzer's batches.
const EnumTextRuleID analyzer.RuleId = 1800

// EnumTextRule puts enumText over the ENUM and SET operands of string
// consumers.
func EnumTextRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	n, sameIns, err := transform.Node(n, enumInsertSource)
	if err != nil {
		return nil, transform.SameTree, err
	}
	out, same, err := transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			if sf, ok := e.(*expression.SetField); ok {
				return enumSetField(sf)
			}
			if c, ok := e.(*expression.Case); ok {
				return enumCaseValues(c)
			}
			if ne, same, err := timeCompare(ctx, e); err != nil || same == transform.NewTree { // timecmp.go
				return ne, same, err
			}
			number := numberTyped(e)
			text := !number && stringConsumer(e)
			if !text && !number {
				return e, transform.SameTree, nil
			}
			ch := e.Children()
			kept := orderOperands(e)
			var out []sql.Expression
			for i, c := range ch {
				if i < kept || c == nil {
					continue
				}
				if text && types.IsTimespan(c.Type()) && !ordersValues(e) {
					// A TIME operand of a string function is its text
					// (GMS's string conversion has no case for TIME
					// values: UPPER, LEFT, REPLACE, LIKE, REGEXP of a
					// TIME failed with 1105; timetext.go).
					if out == nil {
						out = append([]sql.Expression(nil), ch...)
					}
					out[i] = &timeText{child: c}
					continue
				}
				if text && !ordersValues(e) && bitAsText(e, c) {
					// A BIT operand of a string function is its bytes
					// (bittext.go).
					if out == nil {
						out = append([]sql.Expression(nil), ch...)
					}
					out[i] = &bitText{child: c}
					continue
				}
				if !enumOrSet(c.Type()) {
					continue
				}
				if out == nil {
					out = append([]sql.Expression(nil), ch...)
				}
				if text {
					out[i] = &enumText{child: c}
				} else {
					out[i] = &enumNumber{child: c}
				}
			}
			if out == nil {
				return e, transform.SameTree, nil
			}
			ne, err := e.WithChildren(out...)
			if err != nil {
				return nil, transform.SameTree, err
			}
			return ne, transform.NewTree, nil
		})
	})
	return out, same && sameIns, err
}

// Storing an ENUM or SET value into a string column stores its member
// text, and into another ENUM or SET the member of the same text, as
// MySQL's val_str gives it: INSERT INTO t (v) SELECT e ..., UPDATE ...
// SET v = e and SET e2 = e stored the index ('2', or e2's second
// member).

// enumCaseValues: a CASE whose result is no ENUM (its branches mix an
// ENUM with other kinds) takes an ENUM branch's value as its text (CASE
// WHEN id = 1 THEN e ELSE 'x' END was '1'); CASE e WHEN 'b' compares
// the text. The WHEN conditions are left alone.
func enumCaseValues(c *expression.Case) (sql.Expression, transform.TreeIdentity, error) {
	if enumOrSet(c.Type()) {
		return c, transform.SameTree, nil
	}
	wrap := func(e sql.Expression) (sql.Expression, bool) {
		if e != nil && enumOrSet(e.Type()) {
			return &enumText{child: e}, true
		}
		return e, false
	}
	nc := *c
	changed := false
	var w bool
	nc.Expr, w = wrap(c.Expr)
	changed = changed || w
	nc.Branches = make([]expression.CaseBranch, len(c.Branches))
	for i, b := range c.Branches {
		nc.Branches[i] = b
		nc.Branches[i].Value, w = wrap(b.Value)
		changed = changed || w
	}
	nc.Else, w = wrap(c.Else)
	changed = changed || w
	if !changed {
		return c, transform.SameTree, nil
	}
	return &nc, transform.NewTree, nil
}

// storesAsText: a value of type src stored into a column of type dst
// goes through its text.
func storesAsText(src, dst sql.Type) bool {
	if !enumOrSet(src) {
		return false
	}
	if enumOrSet(dst) {
		return !dst.Equals(src)
	}
	return types.IsText(dst)
}

// enumSetField is SET col = e with e through its text when storesAsText.
func enumSetField(sf *expression.SetField) (sql.Expression, transform.TreeIdentity, error) {
	if !storesAsText(sf.RightChild.Type(), sf.LeftChild.Type()) {
		return sf, transform.SameTree, nil
	}
	ne, err := sf.WithChildren(sf.LeftChild, &enumText{child: sf.RightChild})
	if err != nil {
		return nil, transform.SameTree, err
	}
	return ne, transform.NewTree, nil
}

// enumInsertSource puts a projection reading ENUM and SET values as
// text over an INSERT's query source whose values go into string
// columns or other ENUMs (VALUES lists hold literals, not stored values).
func enumInsertSource(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	ins, ok := n.(*plan.InsertInto)
	if !ok || ins.Source == nil {
		return n, transform.SameTree, nil
	}
	if _, values := ins.Source.(*plan.Values); values {
		return n, transform.SameTree, nil
	}
	srcSch, dst := ins.Source.Schema(), ins.Destination.Schema()
	dstOf := func(i int) *sql.Column {
		// The analysed source is the destination's whole row (GMS
		// fills the unnamed columns), else the named columns'.
		if len(ins.ColumnNames) == 0 || len(srcSch) == len(dst) {
			if i < len(dst) {
				return dst[i]
			}
			return nil
		}
		if i >= len(ins.ColumnNames) {
			return nil
		}
		if j := dst.IndexOfColName(ins.ColumnNames[i]); j >= 0 {
			return dst[j]
		}
		return nil
	}
	if p, ok := ins.Source.(*plan.Project); ok && len(p.Projections) == len(srcSch) {
		// GMS's analysed source: a projection to the destination's
		// columns, named and typed as them, over the query.
		out := make([]sql.Expression, len(p.Projections))
		need := false
		for i, e := range p.Projections {
			out[i] = e
			d := dstOf(i)
			if d == nil {
				continue
			}
			if gf, isField := e.(*expression.GetField); isField {
				// A column of the query below, typed as the
				// destination's: its own type is the query's.
				if below := p.Child.Schema(); gf.Index() >= 0 && gf.Index() < len(below) && storesAsText(below[gf.Index()].Type, d.Type) {
					c := below[gf.Index()]
					out[i] = expression.NewAlias(gf.Name(), &enumText{child: expression.NewGetField(gf.Index(), c.Type, c.Name, c.Nullable)})
					need = true
				}
			} else if a, isAlias := e.(*expression.Alias); isAlias && storesAsText(a.Child.Type(), d.Type) {
				out[i] = expression.NewAlias(a.Name(), &enumText{child: a.Child})
				need = true
			} else if !isAlias && storesAsText(e.Type(), d.Type) {
				out[i] = &enumText{child: e}
				need = true
			}
		}
		if !need {
			return n, transform.SameTree, nil
		}
		np, err := p.WithExpressions(out...)
		if err != nil {
			return nil, transform.SameTree, err
		}
		return ins.WithSource(np), transform.NewTree, nil
	}
	exprs := make([]sql.Expression, len(srcSch))
	need := false
	for i, c := range srcSch {
		gf := expression.NewGetField(i, c.Type, c.Name, c.Nullable)
		exprs[i] = gf
		if d := dstOf(i); d != nil && storesAsText(c.Type, d.Type) {
			exprs[i] = &enumText{child: gf}
			need = true
		}
	}
	if !need {
		return n, transform.SameTree, nil
	}
	return ins.WithSource(plan.NewProject(exprs, ins.Source)), transform.NewTree, nil
}

func enumOrSet(t sql.Type) bool { return types.IsEnum(t) || types.IsSet(t) }

// Packages whose functions may be string consumers: GMS's and Petrel's.
// GMS's operators (package expression: SetField, Tuple, EnumToString
// ...) are only the ones stringConsumer names; other wrappers (storage
// conversions) read the raw index and are left alone.
var consumerPkgs = map[string]bool{
	"github.com/dolthub/go-mysql-server/sql/expression/function":      true,
	"github.com/dolthub/go-mysql-server/sql/expression/function/json": true,
	"petrel/sqlengine/functions":                                      true,
}

// stringConsumer: e reads its operands as strings. Text- and JSON-typed
// functions, LIKE, REGEXP and the string functions with a numeric
// result; not the pass-through expressions, comparisons or numbers.
func stringConsumer(e sql.Expression) bool {
	if d, ok := e.(*delegate); ok && d.gms != nil {
		// Petrel's functions over GMS's: decided by GMS's function
		// (CHAR_LENGTH is a delegate over GMS's Length).
		if stringConsumer(d.gms) {
			return true
		}
	}
	switch x := e.(type) {
	case *enumText, *expression.EnumToString, *expression.Alias, *expression.GetField,
		*expression.Case, *function.If, *function.IfNull, *function.NullIf, *function.Coalesce,
		*function.FindInSet, *function.Values:
		return false
	case *aggregation.GroupConcat:
		return true
	case *aggregation.Max, *aggregation.Min:
		// MySQL's MAX and MIN compare ENUM and SET values as strings
		// (its manual: unlike ORDER BY, which takes the index).
		return true
	case *function.Field:
		// FIELD(e, 'paid', 'void') and FIELD('paid', e) compare the
		// member text with strings (GMS compared the index: 0);
		// FIELD(e, 1, 2) the index.
		for _, c := range e.Children() {
			if textOperand(c) {
				return true
			}
		}
		return false
	case *expression.GreaterThan, *expression.LessThan, *expression.GreaterThanOrEqual, *expression.LessThanOrEqual:
		// e > 'a': compared as strings when the other side is text (GMS
		// read 'a' as its index and compared numbers).
		ch := e.Children()
		return len(ch) == 2 && (textOperand(ch[0]) || textOperand(ch[1]))
	case *expression.Like, *function.RegexpLike, *function.Length, *function.Ascii, *function.Ord,
		*function.Crc32, *function.StrCmp, *function.Instr, *function.Locate, *locate,
		// typed as their argument, so an ENUM-typed result
		*function.Lower, *function.Upper, *function.Reverse, *function.LeftTrim, *function.RightTrim,
		*function.Substring:
		return true
	case *expression.Convert:
		return types.IsText(x.Type()) || types.IsBinaryType(x.Type())
	case *expression.CollatedExpression:
		return true
	case *minMax:
		return true
	}
	t := reflect.TypeOf(e)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !consumerPkgs[t.PkgPath()] {
		return false
	}
	// SUBSTR, LOWER, REVERSE and the like are typed as their argument:
	// an ENUM-typed result is a string function's too (the numeric ones
	// typed so are numberTyped's).
	rt := e.Type()
	return types.IsText(rt) || types.IsJSON(rt) || enumOrSet(rt)
}

// ordersValues: e compares or orders its operands (comparisons,
// GREATEST, LEAST, MAX, MIN), which take a TIME as a TIME, not as its
// text.
func ordersValues(e sql.Expression) bool {
	switch e.(type) {
	case expression.Comparer, *minMax, *aggregation.Max, *aggregation.Min:
		return true
	}
	return false
}

// textOperand: e is a string and no ENUM or SET.
func textOperand(e sql.Expression) bool {
	t := e.Type()
	return types.IsText(t) && !enumOrSet(t)
}

// orderOperands is how many of e's first children order its rows rather
// than give its values (GROUP_CONCAT's ORDER BY, which orders an ENUM by
// its index, as ORDER BY does); they keep the index.
func orderOperands(e sql.Expression) int {
	if _, ok := e.(*aggregation.GroupConcat); ok {
		if f := reflect.ValueOf(e).Elem().FieldByName("sf"); f.IsValid() && f.Kind() == reflect.Slice {
			return f.Len()
		}
	}
	return 0
}

// numberTyped: e is a numeric function typed as its argument (ABS,
// ROUND, CEIL, FLOOR, TRUNCATE), which over an ENUM printed the member
// (ABS(e) was 'y') or gave NULL (ROUND of a SET); MySQL reads the index.
func numberTyped(e sql.Expression) bool {
	switch x := e.(type) {
	case *function.AbsVal, *function.Round, *function.Ceil, *function.Floor, *truncateExpr:
		return true
	case *delegate:
		return x.gms != nil && numberTyped(x.gms)
	}
	return false
}

// enumNumber is an ENUM's index or a SET's bit mask as BIGINT UNSIGNED.
type enumNumber struct{ child sql.Expression }

var _ sql.Expression = (*enumNumber)(nil)

func (e *enumNumber) Resolved() bool             { return e.child.Resolved() }
func (e *enumNumber) String() string             { return e.child.String() }
func (e *enumNumber) IsNullable() bool           { return e.child.IsNullable() }
func (e *enumNumber) Children() []sql.Expression { return []sql.Expression{e.child} }
func (e *enumNumber) Type() sql.Type             { return types.Uint64 }

func (e *enumNumber) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(e, len(children), 1)
	}
	return &enumNumber{child: children[0]}, nil
}

func (e *enumNumber) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := e.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	switch x := v.(type) {
	case uint16:
		return uint64(x), nil
	case uint64:
		return x, nil
	}
	n, _, err := types.Uint64.Convert(ctx, v)
	return n, err
}

// enumText is an ENUM's or SET's value as its member text, typed as a
// string of the column's collation (typ, when set: a set operation's
// column type, setoporder.go).
type enumText struct {
	child sql.Expression
	typ   sql.Type
}

var _ sql.Expression = (*enumText)(nil)
var _ sql.CollationCoercible = (*enumText)(nil)

func (e *enumText) Resolved() bool             { return e.child.Resolved() }
func (e *enumText) String() string             { return e.child.String() }
func (e *enumText) IsNullable() bool           { return e.child.IsNullable() }
func (e *enumText) Children() []sql.Expression { return []sql.Expression{e.child} }

func (e *enumText) Type() sql.Type {
	if e.typ != nil {
		return e.typ
	}
	if st, ok := e.child.Type().(sql.StringType); ok {
		return types.CreateLongText(st.Collation())
	}
	return types.LongText
}

func (e *enumText) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	if st, ok := e.child.Type().(sql.StringType); ok {
		return st.Collation(), 2 // implicit, as a column's
	}
	return sql.Collation_Default, 2
}

func (e *enumText) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(e, len(children), 1)
	}
	return &enumText{child: children[0], typ: e.typ}, nil
}

func (e *enumText) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := e.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	switch t := e.child.Type().(type) {
	case sql.EnumType:
		if i, ok := v.(uint16); ok {
			s, found := t.At(int(i))
			if !found {
				return nil, fmt.Errorf("sqlengine: ENUM index %d out of range", i)
			}
			return s, nil
		}
	case sql.SetType:
		if b, ok := v.(uint64); ok {
			return t.BitsToString(b)
		}
	}
	return v, nil // already text (a derived table's value, a literal)
}
