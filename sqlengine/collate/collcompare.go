package collate

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// Comparisons and sorts by collation, as MySQL's:
//   - under a PAD SPACE collation (every one but the _0900_ ones and
//     binary) trailing spaces do not count: 'b' = 'B ' under
//     utf8mb4_general_ci. GMS compares the whole strings, so comparisons
//     of such strings read them through padTrim (collationRule);
//   - ORDER BY an expression sorts by the expression's collation, which
//     it takes from its operands (CONCAT(s, '') sorts as s does); GMS
//     sorts by the collation of the expression's type, the default
//     binary one, so such keys are read through withCollation.
// Index keys of tables created since (storage.KeyFormatPadSpace) drop
// trailing spaces under PAD SPACE collations too, so an index lookup
// finds 'B ' for 'b' and a unique index refuses both; tables created
// before keep exact keys, and their index lookups the exact spelling.

// padTrim is a string without its trailing spaces.
type padTrim struct{ child sql.Expression }

var _ sql.Expression = (*padTrim)(nil)
var _ sql.CollationCoercible = (*padTrim)(nil)

func (p *padTrim) Resolved() bool             { return p.child.Resolved() }
func (p *padTrim) String() string             { return p.child.String() }
func (p *padTrim) Type() sql.Type             { return p.child.Type() }
func (p *padTrim) IsNullable() bool           { return p.child.IsNullable() }
func (p *padTrim) Children() []sql.Expression { return []sql.Expression{p.child} }

func (p *padTrim) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, p.child)
}

func (p *padTrim) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(p, len(children), 1)
	}
	return &padTrim{child: children[0]}, nil
}

func (p *padTrim) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := p.child.Eval(ctx, row)
	if s, ok := v.(string); ok && err == nil {
		return strings.TrimRight(s, " "), nil
	}
	return v, err
}

// padOperands returns the comparison's operands read through padTrim
// when they are all strings compared under a PAD SPACE collation.
func padOperands(ctx *sql.Context, ops []sql.Expression) ([]sql.Expression, bool) {
	coll, coer := sql.Collation_binary, byte(7)
	for _, o := range ops {
		if !types.IsText(o.Type()) {
			return ops, false
		}
		if _, done := o.(*padTrim); done {
			return ops, false
		}
		c, k := sql.GetCoercibility(ctx, o)
		if coer == 7 {
			coll, coer = c, k
		} else {
			coll, coer = sql.ResolveCoercibility(coll, coer, c, k)
		}
	}
	if !padSpace(coll) || types.IsBinaryType(ops[0].Type()) {
		return ops, false
	}
	out := make([]sql.Expression, len(ops))
	for i, o := range ops {
		out[i] = &padTrim{child: o}
	}
	return out, true
}

// padComparison puts padTrim under a string comparison's operands.
func PadComparison(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	switch x := e.(type) {
	case *expression.Equals, *expression.NullSafeEquals, *expression.LessThan, *expression.LessThanOrEqual,
		*expression.GreaterThan, *expression.GreaterThanOrEqual, *expression.Between:
		ops, ok := padOperands(ctx, e.Children())
		if !ok {
			return e, transform.SameTree, nil
		}
		ne, err := e.WithChildren(ops...)
		if err != nil {
			return nil, transform.SameTree, err
		}
		return ne, transform.NewTree, nil
	case *expression.InTuple, *expression.HashInTuple:
		cmp := x.(expression.Comparer)
		tuple, ok := cmp.Right().(expression.Tuple)
		if !ok {
			return e, transform.SameTree, nil
		}
		// A hashed IN hashes its operands by the left one's type: an
		// expression whose type's collation is not the one it derives
		// (CONCAT(s, '') of a utf8mb4_general_ci s is typed with the
		// default collation) is typed with the derived one first, or
		// 'A' was not found among ('a').
		left, retyped := sortCollation(ctx, cmp.Left())
		ops, padded := padOperands(ctx, append([]sql.Expression{left}, tuple...))
		if !retyped && !padded {
			return e, transform.SameTree, nil
		}
		left, list := ops[0], expression.NewTuple(ops[1:]...)
		if _, hashed := x.(*expression.HashInTuple); !hashed {
			return expression.NewInTuple(left, list), transform.NewTree, nil
		}
		h, err := expression.NewHashInTuple(ctx, left, list)
		if err != nil {
			return e, transform.SameTree, nil
		}
		return h, transform.NewTree, nil
	}
	return e, transform.SameTree, nil
}

// withCollation is a string expression typed with the collation it
// takes from its operands.
type withCollation struct {
	child sql.Expression
	typ   sql.Type
}

var _ sql.Expression = (*withCollation)(nil)

func (w *withCollation) Resolved() bool             { return w.child.Resolved() }
func (w *withCollation) String() string             { return w.child.String() }
func (w *withCollation) Type() sql.Type             { return w.typ }
func (w *withCollation) IsNullable() bool           { return w.child.IsNullable() }
func (w *withCollation) Children() []sql.Expression { return []sql.Expression{w.child} }

