package collate

import (
	"cmp"
	"context"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// ORDER BY over numbers compares two values of one Go kind directly.
// GMS sorts with the sort expression's type's Compare, and a SUM of a
// DECIMAL expression reports a DOUBLE type while its values are
// decimals: every comparison of TPC-H Q10's ORDER BY revenue turned both
// sums into float64 through big.Rat (a fifth of the query's CPU), and
// two sums equal as doubles but not as decimals tied. Two decimals
// compare exactly here (as MySQL orders DECIMAL), two int64s, two
// uint64s and two float64s as numbers; any other pair is the type's.

const SortRuleID analyzer.RuleId = 1021

func SortRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch s := n.(type) {
		case *plan.Sort:
			if f, ok := fastSortFields(s.SortFields); ok {
				ns := *s
				ns.SortFields = f
				return &ns, transform.NewTree, nil
			}
		case *plan.TopN:
			if f, ok := fastSortFields(s.Fields); ok {
				nt := *s
				nt.Fields = f
				return &nt, transform.NewTree, nil
			}
		}
		return n, transform.SameTree, nil
	})
}

// fastSortFields returns fields with their numeric columns compared by
// numSortType and their utf8mb4/utf8mb3 strings by strSortType; false
// when none is either.
func fastSortFields(fields sql.SortFields) (sql.SortFields, bool) {
	var out sql.SortFields
	for i, f := range fields {
		var key sql.Expression
		switch f.Column.(type) {
		case *numSortKey, *StringSortKey:
			continue
		}
		if types.IsNumber(f.Column.Type()) {
			key = newNumSortKey(f.Column)
		} else if k, ok := newStrSortKey(f.Column); ok {
			key = k
		} else {
			continue
		}
		if out == nil {
			out = append(sql.SortFields(nil), fields...)
		}
		out[i].Column = key
	}
	return out, out != nil
}

// ORDER BY over strings of a utf8mb4 or utf8mb3 collation compares two
// ASCII strings by their bytes' weights from a table the collation's
// sorter filled (asciiWeights): GMS's StringType.Compare decodes each
// rune through the character set and calls the sorter per rune, per
// comparison (TPC-H Q16 sorts 2,800 groups by brand and type). The rule
// is GMS's: the first differing weight decides, then the shorter string
// sorts first. Any other pair is the type's Compare.

// strSortKey is a string sort column compared as above.
type StringSortKey struct {
	child sql.Expression
	typ   strSortType
	boxed sql.Type // typ as an interface, made once: Type is asked per comparison
}

// newStrSortKey wraps e when its type is a text type of a utf8mb4 or
// utf8mb3 collation with a sorter.
func newStrSortKey(e sql.Expression) (*StringSortKey, bool) {
	st, ok := e.Type().(sql.StringType)
	if !ok || !types.IsText(st) {
		return nil, false
	}
	switch st.Collation().CharacterSet() {
	case sql.CharacterSet_utf8mb4, sql.CharacterSet_utf8mb3:
	default:
		return nil, false
	}
	w := asciiWeights(st.Collation())
	if w == nil {
		return nil, false
	}
	k := &StringSortKey{child: e, typ: strSortType{stringType: st, weights: w}}
	k.boxed = k.typ
	return k, true
}

func (k *StringSortKey) Type() sql.Type             { return k.boxed }
func (k *StringSortKey) Resolved() bool             { return k.child.Resolved() }
func (k *StringSortKey) IsNullable() bool           { return k.child.IsNullable() }
func (k *StringSortKey) String() string             { return k.child.String() }
func (k *StringSortKey) Children() []sql.Expression { return []sql.Expression{k.child} }
func (k *StringSortKey) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	return k.child.Eval(ctx, row)
}

func (k *StringSortKey) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	if n, ok := newStrSortKey(children[0]); ok {
		return n, nil
	}
	return children[0], nil
}

// strSortType is a string type whose Compare weighs ASCII from a table.
type strSortType struct {
	stringType
	weights *[128]int32
}

// stringType embeds sql.StringType under a name that is not one of its
// methods.
type stringType interface{ sql.StringType }

func (t strSortType) Compare(ctx context.Context, a, b interface{}) (int, error) {
	x, ok1 := a.(string)
	y, ok2 := b.(string)
	if !ok1 || !ok2 || !isASCII(x) || !isASCII(y) {
		return t.stringType.Compare(ctx, a, b)
	}
	for i := 0; i < len(x) && i < len(y); i++ {
		if wa, wb := t.weights[x[i]], t.weights[y[i]]; wa != wb {
			return cmp.Compare(wa, wb), nil
		}
	}
	return cmp.Compare(len(x), len(y)), nil
}

// isASCII reports whether s holds only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// numSortKey is a numeric sort column whose type compares as above. Its
// column is its child, so rules that renumber columns reach it.
type numSortKey struct {
	child sql.Expression
	typ   sql.Type // numSortType of the child's, made once: Type is asked per comparison
}

func newNumSortKey(child sql.Expression) *numSortKey {
	return &numSortKey{child: child, typ: numSortType{child.Type()}}
}

func (k *numSortKey) Type() sql.Type             { return k.typ }
func (k *numSortKey) Resolved() bool             { return k.child.Resolved() }
func (k *numSortKey) IsNullable() bool           { return k.child.IsNullable() }
func (k *numSortKey) String() string             { return k.child.String() }
func (k *numSortKey) Children() []sql.Expression { return []sql.Expression{k.child} }
func (k *numSortKey) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	return k.child.Eval(ctx, row)
}

func (k *numSortKey) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	return newNumSortKey(children[0]), nil
}

// numSortType is a number type whose Compare takes the direct way.
type numSortType struct {
	numberType
}

// numberType embeds sql.Type under a name that is not one of its methods.
type numberType interface{ sql.Type }

func (t numSortType) Compare(ctx context.Context, a, b interface{}) (int, error) {
	switch x := a.(type) {
	case decimal.Decimal:
		if y, ok := b.(decimal.Decimal); ok {
			return x.Cmp(y), nil
		}
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y), nil
		}
	case uint64:
		if y, ok := b.(uint64); ok {
			return cmp.Compare(x, y), nil
		}
	case float64:
		if y, ok := b.(float64); ok && x == x && y == y {
			return cmp.Compare(x, y), nil
		}
	}
	return t.numberType.Compare(ctx, a, b)
}
