package sqlengine

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

const sortCmpRuleID analyzer.RuleId = 1021

func sortCmpRule(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
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
// numSortType; false when none is numeric.
func fastSortFields(fields sql.SortFields) (sql.SortFields, bool) {
	var out sql.SortFields
	for i, f := range fields {
		if _, done := f.Column.(*numSortKey); done || !types.IsNumber(f.Column.Type()) {
			continue
		}
		if out == nil {
			out = append(sql.SortFields(nil), fields...)
		}
		out[i].Column = &numSortKey{child: f.Column}
	}
	return out, out != nil
}

// numSortKey is a numeric sort column whose type compares as above. Its
// column is its child, so rules that renumber columns reach it.
type numSortKey struct {
	child sql.Expression
}

func (k *numSortKey) Type() sql.Type             { return numSortType{k.child.Type()} }
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
	return &numSortKey{child: children[0]}, nil
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