func (w *withCollation) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	return w.child.Eval(ctx, row)
}

func (w *withCollation) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(w, len(children), 1)
	}
	return &withCollation{child: children[0], typ: w.typ}, nil
}

// sortCollation returns the sort key e typed with its derived collation
// when that differs from its type's.
func sortCollation(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	if _, done := e.(*withCollation); done {
		return e, false
	}
	return typedWithDerived(ctx, e)
}

// typedWithDerived is e typed with its derived collation
// (derivedCollation); false when it has none.
func typedWithDerived(ctx *sql.Context, e sql.Expression) (sql.Expression, bool) {
	c := derivedCollation(ctx, e)
	if c == 0 {
		return e, false
	}
	t, err := stringTypeWith(e.Type().(sql.StringType), c)
	if err != nil {
		return e, false
	}
	return &withCollation{child: e, typ: t}, true
}

// stringTypeWith is st in collation c. TEXT types: GMS's string
// functions are LONGTEXT, which CreateString refuses at that length (so
// CONCAT, IF and COALESCE sorted by utf8mb4_0900_bin: 'ACME2' before
// 'acme').
func stringTypeWith(st sql.StringType, c sql.CollationID) (sql.Type, error) {
	if st.Type() == sqltypes.Text || st.Type() == sqltypes.Blob {
		return types.CreateLongText(c), nil
	}
	return types.CreateString(st.Type(), st.MaxCharacterLength(), c)
}

// derivedCollation is the collation string expression e takes from its
// operands when it is not a column's and differs from its type's (GMS
// types most string functions LONGTEXT of utf8mb4_0900_bin); 0 if none.
func derivedCollation(ctx *sql.Context, e sql.Expression) sql.CollationID {
	st, ok := e.Type().(sql.StringType)
	if ctx == nil || !ok || !types.IsText(st) {
		return 0
	}
	if _, isCol := e.(*expression.GetField); isCol {
		return 0
	}
	c, _ := sql.GetCoercibility(ctx, e)
	if c == st.Collation() || c == sql.Collation_binary || c == sql.Collation_Unspecified || c.CharacterSet() != st.Collation().CharacterSet() {
		return 0
	}
	return c
}

// aliasCollation types a sort key that reads a column of the sort's
// input (ORDER BY an alias: `SELECT CONCAT(a, b) r ... ORDER BY r`) with
// the collation of the expression that computes the column, when that
// differs from the column's type's; the column's type is GMS's LONGTEXT
// of utf8mb4_0900_bin for most string functions.
func aliasCollation(ctx *sql.Context, input sql.Node, e sql.Expression) (sql.Expression, bool) {
	gf, ok := e.(*expression.GetField)
	if !ok {
		return e, false
	}
	st, ok := gf.Type().(sql.StringType)
	if !ok || !types.IsText(st) {
		return e, false
	}
	var src sql.Expression
	for n, depth := input, 0; n != nil && depth < 4 && src == nil; depth++ {
		switch x := n.(type) {
		case *plan.Project:
			if i := gf.Index(); i >= 0 && i < len(x.Projections) {
				src = x.Projections[i]
			}
		case *plan.GroupBy:
			if i := gf.Index(); i >= 0 && i < len(x.SelectedExprs) {
				src = x.SelectedExprs[i]
			}
		case *plan.Filter, *plan.Having, *plan.Limit, *plan.Distinct:
			n = x.Children()[0]
			continue
		}
		break
	}
	if src == nil {
		return e, false
	}
	if a, ok := src.(*expression.Alias); ok {
		src = a.Child
	}
	c := derivedCollation(ctx, src)
	if c == 0 || c.CharacterSet() != st.Collation().CharacterSet() {
		return e, false
	}
	t, err := stringTypeWith(st, c)
	if err != nil {
		return e, false
	}
	return &withCollation{child: e, typ: t}, true
}

// collateSorts gives Sort and TopN keys their derived collations.
func collateSorts(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		var fields sql.SortFields
		switch x := n.(type) {
		case *plan.Sort:
			fields = x.SortFields
		case *plan.TopN:
			fields = x.Fields
		default:
			return n, transform.SameTree, nil
		}
		nf := make(sql.SortFields, len(fields))
		changed := false
		for i, f := range fields {
			nf[i] = f
			if c, ok := sortCollation(ctx, f.Column); ok {
				nf[i].Column, changed = c, true
			} else if c, ok := aliasCollation(ctx, n.Children()[0], f.Column); ok {
				nf[i].Column, changed = c, true
			}
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		switch x := n.(type) {
		case *plan.Sort:
			return plan.NewSort(nf, x.Child), transform.NewTree, nil
		case *plan.TopN:
			t := *x
			t.Fields = nf
			return &t, transform.NewTree, nil
		}
		return n, transform.SameTree, nil
	})
}
